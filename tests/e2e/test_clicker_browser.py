"""The clicker's keys wherever a lecturer is: the Forward-mode panel, after *Open in Playground*, lesson pages.

- The Forward-mode panel, once used (opened), steps with →/PageDown, ←/PageUp, Home/End while the backward
  player stays where it was; a click on the graph gives the keys back to the player.
- *Open in Playground* from Pitfalls (Classroom mode) lands with the keys on the Playground's player.
- Every lesson page in Classroom mode at 1280×720: the title right under the app's top bar (a compact band,
  like the Playground's first row) and no text under 18 px (body text 20 px; captions and inline code 18 px).
"""
from __future__ import annotations

import contextlib

import pytest

from tests.e2e.conftest import ARTIFACTS
from tests.e2e.waits import SLOW, after_paint, wait_until_idle

pytestmark = pytest.mark.e2e

PLAYER = ".st-key-pg_graph .lucid-player"
PROJECTOR = {"width": 1280, "height": 720}
LESSON_PAGES = ["gradient_check", "train_mlp", "pitfalls", "broadcasting", "op_reference"]
SHOTS = ARTIFACTS / "screenshots"


def _forward(tab) -> dict:
    return tab.evaluate("""(sel) => ({
        keys_line: document.querySelector('.lucid-fwd-keys').dataset.step,
        slider: document.querySelector('[data-testid="stExpander"] [data-testid="stSlider"] input[type=range]').value,
        player: document.querySelector(sel).dataset.step,
        owner: document.body.dataset.lucidKeys || 'player'})""", PLAYER)


def _press_and_settle(tab, key: str, step: int) -> None:
    tab.keyboard.press(key)
    tab.wait_for_function("s => document.querySelector('[data-testid=\"stExpander\"] [data-testid=\"stSlider\"] "
                          "input[type=range]')?.value === String(s)", arg=step, timeout=SLOW)
    wait_until_idle(tab)


def test_the_forward_panel_steps_with_the_clickers_keys_once_used_and_the_player_has_them_again_after(tab, app_url):
    tab.set_viewport_size(PROJECTOR)
    tab.goto(f"{app_url}/playground?example=cs231n-sigmoid&classroom=1")  # 8 forward steps (seed + 7)
    tab.wait_for_selector(f"{PLAYER} g.node.current", timeout=SLOW)
    wait_until_idle(tab)
    tab.keyboard.press("ArrowRight")  # nothing used yet: the player has the keys, as before
    assert tab.eval_on_selector(PLAYER, "el => el.dataset.step") == "1"
    tab.locator("[data-testid='stExpander'] summary", has_text="Forward mode").click()
    tab.wait_for_selector(".lucid-fwd-keys.lucid-fwd-keys-on", timeout=SLOW)
    assert _forward(tab) == {"keys_line": "7", "slider": "7", "player": "1", "owner": "forward"}
    _press_and_settle(tab, "Home", 0)
    for key, step in (("ArrowRight", 1), ("PageDown", 2), ("PageDown", 3), ("ArrowLeft", 2), ("PageUp", 1)):
        _press_and_settle(tab, key, step)
        assert _forward(tab) == {"keys_line": str(step), "slider": str(step), "player": "1", "owner": "forward"}
    _press_and_settle(tab, "End", 7)
    _press_and_settle(tab, "PageUp", 6)
    after_paint(tab)
    line = tab.locator(".lucid-fwd-keys").bounding_box()
    assert 0 <= line["y"] <= PROJECTOR["height"] / 2  # the press brought the panel's step on screen
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SHOTS / "forward_panel_clicker.png"))
    assert "tangent" in tab.locator("[data-testid='stExpander']", has_text="Forward mode").inner_text().lower()

    tab.locator(f"{PLAYER} .lucid-svg-host").click(position={"x": 4, "y": 4})  # the graph: keys to the player
    tab.keyboard.press("ArrowRight")
    tab.wait_for_function("sel => document.querySelector(sel).dataset.step === '2'", arg=PLAYER, timeout=SLOW)
    assert _forward(tab)["owner"] == "player" and _forward(tab)["slider"] == "6"


def test_a_folded_forward_panel_never_takes_the_keys(tab, app_url):
    tab.set_viewport_size(PROJECTOR)
    tab.goto(f"{app_url}/playground?example=cs231n-sigmoid&classroom=1")
    tab.wait_for_selector(f"{PLAYER} g.node.current", timeout=SLOW)
    wait_until_idle(tab)
    summary = tab.locator("[data-testid='stExpander'] summary", has_text="Forward mode")
    summary.click()
    tab.wait_for_selector(".lucid-fwd-keys.lucid-fwd-keys-on", timeout=SLOW)
    summary.click()  # folded again: its header was the last thing used, but a closed panel steps nothing
    # a folded panel draws nothing inside (not its keys either), so the backward player takes the clicker
    tab.wait_for_selector(".lucid-fwd-keys-on", state="detached", timeout=SLOW)
    tab.keyboard.press("PageDown")
    tab.wait_for_function("sel => document.querySelector(sel).dataset.step === '1'", arg=PLAYER, timeout=SLOW)
    assert tab.locator(".lucid-fwd-keys").count() == 0


def test_open_in_playground_from_pitfalls_leaves_the_keys_with_the_playgrounds_player(tab, app_url):
    tab.set_viewport_size(PROJECTOR)
    tab.goto(f"{app_url}/pitfalls?classroom=1")
    button = tab.get_by_role("button", name="Open in Playground")
    button.wait_for(timeout=SLOW)
    wait_until_idle(tab)
    button.click()
    tab.wait_for_url("**/playground**", timeout=SLOW)
    tab.wait_for_selector(f"{PLAYER}.lucid-classroom g.node.current", timeout=SLOW)
    wait_until_idle(tab)
    assert tab.eval_on_selector(PLAYER, "el => el.dataset.step") == "2"  # the graph's last step
    for key, step in (("ArrowLeft", "1"), ("PageUp", "0"), ("PageDown", "1"), ("End", "2"), ("Home", "0")):
        tab.keyboard.press(key)
        tab.wait_for_function("([sel, s]) => document.querySelector(sel).dataset.step === s", arg=[PLAYER, step],
                              timeout=SLOW)


LAYOUT = """() => {
    const header = document.querySelector('[data-testid="stHeader"]').getBoundingClientRect();
    const h1 = document.querySelector('[data-testid="stMain"] h1').getBoundingClientRect();
    const small = [];
    for (const e of document.querySelectorAll('[data-testid="stMain"] *')) {
        if (!e.offsetParent || ![...e.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim())) continue;
        const px = parseFloat(getComputedStyle(e).fontSize);
        const caption = !!e.closest('[data-testid="stCaptionContainer"]');
        const code = e.tagName === 'CODE' && !e.closest('pre');
        if (px < 18 || (px < 20 && !caption && !code)) small.push([px, e.tagName, e.textContent.trim().slice(0, 30)]);
    }
    return {header_bottom: header.bottom, title_top: h1.top, title_bottom: h1.bottom, small};
}"""


@pytest.mark.parametrize("name", LESSON_PAGES)
def test_a_lesson_page_in_classroom_mode_has_a_compact_title_band_and_20px_text(tab, app_url, name):
    tab.set_viewport_size(PROJECTOR)
    tab.goto(f"{app_url}/{name}?classroom=1")
    tab.wait_for_selector("[data-testid='stMain'] h1", timeout=SLOW)
    tab.wait_for_function("() => getComputedStyle(document.documentElement).fontSize === '20px'", timeout=SLOW)
    wait_until_idle(tab)
    after_paint(tab)
    from playwright.sync_api import TimeoutError as PlaywrightTimeout  # here: collecting this file stays cheap

    with contextlib.suppress(PlaywrightTimeout):  # the page's Classroom style lands a moment after its text
        tab.wait_for_function(f"() => {{ const m = ({LAYOUT})(); return m.title_top - m.header_bottom <= 40 "
                              "&& m.small.length === 0; }", timeout=20_000)
    m = tab.evaluate(LAYOUT)
    assert m["title_top"] - m["header_bottom"] <= 40, m  # was ~115 px of padding above a 55 px title
    assert m["title_bottom"] <= 170, m  # the page's own text starts by y = 170 (was 301)
    assert m["small"] == [], m["small"]  # labels, buttons, slider numbers, metrics: 20 px like the body
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SHOTS / f"classroom_{name}.png"))
