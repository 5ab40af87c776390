"""Practice: predict every gradient, alone (issue 30), on the Playground in Streamlit's AppTest.

The CS231n circuit f = (x + y) * z asks four steps: grad q = z = −4, grad z = q = 3, grad x = −4, grad y = −4.
While step k is asked, the player gets the animation of steps 0 … k−1 only.
"""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from lucid.i18n import use_language
from lucid.ui.playground.keys import keys
from tests.class_pages import korean_page, page, player

K = keys("pg")


def practising() -> AppTest:
    at = page(example="cs231n-circuit", practice="predict")
    assert at.session_state[K.practice_open] is True
    return at


def answer(at: AppTest, typed: str) -> None:
    at.text_input(key=K.practice_answer).input(typed)
    at.button(key=K.practice_check).click()
    at.run()
    assert not at.exception, [e.message for e in at.exception]


def texts(at: AppTest) -> str:
    return "\n".join(str(e.value) for e in (*at.markdown, *at.caption, *at.success, *at.error, *at.info,
                                            *at.warning))


def test_a_link_opens_the_practice_and_the_player_holds_the_asked_step_back():
    at = practising()
    assert "What does **`grad q`** hold after step 1?" in texts(at)
    data = player(at)
    assert len(data["anim"]["changes"]) == 1 and data["step"] == 0  # only the seed
    (node, kind, words), = data["marks"]  # the asked node, marked on the graph (dotted), said in its name
    assert kind == "ask" and words == "asked: grad q" and node.startswith("t")
    assert not at.dataframe  # the inputs table (every final gradient) waits
    assert any("once you finish or stop the practice" in c.value for c in at.caption)


def test_a_right_answer_moves_on_and_a_wrong_one_gets_the_class_modes_diagnosis():
    at = practising()
    answer(at, "-4")
    assert any("Right: grad q = −4.000" in s.value for s in at.success)
    assert "What does **`grad z`** hold after step 2?" in texts(at)
    assert len(player(at)["anim"]["changes"]) == 2 and at.session_state[K.step] == 1
    answer(at, "-3")  # grad z = q = 3
    wrong = "\n".join(e.value for e in at.error)
    assert "Not −3.000" in wrong and "The sign is flipped" in wrong
    answer(at, "3")
    assert "What does **`grad x`** hold after step 3?" in texts(at)
    assert len(player(at)["anim"]["changes"]) == 3


def test_the_rule_is_a_hint_shown_on_asking():
    at = practising()
    assert not any("∂f/∂q" in c.value for c in at.caption)  # the rule nearly gives the answer: hidden at first
    at.toggle(key=K.practice_hint).set_value(True)
    at.run()
    assert any("grad f = 1.000" in c.value and "∂f/∂q = z = (−4.000)" in c.value for c in at.caption)


def test_the_score_at_the_end_and_the_whole_pass_is_back():
    at = practising()
    answer(at, "-4")
    answer(at, "5")  # wrong, no known mistake
    at.button(key=K.practice_reveal).click()
    at.run()
    assert any("The answer: grad z = 3.000" in i.value for i in at.info)
    answer(at, "-4")
    answer(at, "-4.0")
    assert "Score: 3 of 4 right at the first try · 3 right in all · 4 tries · 1 revealed" in texts(at)
    assert len(player(at)["anim"]["changes"]) == 5  # every step again
    assert at.dataframe  # the inputs table is back


def test_bad_input_gets_a_message_and_the_question_stays():
    at = practising()
    answer(at, "banana")
    assert any("is not a number" in w.value for w in at.warning)
    assert "What does **`grad q`** hold after step 1?" in texts(at)


def test_folded_the_panel_draws_nothing_and_stop_ends_the_hold():
    at = page(example="cs231n-circuit")
    assert all(t.key != K.practice_answer for t in at.text_input)  # folded: no form drawn
    assert len(player(at)["anim"]["changes"]) == 5
    at.session_state[K.practice_open] = True
    at.run()
    at.button(key=K.practice_start).click()
    at.run()
    assert len(player(at)["anim"]["changes"]) == 1
    at.button(key=K.practice_stop).click()
    at.run()
    assert len(player(at)["anim"]["changes"]) == 5 and at.session_state[K.practice] is None


def test_in_korean_the_question_feedback_and_diagnosis_read_in_korean():
    at = korean_page(example="cs231n-circuit", practice="predict", lang="ko")
    assert "1단계가 끝난 뒤 **`grad q`**의 값은 무엇일까요?" in texts(at)
    with use_language("ko"):  # the test client formats the page's options in the test's thread
        answer(at, "4")  # grad q = −4
    wrong = "\n".join(e.value for e in at.error)
    assert "다시 해 보거나 정답을 공개하세요" in wrong and "부호" in wrong
    assert at.button(key=K.practice_reveal).label == "정답 공개"
