"""Class mode holds against a student with a script (issue 24, "Done means").

One real ``streamlit run app.py`` with its rooms in a fresh data folder; the attacks of ``bench/attack_class.py``
run briefly from the attacker's own address while a real teacher and real students (another address) use class
mode. What must hold: no attacker's page shows a traceback; the flood's extra classes are refused by name and
its address holds at most ``rooms_per_address`` open classes; a real teacher starts a class and a real student
answers meanwhile; the room counts one student per browser session, however many ids a tab invents; answers at
a float's edge are refused and never stored; every hostile lesson plan is refused; with Redis hung the page says
the class is unreachable, and the class resumes once Redis is back. Speed is the bench's
(``bench/bench_hostile_class.py --suite class``).
"""
from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

import pytest

from bench import attack_class
from bench.streamlit_client import run_sync, server
from lucid.live_class import RoomLimits
from tests import redis_server

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
INVENTED_IDS = 30
FRESH_TABS = 3
REAL_STUDENTS = 2


@pytest.fixture(scope="module")
def target():
    ARTIFACTS.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="lucid-rooms-") as data, server(
            env={"LUCID_DATA_DIR": data}, log=ARTIFACTS / "hostile-class-rooms-server.log") as running:
        yield attack_class.Target(running.port, running.pid, Path(data))


async def _flood_with_a_real_class(target: attack_class.Target):
    stop = asyncio.Event()
    flood = asyncio.ensure_future(attack_class.room_flood(target, stop, 8.0))
    await asyncio.sleep(2.0)
    teacher = await attack_class.teacher_can_start(target.port)
    student = await attack_class.student_can_answer(target.port)
    return await flood, teacher, student


@pytest.fixture(scope="module")
def flood(target):
    return run_sync(_flood_with_a_real_class(target))


@pytest.fixture(scope="module")
def fakes(target):
    return run_sync(attack_class.fake_students(target, asyncio.Event(), ids=INVENTED_IDS, fresh=FRESH_TABS,
                                               real_students=REAL_STUDENTS))


@pytest.fixture(scope="module")
def bombs(target):
    return run_sync(attack_class.lesson_bomb(target, asyncio.Event(), 1.0))


def test_a_tab_pressing_start_a_class_over_and_over_holds_one_address_to_its_bound(flood):
    outcome, _, _ = flood
    assert outcome.failure is None and outcome.exceptions == []
    assert outcome.rounds >= 2 and outcome.notes["started"] > RoomLimits().rooms_per_address
    assert outcome.notes["refused"] >= 1
    assert any("already runs 10 classes" in a for a in outcome.alerts)  # the refusal names the bound
    assert outcome.notes["open_rooms_of_the_attacker"] == RoomLimits().rooms_per_address


def test_during_the_flood_a_real_teacher_starts_a_class_and_a_real_student_answers(flood):
    _, teacher, student = flood
    assert teacher.ok, teacher.detail
    assert student.ok and "Answer received" in student.detail, student.detail
    assert teacher.exceptions == student.exceptions == []


def test_invented_student_ids_add_no_one_the_room_counts_one_student_per_session(fakes):
    assert fakes.failure is None and fakes.exceptions == []
    sessions = REAL_STUDENTS + 1 + FRESH_TABS  # each attacker tab is one real session
    assert fakes.notes["invented_ids_sent"] == INVENTED_IDS
    assert fakes.notes["sessions_joined"] == sessions
    assert fakes.notes["teacher_panel"][1] == sessions  # "Class CODE · 6 students"
    assert fakes.notes["store_students"] == sessions
    assert fakes.notes["teacher_answered"] == (0, sessions)  # "0 / 6 answered": the huge ones are not


def test_answers_at_a_floats_edge_are_refused_and_never_counted(fakes):
    assert fakes.notes["huge_answers_received"] == 0
    assert fakes.notes["huge_answers_refused"] == len(attack_class.HUGE_ANSWERS)
    assert fakes.notes["store_answers"] == 0 and fakes.notes["store_huge_answers"] == 0


def test_every_hostile_lesson_plan_is_refused_with_a_message(bombs):
    assert bombs.failure is None and bombs.exceptions == []
    assert bombs.rounds >= 1
    assert bombs.notes["refused"] == dict.fromkeys(attack_class.LESSON_BOMBS, bombs.rounds)
    assert "longer than 50,000 characters" in bombs.notes["said"]["dotted key 100 KB"]
    assert "nested more than 16 deep" in bombs.notes["said"]["arrays 10,000 deep"]


def test_after_the_attacks_a_real_class_still_works(target, flood, fakes, bombs):
    assert run_sync(attack_class.teacher_can_start(target.port)).ok
    assert run_sync(attack_class.student_can_answer(target.port)).ok


@pytest.fixture(scope="module")
def hung():
    redis_server.require()
    with redis_server.redis_process() as (url, process), server(
            env={"LUCID_REDIS_URL": url}, log=ARTIFACTS / "hostile-class-redis-server.log") as running:
        target = attack_class.Target(running.port, running.pid, None, process.pid)
        outcome = run_sync(attack_class.hung_redis(target, asyncio.Event(), 4.0))
        stopped = process.poll() is None and _state(process.pid)
        time.sleep(6.0)  # the store's breaker (5 s) lets Redis be tried again
        after = run_sync(attack_class.student_can_answer(running.port))
        yield outcome, stopped, after


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def test_with_redis_hung_the_students_page_says_so_without_a_traceback(hung):
    outcome, _, _ = hung
    assert outcome.failure is None, outcome.failure
    assert outcome.exceptions == [], outcome.exceptions
    assert outcome.notes["hung_runs"] >= 1
    assert outcome.notes["unavailable_messages_per_run"] >= 1


def test_redis_is_continued_after_the_attack_and_the_class_resumes(hung):
    _, stopped, after = hung
    assert stopped != "T"  # SIGCONT was sent: not left stopped
    assert after.ok, after.detail
