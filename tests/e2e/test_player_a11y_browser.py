"""The player for a screen reader and a keyboard, in a real Chromium (issue 28): the graph as text, in step with
the picture.

Names are read from Chromium's own accessibility tree (the DevTools protocol's ``Accessibility.getFullAXTree``,
what a screen reader is given), not from the DOM: the graph is a group named "Computation graph, N nodes" whose
children are its tensor nodes as buttons, in topological order, each named with its value and the gradient it
shows at the step on screen; no edge and no internal id (``t1->op11``) is in the tree. The node receiving
gradient carries ``aria-current="step"`` and moves with →; Enter on a focused node opens its facts; Space on a
control outside the player is that control's; with reduced motion autoplay still steps; at 200 % zoom the
graph's text is not smaller in CSS pixels than at 100 % (so it is twice as big on screen); a collapsed graph's
box opens and closes with Enter or Space, the focus staying on it.
"""
from __future__ import annotations

import re
import urllib.parse

import pytest

from lucid.session import share
from tests.e2e.conftest import ARTIFACTS
from tests.e2e.waits import SLOW, after_paint, frame_id, wait_for_new_frame, wait_until_idle
from tests.large_programs import scalar_mlp_source

pytestmark = pytest.mark.e2e

GRAPH = ".st-key-pg_graph"
PLAYER = f"{GRAPH} .lucid-player"
SVG = f"{GRAPH} .lucid-svg-host > svg"
BUTTONS = f"{SVG} g.node[role=button]"
CIRCUIT = "/playground?example=cs231n-circuit"


def open_circuit(tab, app_url: str, query: str = "") -> None:
    tab.goto(f"{app_url}{CIRCUIT}{query}")
    tab.wait_for_selector(BUTTONS, timeout=SLOW)
    wait_until_idle(tab)
    after_paint(tab)


def graph_in_tree(tab) -> tuple[str, list[tuple[str, str]]]:
    """The graph's name and its children (role, name) in Chromium's accessibility tree."""
    cdp = tab.context.new_cdp_session(tab)
    try:
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()
    by_id = {n["nodeId"]: n for n in nodes}
    name = lambda n: n.get("name", {}).get("value", "")  # noqa: E731
    groups = [n for n in nodes if name(n).startswith(("Computation graph", "계산 그래프"))]
    assert len(groups) == 1, [name(g) for g in groups]
    children = []
    todo = list(groups[0].get("childIds", []))
    while todo:
        n = by_id.get(todo.pop(0))
        if n is None:
            continue
        if n.get("ignored"):
            todo[:0] = n.get("childIds", [])
            continue
        children.append((n["role"]["value"], name(n)))
    return name(groups[0]), children


def shown_step(tab) -> int:
    return int(tab.eval_on_selector(PLAYER, "el => Number(el.dataset.step)"))


def current_nodes(tab) -> list[str]:
    return tab.eval_on_selector_all(f"{SVG} [aria-current]",
                                    "els => els.map(e => e.id + '=' + e.getAttribute('aria-current'))")


def test_every_node_is_a_button_named_with_its_value_and_gradient_and_no_edge_is_in_the_tree(tab, app_url):
    open_circuit(tab, app_url)
    name, children = graph_in_tree(tab)
    assert name == "Computation graph, 5 nodes"
    assert [role for role, _ in children] == ["button"] * 5
    names = [n for _, n in children]
    assert names == [  # topological order, inputs first; only the output has a gradient at step 0
        "x, input, value −2.000, gradient pending; used by q",
        "y, input, value 5.000, gradient pending; used by q",
        "q, add of x, y, value 3.000, gradient pending; inputs x, y; used by f",
        "z, input, value −4.000, gradient pending; used by f",
        "f, mul of q, z, value −12.00, gradient 1.000, final; inputs q, z; the output",
    ]
    assert not any("->" in n or re.search(r"\bop[0-9]", n) for n in names)
    # The names follow the step: at the last step every gradient is there.
    tab.locator(f"{PLAYER} [data-action=last]").click()
    tab.wait_for_function("sel => document.querySelector(sel).dataset.step === '4'", arg=PLAYER, timeout=SLOW)
    names = [n for _, n in graph_in_tree(tab)[1]]
    assert [re.search(r"gradient ([^,;]+), final", n).group(1) for n in names] == [
        "−4.000", "−4.000", "−4.000", "3.000", "1.000"]


def test_exactly_one_node_is_current_and_it_moves_with_the_right_arrow(tab, app_url):
    open_circuit(tab, app_url)
    assert shown_step(tab) == 0 and current_nodes(tab) == ["t4=step"]
    tab.locator(f"{SVG} g#t0").focus()  # on a node → still steps the pass
    tab.keyboard.press("ArrowRight")
    tab.wait_for_function("sel => document.querySelector(sel).dataset.step === '1'", arg=PLAYER, timeout=SLOW)
    assert current_nodes(tab) == ["t2=step"]
    tab.keyboard.press("ArrowRight")
    tab.wait_for_function("sel => document.querySelector(sel).dataset.step === '2'", arg=PLAYER, timeout=SLOW)
    assert current_nodes(tab) == ["t3=step"]
    tab.keyboard.press("ArrowLeft")
    tab.wait_for_function("sel => document.querySelector(sel).dataset.step === '1'", arg=PLAYER, timeout=SLOW)
    assert current_nodes(tab) == ["t2=step"]
    assert graph_in_tree(tab)[1][2][1] == "q, add of x, y, value 3.000, gradient −4.000, final; inputs x, y; used by f"


def test_the_graph_is_one_tab_stop_walked_with_the_down_and_up_arrows(tab, app_url):
    open_circuit(tab, app_url)
    tab.locator(f"{PLAYER} [data-action=last]").focus()
    presses = 0
    while tab.evaluate("() => document.activeElement.closest('svg g.node') === null") and presses < 12:
        tab.keyboard.press("Tab")
        presses += 1
    assert tab.evaluate("() => document.activeElement.id") == "t0"
    print(f"Tab presses from the Last button to the graph: {presses}")
    order = ["t0"]
    for _ in range(5):
        tab.keyboard.press("ArrowDown")
        order.append(tab.evaluate("() => document.activeElement.id"))
    assert order == ["t0", "t1", "t2", "t3", "t4", "t4"]  # stops at the last node
    tab.keyboard.press("ArrowUp")
    assert tab.evaluate("() => document.activeElement.id") == "t3"
    assert tab.eval_on_selector_all(f"{SVG} [tabindex='0']", "els => els.map(e => e.id)") == ["t3"]
    ring = tab.eval_on_selector(f"{SVG} g#t3",
                                "el => getComputedStyle(el).outlineStyle + ' ' + getComputedStyle(el).outlineColor")
    assert ring == "solid rgb(26, 26, 26)"
    tab.keyboard.press("Tab")  # one press leaves the graph: its other nodes are not Tab stops
    assert tab.evaluate("() => document.activeElement.closest('svg g.node') === null")
    tab.keyboard.press("Shift+Tab")
    assert tab.evaluate("() => document.activeElement.id") == "t3"
    ARTIFACTS.mkdir(exist_ok=True)
    tab.locator(SVG).screenshot(path=str(ARTIFACTS / "player-a11y-focused-node.png"))


def test_enter_on_a_focused_node_opens_its_facts_in_the_inspector(tab, app_url):
    open_circuit(tab, app_url)
    tab.locator(f"{SVG} g#t2").focus()
    tab.keyboard.press("Enter")
    tab.locator(".st-key-pg_inspector").get_by_text("t2 · q — intermediate, scalar").wait_for(timeout=SLOW)
    wait_until_idle(tab)
    assert tab.evaluate("() => document.activeElement.id") == "t2"  # the focus stays on the node
    assert shown_step(tab) == 0  # Enter did not step


def test_the_inspector_says_which_step_it_shows_once_the_player_steps_away_from_it(tab, app_url):
    open_circuit(tab, app_url)
    note = tab.locator(".st-key-pg_inspector_note")
    assert not note.is_visible()  # the graph shows the inspector's step
    tab.keyboard.press("ArrowRight")
    tab.keyboard.press("ArrowRight")
    note.get_by_text("Shown at step 0; the graph is at another step now").wait_for(timeout=SLOW)
    tab.keyboard.press("ArrowLeft")
    tab.keyboard.press("ArrowLeft")  # back at the step it shows: the note goes
    note.wait_for(state="hidden", timeout=SLOW)
    tab.keyboard.press("ArrowRight")
    note.wait_for(timeout=SLOW)
    tab.locator(f"{SVG} g#t2").focus()
    tab.keyboard.press("Enter")  # inspected at the step on screen: the inspector follows, the note goes
    tab.locator(".st-key-pg_inspector").get_by_text("t2 · q — intermediate, scalar").wait_for(timeout=SLOW)
    note.wait_for(state="hidden", timeout=SLOW)
    assert shown_step(tab) == 1


def test_space_on_a_control_outside_the_player_is_that_controls_and_never_starts_autoplay(tab, app_url):
    open_circuit(tab, app_url)
    summary = tab.locator("summary").first
    was_open = summary.evaluate("s => s.parentElement.open")
    summary.focus()
    tab.keyboard.press(" ")
    tab.wait_for_function("([el, was]) => el.parentElement.open !== was", arg=[summary.element_handle(), was_open],
                          timeout=SLOW)
    assert tab.eval_on_selector(PLAYER, "el => el.dataset.playing") == "0" and shown_step(tab) == 0
    menu = tab.locator("[data-testid='stMainMenu'] button, [data-testid='stMainMenu']").first
    menu.focus()
    tab.keyboard.press(" ")
    tab.keyboard.press("Escape")
    assert tab.eval_on_selector(PLAYER, "el => el.dataset.playing") == "0" and shown_step(tab) == 0
    # With nothing focused, Space is still the presenter's Play.
    tab.evaluate("() => document.activeElement && document.activeElement.blur()")
    tab.keyboard.press(" ")
    tab.wait_for_function("sel => document.querySelector(sel).dataset.playing === '1'", arg=PLAYER, timeout=SLOW)


def test_each_step_is_announced_in_a_short_line_and_the_explanation_is_not_a_live_region(tab, app_url):
    open_circuit(tab, app_url)
    tab.locator(f"{PLAYER} [data-action=next]").click()
    tab.wait_for_function("sel => document.querySelector(sel).dataset.step === '1'", arg=PLAYER, timeout=SLOW)
    said = tab.eval_on_selector(f"{PLAYER} .lucid-announce", "el => [el.getAttribute('aria-live'), el.textContent]")
    assert said[0] == "polite"
    assert said[1].startswith("Step 1 of 4: ") and said[1].endswith("Details below.")
    assert "−4.000" in said[1] and len(said[1]) < 200
    explanation = tab.eval_on_selector(f"{PLAYER} .lucid-expl", "el => [el.closest('[aria-live]') === null, "
                                       "el.innerText.length]")
    assert explanation[0] and explanation[1] > len(said[1])  # the whole explanation is still there, read in place


def test_with_reduced_motion_autoplay_still_steps(tab, app_url):
    tab.emulate_media(reduced_motion="reduce")
    open_circuit(tab, app_url)
    assert tab.evaluate("() => matchMedia('(prefers-reduced-motion: reduce)').matches")
    tab.locator(f"{PLAYER} [data-action=play]").click()
    tab.wait_for_function("sel => Number(document.querySelector(sel).dataset.step) >= 2", arg=PLAYER, timeout=SLOW)
    assert tab.eval_on_selector(PLAYER, "el => el.dataset.motion") == "reduced"
    assert current_nodes(tab) in (["t3=step"], ["t0=step"], ["t1=step"])


def test_the_node_names_are_said_in_korean_on_a_korean_page(tab, app_url):
    open_circuit(tab, app_url, "&lang=ko")
    name, children = graph_in_tree(tab)
    assert name == "계산 그래프, 노드 5개"
    assert children[2][1] == "q, x, y의 add, 값 3.000, 기울기 대기; 입력 x, y; f에서 사용"
    assert children[4][1].startswith("f, q, z의 mul, 값 −12.00, 기울기 1.000, 확정")


def classroom_text_px(browser, app_url: str, zoom: int) -> float:
    """CSS px of a node's value line in Classroom mode, the browser zoomed to ``zoom`` (as a zoomed Chromium is:
    the viewport that many times fewer CSS px, the device pixel ratio and the window's screen width that many
    times more)."""
    context = browser.new_context(viewport={"width": 1400 // zoom, "height": 950 // zoom}, device_scale_factor=zoom)
    context.add_init_script(
        f"Object.defineProperty(window, 'outerWidth', {{ get: () => window.innerWidth * {zoom} }});")
    try:
        tab = context.new_page()
        tab.set_default_timeout(SLOW)
        tab.goto(f"{app_url}/playground?example=scalar")
        tab.wait_for_selector(BUTTONS, timeout=SLOW)
        wait_until_idle(tab)
        tab.locator(".st-key-pg_classroom label").click()
        tab.wait_for_selector(f"{PLAYER}.lucid-classroom", timeout=SLOW)
        wait_until_idle(tab)
        tab.wait_for_function("([sel, z]) => document.querySelector(sel).dataset.zoom === String(z)",
                              arg=[PLAYER, zoom], timeout=SLOW)
        after_paint(tab)
        return tab.evaluate("""sel => { const t = [...document.querySelectorAll(sel + ' g.node text')]
                                          .find((x) => x.textContent.includes('val'));
                                        return t.getBoundingClientRect().height; }""", SVG)
    finally:
        context.close()


def test_zooming_to_200_percent_enlarges_the_graphs_text_in_classroom_mode(browser, app_url):
    at_100 = classroom_text_px(browser, app_url, 1)
    at_200 = classroom_text_px(browser, app_url, 2)
    print(f"value line: {at_100:.1f} CSS px at 100 %, {at_200:.1f} CSS px at 200 %")
    assert at_200 >= at_100 * 0.95  # the same CSS size: twice as big on screen (it shrank to 0.4 of it)


def test_enter_on_a_box_of_a_collapsed_graph_opens_it_and_again_closes_it_keeping_the_focus(tab, app_url):
    tab.goto(f"{app_url}/playground?{urllib.parse.urlencode(share.encode(scalar_mlp_source()))}")
    tab.wait_for_selector(BUTTONS, timeout=SLOW)
    wait_until_idle(tab)
    name, children = graph_in_tree(tab)
    boxes = [n for role, n in children if role == "button" and n.endswith("box: Enter opens or closes it")]
    assert name == f"Computation graph, {len(children)} nodes" and len(boxes) >= 5
    assert "6 nodes · ▸ click to open, 0/6 gradients" in boxes[0]
    v0 = next(n for _, n in children if n.startswith("v0, "))
    assert v0.startswith("v0, input, value −0.6000, gradient pending; used by ")  # named like a full drawing's
    box = tab.evaluate("sel => [...document.querySelectorAll(sel)].find((g) => /^g[0-9]+$/.test(g.id)).id", BUTTONS)
    before = len(children)
    tab.locator(f"{SVG} g#{box}").focus()
    old = frame_id(tab, GRAPH)
    tab.keyboard.press("Enter")
    opened = wait_for_new_frame(tab, old, GRAPH)
    wait_until_idle(tab)
    assert tab.evaluate("() => document.activeElement.id") == box  # the open group's header, under the focus
    assert "click to close" in tab.evaluate("() => document.activeElement.querySelector(':scope > title').textContent")
    assert len(graph_in_tree(tab)[1]) > before  # its nodes are in the walk now
    tab.keyboard.press(" ")
    wait_for_new_frame(tab, opened, GRAPH)
    wait_until_idle(tab)
    assert len(graph_in_tree(tab)[1]) == before
    assert tab.evaluate("() => document.activeElement.id") == box


def test_a_click_on_a_node_leaves_the_focus_where_it_was_so_space_still_plays(tab, app_url):
    open_circuit(tab, app_url)
    tab.locator(f"{SVG} g#t2").click()
    tab.locator(".st-key-pg_inspector").get_by_text("t2 · q — intermediate, scalar").wait_for(timeout=SLOW)
    wait_until_idle(tab)
    assert tab.evaluate("() => document.activeElement.closest('svg') === null")
    tab.keyboard.press(" ")
    tab.wait_for_function("sel => document.querySelector(sel).dataset.playing === '1'", arg=PLAYER, timeout=SLOW)
