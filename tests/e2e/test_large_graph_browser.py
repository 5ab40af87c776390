"""In a real browser: the scalar MLP step on the Train an MLP page is drawn collapsed and can be stepped and opened."""
from __future__ import annotations

import re

import pytest

from tests.e2e.waits import SLOW, wait_until_idle

pytestmark = pytest.mark.e2e

SECTION_CAPTION = re.compile(r"boxes and nodes drawn for 4,658 nodes")


def scalar_caption(page) -> str:
    return page.get_by_text(SECTION_CAPTION).first.inner_text()


def scalar_image_src(page) -> str:
    """The src of the image right after the collapsed-step caption (the collapsed scalar graph).

    Streamlit may mount the image a moment after the run ends, so this waits for it to exist.
    """
    return page.wait_for_function(_SRC_AFTER_CAPTION, timeout=SLOW).json_value()


_SRC_AFTER_CAPTION = """() => {
        const caption = [...document.querySelectorAll('[data-testid="stCaptionContainer"]')]
            .find(e => /boxes and nodes drawn for/.test(e.innerText));
        if (!caption) return null;
        const images = [...document.querySelectorAll('[data-testid="stImage"] img')];
        const after = images.find(img => caption.compareDocumentPosition(img) & Node.DOCUMENT_POSITION_FOLLOWING);
        return after ? after.getAttribute('src') : null;
    }"""


def test_stepping_and_opening_a_box_in_the_collapsed_scalar_graph(page, app_url):
    page.goto(f"{app_url}/train_mlp")
    page.get_by_text(SECTION_CAPTION).first.wait_for(timeout=SLOW)
    wait_until_idle(page)
    first = scalar_caption(page)
    assert first.startswith("Step 161:") and "14 boxes and nodes drawn" in first
    src = scalar_image_src(page)
    assert src

    slider = page.get_by_role("slider", name=re.compile("backward step")).first
    slider.scroll_into_view_if_needed()
    slider.focus()
    for expected in (160, 159, 158):  # one collapsed step back per key press
        page.keyboard.press("ArrowLeft")
        page.get_by_text(re.compile(rf"^Step {expected}:")).first.wait_for(timeout=SLOW)
        wait_until_idle(page)
    assert scalar_image_src(page) != src

    picker = page.get_by_label("open or close a box")
    picker.scroll_into_view_if_needed()
    picker.click()
    page.get_by_role("option", name=re.compile(r"^open ▸ sample 72 … sample 79")).first.click()
    page.get_by_text(re.compile(r"22 boxes and nodes drawn for 4,658 nodes")).first.wait_for(timeout=SLOW)
    wait_until_idle(page)
    assert page.locator("[data-testid='stException']").count() == 0
