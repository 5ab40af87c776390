"""Rooms: codes, the teacher's token, following, questions, answers and every bound, against BOTH stores."""
from __future__ import annotations

import pytest

from lucid.live_class import (
    AnswerRejected,
    MemoryStore,
    NotTeacher,
    RedisStore,
    RoomGone,
    RoomLimits,
    Rooms,
    RoomsFull,
    SQLiteStore,
)
from lucid.live_class.codes import ALPHABET, CODE_LENGTH, clean_code, token_hash
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


@pytest.fixture(params=["memory", "sqlite", "redis"])
def make_rooms(request, tmp_path):
    """A factory of ``Rooms`` over a fresh store of each kind, with a clock the test moves."""
    made = []

    def make(limits: RoomLimits | None = None) -> tuple[Rooms, Clock]:
        clock = Clock()
        if request.param == "memory":
            store = MemoryStore()
        elif request.param == "sqlite":
            store = SQLiteStore(tmp_path / f"rooms{len(made)}.sqlite3")
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
    ids = [rooms.issue_student(code) for _ in range(4)]
    assert all(rooms.join(code, s) for s in ids[:3])
    assert rooms.join(code, ids[0])  # a reload is the same student
    assert rooms.view(code).students == 3
    assert not rooms.join(code, ids[3])
    assert not rooms.join(code, "bad id!") and not rooms.join("AAAAAA", ids[0])


def test_rooms_are_bounded_in_number_and_the_teacher_present_keeps_theirs(make_rooms):
    rooms, clock = make_rooms(RoomLimits(max_rooms=2, present_seconds=100, rooms_per_address=5))
    first, first_token = rooms.open("x = 1.0\ny = x * x\n")
    second, second_token = rooms.open("x = 2.0\ny = x * x\n")
    with pytest.raises(RoomsFull, match="already runs 2 classes"):
        rooms.open("x = 3.0\ny = x * x\n")  # both teachers are present: neither gives way
    clock.now += 150
    rooms.teacher_seen(second, second_token)  # the second teacher's page is open; the first one's is not
    third, _ = rooms.open("x = 3.0\ny = x * x\n")  # the server is full: the stalest room gives way
    assert rooms.view(first) is None and rooms.status(first) == "ended"
    assert rooms.view(second) is not None and rooms.view(third) is not None
    assert rooms.history(first, first_token) == []  # its exit ticket is still the teacher's


def test_a_teacher_session_holds_one_room_and_an_address_a_few(make_rooms):
    rooms, _ = make_rooms(RoomLimits(rooms_per_address=3))
    code, token = rooms.open("x = 1.0\ny = x * x\n", owner="session-1", address="10.0.0.7")
    again, _ = rooms.open("x = 1.0\ny = x * x\n", owner="session-1", address="10.0.0.7")
    assert rooms.view(code) is None and rooms.status(code) == "ended" and rooms.view(again) is not None
    rooms.open("x = 1.0\ny = x * x\n", owner="session-2", address="10.0.0.7")
    rooms.open("x = 1.0\ny = x * x\n", owner="session-3", address="10.0.0.7")
    with pytest.raises(RoomsFull, match="This address already runs 3 classes"):
        rooms.open("x = 1.0\ny = x * x\n", owner="session-4", address="10.0.0.7")
    rooms.open("x = 1.0\ny = x * x\n", owner="session-5", address="10.0.0.8")  # another address is not held up


def test_a_room_whose_teacher_is_away_ends_and_students_do_not_keep_it(make_rooms):
    rooms, clock = make_rooms(RoomLimits(teacher_idle_seconds=600, empty_seconds=10_000))
    code, token = rooms.open("x = 3.0\ny = x * x\n")
    student = rooms.issue_student(code)
    clock.now += 500
    rooms.set_step(code, token, 1)  # the teacher acting keeps it alive
    clock.now += 500
    assert rooms.view(code) is not None and rooms.view(code).step == 1
    for _ in range(4):  # a student (or a script) joining and rejoining does not
        clock.now += 150
        rooms.join(code, student)
    assert rooms.view(code) is None and rooms.status(code) == "ended"
    with pytest.raises(RoomGone):
        rooms.set_step(code, token, 2)


def test_a_room_no_student_joined_ends_in_minutes(make_rooms):
    rooms, clock = make_rooms(RoomLimits(empty_seconds=1200, teacher_idle_seconds=3600))
    empty, empty_token = rooms.open("x = 3.0\ny = x * x\n")
    used, used_token = rooms.open("x = 4.0\ny = x * x\n")
    rooms.join(used, rooms.issue_student(used))
    clock.now += 1201
    rooms.teacher_seen(used, used_token)
    assert rooms.view(used) is not None
    assert rooms.view(empty) is None


def test_students_are_issued_by_the_server_and_cannot_be_made_up(make_rooms):
    rooms, _ = make_rooms()
    code, _ = rooms.open("x = 3.0\ny = x * x\n")
    other, _ = rooms.open("x = 4.0\ny = x * x\n")
    issued = rooms.issue_student(code)
    assert rooms.is_student(code, issued) and rooms.join(code, issued)
    forged = [issued[:-1] + ("A" if issued[-1] != "A" else "B"), "A" * len(issued), "student-12345678", "", None]
    for fake in forged:
        assert not rooms.is_student(code, fake) and not rooms.join(code, fake)
    assert not rooms.join(other, issued)  # one room's id is worth nothing in another
    assert rooms.view(code).students == 1


def test_a_room_counts_students_connected_now(make_rooms):
    rooms, clock = make_rooms(RoomLimits(present_seconds=150, max_students=2, teacher_idle_seconds=10_000))
    code, _ = rooms.open("x = 3.0\ny = x * x\n")
    a, b, c = (rooms.issue_student(code) for _ in range(3))
    assert rooms.join(code, a) and rooms.join(code, b) and not rooms.join(code, c)
    clock.now += 100
    rooms.join(code, a)  # a's page says it is there; b's closed
    clock.now += 100
    assert rooms.view(code).students == 1
    assert rooms.join(code, c)  # b's seat is free again
    assert rooms.view(code).students == 2 and rooms.join(code, b) is False


def test_ids_issued_to_one_address_are_bounded_above_a_whole_class(make_rooms):
    rooms, _ = make_rooms(RoomLimits(students_per_address=5))
    code, _ = rooms.open("x = 3.0\ny = x * x\n")
    assert all(rooms.issue_student(code, address="10.1.1.1") for _ in range(5))
    assert rooms.issue_student(code, address="10.1.1.1") is None
    assert rooms.issue_student(code, address="10.1.1.2") is not None
    assert rooms.issue_student("AAAAAA") is None  # no such room


def test_the_teacher_ends_the_room(make_rooms):
    rooms, _ = make_rooms()
    code, token = rooms.open("x = 3.0\ny = x * x\n")
    student = rooms.issue_student(code)
    with pytest.raises(NotTeacher):
        rooms.end(code, "not the token")
    rooms.ask(code, token, QUESTION, show_rule=True)
    rooms.answer(code, student, "6")
    rooms.end(code, token)
    assert rooms.view(code) is None and not rooms.join(code, student) and rooms.status(code) == "ended"
    assert rooms.issue_student(code) is None
    with pytest.raises(RoomGone):
        rooms.answer(code, student, "5")
    (question, answers), = rooms.history(code, token)  # the exit ticket outlives the class
    assert question["label"] == "grad x" and [a["value"] for a in answers] == [6.0]
    assert rooms.teacher_of_ended(code, token) and not rooms.teacher_of_ended(code, "not the token")
    with pytest.raises(NotTeacher):
        rooms.history(code, "not the token")


QUESTION = {"step": 2, "label": "grad x", "expected": 6.0}


def test_answers_go_to_the_open_question_and_a_new_answer_replaces_the_old(make_rooms):
    rooms, _ = make_rooms()
    code, token = rooms.open("x = 3.0\ny = x * x\n")
    a, b = rooms.issue_student(code), rooms.issue_student(code)
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


def test_the_teachers_count_of_a_round_is_two_numbers_and_only_for_the_open_round(make_rooms):
    rooms, _ = make_rooms()
    code, token = rooms.open("x = 3.0\ny = x * x\n")
    a, b, c = (rooms.issue_student(code) for _ in range(3))
    for student in (a, b, c):
        assert rooms.join(code, student)
    assert rooms.answer_tally(code, "q1") is None  # no question open
    qid = rooms.ask(code, token, QUESTION, show_rule=True)
    assert rooms.answer_tally(code, qid) == {"q": qid, "answered": 0, "students": 3}
    rooms.answer(code, a, "6", nickname="Ada")
    rooms.answer(code, a, "5")  # a changed answer is still one student who answered
    rooms.answer(code, b, "-6")
    # what the teacher's panel counts ("2 / 3 answered"); no value, no student, nothing of the right answer
    assert rooms.answer_tally(code, qid) == {"q": qid, "answered": 2, "students": 3}
    assert rooms.answer_tally(code, "not-the-round") is None and rooms.answer_tally("bad", qid) is None
    again = rooms.ask_again(code, token)
    assert rooms.answer_tally(code, qid) is None  # round 1 is not the open round any more
    assert rooms.answer_tally(code, again) == {"q": again, "answered": 0, "students": 3}
    rooms.end(code, token)
    assert rooms.answer_tally(code, again) is None


@pytest.mark.parametrize("text, message", [("", "Type a number"), ("abc", "not a number"), ("1" * 40, "at most 32"),
                                           ("nan", "finite"), ("inf", "finite"), (None, "Type a number"),
                                           ("-1.7976e308", "finite"), ("1e16", "finite")])
def test_bad_answers_get_a_message(make_rooms, text, message):
    rooms, _ = make_rooms()
    code, token = rooms.open("x = 3.0\ny = x * x\n")
    rooms.ask(code, token, QUESTION, show_rule=True)
    with pytest.raises(AnswerRejected, match=message):
        rooms.answer(code, rooms.issue_student(code), text)


def test_answers_are_bounded_in_rate_per_student(make_rooms):
    rooms, clock = make_rooms(RoomLimits(answers_per_minute=3))
    clock.now = 60_000.0  # the start of a minute window
    code, token = rooms.open("x = 3.0\ny = x * x\n")
    rooms.ask(code, token, QUESTION, show_rule=True)
    student, other = rooms.issue_student(code), rooms.issue_student(code)
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
    rooms.answer(code, rooms.issue_student(code), "6")
    with pytest.raises(AnswerRejected, match="full"):
        rooms.answer(code, rooms.issue_student(code), "6")


def test_an_unreachable_redis_is_a_clear_error_not_a_redis_traceback():
    from bench.streamlit_client import free_port
    from lucid.live_class import StoreUnavailable

    rooms = Rooms(RedisStore.from_url(f"redis://127.0.0.1:{free_port()}/0"))  # nothing listens there
    with pytest.raises(StoreUnavailable, match="cannot be reached"):
        rooms.open("x = 3.0\ny = x * x\n")
    with pytest.raises(StoreUnavailable):
        rooms.view("ACDEFG")


def test_a_hung_redis_is_said_at_once_after_one_short_timeout():
    """Redis stopped (not killed) keeps connections open and answers nothing: one call waits the short timeout,
    then the store says it is unavailable at once until it tries again."""
    import signal
    import subprocess

    from lucid.live_class import StoreUnavailable

    redis_server.require()
    with redis_server.redis_server() as url:
        rooms = Rooms(RedisStore.from_url(url, prefix="hung:"))
        code, _ = rooms.open("x = 3.0\ny = x * x\n")
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        pid = int(subprocess.run(["redis-cli", "-p", str(port), "info", "server"], capture_output=True, text=True,
                                 check=True).stdout.split("process_id:")[1].split()[0])
        os_kill = __import__("os").kill
        os_kill(pid, signal.SIGSTOP)
        try:
            with pytest.raises(StoreUnavailable, match="cannot be reached"):
                rooms.view(code)  # one call waits the short timeout
            sent = []
            real = rooms.store.r.execute_command
            rooms.store.r.execute_command = lambda *a, **k: sent.append(a) or real(*a, **k)
            for _ in range(4):
                with pytest.raises(StoreUnavailable, match="cannot be reached"):
                    rooms.view(code)
        finally:
            os_kill(pid, signal.SIGCONT)
        assert sent == []  # the breaker answered: no call went to the hung Redis


def test_rooms_survive_a_restart_on_the_same_data_file(tmp_path):
    clock = Clock()
    rooms = Rooms(SQLiteStore(tmp_path / "rooms.sqlite3"), clock=clock)
    code, token = rooms.open("x = 3.0\ny = x * x\n")
    student = rooms.issue_student(code)
    rooms.set_step(code, token, 1)
    rooms.ask(code, token, QUESTION, show_rule=True)
    rooms.answer(code, student, "6")
    again = Rooms(SQLiteStore(tmp_path / "rooms.sqlite3"), clock=clock)  # another process, the same folder
    view = again.view(code)
    assert (view.step, view.question["label"]) == (1, "grad x")
    assert again.is_teacher(code, token) and again.is_student(code, student)  # the secret is the file's
    assert again.my_answer(code, view.question["id"], student)["value"] == 6.0


def test_a_data_folder_that_cannot_be_written_keeps_rooms_in_memory(tmp_path, monkeypatch):
    from lucid.ui.live_class import room_service

    blocked = tmp_path / "file-not-folder"
    blocked.write_text("x")
    monkeypatch.setenv(room_service.DATA_ENV, str(blocked / "data"))
    store = room_service._embedded_store()
    assert isinstance(store, MemoryStore)
    rooms = Rooms(store)
    code, _ = rooms.open("x = 3.0\ny = x * x\n")
    assert rooms.view(code) is not None
