"""Exercises sent to a live class (issue 30): sent by the teacher only, reported by students, bounded, summed up
for the teacher's panel and the exit ticket, against every store (memory, SQLite, Redis)."""
from __future__ import annotations

import csv
import io

import pytest

from lucid.live_class import AnswerRejected, NotTeacher
from lucid.live_class.exercises import MAX_COUNT, MAX_EXERCISES, MAX_KEYS, clean_report, summarize
from lucid.live_class.feed import feed_of
from lucid.live_class.ticket import COLUMNS, exit_ticket
from tests.live_class.test_rooms import Clock, make_rooms, redis_url  # noqa: F401 - fixtures

SOURCE = "x = 3.0\ny = x * x\n"


def test_the_teacher_sends_an_exercise_that_every_student_sees_in_the_feed(make_rooms):  # noqa: F811
    rooms, _ = make_rooms()
    code, token = rooms.open(SOURCE)
    assert rooms.view(code).exercise is None and feed_of(rooms.view(code))["x"] == ""
    with pytest.raises(NotTeacher):
        rooms.send_exercise(code, "not the token", "predict")
    xid = rooms.send_exercise(code, token, "predict")
    view = rooms.view(code)
    assert view.exercise == {"id": xid, "kind": "predict", "case": None}
    assert feed_of(view)["x"] == xid
    rooms.stop_exercise(code, token)
    assert rooms.view(code).exercise is None and feed_of(rooms.view(code))["x"] == ""


@pytest.mark.parametrize("kind, case, message", [("homework", None, "An exercise is one of"),
                                                 ("detective", None, "Make a detective link"),
                                                 ("detective", "x" * 65, "Make a detective link")])
def test_a_bad_exercise_is_refused_in_words(make_rooms, kind, case, message):  # noqa: F811
    rooms, _ = make_rooms()
    code, token = rooms.open(SOURCE)
    with pytest.raises(AnswerRejected, match=message):
        rooms.send_exercise(code, token, kind, case)


def test_a_class_gets_a_bounded_number_of_exercises(make_rooms):  # noqa: F811
    rooms, _ = make_rooms()
    code, token = rooms.open(SOURCE)
    for _ in range(MAX_EXERCISES):
        rooms.send_exercise(code, token, "predict")
    with pytest.raises(AnswerRejected, match="at most"):
        rooms.send_exercise(code, token, "predict")


def test_students_report_their_progress_and_a_new_report_replaces_theirs(make_rooms):  # noqa: F811
    rooms, _ = make_rooms()
    code, token = rooms.open(SOURCE)
    a, b = rooms.issue_student(code), rooms.issue_student(code)
    xid = rooms.send_exercise(code, token, "predict")
    rooms.report(code, a, xid, {"done": 1, "total": 3, "mistakes": {"forgot +=": 1}, "nodes": {"t0 · x": 1}},
                 nickname=" Ada ")
    rooms.report(code, a, xid, {"done": 3, "total": 3, "finished": True, "mistakes": {"forgot +=": 1},
                                "nodes": {"t0 · x": 1}}, nickname="Ada")
    rooms.report(code, b, xid, {"done": 2, "total": 3, "mistakes": {"sign": 2, "forgot +=": 1},
                                "nodes": {"t0 · x": 3}})
    reports = rooms.exercise_reports(code, token, xid)
    assert sorted(r["done"] for r in reports) == [2, 3]
    summary = summarize(reports)
    assert (summary.students, summary.finished) == (2, 1)
    assert summary.mistakes == {"forgot +=": 2, "sign": 2} and summary.nodes == {"t0 · x": 4}
    with pytest.raises(NotTeacher):
        rooms.exercise_reports(code, "not the token", xid)


def test_a_report_for_another_or_a_stopped_exercise_or_from_a_made_up_student_is_refused(make_rooms):  # noqa: F811
    rooms, _ = make_rooms()
    code, token = rooms.open(SOURCE)
    a = rooms.issue_student(code)
    xid = rooms.send_exercise(code, token, "predict")
    with pytest.raises(AnswerRejected, match="stopped"):
        rooms.report(code, a, "another", {"done": 1})
    with pytest.raises(AnswerRejected):
        rooms.report(code, "made-up", xid, {"done": 1})
    rooms.stop_exercise(code, token)
    with pytest.raises(AnswerRejected, match="stopped"):
        rooms.report(code, a, xid, {"done": 1})
    assert rooms.exercise_reports(code, token, xid) == []


def test_reports_are_bounded_in_rate(make_rooms):  # noqa: F811
    rooms, _ = make_rooms()
    code, token = rooms.open(SOURCE)
    a = rooms.issue_student(code)
    xid = rooms.send_exercise(code, token, "predict")
    limit = 4 * rooms.limits.answers_per_minute
    for _ in range(limit):
        rooms.report(code, a, xid, {"done": 1, "total": 2})
    with pytest.raises(AnswerRejected, match="Too many reports"):
        rooms.report(code, a, xid, {"done": 1, "total": 2})


def test_a_hostile_report_is_cleaned_to_known_bounded_fields():
    hostile = {"done": 10**12, "total": -5, "finished": "yes", "checks": True, "evil": "<script>",
               "mistakes": {f"k{i}": 1 for i in range(1000)} | {"": 3},
               "nodes": {"n" * 10_000: 10**9, "t1": "many"}}
    report = clean_report(hostile)
    assert set(report) == {"done", "total", "finished", "checks", "mistakes", "nodes"}
    assert report["done"] == MAX_COUNT and report["total"] == 0 and report["finished"] is False
    assert report["checks"] == 0
    assert len(report["mistakes"]) <= MAX_KEYS
    assert all(len(k) <= 48 for k in report["nodes"]) and report["nodes"] == {"n" * 48: MAX_COUNT}
    assert clean_report("not a dict") == clean_report({})
    assert clean_report({"done": 5, "total": 3})["done"] == 3  # never more steps done than there are


def test_the_exit_ticket_has_a_row_per_exercise_after_the_questions(make_rooms):  # noqa: F811
    rooms, _ = make_rooms()
    code, token = rooms.open(SOURCE)
    a, b = rooms.issue_student(code), rooms.issue_student(code)
    rooms.ask(code, token, {"step": 2, "label": "grad x", "expected": 6.0}, show_rule=False)
    rooms.answer(code, a, "6")
    xid = rooms.send_exercise(code, token, "detective", "sealed-case-token")
    rooms.report(code, a, xid, {"checks": 3, "finished": True, "mistakes": {"tanh-from-input": 1},
                                "nodes": {"t5 · tanh": 1}}, nickname="=cmd")
    rooms.report(code, b, xid, {"checks": 5, "mistakes": {"tanh-from-input": 2, "overwrite": 1},
                                "nodes": {"t5 · tanh": 2}})
    rooms.end(code, token)
    text = exit_ticket(rooms.history(code, token), rooms.exercise_history(code, token))
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == COLUMNS and len(rows) == 3
    row = dict(zip(COLUMNS, rows[2]))
    assert row["question"] == "x1" and row["kind"] == "exercise: gradient detective"
    assert (row["answers"], row["correct"], row["correct rate"]) == ("2", "1", "50%")
    assert row["distribution"] == "t5 · tanh ×3"
    assert row["diagnosis"] == "tanh-from-input"
    assert row["diagnosis (in words)"].startswith("tanh′ from the input")
    assert row["nicknames"] == "'=cmd: 0/0 ✓"  # typed text never runs as a spreadsheet formula
