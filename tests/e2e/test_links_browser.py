"""Shared links open the program they carry, on a server that has already served other pages."""
from __future__ import annotations

from urllib.parse import quote

import pytest

from tests.e2e.waits import SLOW, wait_until_idle

pytestmark = pytest.mark.e2e

PROGRAM = "p = 1.5\nq = p * p"


@pytest.mark.parametrize("path", ["/playground", "/"])
def test_a_program_link_opens_that_program_after_other_pages_were_served(page, app_url, path):
    page.goto(app_url + "/gradient_check")  # the server has now run st.navigation in some session
    page.wait_for_selector("[data-testid='stHeader'], header", timeout=SLOW)
    wait_until_idle(page)
    page.goto(f"{app_url}{path}?code={quote(PROGRAM)}")
    editor = page.locator("textarea").first
    editor.wait_for(timeout=SLOW)
    wait_until_idle(page)
    assert editor.input_value() == PROGRAM
    assert page.get_by_text("Page not found").count() == 0
    assert "/playground" in page.url and "code=" in page.url
