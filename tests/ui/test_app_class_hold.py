"""A student's Playground while the class predicts a step (issue 24 item 6), driven by Streamlit's AppTest.

While the question about step 5 (``grad x`` = −0.8750 after its second contribution) is open, nothing the
student's page sends holds that number: the player gets steps 0-4 only, the server's step stays before
step 5 (the node inspector shows what step 4 shows), and the exports, the inputs table and forward mode
wait. After the reveal the same page gets the whole pass again.
"""
from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from lucid.autograd import backward_trace
from lucid.expr import run
from lucid.live_class.grading import question_at
from lucid.ui.live_class import room_service
from tests.class_pages import page, player

SOURCE = "x = 1.5\ny = -2.5\nz = 0.75\nq = x * y\nf = q * z + x"
ASKED = "−0.8750"  # grad x at step 5: no earlier step shows this number


def sent(at: AppTest) -> str:
    """Everything the page put on screen or in the player, as one text."""
    parts = [c.proto.json for c in at.get("bidi_component")]
    parts += [e.value for e in (*at.markdown, *at.code, *at.caption)]
    parts += [h.proto.body for h in at.get("html")]  # the node inspector's arrays among them
    return "\n".join(str(p) for p in parts)


@pytest.fixture()
def asked():
    rooms = room_service.rooms()
    code, token = rooms.open(SOURCE, 0, {"dir": "LR"}, step=4)
    program = run(SOURCE, seed=0)
    rooms.ask(code, token, question_at(backward_trace(program.output), 5), show_rule=True)
    room_service.publish(code)
    yield code, token
    if rooms.view(code) is not None:
        rooms.end(code, token)
        room_service.publish(code)


def test_during_an_open_question_the_students_page_holds_nothing_of_the_asked_step(asked):
    code, _token = asked
    at = page(room=code, step="6")  # a link (or a typed URL) at a later step
    data = player(at)
    assert len(data["anim"]["changes"]) == 5 and data["anim"]["titles"][-1].startswith("Step 4 of 6")
    assert data["step"] == 4 and at.session_state["pg_step"] == 4
    assert ASKED not in sent(at)
    assert not at.dataframe  # the inputs table (every final gradient) waits for the reveal
    assert any("once your teacher reveals" in c.value for c in at.caption)
    at.session_state["pg_export_open"] = True  # the student opens Export
    at.run()
    assert any("Exports are back once your teacher reveals" in c.value for c in at.caption)
    assert not [b for b in at.get("download_button")]  # no export of a later step, no GIF of the whole pass


def test_a_student_stepping_on_their_own_is_kept_before_the_asked_step(asked):
    code, _token = asked
    at = page(room=code)
    at.session_state["pg_step"] = 6  # what a forged click or an old URL would set
    at.run()
    assert not at.exception
    assert at.session_state["pg_step"] == 4 and player(at)["step"] == 4
    assert ASKED not in sent(at)


def test_after_the_reveal_the_same_page_gets_the_whole_pass_again(asked):
    code, token = asked
    at = page(room=code)
    assert len(player(at)["anim"]["changes"]) == 5
    room_service.rooms().reveal(code, token)
    room_service.publish(code)
    at.run()  # the question fragment saw the reveal and ran the page again
    assert not at.exception
    data = player(at)
    assert len(data["anim"]["changes"]) == 7 and ASKED in json.dumps(data["anim"], ensure_ascii=False)
    assert at.dataframe  # the inputs table is back
    assert at.session_state["pg_held_from"] is None


def test_the_teachers_page_is_never_held(asked):
    code, token = asked
    teacher = page(room=code, teach=token, code=SOURCE)
    assert len(player(teacher)["anim"]["changes"]) == 7
    teacher.session_state["pg_forward_open"] = True  # the Forward mode panel, drawn once opened, shows it
    teacher.run()
    assert teacher.dataframe and ASKED in sent(teacher)
