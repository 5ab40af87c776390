"""Class mode in real browsers: a teacher and two students in separate browser contexts (own sessions).

The students join with the link's ``room=`` code, follow three of the teacher's key presses (their
players read the room's feed, no rerun), answer a question (one right, one wrong), and the teacher's
page shows the count; after the reveal, the histogram and the most common wrong answer with its diagnosis.
"""
from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from tests.e2e.class_tabs import ALERT, PLAYER, teacher_starts_a_class
from tests.e2e.class_tabs import new_tab as _tab
from tests.e2e.class_tabs import trace_step as _trace_step
from tests.e2e.class_tabs import wait_step as _wait_step
from tests.e2e.conftest import ARTIFACTS
from tests.e2e.waits import SLOW, wait_until_idle

pytestmark = pytest.mark.e2e


def _shot(tab, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / f"class-{name}.png"))


def test_students_follow_the_teacher_answer_and_see_the_reveal(browser, app_url):
    contexts = []
    try:
        teacher = teacher_starts_a_class(browser, app_url, contexts)
        # Started from below the graph, the page goes back up to the class's panel (join link, Ask the class).
        teacher.wait_for_function("""() => { const b = [...document.querySelectorAll('button')]
            .find((e) => e.textContent.includes('Ask the class'));
            return b && b.getBoundingClientRect().top >= 0 && b.getBoundingClientRect().bottom <= innerHeight; }""",
                                  timeout=SLOW)
        query = parse_qs(urlparse(teacher.url).query)
        code = query["room"][0]
        assert len(code) == 6 and "teach" not in query  # the teacher's secret left the (projected) address bar
        teacher.reload()  # the tab's session storage keeps the teacher the teacher
        teacher.get_by_role("button", name="Ask the class").wait_for(timeout=SLOW)
        teacher.locator(PLAYER).wait_for(timeout=SLOW)
        wait_until_idle(teacher)
        assert "teach" not in teacher.url and "me" not in parse_qs(urlparse(teacher.url).query)

        students = []
        requested: list[str] = []  # every address the students' pages asked for
        for _ in range(2):
            context, student = _tab(browser)
            contexts.append(context)
            student.on("request", lambda r: requested.append(r.url))
            student.goto(f"{app_url}/playground?room={code}")
            student.get_by_text("following the teacher").wait_for(timeout=SLOW)
            student.locator(PLAYER).wait_for(timeout=SLOW)
            wait_until_idle(student)
            assert "teach" not in student.url
            students.append(student)
        assert _trace_step(students[0]) == "0"
        _shot(students[0], "student-joined")

        for step in (1, 2, 3):  # three key presses on the teacher's page, followed on both students' pages
            teacher.keyboard.press("ArrowRight")
            _wait_step(teacher, step)
            for student in students:
                _wait_step(student, step)
        wait_until_idle(teacher)
        teacher.get_by_text("2 students").wait_for(timeout=SLOW)

        teacher.get_by_role("button", name="Ask the class").click()
        teacher.get_by_text("Asked at step 4: grad y = ?").wait_for(timeout=SLOW)
        for student, answer in zip(students, ("-4", "4"), strict=True):
            student.get_by_text("Next step: grad y = ?").wait_for(timeout=SLOW)
            assert _trace_step(student) == "3"  # the step to predict is not shown before the reveal
            student.get_by_label("Your answer").fill(answer)
            student.get_by_role("button", name="Submit").click()
            student.locator(ALERT, has_text="Answer received").wait_for(timeout=SLOW)
        _shot(students[1], "student-answered")

        teacher.get_by_text("2 / 2").wait_for(timeout=SLOW)  # the panel refreshes itself while answers arrive
        assert not [url for url in requested if "answers=" in url]  # a student's page never asks for the count
        # and a student who asks is refused: the count is the teacher's (its key: tests/server/test_teacher_count.py)
        refused = students[0].evaluate("async (code) => (await fetch(`/app/static/rooms/${code}.json?answers=0`, "
                                       "{ headers: { 'X-Lucid-Teacher': 'x'.repeat(32) } })).status", code)
        assert refused == 403
        _shot(teacher, "teacher-answers")  # nothing of the answers before the reveal (tests/ui/test_app_class_panel.py)
        teacher.get_by_role("button", name="Reveal").click()
        teacher.get_by_text("Revealed: grad y = −4.000").wait_for(timeout=SLOW)
        _wait_step(teacher, 4)
        teacher.get_by_text("1 right (50%)").wait_for(timeout=SLOW)
        teacher.get_by_role("button", name="Class answers").click()  # the histogram and the diagnosis, over the page
        teacher.get_by_text("Most common wrong answer: 4.000").wait_for(timeout=SLOW)
        teacher.get_by_text("The sign is flipped").wait_for(timeout=SLOW)
        teacher.locator("[data-testid='stVegaLiteChart'], [data-testid='stArrowVegaLiteChart']").first.wait_for(
            timeout=SLOW)
        _shot(teacher, "teacher-revealed")
        teacher.keyboard.press("Escape")
        for student in students:
            _wait_step(student, 4)  # the reveal shows the predicted step to everyone
        students[0].locator(ALERT, has_text="your answer −4.000: right").wait_for(timeout=SLOW)
        students[1].locator(ALERT, has_text="your answer 4.000: not quite").wait_for(timeout=SLOW)
        _shot(students[1], "student-revealed")

        teacher.get_by_role("button", name="Back to following").click()
        wait_until_idle(teacher)
        teacher.locator("textarea").first.fill("a = 2.0\nb = a * a\n")  # the teacher runs another program
        teacher.get_by_role("button", name="Run").click()
        for who, tab in (("teacher", teacher), *((f"student {k}", t) for k, t in enumerate(students))):
            try:  # the teacher's page, then the students' pages, run the new program at its step 0
                tab.locator(".lucid-step-label", has_text="step 0 of 2").wait_for(timeout=SLOW)
            except Exception as err:  # say what the page showed instead
                labels = tab.eval_on_selector_all(".lucid-step-label", "els => els.map((e) => e.textContent)")
                raise AssertionError(f"{who}: the step label reads {labels}, not 'step 0 of 2'") from err

        wait_until_idle(teacher)
        teacher.get_by_role("button", name="Drawing").click()  # the teacher hides the gradients in the drawing
        teacher.get_by_text("Gradients", exact=True).click()
        teacher.wait_for_function("() => location.search.includes('hide=g')", timeout=SLOW)
        for student in students:  # and the students' drawings follow
            student.wait_for_function("() => location.search.includes('hide=g')", timeout=SLOW)
    finally:
        for context in contexts:
            context.close()
