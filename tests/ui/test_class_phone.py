"""On a phone a student reads the question without the graph beside it, and types into a box iOS must not zoom.

- the question names its context: the upstream gradient and the node it flows into (``question_context``),
  in the reader's language, on the student's screen whatever the teacher's "Show the rule" says;
- on a phone-wide screen (≤ 640 px) every text box has at least a 16 px font: iOS Safari zooms the page
  into an input whose font is smaller (the answer box was 14 px).
"""
from __future__ import annotations

import re

import pytest

from lucid import gallery
from lucid.autograd import backward_trace
from lucid.expr import run
from lucid.i18n import use_language
from lucid.live_class.grading import question_at
from lucid.live_class.texts import question_context
from lucid.ui.live_class import room_service
from lucid.ui.projector import layout as classroom
from tests.class_pages import page

CIRCUIT = gallery.by_slug("cs231n-circuit").source


def test_a_question_names_the_upstream_gradient_and_the_node_it_flows_into():
    trace = backward_trace(run(CIRCUIT).output)
    q = question_at(trace, 3)
    assert (q["label"], q["upstream"]) == ("grad x", "grad q = −4.000")
    assert question_context(q) == "Upstream gradient `grad q = −4.000`, flowing back into `x`"
    with use_language("ko"):
        assert question_context(q) == "위쪽에서 온 기울기(upstream) `grad q = −4.000`, `x` 쪽으로 흐릅니다"


def test_an_array_upstream_is_said_in_words_and_the_seed_step_has_no_context():
    trace = backward_trace(run("W = randn(2, 3)\nout = sum(W * W)").output)
    q = question_at(trace, 2)
    assert question_context(q) == "Upstream gradient `grad t1: an array of shape 2×3`, flowing back into `W`"
    assert question_context(question_at(trace, 0)) == ""


@pytest.mark.parametrize("show_rule", [True, False])
def test_the_students_question_carries_its_context_with_or_without_the_rule(show_rule):
    rooms = room_service.rooms()
    code, token = rooms.open(CIRCUIT, 0, {"dir": "LR", "style": "circuit"}, step=2)
    try:
        trace = backward_trace(run(CIRCUIT).output)
        rooms.ask(code, token, question_at(trace, 3), show_rule=show_rule)
        room_service.publish(code)
        student = page(room=code)
        assert not student.exception
        shown = [m.value for m in student.markdown]
        assert "Upstream gradient `grad q = −4.000`, flowing back into `x`" in shown
        assert any("∂q/∂x" in m for m in shown) is show_rule  # the rule stays the teacher's choice
    finally:
        rooms.end(code, token)
        room_service.publish(code)


def test_text_boxes_on_a_phone_wide_screen_have_at_least_16_px_type():
    css = classroom.PHONE_CSS
    media = re.search(r"@media \(max-width: (\d+)px\) \{(.*)\}", css, re.S)
    assert media and int(media.group(1)) >= 600  # every phone in portrait, and most in landscape
    rule = media.group(2)
    for selector in ("input", "textarea", '[data-baseweb="input"] input'):
        assert selector in rule
    assert re.search(r"font-size: max\(16px, 1rem\) !important", rule)  # never below 16 px, larger in Classroom mode


@pytest.mark.parametrize("classroom_mode", [False, True])
def test_every_playground_page_carries_the_phone_rule(classroom_mode):
    at = page(**({"classroom": "1"} if classroom_mode else {}))
    assert any("max-width: 640px" in h.proto.body for h in at.get("html"))
