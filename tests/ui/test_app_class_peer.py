"""Peer instruction on the Playground (AppTest): the teacher asks a multiple-choice question with a countdown, the
class votes, *Ask again* opens round 2 with the answer still hidden, and after *Reveal* both rounds' histograms stand
side by side with how many changed to the right answer; a student picks a choice (graded like the typed number), is
told when time is up, and the exit ticket has a row per round."""
from __future__ import annotations

import csv
import io
import json
import time

import pytest

from lucid import gallery
from lucid.ui.live_class import room_service
from tests.class_pages import page
from tests.ui.test_app_class_panel import _said

CIRCUIT = gallery.by_slug("cs231n-circuit").source
CHART = "vega_lite_chart"


def _click(at, label: str) -> None:
    next(b for b in at.button if b.label == label).click().run()
    assert not at.exception, [e.message for e in at.exception]


@pytest.fixture()
def teacher():
    """A teacher's page on the circuit at step 2 (the next question: grad x = -4 at step 3)."""
    rooms = room_service.rooms()
    code, token = rooms.open(CIRCUIT, 0, {"classroom": "1"}, step=2)
    at = page(room=code, teach=token, code=CIRCUIT, step="2")
    at.session_state["pg_step"] = 2
    yield at, code, token
    if rooms.view(code) is not None:
        rooms.end(code, token)
        room_service.publish(code)


def test_a_multiple_choice_question_offers_the_right_value_and_the_mistakes_and_grades_a_pick(teacher):
    at, code, _token = teacher
    at.toggle(key="pg_ask_choice").set_value(True).run()
    _click(at, "Ask the class")
    q = room_service.rooms().view(code).question
    assert q["kind"] == "choice" and sorted(q["choices"]) == [-4.0, -2.0, 4.0]  # right, value for gradient, sign
    student = page(room=code)
    radio = next(r for r in student.radio if r.key == f"pg_choice_{q['id']}")
    assert radio.value is None
    assert [t.key for t in student.text_input] == ["pg_nickname"]  # no box to type a number in
    radio.set_value(q["choices"].index(4.0))
    _click(student, "Submit")
    assert any("Answer received: 4.000" in s.value for s in student.success)
    (answer,) = room_service.rooms().answers(code, q["id"])
    assert answer["value"] == 4.0 and answer["choice"] == q["choices"].index(4.0)
    assert "Asked at step 3: grad x = ?" in _said(at.run()) and "multiple choice" in _said(at)


def test_ask_again_then_reveal_shows_both_rounds_side_by_side_and_who_changed(teacher):
    at, code, token = teacher
    _click(at, "Ask the class")
    first = room_service.rooms().view(code).question
    students = [page(room=code) for _ in range(3)]
    for student, answer in zip(students, ("4", "4", "-4"), strict=True):
        student.text_input(key="pg_answer").input(answer)
        _click(student, "Submit")
    at.run()
    _click(at, "Ask again")
    said = _said(at)
    assert "Round 2 · **Asked at step 3: grad x = ?**" in said and "**0 / 3** answered" in said
    assert not at.get(CHART) and "−4.000" not in said  # round 2 is hidden from the projector too
    assert not [b for b in at.button if b.label == "Ask again"]  # two rounds at most
    for student, answer in zip(students, ("-4", "4", "-4"), strict=True):
        student.run()
        assert any("Round 2: discuss it with your neighbours" in i.value for i in student.info)
        student.text_input(key="pg_answer").input(answer)
        _click(student, "Submit")
    at.run()
    _click(at, "Reveal")
    said = _said(at)
    assert "**3 / 3** answered · **2** right (67%)  \nround 1: 33% right · **1** changed to the right answer" in said
    (chart,) = at.get(CHART)
    spec = json.loads(chart.proto.spec)
    assert [panel["title"]["text"] for panel in spec["hconcat"]] == ["Round 1", "Round 2"]
    assert spec["resolve"]["scale"]["y"] == "shared"
    assert "Round 1: Answers: −4.000 ✓ right: 1 · 4.000: 2 · Round 2: Answers: −4.000 ✓ right: 2 · 4.000: 1" in said
    rows = list(csv.DictReader(io.StringIO(_ticket(code, token))))
    assert [(r["question"], r["round"], r["correct rate"], r["changed to right"]) for r in rows] == [
        ("1", "1", "33%", ""), ("1", "2", "67%", "1")]
    assert room_service.rooms().view(code).questions[0]["id"] == first["id"]


def _ticket(code: str, token: str) -> str:
    from lucid.live_class.ticket import exit_ticket

    return exit_ticket(room_service.rooms().history(code, token))


def test_an_answer_after_the_countdown_is_refused_with_a_message(teacher, monkeypatch):
    at, code, _token = teacher
    at.selectbox(key="pg_countdown").set_value(30).run()
    _click(at, "Ask the class")
    assert "**30 s** left" in _said(at) or "**29 s** left" in _said(at)
    student = page(room=code)
    assert any("lucid-countdown" in h.proto.body for h in student.get("html"))
    rooms = room_service.rooms()
    later = time.time() + 45
    monkeypatch.setattr(rooms, "clock", lambda: later)
    student.text_input(key="pg_answer").input("-4")
    _click(student, "Submit")
    assert any("Time is up" in e.value for e in student.error)
    assert rooms.answers(code, rooms.view(code).question["id"]) == []
    assert "time is up" in _said(at.run())


def test_the_teacher_sees_who_has_not_answered_by_nickname_as_text(teacher):
    at, code, _token = teacher
    _click(at, "Ask the class")
    a, b = page(room=code), page(room=code)
    a.text_input(key="pg_answer").input("-4")
    a.text_input(key="pg_nickname").input("![x](http://e/p.png)")
    _click(a, "Submit")
    b.text_input(key="pg_answer").input("4")
    _click(b, "Submit")
    at.run()
    _click(at, "Ask again")
    assert "2 not answered" in [p.proto.popover.label for p in at.get("popover")]
    said = _said(at)
    assert r"\!\[x\]\(http\://e/p\.png\)" in said and "and 1 without a nickname" in said
    a.run()
    assert a.text_input(key="pg_nickname").value == "![x](http://e/p.png)"  # the form keeps the nickname
