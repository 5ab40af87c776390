"""Each link of a lesson opens in the view it was written with, headed by its title in the player's bar."""
import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from lucid import gallery
from lucid.session import lesson_plan as lesson
from lucid.ui.lesson_plan import view as lesson_view
from tests.class_pages import players

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "playground.py")

PLAN = '''title = "Gates"

[[link]]
title = "Add and multiply"
url = "http://lab/playground?code=x+%3D+-2.0%0Ay+%3D+5.0%0Af+%3D+(x+%2B+y)+*+3.0&style=circuit&speed=slow"

[[link]]
title = "Left to right"
code = "a = 3.0\\nb = a * a + a"
dir = "LR"
hide = "g"

[[link]]
url = "/playground?example=cs231n-sigmoid&style=circuit"
'''


def started(plan: str = PLAN) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.text_area(key="pg_lesson_plan").set_value(plan)
    button(at, "Start lesson").click().run()
    assert not at.exception
    return at


def player(at: AppTest) -> dict:
    (component,) = players(at)
    return json.loads(component.proto.json)


def button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def next_link(at: AppTest) -> AppTest:
    button(at, "Next link").click().run()
    assert not at.exception
    return at


def test_a_url_link_with_style_circuit_opens_in_the_circuit_style_at_its_speed_headed_by_its_title():
    at = started()
    assert at.radio(key="pg_preset").value == "Circuit (CS231n)"
    assert at.query_params["style"] == "circuit" and player(at)["speed"] == "slow"
    assert player(at)["lesson"]["heading"] == "Add and multiply"
    assert at.session_state["pg_source"] == "x = -2.0\ny = 5.0\nf = (x + y) * 3.0"


def test_the_next_link_is_drawn_its_own_way_and_keeps_the_lecturers_speed_and_classroom_mode():
    at = started()
    at.toggle(key="pg_classroom").set_value(True).run()  # the lecturer turns Classroom mode on at the projector
    next_link(at)
    assert at.session_state["pg_source"] == "a = 3.0\nb = a * a + a"
    assert at.radio(key="pg_direction").value == "Left to right" and at.checkbox(key="pg_grads").value is False
    assert at.radio(key="pg_preset").value == "Standard"  # the drawing is the link's: no style= is the default
    assert "style" not in at.query_params and at.query_params["dir"] == "LR" and at.query_params["hide"] == "g"
    assert at.toggle(key="pg_classroom").value is True and player(at)["speed"] == "slow"  # the room's: kept
    assert player(at)["lesson"] == {"at": 1, "where": "2 / 3", "has_prev": True, "has_next": True,
                                    "title": "Gates · Left to right", "heading": "Left to right"}


def test_an_example_link_opens_the_gallery_program_in_its_view_headed_by_the_examples_title():
    at = next_link(next_link(started()))
    assert at.session_state["pg_source"] == gallery.by_slug("cs231n-sigmoid").source
    assert at.radio(key="pg_preset").value == "Circuit (CS231n)"
    assert "dir" not in at.query_params and "hide" not in at.query_params
    assert player(at)["lesson"]["heading"] == "CS231n: a sigmoid neuron, gate by gate"
    assert "example" not in at.query_params and lesson.decode(dict(at.query_params))[1] == 2


def test_previous_link_lands_on_the_last_step_in_that_links_view():
    at = next_link(started())
    button(at, "Previous link").click().run()
    assert not at.exception
    assert at.radio(key="pg_preset").value == "Circuit (CS231n)"
    n_steps = len(player(at)["anim"]["changes"])
    assert player(at)["step"] == n_steps - 1 and at.query_params["step"] == str(n_steps - 1)


def test_a_link_that_names_the_language_switches_the_page_to_it():
    at = started('[[link]]\ncode = "x = 2.0\\ny = x * x"\n\n[[link]]\ntitle = "제곱"\ncode = "x = 3.0\\ny = x * x"\n'
                 'lang = "ko"\n')
    next_link(at)
    assert at.query_params["lang"] == "ko" and player(at)["lesson"]["heading"] == "제곱"
    assert "이전 링크" in [b.label for b in at.button]  # the Lesson panel's buttons, now in Korean


def test_a_misspelt_view_word_in_the_plan_is_refused_and_names_its_line():
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.text_area(key="pg_lesson_plan").set_value('[[link]]\ncode = "x = 1.0"\nstyle = "circuits"\n')
    button(at, "Start lesson").click().run()
    assert not at.exception
    assert "link 1, line 3: style must be one of standard, circuit, not 'circuits'" in at.error[0].value
    assert "lesson" not in at.query_params


def test_the_next_links_drawing_is_built_while_the_current_one_is_on_screen():
    at = started()
    plan, _at = lesson.decode(dict(at.query_params))
    following = plan.links[1]
    lesson_view._PREFETCHING.acquire()  # the prefetch started by the page's last run has finished
    lesson_view._PREFETCHING.release()
    from lucid.session.analysis import ANALYSES, ANIMATIONS, animation_key, shared_analysis

    assert ("analysis", following.source, 0) in ANALYSES
    assert animation_key(shared_analysis(following.source), lesson_view.link_options(following)) in ANIMATIONS
