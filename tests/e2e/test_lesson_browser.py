"""A lesson in a real Chromium: the clicker's keys step across link boundaries; a phone and a projector layout.

- A 2-link lesson: → after the first program's last step opens the second link (the bar says "Lesson 2 / 2"),
  ← at its step 0 comes back to the first program's last step.
- On a phone (390×844) the explanation is below the graph, not squeezed beside it.
- In Classroom mode at 1280×720 the bar's *Inspector* button brings the node inspector on screen.
"""
from __future__ import annotations

import urllib.parse

import pytest

from lucid.session import lesson_plan as lesson
from lucid.session import share
from tests.e2e.waits import SLOW, after_paint, url_step, wait_until_idle

pytestmark = pytest.mark.e2e

PLAYER = ".st-key-pg_graph .lucid-player"
PLAN = '''title = "Two programs"

[[link]]
code = "x = 2.0\\ny = x * x"

[[link]]
code = "a = 3.0\\nb = a * 4.0"
'''


def _open(tab, app_url: str, query: dict[str, str]) -> None:
    tab.goto(f"{app_url}/playground?{urllib.parse.urlencode(query)}")
    tab.wait_for_selector(f"{PLAYER} g.node.current", timeout=SLOW)
    wait_until_idle(tab)
    after_paint(tab)
    tab.evaluate("() => document.activeElement && document.activeElement.blur()")


def _state(tab) -> dict:
    return tab.evaluate("""(sel) => {
        const root = document.querySelector(sel);
        return {step: Number(root.dataset.step), lesson: root.querySelector('.lucid-lesson').textContent,
                n: Number(root.querySelector('.lucid-step').max) + 1,
                at: new URL(location.href).searchParams.get('at'),
                program: root.querySelector('.lucid-expl-head').textContent};
    }""", PLAYER)


def _wait_lesson(tab, where: str) -> None:
    tab.wait_for_function("([sel, w]) => document.querySelector(sel + ' .lucid-lesson')?.textContent === w",
                          arg=[PLAYER, f"Lesson {where}"], timeout=SLOW)
    wait_until_idle(tab)
    after_paint(tab)


def test_the_clickers_keys_step_through_a_two_link_lesson_across_the_boundary(page, app_url):
    plan = lesson.parse_plan(PLAN)
    page.set_viewport_size({"width": 1280, "height": 720})
    _open(page, app_url, {**lesson.encode(plan, 0), **share.encode(plan.links[0].source)})
    first = _state(page)
    assert (first["lesson"], first["step"], first["n"]) == ("Lesson 1 / 2", 0, 3)

    for expected in (1, 2):  # through the first program
        page.keyboard.press("ArrowRight")
        assert _state(page)["step"] == expected
    page.keyboard.press("PageDown")  # past its last step: the next link
    _wait_lesson(page, "2 / 2")
    second = _state(page)
    assert (second["at"], second["step"], second["n"]) == ("1", 0, 2)
    assert page.locator(".st-key-pg_graph g.node text", has_text="a").count() > 0

    page.keyboard.press("ArrowLeft")  # before step 0: back to the first link, at its last step
    _wait_lesson(page, "1 / 2")
    back = _state(page)
    assert (back["at"], back["step"]) == ("0", 2)
    url_step(page, 2)  # written once the step is painted
    assert page.evaluate("() => new URL(location.href).searchParams.get('step')") == "2"


@pytest.mark.parametrize("classroom", ["0", "1"])
def test_on_a_phone_the_explanation_goes_below_the_graph(page, app_url, classroom):
    page.set_viewport_size({"width": 390, "height": 844})
    _open(page, app_url, {**share.encode("x = 2.0\nw = 3.0\ny = tanh(w * x)"), "classroom": classroom})
    boxes = page.evaluate("""(sel) => {
        const root = document.querySelector(sel);
        const box = (q) => { const b = root.querySelector(q).getBoundingClientRect();
                             return {top: b.top, bottom: b.bottom, left: b.left, right: b.right}; };
        return {graph: box('.lucid-svg-host > svg'), host: box('.lucid-svg-host'), expl: box('.lucid-expl'),
                width: innerWidth};
    }""", PLAYER)
    assert boxes["expl"]["top"] >= boxes["graph"]["bottom"] - 1
    assert boxes["expl"]["right"] - boxes["expl"]["left"] > 0.8 * (boxes["width"] - 32)  # the page's width
    assert boxes["host"]["right"] <= boxes["width"] + 1  # a graph wider than a phone scrolls inside its frame


def test_the_bars_inspector_button_brings_the_node_inspector_on_screen_in_classroom_mode(page, app_url):
    page.set_viewport_size({"width": 1280, "height": 720})
    _open(page, app_url, {**share.encode("x = 2.0\nw = 3.0\ny = tanh(w * x)"), "classroom": "1"})
    inspector = page.locator(".st-key-pg_inspector")
    assert inspector.bounding_box()["y"] > 720  # below the fold until asked for
    page.locator(f"{PLAYER} .lucid-inspect").click()
    page.wait_for_function("() => { const b = document.querySelector('.st-key-pg_inspector')"
                           ".getBoundingClientRect(); return b.top >= 0 && b.top < innerHeight - 100; }",
                           timeout=SLOW)
    bar = page.locator(f"{PLAYER} .lucid-bar").bounding_box()
    assert inspector.bounding_box()["y"] >= bar["y"] + bar["height"] - 1  # not under the sticky bar


def test_open_in_playground_from_pitfalls_lands_on_that_graph_at_its_last_step(page, app_url):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{app_url}/pitfalls")
    button = page.get_by_role("button", name="Open in Playground")
    button.wait_for(timeout=SLOW)
    wait_until_idle(page)
    button.click()
    page.wait_for_url("**/playground**", timeout=SLOW)
    page.wait_for_selector(f"{PLAYER} g.node.current", timeout=SLOW)
    wait_until_idle(page)
    page.wait_for_function("sel => document.querySelector(sel).dataset.step === '2'", arg=PLAYER, timeout=SLOW)
    assert page.locator(".st-key-pg_source textarea").input_value().strip() == "x = 3.0\ny = x * x"
    url_step(page, 2)  # written once the step is painted
    assert page.evaluate("() => new URL(location.href).searchParams.get('step')") == "2"


VIEW_PLAN = '''title = "Gates"

[[link]]
title = "Left to right, a title long enough that the bar has to cut it rather than wrap onto a second row"
code = "x = 2.0\\ny = x * x"
dir = "LR"

[[link]]
url = "/playground?example=cs231n-sigmoid&style=circuit"
'''


def _bar(tab) -> dict:
    return tab.evaluate("""(sel) => {
        const bar = document.querySelector(sel + ' .lucid-bar');
        const shown = [...bar.children].filter((c) => c.offsetParent !== null);
        const title = bar.querySelector('.lucid-lesson-title');
        const tops = shown.map((c) => c.getBoundingClientRect().top + c.getBoundingClientRect().height / 2);
        return {heading: title.offsetParent === null ? '' : title.textContent,
                rows: Math.max(...tops) - Math.min(...tops) < 12 ? 1 : 2,
                cut: title.scrollWidth > title.clientWidth,
                params: Object.fromEntries(new URL(location.href).searchParams)};
    }""", PLAYER)


def test_in_classroom_mode_each_link_opens_in_its_view_headed_by_its_title_in_the_bars_one_row(page, app_url):
    plan = lesson.parse_plan(VIEW_PLAN)
    page.set_viewport_size({"width": 1280, "height": 720})
    _open(page, app_url, {**lesson.encode(plan, 0), **share.encode(plan.links[0].source), "classroom": "1",
                          "dir": "LR"})
    first = _bar(page)
    assert first["heading"].startswith("Left to right, a title") and first["cut"] and first["rows"] == 1
    page.keyboard.press("End")
    page.keyboard.press("PageDown")  # past the last step: the example link, in the circuit style
    _wait_lesson(page, "2 / 2")
    second = _bar(page)
    assert second["heading"] == "CS231n: a sigmoid neuron, gate by gate" and second["rows"] == 1
    assert second["params"]["style"] == "circuit" and "dir" not in second["params"]
    assert second["params"]["classroom"] == "1"  # the lecturer's Classroom mode holds
