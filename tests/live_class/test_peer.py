"""Peer instruction in a room: ask again after discussion, a countdown, multiple choice, who has not answered, and
the exit ticket's row per round, against every store (memory, SQLite, Redis)."""
from __future__ import annotations

import csv
import io

import pytest

from lucid.live_class import AnswerRejected, RoomLimits, peer
from lucid.live_class.grading import diagnose
from lucid.live_class.ticket import COLUMNS, exit_ticket
from tests.live_class.test_rooms import make_rooms, redis_url  # noqa: F401 - the fixtures, over every store

PROGRAM = "x = 3.0\ny = x * x\n"
QUESTION = {"step": 2, "label": "grad x", "expected": 6.0, "expected_text": "6.000",
            "candidates": [["forgot +=", [3.0]], ["forgot to sum", [2.0, 2.0]], ["value, not gradient", [3.0]],
                           ["sign", [-6.0]]]}
"""A question whose mistakes give 3 (twice: forgot ``+=`` and the value), 2 and -6."""


def _class(make_rooms, n: int = 3, limits: RoomLimits | None = None):  # noqa: F811 - the fixture's factory
    rooms, clock = make_rooms(limits)
    code, token = rooms.open(PROGRAM)
    students = [rooms.issue_student(code) for _ in range(n)]
    for s in students:
        rooms.join(code, s)
    return rooms, clock, code, token, students


def test_the_choices_are_the_right_value_and_each_distinct_mistake_in_one_order_per_question():
    got = peer.choices(QUESTION, "q1")
    assert sorted(got) == [-6.0, 2.0, 3.0, 6.0]  # 3 once: forgot += and the value are the same number
    assert peer.choices(QUESTION, "q1") == got  # every student, every process: the same order
    orders = {tuple(peer.choices(QUESTION, f"q{k}")) for k in range(20)}
    assert len(orders) > 1  # another question, another order: "A" is not always right
    close = {**QUESTION, "candidates": [["sign", [-6.0]], ["value, not gradient", [6.0004]]]}
    assert sorted(peer.choices(close, "q")) == [-6.0, 6.0]  # equal to 3 significant digits: one choice
    with pytest.raises(AnswerRejected, match="ask it typed"):
        peer.choices({"expected": 0.0, "candidates": [["sign", [-0.0]], ["value, not gradient", [0.0]]]}, "q")


def test_a_multiple_choice_pick_is_graded_like_the_typed_number(make_rooms):  # noqa: F811
    rooms, _, code, token, (a, b, c) = _class(make_rooms)
    qid = rooms.ask(code, token, QUESTION, show_rule=True, kind="choice")
    offered = rooms.view(code).question["choices"]
    assert rooms.view(code).question["kind"] == "choice" and len(offered) == 4
    assert rooms.answer(code, a, "", choice=offered.index(6.0)) == 6.0
    assert rooms.answer(code, b, "", choice=offered.index(-6.0), nickname="Bo") == -6.0
    for bad in (None, -1, 4, True, "0", 1.0):
        with pytest.raises(AnswerRejected, match="Pick one of the choices"):
            rooms.answer(code, c, "6", choice=bad)
    bo = rooms.my_answer(code, qid, b)
    assert bo["choice"] == offered.index(-6.0) and bo["text"].endswith("−6.000")
    assert diagnose(bo["value"], rooms.view(code).question) == "sign"
    typed = rooms.ask(code, token, {k: v for k, v in QUESTION.items()}, show_rule=True)
    with pytest.raises(AnswerRejected, match="typed number"):
        rooms.answer(code, a, "6", choice=0)
    assert rooms.answer(code, a, "6") == 6.0 and rooms.view(code).question["id"] == typed


def test_ask_again_opens_round_two_with_its_own_answers_and_the_same_choices(make_rooms):  # noqa: F811
    rooms, _, code, token, (a, b, c) = _class(make_rooms)
    first = rooms.ask(code, token, QUESTION, show_rule=True, kind="choice")
    offered = rooms.view(code).question["choices"]
    rooms.answer(code, a, "", choice=offered.index(3.0))
    rooms.answer(code, b, "", choice=offered.index(6.0))
    second = rooms.ask_again(code, token)
    view = rooms.view(code)
    assert second != first and view.question["round"] == 2 and view.question["first"] == first
    assert view.question["choices"] == offered and view.step == 0  # still predicting: nothing shown
    with pytest.raises(AnswerRejected, match="changed"):
        rooms.answer(code, c, "", question_id=first, choice=0)  # a page still showing round 1
    rooms.answer(code, a, "", question_id=second, choice=offered.index(6.0))
    assert [x["value"] for x in rooms.answers(code, first)] != [] and len(rooms.answers(code, second)) == 1
    with pytest.raises(AnswerRejected, match="at most 2 times"):
        rooms.ask_again(code, token)
    rooms.reveal(code, token)
    assert all(q["revealed"] for q in rooms.view(code).questions)  # both rounds are revealed
    with pytest.raises(AnswerRejected, match="revealed"):
        rooms.ask_again(code, token)


def test_ask_again_needs_an_open_question(make_rooms):  # noqa: F811
    rooms, _, code, token, _ids = _class(make_rooms)
    with pytest.raises(AnswerRejected, match="No question"):
        rooms.ask_again(code, token)
    rooms.ask(code, token, QUESTION, show_rule=True)
    rooms.reveal(code, token)
    with pytest.raises(AnswerRejected, match="ask a new question"):
        rooms.ask_again(code, token)


def test_answers_after_the_countdown_are_refused_on_the_server(make_rooms):  # noqa: F811
    rooms, clock, code, token, (a, b, _c) = _class(make_rooms)
    rooms.ask(code, token, QUESTION, show_rule=True, seconds=30)
    q = rooms.view(code).question
    assert q["seconds"] == 30 and q["deadline"] == q["asked"] + 30
    clock.now += 30.5  # submitted as it reached 0: still on its way
    assert rooms.answer(code, a, "6") == 6.0
    clock.now += 1.0
    with pytest.raises(AnswerRejected, match="Time is up"):
        rooms.answer(code, b, "6")
    rooms.ask_again(code, token, seconds=10)  # round 2 has a countdown of its own
    assert rooms.answer(code, b, "6") == 6.0
    second = rooms.view(code).question
    assert second["seconds"] == 10 and second["deadline"] == clock.now + 10


@pytest.mark.parametrize("seconds", [5, 301, -10, 1e9, float("nan"), "30", True])
def test_a_countdown_is_ten_to_three_hundred_seconds(make_rooms, seconds):  # noqa: F811
    rooms, _, code, token, _ids = _class(make_rooms, 0)
    with pytest.raises(AnswerRejected, match="10 to 300 seconds"):
        rooms.ask(code, token, QUESTION, show_rule=True, seconds=seconds)
    assert rooms.view(code).question is None
    rooms.ask(code, token, QUESTION, show_rule=True, seconds=0)  # 0: no countdown
    assert "deadline" not in rooms.view(code).question
    with pytest.raises(AnswerRejected, match="typed or multiple choice"):
        rooms.ask(code, token, QUESTION, show_rule=True, kind="essay")


def test_the_not_yet_answered_list_names_students_by_their_latest_nickname(make_rooms):  # noqa: F811
    rooms, clock, code, token, (a, b, c) = _class(make_rooms, 3, RoomLimits(present_seconds=150,
                                                                             teacher_idle_seconds=10_000))
    rooms.ask(code, token, QUESTION, show_rule=True)
    rooms.answer(code, a, "6", nickname="Ada")
    rooms.answer(code, b, "3", nickname="<img src=x> Bo")
    assert rooms.unanswered(code, token) == peer.Unanswered(1, [], 1)  # c typed no nickname yet
    rooms.ask_again(code, token)
    rooms.answer(code, c, "6", nickname="Cy")
    missing = rooms.unanswered(code, token)
    assert (missing.count, missing.names, missing.unnamed) == (2, ["<img src=x> Bo", "Ada"], 0)
    clock.now += 200
    rooms.join(code, a)  # b's tab closed long ago: only those connected now are listed
    assert rooms.unanswered(code, token).names == ["Ada"]
    rooms.reveal(code, token)
    assert rooms.unanswered(code, token) == peer.Unanswered()


def test_the_not_yet_answered_list_is_bounded():
    present = [f"s{k}" for k in range(30)]
    names = {f"s{k}": f"n{k:02d}" for k in range(25)}
    got = peer.unanswered(present, ["s0"], names)
    assert got.count == 29 and len(got.names) == peer.NAMES_SHOWN and got.unnamed == 9
    assert got.names[0] == "n01"


def test_a_nickname_is_shown_as_text_never_as_markdown_or_html():
    assert peer.plain_markdown("![x](http://e/p.png)") == r"\!\[x\]\(http\://e/p\.png\)"
    assert peer.plain_markdown("<b>Bo</b>\n# big\u202e") == r"\<b\>Bo\</b\> \# big"
    assert peer.plain_markdown("**김민** _x_") == r"\*\*김민\*\* \_x\_"


def test_the_exit_ticket_has_a_row_per_round_and_counts_who_changed_to_the_right_answer(make_rooms):  # noqa: F811
    rooms, _, code, token, (a, b, c) = _class(make_rooms)
    rooms.ask(code, token, QUESTION, show_rule=True, kind="choice")
    offered = rooms.view(code).question["choices"]
    for s, value in ((a, 3.0), (b, 6.0), (c, -6.0)):
        rooms.answer(code, s, "", choice=offered.index(value))
    rooms.ask_again(code, token)
    for s, value in ((a, 6.0), (b, 2.0), (c, 6.0)):
        rooms.answer(code, s, "", choice=offered.index(value))
    rooms.reveal(code, token)
    rooms.ask(code, token, {**QUESTION, "step": 3}, show_rule=False)
    rooms.answer(code, a, "6")
    rows = list(csv.DictReader(io.StringIO(exit_ticket(rooms.history(code, token)))))
    assert list(rows[0]) == COLUMNS and COLUMNS[-4:] == ["round", "kind", "changed to right", "changed from right"]
    summary = [(r["question"], r["round"], r["kind"], r["answers"], r["correct rate"], r["changed to right"],
                r["changed from right"]) for r in rows]
    assert summary == [("1", "1", "multiple choice", "3", "33%", "", ""),
                       ("1", "2", "multiple choice", "3", "67%", "2", "1"),
                       ("2", "1", "typed", "1", "100%", "", "")]
    assert all(a not in text for text in (exit_ticket(rooms.history(code, token)),))  # no student id in it
