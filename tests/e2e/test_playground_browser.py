"""The Playground in a real browser: the SVG graph, stepping, redrawing, autoplay, and the README screenshot."""
from __future__ import annotations

from pathlib import Path

import pytest

from lucid import gallery
from lucid.session.analysis import analyze
from tests.e2e.waits import SLOW, after_paint, frame_id, retry_idempotent, wait_for_new_frame, wait_until_idle

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
#: For people to look at after a run; the README's pictures come from scripts/readme_screenshots.py.
SCREENSHOT = ROOT / "artifacts" / "screenshot-playground.png"
GRAPH = ".st-key-pg_graph"
NODES = f"{GRAPH} g.node"


def expected_ids(source: str) -> set[str]:
    """Ids of the drawn nodes: every tensor t<k> and, for tensors made by an op, op<k>."""
    a = analyze(source)
    return {f"t{k}" for k in range(a.n_tensors)} | {f"op{k}" for k, t in enumerate(a.order) if t._op is not None}


def open_playground(page, app_url: str, query: str = "") -> None:
    """Open the Playground and wait until its graph is drawn and the page's script has finished running."""
    page.goto(f"{app_url}/{query}")
    page.wait_for_selector(NODES, timeout=SLOW)
    wait_until_idle(page)


def wait_for_current(page, node_id: str) -> None:
    """Wait until the SVG marks ``node_id`` as the node receiving gradient."""
    page.wait_for_function("([sel, id]) => document.querySelector(sel)?.id === id",
                           arg=[f"{GRAPH} g.node.current", node_id])


def node_ids(page) -> set[str]:
    return set(page.eval_on_selector_all(NODES, "els => els.map(e => e.id)"))


def highlighted(page) -> tuple[list[str], list[str]]:
    """Ids of the node(s) classed ``current`` and the edge(s) classed ``flowing`` in the SVG."""
    current = page.eval_on_selector_all(f"{GRAPH} g.node.current", "els => els.map(e => e.id)")
    flowing = page.eval_on_selector_all(f"{GRAPH} g.edge.flowing", "els => els.map(e => e.id)")
    return current, flowing


STEP_INPUT = f"{GRAPH} input.lucid-step"
"""The player's step slider (stepping runs in the browser, so the slider is part of the player)."""


def step_value(page) -> int:
    return int(page.eval_on_selector(STEP_INPUT, "el => el.value"))


def test_graph_svg_has_one_node_per_tensor_and_op(page, app_url):
    open_playground(page, app_url)
    wanted = expected_ids(gallery.DEFAULT.source)
    assert len(wanted) == 27
    page.wait_for_function(f"n => document.querySelectorAll('{NODES}').length === n", arg=len(wanted))
    assert node_ids(page) == wanted
    assert page.locator("[data-testid='stException']").count() == 0


def test_next_moves_the_highlighted_node_and_edge(page, app_url):
    open_playground(page, app_url)
    a = analyze(gallery.DEFAULT.source)
    output_id = f"t{a.n_tensors - 1}"
    wait_for_current(page, output_id)
    current0, flowing0 = highlighted(page)
    assert current0 == [output_id] and flowing0 == []
    expected = []
    for step in (1, 2):
        s = a.trace.steps[step]
        expected.append(f"t{a.index_of(s.parent)}")
    assert expected[0] != expected[1], "the first two steps must flow into different nodes to tell them apart"
    # Next runs in the browser: the picture changes at once and no rerun is asked for.
    page.get_by_role("button", name="Next", exact=True).click()
    wait_for_current(page, expected[0])
    current1, flowing1 = highlighted(page)
    assert current1 == [expected[0]] and len(flowing1) == 1
    page.get_by_role("button", name="Next", exact=True).click()
    wait_for_current(page, expected[1])
    current2, flowing2 = highlighted(page)
    assert current2 == [expected[1]] and len(flowing2) == 1 and flowing2 != flowing1
    assert step_value(page) == 2


def test_typing_a_new_expression_and_running_it_redraws(page, app_url):
    """Type a program and run it with Ctrl+Enter: the graph is redrawn with its nodes and the URL carries it."""
    from urllib.parse import parse_qsl, urlsplit

    from lucid.session import share

    open_playground(page, app_url)
    source = "p = 2.0\nq = p * p * p\n"
    wanted = expected_ids(source)
    before = frame_id(page, GRAPH)
    editor = page.locator(".st-key-pg_source textarea")
    editor.fill(source)
    assert editor.input_value() == source
    editor.press("Control+Enter")
    after = wait_for_new_frame(page, before, GRAPH)
    page.wait_for_function(f"n => document.querySelectorAll('{NODES}').length === n", arg=len(wanted))
    assert after != before and node_ids(page) == wanted
    page.wait_for_function("() => new URLSearchParams(location.search).has('code')")
    assert share.decode(dict(parse_qsl(urlsplit(page.url).query))).source == source
    wait_until_idle(page)
    assert editor.input_value() == source


@pytest.mark.parametrize("attempt", range(2))
def test_typing_then_clicking_run_like_a_person_keeps_the_typed_program(page, app_url, attempt):
    """Typing then clicking Run sends two messages (the text commits on blur, then the click).

    With the browser slowed down (CPU throttled 4x), the click still carries the Gallery picker as
    the browser showed it before the first rerun arrived; Streamlit keeps that old picker's
    callback, and the editor must ignore it rather than load the example over the typed program.
    (Before the fix this reverted the program on every try at this throttle.)
    """
    open_playground(page, app_url)
    cdp = page.context.new_cdp_session(page)
    source = f"u = {attempt + 1.5}\nv = exp(u) / u\n"
    wanted = expected_ids(source)
    before = frame_id(page, GRAPH)
    editor = page.locator(".st-key-pg_source textarea")
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
    try:
        editor.fill(source)
        page.get_by_role("button", name="Run", exact=True).click(delay=150)
        wait_for_new_frame(page, before, GRAPH)
        page.wait_for_function(f"n => document.querySelectorAll('{NODES}').length === n", arg=len(wanted))
        wait_until_idle(page)
    finally:
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    assert editor.input_value() == source
    assert node_ids(page) == wanted


def test_play_advances_on_its_own_and_saves_the_screenshot(page, app_url):
    open_playground(page, app_url)
    # Frame the picture first (both are browser-only: no rerun), so that once Play has advanced
    # only the photograph stands between reaching step 5 and pressing Pause.
    page.locator("[data-testid=stExpander] summary").filter(has_text="Program").click()  # fold the editor
    page.locator(".st-key-pg_source textarea").wait_for(state="hidden")
    page.set_viewport_size({"width": 1400, "height": 1180})  # room for the whole graph (it refits on resize)
    wait_until_idle(page)
    page.get_by_role("button", name="Play", exact=True).click()
    page.wait_for_function(f"() => Number(document.querySelector('{STEP_INPUT}')?.value) >= 5", timeout=SLOW)
    assert page.get_by_role("button", name="Pause", exact=True).is_visible()
    page.wait_for_selector(f"{GRAPH} g.edge.flowing")
    after_paint(page)
    SCREENSHOT.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOT))
    assert SCREENSHOT.stat().st_size > 20_000
    page.get_by_role("button", name="Pause", exact=True).click()
    page.get_by_role("button", name="Play", exact=True).wait_for()
    paused_at = step_value(page)
    assert 5 <= paused_at < 17


def test_clicking_a_node_in_the_graph_opens_it_in_the_inspector(page, app_url):
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    open_playground(page, app_url)
    a = analyze(gallery.DEFAULT.source)
    names = {t.name: k for k, t in enumerate(a.order)}
    k = names["b"]
    title = page.locator(".st-key-pg_inspector").get_by_text(f"t{k} · b — input (requires grad)")

    def shown(timeout: float) -> bool:
        try:
            title.wait_for(timeout=timeout)
        except PlaywrightTimeout:
            return False
        return True

    def click_node_b() -> None:
        page.locator(f"{GRAPH} g.node#t{k}").click()

    retry_idempotent(click_node_b, shown)  # selecting the same node again changes nothing
    assert page.locator("[data-testid='stException']").count() == 0


def test_a_shared_deep_link_restores_program_and_step_on_a_fresh_server(tab, fresh_app_url):
    import urllib.parse

    from lucid.session import share

    source = "w = 2.0\nv = w * w * w\n"
    tab.goto(f"{fresh_app_url}/playground?{urllib.parse.urlencode(share.encode(source, step=2))}")
    tab.wait_for_selector(NODES, timeout=SLOW)  # a fresh server's first run imports everything
    tab.wait_for_function(f"n => document.querySelectorAll('{NODES}').length === n", arg=len(expected_ids(source)))
    wait_until_idle(tab)
    assert step_value(tab) == 2
    assert tab.locator(".st-key-pg_source textarea").input_value() == source
    # it ran through app.py: the top navigation lists every page
    nav = tab.locator("[data-testid='stTopNavLink'], header a").all_inner_texts()
    assert any("Gradient check" in t for t in nav), nav
