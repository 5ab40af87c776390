"""The Playground steps through a lesson: a plan starts it, its links open in order, the bar says where it is."""
import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from lucid.session import lesson_plan as lesson
from tests.class_pages import players

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "playground.py")

PLAN = '''title = "Two views"

[[link]]
title = "Square"
code = "x = 2.0\\ny = x * x"

[[link]]
title = "Used twice"
code = "a = 3.0\\nb = a * a + a"
step = 1
'''


def open_lesson(at_link: int = 0) -> AppTest:
    plan = lesson.parse_plan(PLAN)
    at = AppTest.from_file(PAGE, default_timeout=60)
    for name, value in lesson.encode(plan, at_link).items():
        at.query_params[name] = value
    at.query_params["code"] = plan.links[at_link].source
    return at.run()


def player(at: AppTest) -> dict:
    (component,) = players(at)
    return json.loads(component.proto.json)


def button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def test_a_lesson_link_shows_its_place_in_the_players_bar():
    at = open_lesson()
    assert not at.exception
    assert player(at)["lesson"] == {"at": 0, "where": "1 / 2", "has_prev": False, "has_next": True,
                                    "title": "Two views · Square", "heading": "Square"}
    assert "Lesson 1 / 2" in [e.label for e in at.expander]


def test_next_link_opens_the_next_program_at_its_own_start_step():
    at = open_lesson()
    button(at, "Next link").click().run()
    assert not at.exception
    assert at.session_state["pg_source"] == "a = 3.0\nb = a * a + a"
    assert at.query_params["at"] == "1" and at.query_params["step"] == "1"
    data = player(at)
    assert data["step"] == 1 and data["lesson"]["where"] == "2 / 2" and data["lesson"]["has_next"] is False
    assert button(at, "Next link").disabled


def test_previous_link_goes_back_to_the_previous_programs_last_step():
    at = open_lesson(1)
    button(at, "Previous link").click().run()
    assert not at.exception
    assert at.session_state["pg_source"] == "x = 2.0\ny = x * x"
    n_steps = len(player(at)["anim"]["changes"])
    assert n_steps == 3  # the seed, then y -> x twice (x is used twice)
    assert at.query_params["at"] == "0" and at.query_params["step"] == str(n_steps - 1)
    assert player(at)["step"] == n_steps - 1


def test_a_pasted_plan_starts_the_lesson_at_its_first_link():
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.text_area(key="pg_lesson_plan").set_value(PLAN)
    button(at, "Start lesson").click().run()
    assert not at.exception
    assert at.session_state["pg_source"] == "x = 2.0\ny = x * x"
    assert lesson.decode(dict(at.query_params)) == (lesson.parse_plan(PLAN), 0)
    assert player(at)["lesson"]["where"] == "1 / 2"


def test_a_bad_plan_says_what_to_fix_and_the_page_goes_on():
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.text_area(key="pg_lesson_plan").set_value("[[link]]\nstep = 2")
    button(at, "Start lesson").click().run()
    assert not at.exception
    assert "give one of code, url or example" in at.error[0].value
    assert "lesson" not in at.query_params and player(at)["lesson"] is None


def test_end_lesson_leaves_the_program_on_screen():
    at = open_lesson(1)
    button(at, "End lesson").click().run()
    assert not at.exception
    assert "lesson" not in at.query_params and "at" not in at.query_params
    assert at.session_state["pg_source"] == "a = 3.0\nb = a * a + a"
    assert player(at)["lesson"] is None


def test_a_forged_lesson_in_the_link_is_ignored():
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lesson"] = "A" * 5000
    at.query_params["at"] = "3"
    at.run()
    assert not at.exception
    assert player(at)["lesson"] is None and "Lesson" in [e.label for e in at.expander]
