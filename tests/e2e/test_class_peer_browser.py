"""Peer instruction in real browsers at the projector's 1280×720 (Classroom mode): a multiple-choice question with a
countdown, two students vote, *Ask again*, they vote again, *Reveal*: the teacher's panel says how many changed to the
right answer and the graph stays on screen; both rounds' histograms stand side by side in *Class answers*.
Screenshots: ``artifacts/class-peer-*.png``.
"""
from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from tests.e2e.class_tabs import ALERT, students_join, teacher_starts_a_class, wait_step
from tests.e2e.conftest import ARTIFACTS
from tests.e2e.test_class_panel_browser import _on_screen
from tests.e2e.waits import SLOW, wait_until_idle

pytestmark = pytest.mark.e2e


def _shot(tab, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / f"class-peer-{name}.png"))


def _vote(student, choice: str, *, round_two: bool = False) -> None:
    if round_two:
        student.get_by_text("Round 2: discuss it with your neighbours").wait_for(timeout=SLOW)
    student.get_by_text(re.compile(rf"· {re.escape(choice)}$")).click()  # the choice "B · 4.000"
    student.get_by_role("button", name="Submit").click()
    student.locator(ALERT, has_text="Answer received").wait_for(timeout=SLOW)


def test_two_rounds_of_peer_instruction_with_multiple_choice_and_a_countdown(browser, app_url):
    contexts = []
    try:
        teacher = teacher_starts_a_class(browser, app_url, contexts, extra="&classroom=1")
        code = parse_qs(urlparse(teacher.url).query)["room"][0]
        students = students_join(browser, app_url, code, 2, contexts)
        teacher.get_by_text("2 students").wait_for(timeout=SLOW)
        for step in (1, 2, 3):
            teacher.keyboard.press("ArrowRight")
            wait_step(teacher, step)
        wait_until_idle(teacher)
        teacher.get_by_role("button", name="Options").click()
        teacher.get_by_text("Multiple choice", exact=True).click()
        teacher.get_by_role("combobox", name="Countdown").click()
        teacher.get_by_role("option", name="120 s").click()
        teacher.keyboard.press("Escape")
        wait_until_idle(teacher)
        teacher.get_by_role("button", name="Ask the class").click()
        teacher.get_by_text("multiple choice").wait_for(timeout=SLOW)
        for student in students:
            student.locator(".lucid-countdown").wait_for(timeout=SLOW)
            assert "s left" in student.locator(".lucid-countdown").inner_text()
        _shot(students[0], "student-choices")
        teacher.get_by_role("button", name="2 not answered").wait_for(timeout=SLOW)
        teacher.mouse.move(640, 700)
        wait_until_idle(teacher)
        _shot(teacher, "round1-open")
        for student in students:
            _vote(student, "4.000")  # both forgot the sign
        teacher.get_by_text("2 / 2").wait_for(timeout=SLOW)
        wait_until_idle(teacher)
        teacher.get_by_role("button", name="Ask again").click()
        teacher.get_by_text("Round 2 ·").wait_for(timeout=SLOW)
        teacher.get_by_text("0 / 2").wait_for(timeout=SLOW)
        _vote(students[0], "−4.000", round_two=True)  # convinced by the discussion
        _vote(students[1], "4.000", round_two=True)
        teacher.get_by_text("2 / 2").wait_for(timeout=SLOW)
        wait_until_idle(teacher)
        teacher.get_by_role("button", name="Reveal").click()
        teacher.get_by_text("changed to the right answer").wait_for(timeout=SLOW)
        wait_step(teacher, 4)
        teacher.mouse.move(640, 700)
        wait_until_idle(teacher)
        panel = teacher.locator(".st-key-pg_class_panel").inner_text()
        assert "1 right (50%)\nround 1: 0% right · 1 changed to the right answer" in panel, panel
        where = _on_screen(teacher)
        _shot(teacher, "revealed")
        teacher.get_by_role("button", name="Class answers").click()
        teacher.locator("[data-testid='stVegaLiteChart'] svg .mark-rect path").first.wait_for(timeout=SLOW)
        boxes = teacher.evaluate("""() => [...document.querySelectorAll(
            "[data-testid='stVegaLiteChart'] svg .mark-rect path")].map((b) => {
              const r = b.getBoundingClientRect(); return [r.left, r.width, r.right]; })""")
        assert len(boxes) == 3 and min(w for _l, w, _r in boxes) >= 40, boxes  # round 1: one bar, round 2: two
        assert max(r for _l, _w, r in boxes) <= 1280, boxes  # side by side, inside the screen
        _shot(teacher, "answers")
        print(f"graph top / headline after round 2's reveal: {where}; bars {boxes}")
    finally:
        for context in contexts:
            context.close()
