"""Class mode in two languages at once (issue 21 in Korean): a Korean teacher's class is read by an English and
a Korean student, each in their own language with the same numbers, because the room keeps message ids and
numbers, never a sentence in the teacher's language."""
from __future__ import annotations

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from lucid import gallery
from lucid.autograd import backward_trace
from lucid.expr import run
from lucid.i18n import use_language
from lucid.live_class.grading import diagnosis_text, question_at, rule_text
from lucid.live_class.texts import shown
from lucid.live_class.ticket import COLUMNS, exit_ticket
from lucid.ui.live_class import room_service
from tests.class_pages import korean_page

CIRCUIT = gallery.by_slug("cs231n-circuit").source
HANGUL = re.compile(r"[\uac00-\ud7a3]")


def page(**query) -> AppTest:
    """The Playground opened as ``app.py`` opens it (the link's ``lang=`` followed)."""
    return korean_page(**query)


def button(at: AppTest, key: str):
    return next(b for b in at.button if b.key == key)


def submit_key(at: AppTest) -> str:
    return next(b.key for b in at.button if b.key and "answer_form" in b.key)


def act(at: AppTest, lang: str, action=None) -> AppTest:
    """Run ``at`` again after ``action(at)`` (a click, a typed answer), as a reader of ``lang`` does: Streamlit's
    test client formats the page's options in the test's thread, so the run happens in that language."""
    with use_language(lang):
        if action is not None:
            action(at)
        at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def shown_text(at: AppTest) -> str:
    """Every text the page shows (markdown, captions, alerts), one per line."""
    parts = [e.value for kind in (at.markdown, at.caption, at.success, at.error, at.info, at.warning) for e in kind]
    return "\n".join(str(p) for p in parts)


@pytest.fixture()
def korean_class():
    """A teacher at lang=ko who started a class on the circuit example (step 2 on screen) and asked the class."""
    teacher = page(code=CIRCUIT, step="2", lang="ko")
    assert button(teacher, "pg_start_class").label == "실시간 수업 시작"
    act(teacher, "ko", lambda at: button(at, "pg_start_class").click())
    code = teacher.query_params["room"]
    assert "teach" not in teacher.query_params  # the secret left the address bar; the session keeps it
    token = teacher.session_state["pg_teach_tokens"][code]
    teacher.session_state["pg_step"] = 2
    act(teacher, "ko")
    assert button(teacher, "pg_ask").label == "질문하기"
    act(teacher, "ko", lambda at: button(at, "pg_ask").click())
    yield teacher, code, token
    rooms = room_service.rooms()
    if rooms.view(code) is not None:
        rooms.end(code, token)
        room_service.publish(code)


def test_a_korean_teachers_question_reaches_an_english_and_a_korean_student_each_in_their_language(korean_class):
    teacher, code, _ = korean_class
    question = room_service.rooms().view(code).question
    assert (question["step"], question["label"], question["expected"]) == (3, "grad x", -4.0)
    assert not HANGUL.search(json.dumps(question, ensure_ascii=False))  # nothing frozen in the teacher's language
    english, korean = page(room=code, lang="en"), page(room=code, lang="ko")
    assert "Next step: grad x = ?" in shown_text(english)
    assert "다음 단계: grad x = ?" in shown_text(korean)
    assert "graded to 3 significant digits (within 0.5 %)" in shown_text(english)
    assert "채점 기준: 유효숫자 3자리(오차 0.5 % 이내)" in shown_text(korean)
    assert "Follow teacher" in [t.label for t in english.toggle]
    assert "선생님 따라가기" in [t.label for t in korean.toggle]
    assert button(korean, submit_key(korean)).label == "제출"


def test_both_students_read_the_diagnosis_of_their_wrong_answer_in_their_language_with_the_same_numbers(
        korean_class):
    teacher, code, _ = korean_class
    english, korean = page(room=code, lang="en"), page(room=code, lang="ko")
    for student, lang in ((english, "en"), (korean, "ko")):
        student.text_input(key="pg_answer").input("4")  # grad x is -4: the sign is flipped
        act(student, lang, lambda at: button(at, submit_key(at)).click())
    assert "Answer received: 4.000" in shown_text(english)
    assert "답을 받았습니다: 4.000" in shown_text(korean)
    said = shown_text(act(teacher, "ko"))
    assert "**2 / 2**명 응답" in said
    assert "가장 많은 오답" not in said  # the projected panel gives nothing away before the reveal
    assert button(teacher, "pg_reveal").label == "정답 공개"
    act(teacher, "ko", lambda at: button(at, "pg_reveal").click())
    said = shown_text(teacher)
    assert "가장 많은 오답: **4.000**(학생 2명). 부호가 반대입니다" in said
    assert "답: 4.000: 2명" in said  # the histogram's counts in words
    act(english, "en")
    act(korean, "ko")
    assert ("**grad x = −4.000** · your answer 4.000: not quite (The sign is flipped: right size, wrong sign.) "
            "· the class: 0 of 2 right") in shown_text(english)
    assert ("**grad x = −4.000** · 내 답 4.000: 아쉽게도 오답(부호가 반대입니다: 크기는 맞고 부호만 틀렸습니다.) "
            "· 반 전체: 2명 중 0명 정답") in shown_text(korean)


def test_a_refusal_reaches_each_student_in_their_language():
    rooms = room_service.rooms()
    code, token = rooms.open(CIRCUIT, 0, {}, step=2)
    try:
        english, korean = page(room=code, lang="en"), page(room=code, lang="ko")
        rooms.ask(code, token, question_at(backward_trace(run(CIRCUIT).output), 3), show_rule=True)
        for student, lang in ((english, "en"), (korean, "ko")):
            act(student, lang)
            student.text_input(key="pg_answer").input("abc")
            act(student, lang, lambda at: button(at, submit_key(at)).click())
        assert "“abc” is not a number: type digits, e.g. -0.25 or 1.5e-3." in [e.value for e in english.error]
        assert "“abc”: 숫자가 아닙니다. -0.25, 1.5e-3처럼 숫자로 입력하세요." in [e.value for e in korean.error]
    finally:
        rooms.end(code, token)
        room_service.publish(code)


def test_a_question_keeps_its_words_as_message_ids_and_each_reader_renders_them():
    trace = backward_trace(run("x = randn(3)\ny = sum(broadcast_to(x, (2, 3)))").output)
    q = question_at(trace, 2)
    assert q["upstream"] == {"msgid": "grad {name}: an array of shape {shape}",
                             "params": {"name": "t1", "shape": "2×3"}}
    assert q["rule"] == "grad x += = grad t1 summed over the copied axes"
    with use_language("en"):
        assert (shown(q["upstream"]), rule_text(q)) == ("grad t1: an array of shape 2×3", q["rule"])
    with use_language("ko"):
        assert shown(q["upstream"]) == "grad t1: 형상이 2×3인 배열"
        assert rule_text(q) == "grad x += = 복사된 축들에 대해 합한 grad t1"
        assert diagnosis_text("sign") == "부호가 반대입니다: 크기는 맞고 부호만 틀렸습니다."
    assert json.loads(json.dumps(q)) == q  # still a JSON record for the store


def test_the_exit_ticket_has_korean_headers_for_a_korean_teacher_and_the_same_machine_readable_cells():
    q = {"step": 3, "label": "grad x", "expected": -4.0, "candidates": [["sign", [4.0]]]}
    answers = [{"value": 4.0, "text": "4", "nickname": "Ada"}, {"value": -4.0, "text": "-4", "nickname": ""}]
    english = exit_ticket([(q, answers)]).splitlines()
    with use_language("ko"):
        korean = exit_ticket([(q, answers)]).splitlines()
    assert english[0].split(",") == COLUMNS
    assert korean[0] == ("질문 번호,단계,질문,정답,응답 수,정답 수,정답률,답 분포,가장 많은 오답,진단,닉네임,"
                         "진단(풀이),회차,형식,정답으로 바꾼 학생,정답에서 바꾼 학생")
    # the machine-readable cells (the diagnosis key among them) are the same; the last column is in words
    assert english[1:] == ["1,3,grad x,-4.000,2,1,50%,-4.000 ×1; 4.000 ×1,4.000,sign,Ada: 4,sign,1,typed,,"]
    assert korean[1:] == ["1,3,grad x,-4.000,2,1,50%,-4.000 ×1; 4.000 ×1,4.000,sign,Ada: 4,부호가 반대,1,typed,,"]


@pytest.mark.parametrize(("key", "words"), [("forgot +=", "누적(+=)을 빠뜨림"),
                                             ("forgot to sum", "브로드캐스팅한 축의 합을 빠뜨림"),
                                             ("value, not gradient", "기울기 대신 값을 씀"), ("sign", "부호가 반대")])
def test_every_diagnosis_of_the_korean_exit_ticket_is_in_korean_beside_its_key(key, words):
    from lucid.live_class.grading import DIAGNOSES
    from lucid.live_class.ticket import diagnosis_words

    assert key in DIAGNOSES
    assert diagnosis_words(key) == key  # English: the key reads as words already
    with use_language("ko"):
        assert diagnosis_words(key) == words


def question_fragment(code: str, student: str) -> None:
    """The student's question fragment as a fragment's rerun runs it: without ``app.py`` setting the language."""
    import streamlit as st

    from lucid import i18n
    from lucid.ui.live_class import room_view
    from lucid.ui.runtime import language

    st.session_state[language.SESSION_KEY] = "ko"  # the session chose 한국어 on an earlier full run
    i18n.set_language("en")  # a fragment's rerun starts in the default context
    room_view._student_question("pg", room_view.Seat(code, "student", student=student))


def test_the_question_fragment_rerun_alone_speaks_the_sessions_language():
    rooms = room_service.rooms()
    code, token = rooms.open(CIRCUIT, 0, {}, step=2)
    try:
        rooms.ask(code, token, question_at(backward_trace(run(CIRCUIT).output), 3), show_rule=True)
        at = AppTest.from_function(question_fragment, args=(code, "student-one"), default_timeout=60).run()
        assert not at.exception, [e.message for e in at.exception]
        assert "#### 다음 단계: grad x = ?" in [m.value for m in at.markdown]
        assert at.text_input(key="pg_answer").label == "내 답"
    finally:
        rooms.end(code, token)
        room_service.publish(code)
