"""Exercises sent to a live class (issue 30), on the Playground in Streamlit's AppTest.

The teacher of a room on the CS231n circuit sends *Predict every gradient*; two students start it, answer at their
own pace (one right, one with a flipped sign), and the teacher's panel shows two working, the sign as the most
common mistake and where it was made. Then the teacher sends a detective case made in the detective panel; a
student starts it, checks the culprit and solves it, and the exit ticket has a row for each exercise.
"""
from __future__ import annotations

import csv
import io

import pytest

from lucid import gallery
from lucid.live_class.ticket import COLUMNS, exit_ticket
from lucid.ui.live_class import room_service
from lucid.ui.playground.keys import keys
from tests.class_pages import page

K = keys("pg")
CIRCUIT = gallery.by_slug("cs231n-circuit").source
SCALAR = gallery.by_slug("scalar").source


def opened(source: str):
    rooms = room_service.rooms()
    code, token = rooms.open(source, 0, {}, step=0)
    yield code, token
    if rooms.view(code) is not None:
        rooms.end(code, token)
        room_service.publish(code)


@pytest.fixture()
def room():
    yield from opened(CIRCUIT)


@pytest.fixture()
def scalar_room():
    yield from opened(SCALAR)


def texts(at) -> str:
    return "\n".join(str(e.value) for e in (*at.markdown, *at.caption, *at.success, *at.error, *at.info,
                                            *at.warning))


def teacher(code: str, token: str, source: str = CIRCUIT):
    at = page(room=code, teach=token, code=source)
    at.session_state[K.exercise_open] = True
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def start(code: str):
    at = page(room=code)
    assert "Your teacher sent an exercise: **Predict every gradient**" in texts(at) or \
        "Your teacher sent an exercise: **Gradient detective**" in texts(at)
    at.button(key=K.exercise_start).click()
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def answer(at, typed: str) -> None:
    at.text_input(key=K.practice_answer).input(typed)
    at.button(key=K.practice_check).click()
    at.run()
    assert not at.exception, [e.message for e in at.exception]


def test_students_work_a_predict_exercise_and_the_teacher_sees_their_progress(room):
    code, token = room
    at = teacher(code, token)
    at.radio(key=K.exercise_kind).set_value("predict")
    at.button(key=K.exercise_send).click()
    at.run()
    exercise = room_service.rooms().view(code).exercise
    assert exercise["kind"] == "predict"

    ada, bo = start(code), start(code)
    assert "What does **`grad q`** hold after step 1?" in texts(ada)  # the practice opened on the room's program
    answer(ada, "-4")  # grad q = z = -4: right
    answer(bo, "4")  # the sign flipped
    answer(bo, "-4")
    answer(bo, "-3")  # grad z = q = 3: the sign again

    reports = room_service.rooms().exercise_reports(code, token, exercise["id"])
    assert sorted(r["done"] for r in reports) == [1, 1]  # each has grad q right; bo is still on grad z
    at.run()
    shown = texts(at)
    assert "2 students working · 0 finished" in shown
    assert "Most common mistake: The sign is flipped: right size, wrong sign. (2×)" in shown
    assert "`grad q` ×1" in shown and "`grad z` ×1" in shown

    at.button(key=K.exercise_stop).click()
    at.run()
    assert room_service.rooms().view(code).exercise is None


def test_a_detective_case_goes_to_the_class_and_a_student_solves_it(scalar_room):
    code, token = scalar_room
    at = teacher(code, token, SCALAR)
    at.session_state[K.detective_open] = True
    at.run()
    labels = at.selectbox(key=K.detective_fault).options
    choice = next(i for i, label in enumerate(labels) if label.startswith("The sign of ∂(a − b)") or
                  label.startswith("= instead of +="))
    at.selectbox(key=K.detective_fault).set_value(choice)
    at.button(key=K.detective_make).click()
    at.run()
    at.radio(key=K.exercise_kind).set_value("detective")
    at.run()
    at.button(key=K.exercise_send).click()
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    exercise = room_service.rooms().view(code).exercise
    assert exercise["kind"] == "detective" and len(exercise["case"]) == 31

    student = start(code)
    assert "Gradient detective" in texts(student)
    culprit = int(labels[choice].split(" · t", 1)[1].split(" ")[0])
    student.selectbox(key=K.detective_node).set_value(culprit)
    student.button(key=K.detective_check).click()
    student.run()
    mistake = next(slug for slug, title in [("sub-sign", "The sign of"), ("overwrite", "= instead")]
                   if labels[choice].startswith(title))
    student.selectbox(key=K.detective_culprit).set_value(culprit)
    student.selectbox(key=K.detective_mistake).set_value(mistake)
    student.button(key=K.detective_accuse).click()
    student.run()
    assert not student.exception, [e.message for e in student.exception]
    assert "Solved with 1 node checks and 0 wrong guesses." in texts(student)
    reports = room_service.rooms().exercise_reports(code, token, exercise["id"])
    assert [(r["finished"], r["checks"]) for r in reports] == [(True, 1)]
    at.run()
    assert "1 students working · 1 finished" in texts(at)
    assert "Checks used by those who solved it: 1" in texts(at)

    rooms = room_service.rooms()
    rows = list(csv.reader(io.StringIO(exit_ticket(rooms.history(code, token),
                                                   rooms.exercise_history(code, token)))))
    row = dict(zip(COLUMNS, rows[-1]))
    assert row["question"] == "x1" and row["kind"] == "exercise: gradient detective" and row["correct"] == "1"


def test_a_program_change_stops_the_exercise(room):
    code, token = room
    xid = room_service.rooms().send_exercise(code, token, "predict")
    assert room_service.rooms().view(code).exercise["id"] == xid
    room_service.rooms().set_program(code, token, "x = 2.0\ny = x * x\n", 0, {})
    assert room_service.rooms().view(code).exercise is None
