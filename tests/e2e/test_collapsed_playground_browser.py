"""In a real browser: a Playground program past the node cap is drawn collapsed, stepped box by box and opened
by a click on a box (and closed again by a click on the open group's header), keeping the step on screen."""
from __future__ import annotations

import re
import urllib.parse

import pytest

from lucid.autograd import backward_trace
from lucid.expr import run
from lucid.session import share
from lucid.viz import large_view
from tests.e2e.waits import SLOW, after_paint, url_step, wait_for_new_frame, wait_until_idle
from tests.large_programs import scalar_mlp_source

pytestmark = pytest.mark.e2e

GRAPH = ".st-key-pg_graph"
PLAYER = f"{GRAPH} .lucid-player"
NODES = f"{GRAPH} .lucid-svg-host g.node"
SOURCE = scalar_mlp_source()


@pytest.fixture(scope="module")
def view():
    program = run(SOURCE, seed=0)
    return large_view(program.output, backward_trace(program.output))


def open_program(tab, app_url: str, step: int | None = None) -> None:
    tab.goto(f"{app_url}/playground?{urllib.parse.urlencode(share.encode(SOURCE, step=step))}")
    tab.wait_for_selector(NODES, timeout=SLOW)
    wait_until_idle(tab)
    after_paint(tab)


def shown(tab) -> tuple[int, int]:
    """(player step, trace step) on screen."""
    return tuple(tab.eval_on_selector(PLAYER, "el => [Number(el.dataset.step), Number(el.dataset.traceStep)]"))


def node_ids(tab) -> set[str]:
    return set(tab.eval_on_selector_all(NODES, "els => els.map(e => e.id)"))


def current_id(tab) -> str | None:
    return tab.evaluate("sel => document.querySelector(sel)?.id ?? null", f"{NODES}.current")


def test_a_collapsed_program_steps_box_by_box_with_the_next_button_and_key(tab, app_url, view):
    open_program(tab, app_url)
    assert node_ids(tab) == set(view.units)  # boxes and the nodes drawn on their own, nothing else
    tab.get_by_text(re.compile("click a box to open it")).first.wait_for()
    assert shown(tab) == (0, 0) and current_id(tab) == view.steps[0].unit
    sent: list[str] = []
    tab.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(str(payload)[:40])))
    next_button = tab.locator(f"{PLAYER} .lucid-btn[data-action=next]")
    for k in (1, 2, 3):
        next_button.click()
        c = view.steps[k]
        assert shown(tab) == (k, c.last)
        assert current_id(tab) == c.unit  # the box the gradient works through now
        assert url_step(tab, c.last) == c.last  # links keep counting trace steps
    tab.evaluate("() => document.activeElement && document.activeElement.blur()")
    tab.keyboard.press("ArrowRight")
    assert shown(tab) == (4, view.steps[4].last) and current_id(tab) == view.steps[4].unit
    expl = tab.locator(f"{PLAYER} .lucid-expl").inner_text()
    assert f"Trace steps {view.steps[4].first}–{view.steps[4].last}" in expl
    assert sent == []  # stepping never asks the server


def test_a_click_on_a_box_opens_it_keeping_the_step_and_its_header_closes_it(tab, app_url, view):
    open_program(tab, app_url, step=11)
    k = view.step_of(11)
    assert shown(tab) == (k, 11)
    before = node_ids(tab)
    box = next(u for u in view.units if u.startswith("g") and view.group_of_unit(u).size == 200)
    frame = tab.eval_on_selector(f"{GRAPH} .lucid-svg-host", "el => el.dataset.frame")
    tab.locator(f"{NODES}#{box}").click()
    frame = wait_for_new_frame(tab, frame, GRAPH)
    wait_until_idle(tab)
    opened = node_ids(tab)
    assert len(opened) > len(before) and box in opened  # the box's inner boxes, and its header
    assert tab.eval_on_selector(f"{NODES}#{box}", "el => el.getAttribute('class')").startswith("node group-header")
    assert shown(tab)[1] == 11 and url_step(tab, 11) == 11  # the student stays where they were
    inspector = tab.locator(".st-key-pg_inspector")
    inspector.get_by_text(re.compile(rf"{box} · box .* 200 nodes, open")).first.wait_for(timeout=SLOW)

    tab.locator(f"{NODES}#{box}").click()  # the open group's header
    wait_for_new_frame(tab, frame, GRAPH)
    wait_until_idle(tab)
    assert node_ids(tab) == before and shown(tab) == (k, 11)
    assert tab.locator("[data-testid='stException']").count() == 0
