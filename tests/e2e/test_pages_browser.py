"""Every classroom page opens in a real browser without an exception; a screenshot of each is saved.

The screenshots (``artifacts/screenshots/page_<name>.png``) are for people to
look at; the test asserts that each page rendered its key result.
"""
from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import ARTIFACTS
from tests.e2e.waits import SLOW, after_paint, wait_until_idle

pytestmark = pytest.mark.e2e

# url path -> text that appears only once the page has computed its main result
PAGES = {
    "gradient_check": "All 3 inputs agree",
    "train_mlp": "nodes per step",
    "pitfalls": "RecursionError",
    "broadcasting": "lucid's backward gives the same",
    "op_reference": "differentiable ops agree with central differences",
}


def test_every_classroom_page_renders_and_is_photographed(page, app_url):
    shots = ARTIFACTS / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    page.goto(app_url + "/")  # the entry script registers the navigation first
    page.wait_for_selector("[data-testid='stHeader'], header", timeout=SLOW)
    wait_until_idle(page)
    for path, marker in PAGES.items():
        page.goto(f"{app_url}/{path}")
        # The marker is the page's computed result; after it, the run must also end (no late exception).
        page.get_by_text(re.compile(re.escape(marker))).first.wait_for(timeout=SLOW)
        wait_until_idle(page)
        assert page.locator("[data-testid='stException']").count() == 0, f"exception on /{path}"
        page.set_viewport_size({"width": 1400, "height": 3200})  # the app scrolls inside; show it all
        after_paint(page)
        out = shots / f"page_{path}.png"
        page.screenshot(path=str(out), full_page=True)
        assert out.stat().st_size > 10_000
        page.set_viewport_size({"width": 1400, "height": 950})
