"""The app at ?lang=ko in a real browser (issue 18): programs run, draw and explain in Korean; every page speaks it.

Three programs: the default example, the CS231n sigmoid neuron and a 2-layer MLP whose names are Korean.
Each opens at ``?lang=ko``, is stepped in the player, and is photographed (``artifacts/korean-*.png``).
The Korean-named MLP shows, node for node, the same values and gradients as the same program with ASCII
names (read from the drawing at the last step), and Python computes bit-identical gradients for both.

"No untranslated UI text" is defined on what a person can see: the visible text of the page (the DOM's
``innerText``, SVG labels included) with code left out (code spans, the editor, formulas, the program's
own names, op names and the drawing's ``val``/``grad`` symbols, key names, and the glossary's English gloss
in parentheses right after a Korean term, 연쇄 법칙(chain rule)) must hold no run of two or more English
words. A label, caption, button or explanation that skipped the catalog is such a run.
"""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlencode

import numpy as np
import pytest

from lucid import gallery
from lucid.session import share
from lucid.session.analysis import analyze
from tests.e2e.waits import SLOW, after_paint, retry_idempotent, wait_until_idle

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
GRAPH = ".st-key-pg_graph"
NODES = f"{GRAPH} g.node"
STEP_INPUT = f"{GRAPH} input.lucid-step"

KOREAN_MLP = gallery.by_slug("korean-mlp").source
ASCII_NAMES = {"입력": "x", "가중치1": "W1", "편향1": "b1", "은닉": "h", "가중치2": "W2", "편향2": "b2", "출력": "out",
               "손실": "loss", "한국어 이름의 2층 MLP": "a 2-layer MLP"}


def ascii_mlp() -> str:
    source = KOREAN_MLP
    for korean in sorted(ASCII_NAMES, key=len, reverse=True):
        source = source.replace(korean, ASCII_NAMES[korean])
    return source


#: Words that are code or names, never prose: op and function names, the drawing's symbols, key names.
CODE_WORDS = {
    "grad", "val", "tanh", "sigmoid", "log", "exp", "neg", "sum", "mean", "max", "min", "relu", "const", "matmul",
    "backward", "requires", "NaN", "inf", "float64", "CS231n", "Ctrl", "Enter", "Page", "Up", "Down", "Home",
    "End", "Space", "Lucid", "Graph", "Lab", "MLP", "out", "pending", "DOT", "SVG", "PNG", "GIF",
}
#: The glossary's first-use gloss: an English term in parentheses right after its Korean word, 기울기(gradient).
GLOSS = re.compile(r"(?<=[\uac00-\ud7a3])\([A-Za-z][A-Za-z '-]*(?=[),])")
ENGLISH_RUN = re.compile(r"\b[A-Za-z]{2,}(?:[ \t]+[A-Za-z]{2,})+\b")

VISIBLE_TEXT_JS = """
([root, code]) => {
  // Every text a person can see on the page: text nodes whose element is rendered, on screen and not
  // clipped away (Streamlit's "skip to content" link waits off screen until focused), code left out.
  const out = [];
  const walker = document.createTreeWalker(document.querySelector(root), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || !node.textContent.trim() || el.closest(code)) continue;
    if (!el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
    const box = el.getBoundingClientRect();
    if (box.width < 2 || box.height < 2 || box.right < 0 || box.bottom < 0) continue;
    out.push(node.textContent);
  }
  return out.join('\\n');
}
"""
CODE = "code, pre, textarea, .lgl-formula, .lgl-name, .lgl-arith, .stCode, [data-testid='stCode']"


def untranslated(text: str, names: set[str]) -> list[str]:
    """Runs of two or more English words left once names and code words are taken out."""
    allowed = CODE_WORDS | names
    text = GLOSS.sub("", text)
    kept = re.sub(r"\b(?:" + "|".join(map(re.escape, sorted(allowed, key=len, reverse=True))) + r")\b", "·", text)
    return ENGLISH_RUN.findall(kept)


def visible_text(page) -> str:
    return page.evaluate(VISIBLE_TEXT_JS, ["[data-testid='stApp']", CODE])


def names_of(source: str) -> set[str]:
    return {t.name for t in analyze(source).order if t.name} | {"t" + str(k) for k in range(200)}


def open_korean(page, app_url: str, **params: str) -> None:
    page.goto(f"{app_url}/playground?{urlencode({'lang': 'ko', **params})}")
    page.wait_for_selector(NODES, timeout=SLOW)
    wait_until_idle(page)


def go_to_step(page, key: str, step: int) -> None:
    """Step with the player's own buttons (labelled in Korean), until the slider shows ``step``."""
    label = {"next": "다음", "last": "마지막", "first": "처음"}[key]
    page.get_by_role("button", name=label, exact=True).click()
    page.wait_for_function(f"n => Number(document.querySelector('{STEP_INPUT}')?.value) === n", arg=step)
    after_paint(page)


def explanation(page) -> tuple[str, str]:
    head = page.locator(f"{GRAPH} .lucid-expl-head").inner_text()
    body = page.locator(f"{GRAPH} .lucid-expl-body").inner_text()
    return head, body


def shoot(page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"korean-{name}.png"
    page.screenshot(path=str(path))
    assert path.stat().st_size > 20_000
    return path


def leaf_labels(page, source: str) -> dict[str, str]:
    """The drawing's text of each node, its first line (the name) left out: values and gradients."""
    labels = page.eval_on_selector_all(NODES, "els => els.map(e => [e.id, [...e.querySelectorAll('text')]"
                                              ".map(t => t.textContent.trim()).filter(Boolean)])")
    return {node_id: " ".join(texts[1:]) for node_id, texts in labels if node_id.startswith("t")}


def test_the_default_example_runs_draws_and_explains_in_korean(page, app_url):
    open_korean(page, app_url)
    assert page.get_by_role("heading", name="플레이그라운드").is_visible()
    assert page.get_by_role("button", name="링크 복사").is_visible()
    head, body = explanation(page)
    assert head.startswith("단계 0 / 17") and "역전파(backward pass)" in body
    go_to_step(page, "next", 1)
    head, body = explanation(page)
    assert head.startswith("단계 1 / 17") and "연쇄 법칙(chain rule)" in body and "국소 미분" in body
    assert "lang=ko" in page.url
    shoot(page, "playground")
    assert untranslated(visible_text(page), names_of(gallery.DEFAULT.source)) == []
    assert page.locator("[data-testid='stException']").count() == 0


def test_the_cs231n_neuron_explains_each_gate_in_korean(page, app_url):
    source = gallery.by_slug("cs231n-sigmoid").source
    open_korean(page, app_url, example="cs231n-sigmoid")
    n = analyze(source).n_steps
    go_to_step(page, "last", n - 1)
    head, body = explanation(page)
    assert head.startswith(f"단계 {n - 1} / {n - 1}") and "확정" in body
    lesson = page.locator("[data-testid='stCaptionContainer']").filter(has_text="게이트(neg, exp, +1, 1/x)")
    assert lesson.is_visible()  # the gallery's lesson of this example, in Korean
    shoot(page, "cs231n-neuron")
    assert untranslated(visible_text(page), names_of(source)) == []


def test_a_korean_named_mlp_has_the_gradients_of_the_ascii_named_one(page, app_url):
    korean, ascii_named = analyze(KOREAN_MLP), analyze(ascii_mlp())
    assert [t.name for t in korean.order if t.name] == ["입력", "가중치1", "편향1", "은닉", "가중치2", "편향2", "출력",
                                                        "손실"]
    for k, a in zip(korean.order, ascii_named.order, strict=True):
        assert (k.grad is None) == (a.grad is None)
        if k.grad is not None:
            assert np.array_equal(k.grad, a.grad)

    n = korean.n_steps
    open_korean(page, app_url, example="korean-mlp")
    page.locator("[data-testid='stCaptionContainer']").filter(has_text="가중치, 편향").wait_for()  # its lesson
    go_to_step(page, "last", n - 1)
    drawn_korean = leaf_labels(page, KOREAN_MLP)
    head, body = explanation(page)
    assert "가중치1" in head + body or "입력" in head + body or "편향1" in head + body
    shoot(page, "mlp-korean-names")
    assert untranslated(visible_text(page), names_of(KOREAN_MLP)) == []

    open_korean(page, app_url, **share.encode(ascii_mlp()))
    go_to_step(page, "last", n - 1)
    drawn_ascii = leaf_labels(page, ascii_mlp())
    assert drawn_korean.keys() == drawn_ascii.keys() and len(drawn_korean) == korean.n_tensors
    assert drawn_korean == drawn_ascii  # every value and gradient, as drawn, node for node
    assert any("grad" in text for text in drawn_korean.values())


def choose_language(page, name: str, heading: str) -> None:
    """Pick a language in the title row's picker the way a person does, until the page's heading says it.

    Choosing a language is idempotent, so a choice lost while the player scrolls the page under the open
    list (it keeps the current node in view after a redraw) is simply made again (``retry_idempotent``).
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout  # only where a browser runs

    def choose() -> None:
        box = page.locator(".st-key-pg_language [role=combobox]")
        box.scroll_into_view_if_needed()
        box.click()
        box.fill(name[:2])  # the picker is a combo box: typing narrows the list to the language
        try:
            page.get_by_role("option", name=name).click(timeout=10_000)
        except PlaywrightTimeout:
            page.keyboard.press("Escape")

    def done(timeout: float) -> bool:
        try:
            page.get_by_role("heading", name=heading).wait_for(timeout=timeout)
        except PlaywrightTimeout:
            return False
        return True

    retry_idempotent(choose, done)
    wait_until_idle(page)


def test_the_picker_turns_a_korean_page_back_to_english_and_the_link_follows(page, app_url):
    open_korean(page, app_url, example="neuron")
    choose_language(page, "English", "Playground")
    page.wait_for_function("() => !new URLSearchParams(location.search).has('lang')")
    page.get_by_role("button", name="Next", exact=True).wait_for()  # the player relabelled in place
    assert page.get_by_role("button", name="Copy link").is_visible()
    choose_language(page, "한국어", "플레이그라운드")
    page.wait_for_function("() => new URLSearchParams(location.search).get('lang') === 'ko'")
    page.get_by_role("button", name="다음", exact=True).wait_for()


#: Every page besides the Playground, with its Korean title (the navigation's and the page's heading).
PAGES = {"gradient_check": "기울기 확인", "train_mlp": "MLP 학습", "pitfalls": "세 가지 흔한 실수",
         "broadcasting": "브로드캐스팅의 순전파와 역전파", "op_reference": "연산 목록"}


@pytest.mark.parametrize("path", list(PAGES))
def test_every_page_speaks_korean(page, app_url, path):
    page.goto(f"{app_url}/{path}?lang=ko")
    page.get_by_role("heading", name=PAGES[path], level=1).wait_for(timeout=SLOW)
    wait_until_idle(page, timeout=2 * SLOW)  # the Train page trains once for the whole server
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.get_by_role("link", name="플레이그라운드").first.is_visible()  # the navigation too
    shoot(page, path)
    assert untranslated(visible_text(page), set()) == []


def test_a_lesson_page_has_its_own_picker_beside_its_title(page, app_url):
    page.goto(f"{app_url}/pitfalls")
    page.get_by_role("heading", name="Three classic pitfalls", level=1).wait_for(timeout=SLOW)
    wait_until_idle(page)
    box = page.locator(".st-key-page_language_corner [role=combobox]")
    # one row: the picker sits beside the title once the page's style has been applied
    page.wait_for_function("""() => {
        const picker = document.querySelector('.st-key-page_language_corner [role=combobox]');
        const title = document.querySelector('h1');
        if (!picker || !title) return false;  // between two runs of the page
        const p = picker.getBoundingClientRect(), t = title.getBoundingClientRect();
        return p.top < t.bottom && p.bottom > t.top && p.left > t.left; }""", timeout=SLOW)
    box.click()
    box.fill("한국")
    page.get_by_role("option", name="한국어").click()
    page.get_by_role("heading", name=PAGES["pitfalls"], level=1).wait_for(timeout=SLOW)
    page.wait_for_function("() => new URLSearchParams(location.search).get('lang') === 'ko'")
