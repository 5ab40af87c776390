"""The language picker and ``lang=ko`` in the link (issue 18): English by default, Korean on request, kept.

The app is driven through ``app.py`` (the language is set there for every page's run): a link with
``lang=ko`` opens the Playground in Korean, the picker switches it and writes ``lang=`` into the address
(the share link), English leaves no trace in the URL, and the view widgets keep their values across a switch.
"""
import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.class_pages import players

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def open_app(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    for k, v in query.items():
        at.query_params[k] = v
    return at.run()


def player_words(at: AppTest) -> dict:
    (component,) = players(at)
    return json.loads(component.proto.json)["words"]


def test_english_is_the_default_and_adds_nothing_to_the_link():
    at = open_app()
    assert not at.exception
    assert at.header[0].value == "Playground"
    assert at.selectbox(key="pg_language").value == "en"
    assert "lang" not in at.query_params
    assert player_words(at)["next"] == "Next"


def test_a_link_with_lang_ko_opens_the_playground_in_korean():
    at = open_app(lang="ko", style="circuit")
    assert not at.exception
    assert at.header[0].value == "플레이그라운드"
    assert at.selectbox(key="pg_language").value == "ko"
    assert at.button(key="pg_run").label == "실행"
    assert player_words(at)["next"] == "다음" and player_words(at)["step_of"] == "단계 {k} / {n}"
    assert at.radio(key="pg_preset").value == "Circuit (CS231n)"  # values stay the link's words
    assert at.query_params["lang"] in ("ko", ["ko"])


def test_the_picker_switches_the_language_and_the_link_carries_it():
    at = open_app(code="x = 2.0\ny = x * x")
    at.checkbox(key="pg_grads").uncheck().run()
    at.selectbox(key="pg_language").select("ko").run()
    assert not at.exception
    assert at.header[0].value == "플레이그라운드"
    assert at.query_params["lang"] in ("ko", ["ko"])
    assert at.checkbox(key="pg_grads").value is False  # the view survived the switch
    assert at.query_params["hide"] in ("g", ["g"])
    # Back to English is a browser test (tests/e2e/test_korean_browser.py): AppTest cannot send a widget whose
    # shown labels differ from its values (the translated drawing options) back to the app.


def test_an_unknown_language_in_a_link_opens_in_english():
    at = open_app(lang="xx")
    assert not at.exception
    assert at.header[0].value == "Playground"
    assert "lang" not in at.query_params


def test_every_lesson_page_has_the_picker_and_switching_there_turns_the_page_korean():
    at = open_app()
    at.switch_page("pages/pitfalls.py").run()
    assert not at.exception
    assert at.selectbox(key="page_language").value == "en"
    assert at.title[0].value == "Three classic pitfalls"
    at.selectbox(key="page_language").set_value("ko").run()
    assert not at.exception
    assert at.title[0].value == "세 가지 흔한 실수"
    assert at.header[0].value == "1 · 기울기를 누적하지 않고 대입하기"
    assert at.query_params["lang"] in ("ko", ["ko"])
