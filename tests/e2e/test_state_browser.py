"""State never lost, in a real browser: the Drawing popover shows what is drawn, a program survives other pages,
the browser's Back button and a reload, and *Copy link* copies the link of the view on screen."""
from __future__ import annotations

from urllib.parse import parse_qs, quote, urlparse

import pytest

from tests.e2e.waits import SLOW, wait_until_idle

pytestmark = pytest.mark.e2e

GRAPH_NODES = ".st-key-pg_graph g.node"
PROGRAM = "p = 1.5\nq = p * p + p"
POPOVER = "[data-testid='stPopoverBody']"
STEP_SLIDER = ".st-key-pg_graph input.lucid-step"


def open_playground(page, app_url: str, query: str = "") -> None:
    page.goto(f"{app_url}/playground{query}")
    page.wait_for_selector(GRAPH_NODES, timeout=SLOW)
    wait_until_idle(page)


def run_and_wait(page) -> None:
    page.get_by_role("button", name="Run").click()
    page.wait_for_timeout(200)  # the click's rerun has been asked for; then wait for it to end
    wait_until_idle(page)


def drawing_popover(page) -> dict[str, bool]:
    """Open *Drawing*, read what its boxes and radios show, close it again."""
    page.get_by_role("button", name="Drawing").click()
    body = page.locator(POPOVER)
    body.wait_for()
    shown = {name: body.get_by_role("checkbox", name=name).is_checked()
             for name in ("Values", "Gradients", "Shapes", "Constants")}
    shown["Circuit"] = body.get_by_role("radio", name="Circuit (CS231n)").is_checked()
    page.keyboard.press("Escape")
    body.wait_for(state="hidden")
    return shown


def query(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def toggle_classroom(page, on: bool) -> None:
    page.get_by_text("Classroom mode").click()
    page.wait_for_function("on => location.search.includes('classroom=1') === on", arg=on, timeout=SLOW)
    wait_until_idle(page)


#: What each page shows once its run has got going: "not running" alone is also true in the instant
#: between the menu click and the new page's run, when the address is not yet the page's own.
SHOWN = {"Pitfalls": "h1:has-text('Three classic pitfalls')", "Playground": ".st-key-pg_graph .lucid-player"}


def click_menu(page, name: str) -> None:
    page.get_by_role("link", name=name).first.click()
    page.wait_for_url(f"**/{name.lower()}**", timeout=SLOW)
    page.wait_for_selector(SHOWN[name], timeout=SLOW)
    wait_until_idle(page)


def back_to_the_playground(page) -> None:
    """The browser's back button from the page the menu opened. On a loaded machine the menu's page can hold two
    history entries (its address, then the same address with the query string its run wrote, seen as
    ``pitfalls?classroom=1``): back goes through both, as a person presses back again."""
    for _ in range(2):
        page.go_back()
        wait_until_idle(page)
        if "/playground" in page.url:
            return
    page.wait_for_url("**/playground**", timeout=SLOW)


def test_after_run_the_drawing_popover_shows_what_is_drawn_and_a_toggle_changes_nothing_else(page, app_url):
    open_playground(page, app_url, f"?code={quote(PROGRAM)}&style=circuit&hide=g")
    run_and_wait(page)
    expected = {"Values": True, "Gradients": False, "Shapes": True, "Constants": True, "Circuit": True}
    assert drawing_popover(page) == expected
    toggle_classroom(page, on=True)
    assert query(page)["hide"] == ["g"] and query(page)["style"] == ["circuit"]
    assert drawing_popover(page) == expected
    toggle_classroom(page, on=False)  # the editor unfolds again
    run_and_wait(page)
    toggle_classroom(page, on=True)
    assert query(page)["hide"] == ["g"]
    assert drawing_popover(page) == expected


def test_program_step_and_view_survive_another_page_the_menu_the_back_button_and_a_reload(page, app_url):
    open_playground(page, app_url, f"?code={quote(PROGRAM)}&dir=LR")
    toggle_classroom(page, on=True)
    for _ in range(2):  # stepping happens in the browser: the server does not hear of it
        page.locator(".st-key-pg_graph button", has_text="Next").first.click()
    page.wait_for_function("() => location.search.includes('step=2')", timeout=SLOW)

    click_menu(page, "Pitfalls")
    assert query(page).get("classroom") == ["1"]  # Classroom mode holds on the other page
    click_menu(page, "Playground")
    page.wait_for_selector(GRAPH_NODES, timeout=SLOW)
    assert page.locator("textarea").first.input_value() == PROGRAM
    assert query(page)["code"] == [PROGRAM] and query(page)["dir"] == ["LR"]
    assert page.get_by_role("switch", name="Classroom mode").is_checked()
    page.wait_for_function("() => location.search.includes('step=2')", timeout=SLOW)
    assert page.eval_on_selector(STEP_SLIDER, "el => el.value") == "2"

    click_menu(page, "Pitfalls")
    back_to_the_playground(page)
    page.wait_for_selector(GRAPH_NODES, timeout=SLOW)
    wait_until_idle(page)
    assert page.locator("textarea").first.input_value() == PROGRAM
    assert query(page)["code"] == [PROGRAM] and query(page)["step"] == ["2"]

    page.reload()
    page.wait_for_selector(GRAPH_NODES, timeout=SLOW)
    wait_until_idle(page)
    assert page.locator("textarea").first.input_value() == PROGRAM
    assert page.get_by_role("switch", name="Classroom mode").is_checked()
    assert page.eval_on_selector(STEP_SLIDER, "el => el.value") == "2"


def test_copy_link_copies_the_address_of_the_view_on_screen(page, app_url):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=app_url)
    open_playground(page, app_url, f"?code={quote(PROGRAM)}&style=circuit")
    page.locator(".st-key-pg_graph button", has_text="Next").first.click()
    page.wait_for_function("() => location.search.includes('step=1')", timeout=SLOW)
    page.get_by_role("button", name="Copy link").click()
    page.get_by_text("Link copied").wait_for()
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert copied == page.url
    assert parse_qs(urlparse(copied).query) == {"code": [PROGRAM], "style": ["circuit"], "step": ["1"]}
