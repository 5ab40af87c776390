"""A student stepping on their own while the class predicts a step, in a real browser (issue 24 item 6).

The student joined before the question (their player had the whole pass), turned *Follow teacher* off, and
the teacher asks about step 4. The question reaches the student's page through the feed and the class
panel's fragment, which runs the page again: the player now holds steps 0-3 only, so → and End stop at
step 3 and nothing on the page reads the asked gradient. After the reveal the whole pass is back.
"""
from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from tests.e2e.class_tabs import PLAYER, teacher_starts_a_class
from tests.e2e.class_tabs import new_tab as _tab
from tests.e2e.class_tabs import trace_step as _trace_step
from tests.e2e.class_tabs import wait_step as _wait_step
from tests.e2e.waits import SLOW, wait_until_idle

pytestmark = pytest.mark.e2e


def _wait_steps_held(tab, n: int) -> None:
    """Wait until the player holds ``n`` steps (what the last payload the page sent it has)."""
    tab.wait_for_function("([sel, n]) => document.querySelector(sel)?.__player?.n === n", arg=[PLAYER, n],
                          timeout=SLOW)


def test_a_student_stepping_on_their_own_stops_at_the_last_step_shown_until_the_reveal(browser, app_url):
    contexts = []
    try:
        teacher = teacher_starts_a_class(browser, app_url, contexts)
        code = parse_qs(urlparse(teacher.url).query)["room"][0]

        context, student = _tab(browser)
        contexts.append(context)
        student.goto(f"{app_url}/playground?room={code}")
        student.get_by_text("following the teacher").wait_for(timeout=SLOW)
        student.locator(PLAYER).wait_for(timeout=SLOW)
        wait_until_idle(student)
        _wait_steps_held(student, 5)  # before any question: the whole pass
        for step in (1, 2, 3):
            teacher.keyboard.press("ArrowRight")
            _wait_step(teacher, step)
            _wait_step(student, step)
        student.get_by_text("Follow teacher").click()
        student.get_by_text("stepping on your own").wait_for(timeout=SLOW)
        wait_until_idle(student)
        wait_until_idle(teacher)

        teacher.get_by_role("button", name="Ask the class").click()
        teacher.get_by_text("Asked at step 4: grad y = ?").wait_for(timeout=SLOW)
        student.get_by_text("Next step: grad y = ?").wait_for(timeout=SLOW)
        _wait_steps_held(student, 4)  # the question's fragment ran the page again: steps 0-3 only
        wait_until_idle(student)
        student.locator("h1, h2, h3").first.click()  # the keys go to the page, not to a text field
        for key in ("ArrowRight", "ArrowRight", "End"):
            student.keyboard.press(key)
        assert _trace_step(student) == "3"
        said = student.locator(PLAYER).inner_text()
        assert "Step 3 of 4" in said and "Step 4 of 4" not in said

        teacher.get_by_role("button", name="Reveal").click()
        teacher.get_by_text("Revealed: grad y = −4.000").wait_for(timeout=SLOW)
        _wait_steps_held(student, 5)  # the reveal ran the page again with the whole pass
        wait_until_idle(student)
        student.locator("h1, h2, h3").first.click()
        student.keyboard.press("End")
        _wait_step(student, 4)
    finally:
        for context in contexts:
            context.close()
