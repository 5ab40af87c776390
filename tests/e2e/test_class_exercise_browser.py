"""A teacher sends a live class an exercise and sees two students' progress (issue 30), in Chromium.

The teacher starts a class on the CS231n circuit and sends *Predict every gradient* from the *Class exercise*
panel. Both students' pages offer it (the feed names the exercise, so each page runs again by itself); each starts
it, one answers right, the other with the sign flipped. The teacher's panel, refreshing by itself, reads two
students working, the sign as the most common mistake and where it was made.
"""
from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from tests.e2e.class_tabs import room_state, students_join, teacher_starts_a_class
from tests.e2e.conftest import ARTIFACTS
from tests.e2e.waits import SLOW, wait_until_idle

pytestmark = pytest.mark.e2e


def answer(student, typed: str, shows: str) -> None:
    student.locator(".st-key-pg_practice_answer input").fill(typed)
    student.locator(".st-key-pg_practice_check button").click()
    student.get_by_text(shows).first.wait_for(timeout=SLOW)
    wait_until_idle(student)


def test_a_teacher_sends_an_exercise_and_sees_two_students_progress(browser, app_url):
    contexts: list = []
    try:
        teacher = teacher_starts_a_class(browser, app_url, contexts)
        code = parse_qs(urlparse(teacher.url).query)["room"][0]
        students = students_join(browser, app_url, code, 2, contexts)

        teacher.get_by_text("Class exercise", exact=True).click()
        teacher.locator(".st-key-pg_exercise_send button").wait_for(timeout=SLOW)
        wait_until_idle(teacher)  # the expander's opening run is over: a click now is not lost in it
        teacher.locator(".st-key-pg_exercise_send button").click()
        teacher.get_by_text("Exercise sent:").wait_for(timeout=SLOW)
        wait_until_idle(teacher)

        for student in students:  # no click of theirs: the feed's new exercise reruns the page
            try:
                student.locator(".st-key-pg_exercise_start button").wait_for(timeout=SLOW)
            except Exception as err:
                raise AssertionError(f"the student's page did not offer the exercise: {room_state(student)}") from err
            student.locator(".st-key-pg_exercise_start button").click()
            student.get_by_text("hold after step 1?").wait_for(timeout=SLOW)
            wait_until_idle(student)
        answer(students[0], "-4", "Right: grad q")
        answer(students[1], "4", "The sign is flipped")

        teacher.get_by_text("2 students working · 0 finished").wait_for(timeout=SLOW)
        teacher.get_by_text("Most common mistake: The sign is flipped").wait_for(timeout=SLOW)
        assert teacher.get_by_text("Where students went wrong:").count() == 1
        ARTIFACTS.mkdir(exist_ok=True)
        teacher.screenshot(path=str(ARTIFACTS / "e2e-class-exercise-teacher.png"), full_page=True)
        students[1].screenshot(path=str(ARTIFACTS / "e2e-class-exercise-student.png"))
        for tab in (teacher, *students):
            assert tab.locator("[data-testid='stException']").count() == 0
    finally:
        for context in contexts:
            context.close()
