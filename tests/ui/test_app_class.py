"""Class mode on the Playground page, driven by Streamlit's AppTest: the join link, the teacher's link, and
what a forged link gets (the rooms are this process's own, in the tests' data folder)."""
from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from lucid import gallery
from lucid.ui.live_class import room_service
from tests.class_pages import page, player

CIRCUIT = gallery.by_slug("cs231n-circuit").source


@pytest.fixture()
def room():
    rooms = room_service.rooms()
    code, token = rooms.open(CIRCUIT, 0, {"dir": "LR", "style": "circuit", "classroom": "1", "zoom": "150"}, step=2)
    yield code, token
    if rooms.view(code) is not None:
        rooms.end(code, token)
        room_service.publish(code)


def test_the_join_link_runs_the_teachers_program_at_the_teachers_step(room):
    code, _ = room
    at = page(room=code)
    data = player(at)
    assert at.text_area(key="pg_source").value == CIRCUIT
    assert data["step"] == 2
    assert data["room"]["role"] == "student" and data["room"]["follow"] is True
    assert data["room"]["feed"].endswith(f"/app/static/rooms/{code}.json")
    assert len(at.query_params["me"]) >= 8  # the student's own id: a reload is the same student
    assert any(f"Class **{code}**" in m.value for m in at.markdown)
    assert room_service.rooms().view(code).students == 1


def test_a_forged_or_missing_token_is_a_student_and_the_real_one_is_the_teacher(room):
    code, token = room
    for fake in (code, token[:-1] + ("A" if token[-1] != "A" else "B"), ""):
        assert player(page(room=code, teach=fake))["room"]["role"] == "student"
    teacher = page(room=code, teach=token, code=CIRCUIT)
    assert player(teacher)["room"]["role"] == "teacher"
    assert [b.label for b in teacher.button if b.label in ("Ask the class", "End class")] == ["Ask the class",
                                                                                              "End class"]


def test_ask_the_class_asks_the_next_step_and_a_students_answer_reaches_the_room(room):
    code, token = room
    teacher = page(room=code, teach=token, code=CIRCUIT, step="2")
    teacher.session_state["pg_step"] = 2
    next(b for b in teacher.button if b.label == "Ask the class").click().run()
    question = room_service.rooms().view(code).question
    assert (question["step"], question["label"], question["expected"]) == (3, "grad x", -4.0)
    student = page(room=code)
    assert any("Next step: grad x = ?" in m.value for m in student.markdown)
    student.text_input(key="pg_answer").input("-4")
    next(b for b in student.button if b.label == "Submit").click().run()
    assert not student.exception
    answers = room_service.rooms().answers(code, question["id"])
    assert [a["value"] for a in answers] == [-4.0]
    assert any("Answer received" in s.value for s in student.success)


def test_a_code_that_cannot_be_a_room_says_so_and_an_ended_room_says_it_ended(room):
    at = page(room="not a code!")
    assert any("not valid" in w.value for w in at.warning)
    code, token = room
    room_service.rooms().end(code, token)
    ended = page(room=code)
    assert any("ended" in i.value for i in ended.info)


def test_a_student_takes_the_teachers_drawing_but_keeps_their_own_screen_settings(room):
    code, _ = room
    at = page(room=code)
    assert at.query_params["dir"] == "LR" and at.query_params["style"] == "circuit"
    assert "classroom" not in at.query_params and "zoom" not in at.query_params
    assert player(at)["classroom"] is False


@pytest.mark.parametrize("query", [
    {"room": "A" * 10_000},
    {"room": "ACDEFG", "teach": "x" * 10_000},
    {"room": "ACDEFG", "me": "<script>" * 100},
    {"room": "\u0000\u202e", "teach": "", "me": ""},
])
def test_hostile_class_links_get_a_message_not_a_traceback(query):
    at = page(**query)  # ``page`` asserts there is no exception
    said = [w.value for w in at.warning] + [i.value for i in at.info]
    assert any("not valid" in text or "ended" in text or "No class has the code" in text for text in said)
    me = at.query_params.get("me")  # a bad id in a valid room is replaced by a good one; otherwise untouched
    assert me == query.get("me") or (len(me) == 27 and me.replace("-", "").replace("_", "").isalnum())


def test_a_following_student_takes_a_new_drawing_of_the_teacher_and_keeps_the_program_and_step(room):
    code, token = room
    at = page(room=code)
    room_service.rooms().set_program(code, token, CIRCUIT, 0, {"dir": "TB", "hide": "g"}, step=2)
    at.run()  # the player saw the feed's drawing change and asked for this run
    assert not at.exception
    assert at.query_params["hide"] == "g" and "dir" not in at.query_params and "style" not in at.query_params
    assert at.checkbox(key="pg_grads").value is False
    assert at.text_area(key="pg_source").value == CIRCUIT and player(at)["step"] == 2
    assert player(at)["room"]["drawing"] != ""


def teacher_key(at: AppTest) -> dict:
    found = [c for c in at.get("bidi_component") if c.proto.component_name == "lucid_teacher_key"]
    return json.loads(found[-1].proto.json)


def test_the_teachers_secret_leaves_the_address_bar_and_the_tab_keeps_it(room):
    code, token = room
    teacher = page(room=code, teach=token, code=CIRCUIT)
    assert "teach" not in teacher.query_params and teacher.query_params["room"] == code
    assert teacher_key(teacher)["token"] == token  # the tab's session storage keeps it for a reload
    teacher.run()
    assert player(teacher)["room"]["role"] == "teacher"  # later runs of the session still know the teacher
    assert teacher_key(teacher)["token"] == ""  # and the token is sent to the browser once, not every run
    reloaded = page(room=code, code=CIRCUIT)  # a reload: a new session, no teach= in the link
    assert teacher_key(reloaded)["ask"] is True and player(reloaded)["room"]["role"] == "student"
    reloaded.session_state["pg_teacher_key"] = {"token": token}  # the tab hands its token back
    reloaded.run()
    assert player(reloaded)["room"]["role"] == "teacher" and "me" not in reloaded.query_params
    assert room_service.rooms().view(code).students == 0  # the reload's first run did not stay a student


def test_a_student_gets_an_id_from_the_server_and_a_made_up_one_is_replaced(room):
    code, _ = room
    first = page(room=code)
    issued = first.query_params["me"]
    assert room_service.rooms().is_student(code, issued)
    again = page(room=code, me=issued)  # a reload keeps the id
    assert again.query_params["me"] == issued and room_service.rooms().view(code).students == 1
    forged = page(room=code, me="A" * 27)
    assert forged.query_params["me"] != "A" * 27 and room_service.rooms().is_student(code, forged.query_params["me"])


def test_after_end_class_the_teachers_link_keeps_the_exit_ticket(room):
    code, token = room
    teacher = page(room=code, teach=token, code=CIRCUIT, step="2")
    teacher.session_state["pg_step"] = 2
    next(b for b in teacher.button if b.label == "Ask the class").click().run()
    student = page(room=code)
    student.text_input(key="pg_answer").input("-4")
    next(b for b in student.button if b.label == "Submit").click().run()
    next(b for b in teacher.button if b.label == "End class").click().run()
    assert any("has ended" in m.value and "exit ticket" in m.value for m in teacher.markdown)
    ticket = next(d for d in teacher.get("download_button") if d.proto.label == "Exit ticket")
    assert ticket is not None
    history = room_service.rooms().history(code, token)
    assert [a["value"] for a in history[0][1]] == [-4.0]
    reloaded = page(room=code, code=CIRCUIT)
    reloaded.session_state["pg_teacher_key"] = {"token": token}
    reloaded.run()
    assert any("has ended" in m.value for m in reloaded.markdown)  # the reloaded tab still holds the ticket
    ended = page(room=code)
    assert any("has ended" in i.value for i in ended.info)  # a student is told the class ended
