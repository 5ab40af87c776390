"""A link prepared by a teacher opens the Playground in the view it was made in, and the URL follows the view."""
import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.class_pages import players

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "playground.py")


def open_link(**query) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    return at.run()


def player_speed(at: AppTest) -> tuple[str, float]:
    """The speed the player's bar shows (its label, the link's ``speed=`` word) and the seconds it plays at."""
    (component,) = players(at)
    data = json.loads(component.proto.json)
    assert [label for label, _ in data["speeds"]] == ["fast", "normal", "slow", "slower", "very slow", "slowest"]
    return data["speed"], data["seconds"]


def test_a_link_opens_classroom_mode_circuit_style_speed_and_hidden_gradients():
    at = open_link(code="x = 2.0\ny = x * x", classroom="1", style="circuit", speed="slow", hide="g", zoom="150")
    assert not at.exception
    assert at.toggle(key="pg_classroom").value is True
    assert at.radio(key="pg_preset").value == "Circuit (CS231n)"
    assert player_speed(at) == ("slow", 2.0)
    assert at.select_slider(key="pg_zoom").value == "150%"
    assert at.checkbox(key="pg_grads").value is False and at.checkbox(key="pg_values").value is True


def test_a_plain_link_opens_the_default_view_and_adds_no_view_words():
    at = open_link(code="x = 2.0\ny = x * x")
    assert at.toggle(key="pg_classroom").value is False
    assert at.radio(key="pg_preset").value == "Standard"
    assert player_speed(at) == ("normal", 1.0)
    assert not {"classroom", "style", "speed", "hide", "dir", "zoom", "large"} & set(at.query_params)


def test_changing_the_view_writes_it_into_the_url_and_back_to_default_removes_it():
    at = open_link(code="x = 2.0\ny = x * x")
    at.toggle(key="pg_classroom").set_value(True).run()
    at.radio(key="pg_direction").set_value("Left to right").run()
    assert at.query_params["classroom"] == "1" and at.query_params["dir"] == "LR"
    at.toggle(key="pg_classroom").set_value(False).run()
    assert "classroom" not in at.query_params and at.query_params["dir"] == "LR"


def test_the_link_is_read_once_so_a_later_change_by_the_student_sticks():
    at = open_link(code="x = 2.0\ny = x * x", classroom="1")
    at.toggle(key="pg_classroom").set_value(False).run()
    at.run()
    assert at.toggle(key="pg_classroom").value is False


def test_junk_view_words_open_the_default_view_without_an_error():
    at = open_link(code="x = 2.0\ny = x * x", classroom="<b>", style="comic", speed="9", hide="zzzz")
    assert not at.exception
    assert at.toggle(key="pg_classroom").value is False and at.radio(key="pg_preset").value == "Standard"
