"""Rooms: codes, the teacher's token, following, questions, answers and every bound, against BOTH stores."""
from __future__ import annotations

import pytest

from lucid.classroom import (
    AnswerRejected,
    MemoryStore,
    NotTeacher,
    RedisStore,
    RoomGone,
    RoomLimits,
    Rooms,
    RoomsFull,
    new_student_id,
)
from lucid.classroom.codes import ALPHABET, CODE_LENGTH, clean_code, token_hash
from tests import redis_server


@pytest.fixture(scope="module")
def redis_url():
    redis_server.require()
    with redis_server.redis_server() as url:
        yield url


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", "redis"])
def make_rooms(request):
    """A factory of ``Rooms`` over a fresh store of each kind, with a clock the test moves."""
    made = []

    def make(limits: RoomLimits | None = None) -> tuple[Rooms, Clock]:
        clock = Clock()
        if request.param == "memory":
            store = MemoryStore()
        else:
            url = request.getfixturevalue("redis_url")
            store = RedisStore.from_url(url, prefix=f"t{len(made)}{id(request)}:")
            store.r.flushdb()
        made.append(store)
        return Rooms(store, limits, clock=clock), clock
    return make


def test_a_room_code_is_six_characters_without_look_alikes(make_rooms):
    rooms, _ = make_rooms()
    code, token = rooms.open("x = 3.0\ny = x * x\n")
    assert len(code) == CODE_LENGTH and set(code) <= set(ALPHABET)
    assert not set("0O1IL2Z5S8B") & set(ALPHABET)
    assert clean_code(code.lower()) == code and clean_code(code[:3] + " " + code[3:]) == code
    assert token not in code and code not in token and len(token) >= 40


def test_only_the_token_is_the_teacher_and_the_code_never_becomes_it(make_rooms):
    rooms, _ = make_rooms()
    code, token = rooms.open("x = 3.0\ny = x * x\n")
    assert rooms.is_teacher(code, token)
    for fake in ("", code, code.lower(), token_hash(token), token[:-1], token + "x", None, 123, ["x"]):
        assert not rooms.is_teacher(code, fake)
        with pytest.raises(NotTeacher):
            rooms.set_step(code, fake, 2)
    other, other_token = rooms.open("a = 1.0\nb = a * 2\n")
    assert not rooms.is_teacher(code, other_token)  # one room's token is not another's
    assert token not in repr(rooms.view(code)) and token_hash(token) not in repr(rooms.view(code))


def test_students_follow_the_teachers_step_and_program(make_rooms):
    rooms, _ = make_rooms()
    code, token = rooms.open("x = 3.0\ny = x * x\n", seed=0, view={"direction": "LR"})
    start = rooms.view(code)
    assert (start.step, start.source, start.view) == (0, "x = 3.0\ny = x * x\n", {"direction": "LR"})
    rooms.set_step(code, token, 2)
    moved = rooms.view(code)
    assert moved.step == 2 and moved.version == start.version + 1
    assert rooms.set_step(code, token, 2) == moved.version  # the same step again is no change
    rooms.set_program(code, token, "a = 2.0\nb = a * a\n", 1, {"direction": "TB"})
    assert (rooms.view(code).source, rooms.view(code).seed, rooms.view(code).step) == ("a = 2.0\nb = a * a\n", 1, 0)


def test_join_counts_a_student_once_and_a_room_is_bounded(make_rooms):
    rooms, _ = make_rooms(RoomLimits(max_students=3))
    code, _ = rooms.open("x = 3.0\ny = x * x\n")
    ids = [new_student_id() for _ in range(4)]
    assert all(rooms.join(code, s) for s in ids[:3])
    assert rooms.join(code, ids[0])  # a reload is the same student
    assert rooms.view(code).students == 3
    assert not rooms.join(code, ids[3])
    assert not rooms.join(code, "bad id!") and not rooms.join("AAAAAA", ids[0])


def test_rooms_are_bounded_in_number(make_rooms):
    rooms, clock = make_rooms(RoomLimits(max_rooms=2, idle_seconds=600))
    rooms.open("x = 1.0\ny = x * x\n")
    rooms.open("x = 2.0\ny = x * x\n")
    with pytest.raises(RoomsFull):
        rooms.open("x = 3.0\ny = x * x\n")
    clock.now += 601  # both idle past the limit: their places are free again
    rooms.open("x = 3.0\ny = x * x\n")


def test_an_idle_room_expires_and_an_active_one_does_not(make_rooms):
    rooms, clock = make_rooms(RoomLimits(idle_seconds=600))
    code, token = rooms.open("x = 3.0\ny = x * x\n")
    clock.now += 500
    rooms.set_step(code, token, 1)  # the teacher acting keeps it alive
    clock.now += 500
    assert rooms.view(code) is not None and rooms.view(code).step == 1
    clock.now += 601
    assert rooms.view(code) is None
    with pytest.raises(RoomGone):
        rooms.set_step(code, token, 2)


def test_the_teacher_ends_the_room(make_rooms):
    rooms, _ = make_rooms()
    code, token = rooms.open("x = 3.0\ny = x * x\n")
    student = new_student_id()
    with pytest.raises(NotTeacher):
        rooms.end(code, "not the token")
    rooms.end(code, token)
    assert rooms.view(code) is None and not rooms.join(code, student)


QUESTION = {"step": 2, "label": "grad x", "expected": 6.0}


def test_answers_go_to_the_open_question_and_a_new_answer_replaces_the_old(make_rooms):
    rooms, _ = make_rooms()
    code, token = rooms.open("x = 3.0\ny = x * x\n")
    a, b = new_student_id(), new_student_id()
    with pytest.raises(AnswerRejected, match="No question"):
        rooms.answer(code, a, "6")
    rooms.set_step(code, token, 1)
    qid = rooms.ask(code, token, QUESTION, show_rule=False)
    view = rooms.view(code)
    assert view.question["id"] == qid and view.question["show_rule"] is False
    assert view.step == 1  # the class predicts step 2: it is not shown before the reveal
    assert rooms.answer(code, a, "3") == 3.0
    assert rooms.answer(code, a, "6.0") == 6.0
    assert rooms.answer(code, b, "−6", nickname="  Ada  ") == -6.0
    got = sorted((x["value"], x["nickname"]) for x in rooms.answers(code, qid))
    assert got == [(-6.0, "Ada"), (6.0, "")]
    assert rooms.my_answer(code, qid, a)["value"] == 6.0
    rooms.reveal(code, token)
    assert rooms.view(code).question["revealed"] is True and rooms.view(code).step == 2
    with pytest.raises(AnswerRejected, match="revealed"):
        rooms.answer(code, a, "5")
    history = rooms.history(code, token)
    assert [q["id"] for q, _ in history] == [qid] and len(history[0][1]) == 2


@pytest.mark.parametrize("text, message", [("", "Type a number"), ("abc", "not a number"), ("1" * 40, "at most 32"),
                                           ("nan", "finite"), ("inf", "finite"), (None, "Type a number")])
def test_bad_answers_get_a_message(make_rooms, text, message):
    rooms, _ = make_rooms()
    code, token = rooms.open("x = 3.0\ny = x * x\n")
    rooms.ask(code, token, QUESTION, show_rule=True)
    with pytest.raises(AnswerRejected, match=message):
        rooms.answer(code, new_student_id(), text)


def test_answers_are_bounded_in_rate_per_student(make_rooms):
    rooms, clock = make_rooms(RoomLimits(answers_per_minute=3))
    clock.now = 60_000.0  # the start of a minute window
    code, token = rooms.open("x = 3.0\ny = x * x\n")
    rooms.ask(code, token, QUESTION, show_rule=True)
    student, other = new_student_id(), new_student_id()
    for value in ("1", "2", "3"):
        rooms.answer(code, student, value)
    with pytest.raises(AnswerRejected, match="Too many"):
        rooms.answer(code, student, "4")
    assert rooms.answer(code, other, "4") == 4.0  # another student is not slowed down
    clock.now += 60
    assert rooms.answer(code, student, "5") == 5.0


def test_a_student_id_cannot_answer_for_a_full_room(make_rooms):
    rooms, _ = make_rooms(RoomLimits(max_students=1))
    code, token = rooms.open("x = 3.0\ny = x * x\n")
    rooms.ask(code, token, QUESTION, show_rule=True)
    rooms.answer(code, new_student_id(), "6")
    with pytest.raises(AnswerRejected, match="full"):
        rooms.answer(code, new_student_id(), "6")


def test_an_unreachable_redis_is_a_clear_error_not_a_redis_traceback():
    from bench.streamlit_client import free_port
    from lucid.classroom import StoreUnavailable

    rooms = Rooms(RedisStore.from_url(f"redis://127.0.0.1:{free_port()}/0"))  # nothing listens there
    with pytest.raises(StoreUnavailable, match="cannot be reached"):
        rooms.open("x = 3.0\ny = x * x\n")
    with pytest.raises(StoreUnavailable):
        rooms.view("ACDEFG")
