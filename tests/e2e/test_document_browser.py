"""Every page has its own title in the reader's language, and ``<html lang>`` follows the language (WCAG 2.4.2, 3.1.1).

On the way, every page's pictures are checked for a text alternative (1.1.1).

A test client of Streamlit never sees ``document.title`` or the ``<html>`` element, so these run in Chromium.
The expected titles come from the catalogs (``lucid.i18n``) through ``lucid.ui.runtime.document.title``; the test
asserts that they are what the browser shows, that all twelve differ, and that the Korean ones are Korean.
"""
from __future__ import annotations

import re

import pytest

from lucid import i18n
from lucid.i18n import _
from lucid.ui.runtime import document
from tests.e2e.waits import SLOW, wait_until_idle

pytestmark = pytest.mark.e2e

#: url path -> the page's English name (as ``app.py`` titles it, translated through the catalog)
PAGES = {"playground": "Playground", "gradient_check": "Gradient check", "train_mlp": "Train an MLP",
         "pitfalls": "Pitfalls", "broadcasting": "Broadcasting", "op_reference": "Op reference"}
HANGUL = re.compile(r"[\uac00-\ud7a3]")


def expected_title(name: str, language: str) -> str:
    with i18n.use_language(language):
        return document.title(_(name))


def wait_for_document(page, title: str, lang: str) -> None:
    page.wait_for_function("([title, lang]) => document.title === title && document.documentElement.lang === lang",
                           arg=[title, lang], timeout=SLOW)


def test_every_page_has_its_own_title_and_language_in_both_languages(page, app_url):
    seen: dict[str, str] = {}
    for language in ("en", "ko"):
        for path, name in PAGES.items():
            query = "?lang=ko" if language == "ko" else ""
            page.goto(f"{app_url}/{path}{query}")
            title = expected_title(name, language)
            wait_for_document(page, title, language)
            wait_until_idle(page, timeout=2 * SLOW)  # the Train page trains once for the whole server
            assert (page.title(), page.evaluate("() => document.documentElement.lang")) == (title, language)
            seen[f"{language}:{path}"] = page.title()
            # 1.1.1: every picture Streamlit drew has a text alternative (the lesson pages' graphs are <img>s)
            assert page.evaluate("() => [...document.querySelectorAll('[data-testid=stApp] img')]"
                                 ".filter(img => !img.getAttribute('alt')).length") == 0, path
    print("titles:", seen)
    assert len(set(seen.values())) == len(PAGES) * 2, seen
    for key, title in seen.items():
        assert title.endswith(" · Lucid Graph Lab"), title
        page_name = title.removesuffix(" · Lucid Graph Lab")
        if key.startswith("ko:") and key != "ko:train_mlp":  # "MLP 학습": Korean with an English abbreviation
            assert HANGUL.search(page_name) and not re.search("[A-Za-z]", page_name), title
        elif key.startswith("ko:"):
            assert HANGUL.search(page_name), title
        else:
            assert not HANGUL.search(page_name), title


def test_the_picker_changes_the_documents_language_and_it_holds_on_the_next_page(page, app_url):
    page.goto(f"{app_url}/pitfalls")
    page.get_by_role("heading", name="Three classic pitfalls", level=1).wait_for(timeout=SLOW)
    wait_for_document(page, expected_title("Pitfalls", "en"), "en")
    wait_until_idle(page)
    box = page.locator(".st-key-page_language_corner [role=combobox]")
    box.click()
    box.fill("한국")
    page.get_by_role("option", name="한국어").click()
    wait_for_document(page, expected_title("Pitfalls", "ko"), "ko")
    wait_until_idle(page)
    page.get_by_role("link", name=expected_title("Broadcasting", "ko").split(" · ")[0]).first.click()
    wait_for_document(page, expected_title("Broadcasting", "ko"), "ko")
    assert "lang=ko" in page.url


def test_the_language_script_takes_no_room_on_the_page(page, app_url):
    page.goto(f"{app_url}/op_reference?lang=ko")
    wait_for_document(page, expected_title("Op reference", "ko"), "ko")
    wait_until_idle(page)
    # the flex item of the page's column that holds the script (Streamlit's layout wrapper) is not laid out, so
    # the column's 1rem gap is not added above the page's title
    item = page.evaluate("""sel => { let el = document.querySelector(sel);
        while (el.parentElement.parentElement.dataset.testid !== 'stMainBlockContainer') el = el.parentElement;
        return [el.dataset.testid, getComputedStyle(el).display, el.getBoundingClientRect().height]; }""",
                         f".st-key-{document.HEAD_KEY}")
    assert item == ["stLayoutWrapper", "none", 0]
