"""The room feed: what a student's browser polls says only what every student may see, written atomically,
and relayed through Redis to every server process's own folder."""
from __future__ import annotations

import json
import time

import pytest

from lucid.live_class import MemoryStore, Rooms
from lucid.live_class.feed import FeedWriter, RedisFeedRelay, feed_of, program_key, question_key
from lucid.ui.playground.clickable_graph import program_key as player_program_key
from tests import redis_server


def test_the_feed_names_the_program_as_the_player_does():
    assert program_key(0, "x = 3.0\ny = x * x\n") == player_program_key(0, "x = 3.0\ny = x * x\n")


def test_the_feed_holds_step_program_and_question_state_but_no_secret_or_answer():
    rooms = Rooms(MemoryStore())
    code, token = rooms.open("x = 3.0\ny = x * x\n")
    rooms.set_step(code, token, 1)
    rooms.ask(code, token, {"step": 2, "label": "grad x", "expected": 6.0, "expected_text": "6.000"},
              show_rule=True)
    feed = feed_of(rooms.view(code))
    assert set(feed) == {"v", "step", "program", "q", "d", "x"}  # x: the exercise sent (its id), "" for none
    assert feed["step"] == 1 and feed["q"].endswith(":0")
    text = json.dumps(feed)
    assert token not in text and "6.0" not in text and "grad x" not in text
    rooms.reveal(code, token)
    assert feed_of(rooms.view(code))["q"].endswith(":1") and feed_of(rooms.view(code))["step"] == 2
    assert question_key(None) == ""


def test_a_feed_is_written_whole_and_removed(tmp_path):
    writer = FeedWriter(tmp_path / "rooms")
    writer.write("ACDEFG", {"v": 1, "step": 0, "program": "p", "q": ""})
    writer.write("ACDEFG", {"v": 2, "step": 3, "program": "p", "q": ""})
    assert json.loads((tmp_path / "rooms" / "ACDEFG.json").read_text())["step"] == 3
    assert [p.name for p in (tmp_path / "rooms").iterdir()] == ["ACDEFG.json"]  # no temp file left behind
    with pytest.raises(ValueError):
        writer.path("../../etc")  # only a room code names a file
    writer.remove("ACDEFG")
    assert not (tmp_path / "rooms" / "ACDEFG.json").exists()


def test_a_feed_published_by_one_process_is_written_by_every_process(tmp_path):
    redis_server.require()
    import redis

    with redis_server.redis_server() as url:
        one = RedisFeedRelay(redis.Redis.from_url(url, decode_responses=True), FeedWriter(tmp_path / "one"))
        two = RedisFeedRelay(redis.Redis.from_url(url, decode_responses=True), FeedWriter(tmp_path / "two"))
        two.start()
        target = tmp_path / "two" / "ACDEFG.json"
        for _ in range(100):  # until the second process's listener has subscribed and written the feed
            one.publish("ACDEFG", {"v": 7, "step": 4, "program": "p", "q": ""})
            if target.exists():
                break
            time.sleep(0.1)
        assert json.loads(target.read_text()) == {"v": 7, "step": 4, "program": "p", "q": ""}
        assert json.loads((tmp_path / "one" / "ACDEFG.json").read_text())["v"] == 7
        for _ in range(100):
            one.publish("ACDEFG", None)  # the room ended: its feed goes everywhere
            if not target.exists():
                break
            time.sleep(0.1)
        assert not target.exists()


def test_the_published_feed_adds_the_question_card_with_no_answer_before_the_reveal():
    from lucid.live_class.feed import published, question_card

    rooms = Rooms(MemoryStore())
    code, token = rooms.open("x = 3.0\ny = x * x\n")
    assert question_card(rooms.view(code)) == {} and published(rooms.view(code)) == feed_of(rooms.view(code))
    rooms.ask(code, token, {"step": 2, "label": "grad x", "expected": 6.0, "expected_text": "6.000"},
              show_rule=True)
    asked = published(rooms.view(code))
    assert asked["card"] == {"label": "grad x", "step": 2}  # what the form says too: no number of the answer
    assert "6.0" not in json.dumps(asked) and token not in json.dumps(asked)
    assert {k: v for k, v in asked.items() if k != "card"} == feed_of(rooms.view(code))
    rooms.reveal(code, token)
    assert published(rooms.view(code))["card"] == {"label": "grad x", "step": 2, "answer": "6.000"}


def test_an_answer_taken_by_one_process_is_told_to_the_others_with_only_its_counts(tmp_path):
    """With two processes behind Redis, the teacher's held count read may live in the other process: the relay
    tells it of every answer (the round's id and counts only), and a process never hears its own news twice."""
    redis_server.require()
    import redis

    heard: dict[str, list] = {"one": [], "two": []}
    with redis_server.redis_server() as url:
        one = RedisFeedRelay(redis.Redis.from_url(url, decode_responses=True), FeedWriter(tmp_path / "one"),
                             on_answered=lambda code, tally: heard["one"].append((code, tally)))
        two = RedisFeedRelay(redis.Redis.from_url(url, decode_responses=True), FeedWriter(tmp_path / "two"),
                             on_answered=lambda code, tally: heard["two"].append((code, tally)))
        one.start()
        two.start()
        for _ in range(100):  # until the second process's listener has subscribed
            one.answered("ACDEFG", {"q": "q1", "answered": 3, "students": 5, "answers": {"s1": 6.0}})
            if heard["two"]:
                break
            time.sleep(0.1)
        assert heard["two"][0] == ("ACDEFG", {"q": "q1", "answered": 3, "students": 5})  # no answer travels
        two.answered("ACDEFG", None)  # a store out of reach: the news without the counts
        for _ in range(100):
            if heard["one"]:
                break
            time.sleep(0.05)
        assert heard["one"] == [("ACDEFG", None)]
        time.sleep(0.3)
        assert all(tally != ("ACDEFG", None) for tally in heard["two"])  # its own news is not taken again


@pytest.mark.parametrize("tally, kept", [
    ({"q": "q1", "answered": 2, "students": 9}, {"q": "q1", "answered": 2, "students": 9}),
    ({"q": "q1", "answered": 2, "students": -1}, {"q": "q1", "answered": 2}),
    ({"q": "q1", "answered": True}, None),
    ({"q": "q1", "answered": 10**7}, None),
    ({"q": "x" * 65, "answered": 1}, None),
    ({"q": 5, "answered": 1}, None),
    (["q", 1], None),
    ("{}", None),
])
def test_a_tally_from_another_process_keeps_only_bounded_counts_and_the_rounds_id(tally, kept):
    from lucid.live_class.feed import clean_tally

    assert clean_tally(tally) == kept
