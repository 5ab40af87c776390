"""Predict every gradient, alone (issue 30): the self-paced session grades and diagnoses as the class mode does."""
from __future__ import annotations

import numpy as np
import pytest

from lucid.autograd import backward_trace
from lucid.expr import run
from lucid.gallery import EXAMPLES, by_slug
from lucid.i18n import text, use_language
from lucid.live_class.grading import class_result, diagnose, diagnosis_text, is_correct, question_at
from lucid.practice.predict import PredictSession, asked_element, feedback_diagnosis


def trace_of(source: str):
    return backward_trace(run(source, seed=0).output)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.slug)
def test_every_diagnosis_equals_the_class_modes_grading_on_every_gallery_program(example):
    trace = trace_of(example.source)
    session = PredictSession.start(trace, example.source, seed=3)
    checked = 0
    while not session.finished:
        q = session.question(trace)
        for _key, values in q["candidates"]:
            for v in values[:3]:
                if is_correct(v, q["expected"]):
                    continue
                fb = session.answer(trace, repr(float(v)))
                assert fb.kind == "wrong"
                assert fb.diagnosis == diagnose(v, q) == class_result([v], q).diagnosis
                checked += 1
        assert session.answer(trace, repr(q["expected"])).kind == "right"
    assert checked >= session.score().questions  # every step had at least its sign checked
    assert session.score().right == session.score().questions


def test_the_question_is_the_class_modes_question_about_the_seeded_entry():
    source = by_slug("bias-broadcast").source
    trace = trace_of(source)
    session = PredictSession.start(trace, source, seed=7)
    step = session.step
    shape = tuple(trace.steps[step].accumulated.shape)
    element = asked_element(shape, 7, step)
    assert session.question(trace) == question_at(trace, step, element)
    assert session.question(trace)["expected"] == float(np.asarray(trace.steps[step].accumulated)[element])
    assert asked_element(shape, 7, step) == element  # deterministic
    assert {asked_element((4, 3), s, 1) for s in range(20)} != {(0, 0)}  # not always the first entry
    assert asked_element((), 7, 1) == ()
    assert question_at(trace, step) == question_at(trace, step, (0,) * len(shape))  # the class still asks [0...]


def test_a_scalar_program_grades_non_unit_values_and_diagnoses_forgot_plus_equals():
    source = "x = 1.5\ny = -2.5\nz = 0.75\nq = x * y\nf = q * z + x"
    trace = trace_of(source)
    session = PredictSession.start(trace, source)
    while session.step != 5:
        session.reveal(trace)
    q = session.question(trace)
    assert q["label"] == "grad x" and q["expected"] == pytest.approx(-0.875)  # 1 + (-2.5 * 0.75)
    fb = session.answer(trace, "-1.875")  # this step's contribution only
    assert fb.kind == "wrong" and fb.diagnosis == "forgot +="
    assert "Forgot `+=`" in feedback_diagnosis(fb)
    fb = session.answer(trace, "0.875")
    assert fb.diagnosis == "sign"
    fb = session.answer(trace, "1.5")
    assert fb.diagnosis == "value, not gradient"
    fb = session.answer(trace, "42")
    assert fb.kind == "wrong" and fb.diagnosis is None and "42" in text(fb.message)
    assert session.answer(trace, "-0.875").kind == "right"


def test_a_tensor_program_diagnoses_the_forgotten_broadcast_sum():
    source = "W = [[0.5, -1.0], [2.0, 0.25], [1.5, -0.5]]\nb = [0.3, -0.7]\nL = sum((W + b) * W)"
    trace = trace_of(source)
    session = PredictSession.start(trace, source, seed=1)
    while not trace.steps[session.step].broadcast:
        session.reveal(trace)
    q = session.question(trace)
    assert q["name"] == "b" and q["shape"] == [2]
    j = q["element"][0]
    assert q["expected"] == pytest.approx(float(np.sum(np.array([[0.5, -1.0], [2.0, 0.25], [1.5, -0.5]])[:, j])))
    one_row = q["candidates"][[k for k, _ in q["candidates"]].index("forgot to sum")][1][0]
    fb = session.answer(trace, repr(one_row))
    assert fb.diagnosis == "forgot to sum" == class_result([one_row], q).diagnosis


def test_the_score_counts_first_tries_tries_and_reveals():
    source = by_slug("cs231n-circuit").source  # 4 questions: grad q, z, x, y
    trace = trace_of(source)
    session = PredictSession.start(trace, source)
    assert session.score().questions == 4 and session.score().done == 0
    assert session.answer(trace, "-4").kind == "right"  # grad q = z, first try
    assert session.answer(trace, "1").kind == "wrong"  # grad z = q = 3
    assert session.answer(trace, "3").kind == "right"  # second try
    assert session.answer(trace, "nope").kind == "rejected"  # not a try
    session.reveal(trace)  # grad x revealed
    assert session.answer(trace, "-4.00").kind == "right"  # grad y, first try
    score = session.score()
    counts = (score.questions, score.done, score.first_try, score.right, score.revealed, score.tries)
    assert counts == (4, 4, 2, 3, 1, 4)
    assert score.finished and session.finished and session.question(trace) is None
    assert session.answer(trace, "1").kind == "rejected" and session.reveal(trace).kind == "rejected"
    assert session.score() == score


def test_a_reveal_after_wrong_tries_counts_revealed_and_the_mistakes():
    source = by_slug("used-twice").source
    trace = trace_of(source)
    session = PredictSession.start(trace, source)
    session.reveal(trace)
    q = session.question(trace)
    contribution = dict(q["candidates"])["forgot +="][0]
    session.answer(trace, repr(contribution))
    session.answer(trace, repr(-q["expected"]))
    session.reveal(trace)
    score = session.score()
    assert (score.first_try, score.revealed, score.tries) == (0, 2, 2)
    assert session.mistakes() == {"forgot +=": 1, "sign": 1}


@pytest.mark.parametrize("bad", ["", "   ", "abc", "nan", "NaN", "inf", "-inf", "1e400", "9" * 40, "1e16",
                                 None, 3.5, ["1"], "1,2,3,4", "2+2", "__import__('os')"])
def test_bad_input_gets_a_clear_message_and_never_raises(bad):
    source = by_slug("cs231n-circuit").source
    trace = trace_of(source)
    session = PredictSession.start(trace, source)
    fb = session.answer(trace, bad)
    assert fb.kind == "rejected" and len(text(fb.message)) > 10
    assert session.score().tries == 0 and session.step == 1


def test_answers_are_read_in_the_readers_locale():
    source = "a = 1000.0\nb = 2.0\nf = a * b"
    trace = trace_of(source)
    session = PredictSession.start(trace, source)
    while session.question(trace)["name"] != "b":
        session.reveal(trace)
    assert session.answer(trace, "1,000", locale="en").kind == "right"
    session = PredictSession.start(trace, source)
    while session.question(trace)["name"] != "b":
        session.reveal(trace)
    assert session.answer(trace, "1,000", locale="de").kind == "wrong"  # 1.0 in German
    assert session.answer(trace, "1,000").kind == "rejected"  # ambiguous without a locale


def test_the_messages_and_diagnoses_read_in_korean():
    source = "x = 1.5\ny = -2.5\nz = 0.75\nq = x * y\nf = q * z + x"
    trace = trace_of(source)
    session = PredictSession.start(trace, source)
    while session.step != 5:
        session.reveal(trace)
    fb = session.answer(trace, "-1.875")
    with use_language("ko"):
        assert feedback_diagnosis(fb) == diagnosis_text("forgot +=") and "+=" in feedback_diagnosis(fb)
        assert text(fb.message) != text(fb.message.render("en"))
