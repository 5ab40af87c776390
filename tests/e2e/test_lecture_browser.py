"""A whole lecture on a 1280×720 projector in Classroom mode, given with the clicker's keys only.

The plan is pasted under *Lesson* on the Playground and started; from then on only →/PageDown are
pressed. It mixes the three kinds of link a lecturer writes:

1. a shared ``url=`` link of a scalar program that asks for ``style=circuit``,
2. an ``example=`` link (the gallery's CS231n sigmoid neuron), drawn the standard way,
3. a tensor program (the gallery's MLP) as ``code``.

At every step of every link: the link's view as written (the circuit style really drawn: no ``val`` rows,
wires with no box but the current node's frame; the standard boxes otherwise), the whole graph on screen below
the player's bar, the node receiving gradient readable (its text ≥ 18 px in the graph, or in the lens), and
the explanation's arithmetic line inside the viewport. Each boundary is crossed with → after the link's last
step, and the next link opens at its step 0 with its title in the bar.
"""
from __future__ import annotations

import time
import urllib.parse

import pytest

from lucid import gallery
from lucid.session import share
from lucid.session.analysis import analyze
from tests.e2e.conftest import ARTIFACTS
from tests.e2e.test_projector_browser import MEASURE, PLAYER, PROJECTOR, READABLE_PX, inside, wait_for_whole_graph
from tests.e2e.waits import SLOW, after_paint, wait_until_idle

pytestmark = pytest.mark.e2e

CIRCUIT_SOURCE = "x = 3.0\nw = -2.0\ny = tanh(w * x + 1.0)"
CIRCUIT_URL = "/playground?" + urllib.parse.urlencode({**share.encode(CIRCUIT_SOURCE), "style": "circuit"})
MLP = gallery.by_slug("mlp").source
PLAN = f'''title = "Backprop, gate by gate"

[[link]]
title = "One neuron as a circuit"
url = "{CIRCUIT_URL}"

[[link]]
title = "The CS231n sigmoid"
example = "cs231n-sigmoid"

[[link]]
title = "A 2-layer MLP on a batch"
code = """
{MLP.strip()}
"""
'''
LINKS = [("One neuron as a circuit", CIRCUIT_SOURCE, True), ("The CS231n sigmoid",
                                                               gallery.by_slug("cs231n-sigmoid").source, False),
         ("A 2-layer MLP on a batch", MLP, False)]

DRAWN = """(sel) => {
    const root = document.querySelector(sel);
    const svg = root.querySelector('.lucid-svg-host > svg');
    const tensors = [...svg.querySelectorAll('g.node')].filter((g) => !g.classList.contains('op')
        && g.id.startsWith('t'));
    const texts = tensors.flatMap((g) => [...g.querySelectorAll('text')].map((t) => t.textContent.trim()));
    const quiet = tensors.filter((g) => !g.classList.contains('current') && !g.classList.contains('source'));
    const borderless = quiet.filter((g) => [...g.querySelectorAll('path, polygon')]
        .every((s) => ['transparent', 'none'].includes(s.getAttribute('stroke')))).length;
    return {tensors: tensors.length, quiet: quiet.length, borderless,
            val_rows: texts.filter((t) => /^val\\b/.test(t)).length,
            heading: root.querySelector('.lucid-lesson-title').textContent,
            lesson: root.querySelector('.lucid-lesson').textContent,
            style: new URL(location.href).searchParams.get('style')};
}"""


def start_lesson(tab, app_url: str) -> None:
    """Open the Playground in Classroom mode at 1280×720, paste the plan under *Lesson* and start it."""
    tab.set_viewport_size(PROJECTOR)
    tab.goto(f"{app_url}/playground?classroom=1")
    tab.wait_for_selector(f"{PLAYER} g.node.current", timeout=SLOW)
    wait_until_idle(tab)
    tab.locator("[data-testid='stExpander'] summary", has_text="Lesson").click()
    plan = tab.locator(".st-key-pg_lesson_plan textarea")
    plan.fill(PLAN)
    plan.press("Control+Enter")  # the text area's value reaches the server before the button's click
    wait_until_idle(tab)
    tab.locator(".st-key-pg_lesson_start button").click()
    wait_for_link(tab, 0)
    tab.evaluate("() => document.activeElement && document.activeElement.blur()")  # the clicker from here on


def wait_for_link(tab, at: int) -> None:
    tab.wait_for_function("([sel, w]) => document.querySelector(sel + ' .lucid-lesson')?.textContent === w",
                          arg=[PLAYER, f"Lesson {at + 1} / {len(LINKS)}"], timeout=SLOW)
    wait_until_idle(tab)
    after_paint(tab)


def check_step(m: dict, link: int, step: int) -> None:
    where = (link, step)
    screen = {"left": max(0, m["host_left"]), "right": min(m["width"], m["host_right"]),
              "top": m["bar_bottom"], "bottom": m["height"]}
    outside = [n["id"] for n in m["nodes"] if not inside(n, screen)]
    assert outside == [], (where, outside)  # the whole graph, below the bar, on screen
    if m["main_text_px"] < READABLE_PX:  # drawn small: the lens shows the node whole, its text ≥ 18 px
        lens = m["lens"]
        assert lens is not None and lens["node"] == m["current"], (where, m["main_text_px"], lens)
        assert lens["text_px"] >= READABLE_PX - 0.01, (where, lens)
        assert inside(lens["node_box"], lens["view"], slack=1), (where, lens)
        assert lens["view"]["bottom"] <= m["height"] + 0.5, (where, lens)
    assert m["bar_bottom"] - 0.5 <= m["arithmetic_top"], (where, m["arithmetic_top"])
    assert m["arithmetic_bottom"] <= m["height"] + 0.5, (where, m["arithmetic_bottom"], m["arithmetic_text"])


def settled(tab, link: int, step: int, seconds: float = 5.0) -> dict:
    """The step's measures once the player has fitted the graph again (a wrapped bar or a new lens refits it a
    frame or a few later: on a loaded machine, later still); the last failure if it never does."""
    deadline = time.monotonic() + seconds
    while True:
        m = tab.evaluate(MEASURE, PLAYER)
        try:
            check_step(m, link, step)
            return m
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            tab.wait_for_timeout(200)


def test_a_three_link_lecture_at_1280x720_in_classroom_mode_with_the_clickers_keys_only(tab, app_url):
    start_lesson(tab, app_url)
    for at, (title, source, circuit) in enumerate(LINKS):
        a = analyze(source)
        wait_for_whole_graph(tab)
        drawn = tab.evaluate(DRAWN, PLAYER)
        assert drawn["heading"] == title and drawn["lesson"] == f"Lesson {at + 1} / {len(LINKS)}", drawn
        if circuit:  # the link's style=circuit, really drawn: wires without boxes, no "val" rows
            assert drawn["style"] == "circuit" and drawn["val_rows"] == 0, drawn
            assert drawn["borderless"] == drawn["quiet"] > 0, drawn  # only the current one framed
        else:  # a link without a style is drawn the standard way, whatever the previous link used
            assert drawn["style"] is None and drawn["val_rows"] > 0 and drawn["borderless"] == 0, drawn
        for step in range(a.n_steps):
            if step:
                tab.keyboard.press("ArrowRight")
            assert int(tab.eval_on_selector(PLAYER, "el => Number(el.dataset.step)")) == step, (at, step)
            m = settled(tab, at, step)
            assert m["current"] == f"t{a.index_of(a.trace.steps[step].parent)}", (at, step)
            if step == a.n_steps - 1:
                (ARTIFACTS / "screenshots").mkdir(parents=True, exist_ok=True)
                tab.screenshot(path=str(ARTIFACTS / "screenshots" / f"lecture_link{at + 1}_last.png"))
        if at + 1 < len(LINKS):
            tab.keyboard.press("ArrowRight")  # past the last step: the next link, with → only
            wait_for_link(tab, at + 1)
            assert tab.eval_on_selector(PLAYER, "el => el.dataset.step") == "0"
