"""Classroom mode on a 1280×720 projector, in a real Chromium: the whole graph at once, the step readable.

For each small gallery example, at every step: every node of the graph lies inside the screen (below
the player's bar), the node receiving gradient has text at least 18 px high on screen (in the graph
itself, or in the lens that magnifies it above the explanation), the step's arithmetic line is on
screen, and the page above the player is one row (at most 80 px between the app's top bar and the
player's bar). A tensor program (the MLP) meets the same bar: the lens shows its node whole (a grid
node as its card, with the headline's entry ringed) and the whole arithmetic line, however long, ends
inside the screen.
The class sees no Deploy button; the speed is chosen in the player's bar and kept in
the link; *Graph size* is honoured.
"""
from __future__ import annotations

import urllib.parse

import pytest

from lucid import gallery
from lucid.session import share
from lucid.session.analysis import analyze
from tests.e2e.waits import SLOW, after_paint, wait_until_idle

pytestmark = pytest.mark.e2e

GRAPH = ".st-key-pg_graph"
PLAYER = f"{GRAPH} .lucid-player"
PROJECTOR = {"width": 1280, "height": 720}
READABLE_PX = 18
CHROME_PX = 80

MEASURE = """(sel) => {
    // Everything in screen pixels. The lens shows the graph group itself (an SVG <use>), so a point of the
    // graph maps into the lens through the two SVGs' screen matrices.
    const root = document.querySelector(sel);
    const bar = root.querySelector('.lucid-bar').getBoundingClientRect();
    const host = root.querySelector('.lucid-svg-host').getBoundingClientRect();
    const svg = root.querySelector('.lucid-svg-host > svg');
    const header = document.querySelector('[data-testid="stHeader"]').getBoundingClientRect();
    const nodes = [...svg.querySelectorAll('g.node')].map((g) => {
        const b = g.getBoundingClientRect();
        return {id: g.id, top: b.top, bottom: b.bottom, left: b.left, right: b.right};
    });
    const current = svg.querySelector('g.node.current');
    const bodyText = (g) => [...g.querySelectorAll('text')].map((t) => parseFloat(t.getAttribute('font-size')))
        .filter((f) => f >= 11);  // names, values, gradients (the kind/shape caption is smaller on purpose)
    const main = svg.getScreenCTM();
    const sizes = bodyText(current);
    const mainPx = Math.min(...sizes) * main.a;
    const lensBox = root.querySelector('.lucid-lens');
    const lensSvg = lensBox.querySelector('svg');
    let lens = null;
    const view = () => {
        const r = lensBox.getBoundingClientRect();
        return {left: r.left + lensBox.clientLeft, top: r.top + lensBox.clientTop,
                right: r.left + lensBox.clientLeft + lensBox.clientWidth,
                bottom: r.top + lensBox.clientTop + lensBox.clientHeight};
    };
    if (lensBox.offsetParent && lensBox.dataset.mode === 'card') {
        // the node's card: every piece of text in it, and the card's own box (nothing of it scrolled away)
        const card = lensBox.querySelector('.lucid-card');
        const texts = [...card.querySelectorAll('*')].filter((e) => e.offsetParent
            && [...e.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim()));
        const b = card.getBoundingClientRect();
        lens = {node: lensBox.dataset.node, mode: 'card',
                text_px: Math.min(...texts.map((e) => parseFloat(getComputedStyle(e).fontSize))),
                node_box: {left: b.left, top: b.top, right: b.right, bottom: b.bottom}, view: view(),
                tag: card.querySelector('.lucid-card-tag').textContent,
                highlighted: card.querySelectorAll('td.lucid-hl').length,
                scrolls: lensBox.scrollHeight > lensBox.clientHeight + 1
                    || lensBox.scrollWidth > lensBox.clientWidth + 1};
    } else if (lensBox.offsetParent && lensSvg) {
        const L = lensSvg.getScreenCTM();
        const b = current.getBoundingClientRect();
        const map = (x, y) => [L.a * (x - main.e) / main.a + L.e, L.d * (y - main.f) / main.d + L.f];
        const [left, top] = map(b.left, b.top);
        const [right, bottom] = map(b.right, b.bottom);
        const r = lensBox.getBoundingClientRect();
        lens = {node: lensBox.dataset.node, mode: 'graph', text_px: Math.min(...sizes) * L.a,
                node_box: {left, top, right, bottom}, view: view()};
    }
    const first = root.querySelector('.lucid-expl-body').firstElementChild;
    const line = first.getBoundingClientRect();
    const arith = root.querySelector('.lucid-expl-body .lgl-arith');
    const arithBox = arith ? arith.getBoundingClientRect() : line;
    return {bar_top: bar.top, bar_bottom: bar.bottom, header_bottom: header.bottom,
            host_left: host.left, host_right: host.right, width: innerWidth, height: innerHeight,
            nodes, current: current.id, main_text_px: mainPx, lens,
            arithmetic_top: line.top, arithmetic_first_line: line.top + Math.min(line.height, 40),
            arithmetic_bottom: arithBox.bottom, arithmetic_text: arith ? arith.textContent : ''};
}"""


def open_classroom(tab, app_url: str, slug: str, **view: str) -> None:
    """Open ``slug``'s link in Classroom mode at 1280×720 and wait until the graph has been fitted."""
    tab.set_viewport_size(PROJECTOR)
    query = dict(share.encode(gallery.by_slug(slug).source), classroom="1", **view)
    tab.goto(f"{app_url}/?{urllib.parse.urlencode(query)}")
    tab.wait_for_selector(f"{PLAYER}.lucid-classroom g.node.current", timeout=SLOW)
    wait_until_idle(tab)
    after_paint(tab)
    tab.evaluate("() => document.activeElement && document.activeElement.blur()")


def inside(box: dict, area: dict, slack: float = 0.5) -> bool:
    return (box["left"] >= area["left"] - slack and box["right"] <= area["right"] + slack
            and box["top"] >= area["top"] - slack and box["bottom"] <= area["bottom"] + slack)


WHOLE_GRAPH_IN_VIEW = """(sel) => {
    const root = document.querySelector(sel);
    const bar = root.querySelector('.lucid-bar').getBoundingClientRect();
    return [...root.querySelectorAll('.lucid-svg-host > svg g.node')].every((g) => {
        const b = g.getBoundingClientRect();
        return b.top >= bar.bottom - 0.5 && b.bottom <= innerHeight + 0.5 && b.left >= 0 && b.right <= innerWidth;
    });
}"""


WHERE_THE_NODES_ARE = """(sel) => {
    const root = document.querySelector(sel);
    const box = (el) => {
        const b = el.getBoundingClientRect();
        return [b.top, b.bottom, b.left, b.right].map(Math.round);
    };
    return {scroll_y: window.scrollY, height: innerHeight, width: innerWidth,
            bar: box(root.querySelector('.lucid-bar')),
            svg: box(root.querySelector('.lucid-svg-host > svg')),
            nodes: [...root.querySelectorAll('.lucid-svg-host > svg g.node')].map((g) => [g.id, ...box(g)])};
}"""


def wait_for_whole_graph(tab) -> None:
    """Wait until every node is on screen below the player's bar; on a timeout, say where everything was."""
    try:
        tab.wait_for_function(WHOLE_GRAPH_IN_VIEW, arg=PLAYER, timeout=SLOW)
    except Exception as timeout:
        where = tab.evaluate(WHERE_THE_NODES_ARE, PLAYER)
        raise AssertionError(f"the whole graph never came into view: {where}") from timeout


@pytest.mark.parametrize(("slug", "view"), [("cs231n-sigmoid", {}), (gallery.DEFAULT.slug, {}), ("used-twice", {}),
                                           ("cs231n-sigmoid", {"style": "circuit"}), ("mlp", {})],
                         ids=["cs231n-sigmoid", "default", "used-twice", "cs231n-sigmoid-circuit", "mlp"])
def test_classroom_at_1280x720_shows_the_whole_graph_and_the_step_readable_at_every_step(tab, app_url, slug, view):
    open_classroom(tab, app_url, slug, **view)
    a = analyze(gallery.by_slug(slug).source)
    # The page settles (the editor folds, fonts grow) and the player fits the graph to the room left.
    wait_for_whole_graph(tab)
    for step in range(a.n_steps):
        if step:
            tab.keyboard.press("ArrowRight")
        assert int(tab.eval_on_selector(PLAYER, "el => Number(el.dataset.step)")) == step
        m = tab.evaluate(MEASURE, PLAYER)
        assert m["current"] == f"t{a.index_of(a.trace.steps[step].parent)}"
        screen = {"left": max(0, m["host_left"]), "right": min(m["width"], m["host_right"]),
                  "top": m["bar_bottom"], "bottom": m["height"]}
        outside = [n["id"] for n in m["nodes"] if not inside(n, screen)]
        assert outside == [], (step, outside)  # the whole graph, below the bar, inside the screen
        if m["main_text_px"] < READABLE_PX:
            # drawn small: the lens shows this node, whole, with its text at least 18 px high
            assert m["lens"] is not None, (step, m["main_text_px"])
            assert m["lens"]["node"] == m["current"]
            assert m["lens"]["text_px"] >= READABLE_PX - 0.01, (step, m["lens"])
            assert inside(m["lens"]["node_box"], m["lens"]["view"], slack=1), (step, m["lens"])  # whole
            if m["lens"]["mode"] == "card":
                assert not m["lens"]["scrolls"], (step, m["lens"])  # nothing of the card one scroll away
                assert m["lens"]["tag"] in ("final", "partial") and m["lens"]["highlighted"] <= 1, m["lens"]
        else:
            assert m["lens"] is None  # no lens when the graph itself is readable
        # the step's arithmetic line is on screen, below the bar
        assert m["bar_bottom"] - 0.5 <= m["arithmetic_top"], (step, m)
        assert m["arithmetic_first_line"] <= m["height"], (step, m)
        assert m["arithmetic_bottom"] <= m["height"] + 0.5, (step, m["arithmetic_bottom"], m["arithmetic_text"])
        lens_visible = m["lens"] is None or m["lens"]["view"]["bottom"] <= m["height"] + 0.5
        assert lens_visible, (step, m["lens"])  # the lens itself is on screen, wherever it sits
        # one row of page between the app's top bar and the player
        assert m["bar_top"] - m["header_bottom"] <= CHROME_PX, m
    assert tab.locator("[data-testid='stAppDeployButton']").count() == 0
    labels = tab.eval_on_selector_all(
        ".st-key-pg_classroom label, [data-testid='stPopover'] button, [data-testid='stExpander'] summary",
        "els => els.filter(e => e.offsetParent).map(e => [e.textContent.trim(), e.scrollWidth <= e.clientWidth + 1])")
    assert labels and all(fits for _, fits in labels), labels  # no clipped labels in the row


def test_classroom_lens_shows_a_tall_grid_node_whole_as_its_card_with_the_headlines_entry_ringed(tab, app_url):
    open_classroom(tab, app_url, "mlp")
    wait_for_whole_graph(tab)
    a = analyze(gallery.by_slug("mlp").source)
    tall = next(k for k in range(a.n_steps) if a.trace.steps[k].parent.data.ndim == 2
                and a.trace.steps[k].parent.data.shape[0] >= 6)
    for _ in range(tall):
        tab.keyboard.press("ArrowRight")
    m = tab.evaluate(MEASURE, PLAYER)
    lens = m["lens"]
    assert lens is not None and lens["node"] == m["current"] and lens["mode"] == "card"
    assert lens["text_px"] >= READABLE_PX and not lens["scrolls"] and inside(lens["node_box"], lens["view"], 1)
    cells = tab.eval_on_selector_all(f"{PLAYER} .lucid-lens .lucid-card-grid td", "tds => tds.map(t => t.textContent)")
    assert len(cells) == a.trace.steps[tall].parent.data.size  # 6×4: every entry, none cut
    ringed = tab.eval_on_selector(f"{PLAYER} .lucid-lens td.lucid-hl", "td => td.textContent")
    assert f"= {ringed}" in m["arithmetic_text"].replace("\u00a0", " ")  # the entry the headline works out


def test_speed_is_chosen_in_the_players_bar_and_kept_in_the_link(tab, app_url):
    open_classroom(tab, app_url, "used-twice", speed="slow")
    speed = tab.locator(f"{PLAYER} .lucid-speed")
    assert speed.input_value() == "slow"
    speed.select_option("fast")
    tab.wait_for_function("() => new URL(location.href).searchParams.get('speed') === 'fast'", timeout=SLOW)
    wait_until_idle(tab)
    tab.reload()
    tab.wait_for_selector(f"{PLAYER} g.node.current", timeout=SLOW)
    wait_until_idle(tab)
    assert tab.locator(f"{PLAYER} .lucid-speed").input_value() == "fast"


def test_graph_size_is_honoured_in_classroom_mode(tab, app_url):
    open_classroom(tab, app_url, "cs231n-sigmoid", zoom="150")
    scale = tab.eval_on_selector(f"{PLAYER} .lucid-svg-host > svg", """svg =>
        svg.getBoundingClientRect().width / (parseFloat(svg.getAttribute('width')) * 4 / 3)""")
    assert scale == pytest.approx(1.5, abs=0.01)


def test_the_graph_is_fitted_again_when_the_editor_folds_after_a_run(tab, app_url):
    open_classroom(tab, app_url, "cs231n-sigmoid")
    wait_for_whole_graph(tab)
    svg = f"{PLAYER} .lucid-svg-host > svg"
    folded = tab.eval_on_selector(svg, "el => el.getBoundingClientRect().height")
    summary = tab.locator("[data-testid='stExpander'] summary").first
    summary.click()
    tab.get_by_role("button", name="Run").click()  # drawn again with the editor open: far less room
    wait_until_idle(tab)
    tab.wait_for_function("([sel, h]) => document.querySelector(sel).getBoundingClientRect().height < h - 50",
                          arg=[svg, folded], timeout=SLOW)
    summary.click()  # the editor folds (no rerun): the graph takes the room back
    tab.wait_for_function("([sel, h]) => Math.abs(document.querySelector(sel).getBoundingClientRect().height - h) <= 2",
                          arg=[svg, folded], timeout=SLOW)
    wait_for_whole_graph(tab)
