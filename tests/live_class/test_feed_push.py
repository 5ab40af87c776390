"""Held reads of a room's feed (``lucid.live_class.feed_push``): a read naming the version the page has waits for
a newer feed, a read naming an older version (or none) answers at once, and a feed written by another process
(no notice from this one) wakes held reads too. Nothing here is timed: holds are long, and a read's end is
awaited, never measured."""
from __future__ import annotations

import asyncio
import concurrent.futures

from lucid.live_class import feed as feed_module
from lucid.live_class.feed import FeedWriter
from lucid.live_class.feed_push import FeedHub

CODE = "ACD347"


def _run(coro):
    """``asyncio.run`` on a thread of its own: a worker that ran a browser test before holds a running loop."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


async def _pending(task: asyncio.Task, turns: int = 20) -> bool:
    for _ in range(turns):
        await asyncio.sleep(0)
    return not task.done()


def test_a_read_of_an_older_version_or_of_none_answers_at_once(tmp_path):
    writer = FeedWriter(tmp_path)
    writer.write(CODE, {"v": 3, "step": 2, "q": ""})
    hub = FeedHub(writer, hold=60)

    async def reads():
        return await hub.read(CODE, None), await hub.read(CODE, "2"), await hub.read(CODE, "")

    assert _run(reads()) == ({"v": 3, "step": 2, "q": ""},) * 3
    assert hub.held_count() == 0


def test_a_read_of_the_current_version_is_held_until_this_process_writes_the_feed(tmp_path):
    writer = FeedWriter(tmp_path)
    writer.write(CODE, {"v": 3, "step": 2, "q": ""})
    hub = FeedHub(writer, hold=60, check_every=60)  # only the write's notice can wake it
    feed_module.on_write(hub.notify)
    try:
        async def scenario():
            task = asyncio.create_task(hub.read(CODE, "3"))
            held = await _pending(task)
            count = hub.held_count()
            writer.write(CODE, {"v": 4, "step": 3, "q": ""})  # the teacher's key press, as the server writes it
            return held, count, await asyncio.wait_for(task, 30), hub.held_count()

        held, count, feed, after = _run(scenario())
    finally:
        feed_module._listeners.remove(hub.notify)
    assert held and count == 1
    assert feed == {"v": 4, "step": 3, "q": ""}
    assert after == 0


def test_a_feed_written_by_another_process_wakes_a_held_read(tmp_path):
    hub = FeedHub(FeedWriter(tmp_path), hold=60, check_every=0.05)  # no notice: the file's change is seen
    other = FeedWriter(tmp_path)  # another process's writer (this hub hears nothing from it)
    other.write(CODE, {"v": 7, "step": 0, "q": ""})

    async def scenario():
        task = asyncio.create_task(hub.read(CODE, "7"))
        held = await _pending(task)
        other.write(CODE, {"v": 8, "step": 0, "q": "q1:0"})
        return held, await asyncio.wait_for(task, 30)

    assert _run(scenario()) == (True, {"v": 8, "step": 0, "q": "q1:0"})


def test_an_ended_room_answers_none_and_a_held_read_learns_it(tmp_path):
    writer = FeedWriter(tmp_path)
    writer.write(CODE, {"v": 1, "step": 0, "q": ""})
    hub = FeedHub(writer, hold=60, check_every=0.05)

    async def scenario():
        task = asyncio.create_task(hub.read(CODE, "1"))
        held = await _pending(task)
        writer.remove(CODE)
        return held, await asyncio.wait_for(task, 30), await hub.read("ZZZ999", None), await hub.read("bad", "1")

    assert _run(scenario()) == (True, None, None, None)


def test_past_its_limit_a_read_answers_at_once(tmp_path):
    writer = FeedWriter(tmp_path)
    writer.write(CODE, {"v": 1, "step": 0, "q": ""})
    hub = FeedHub(writer, hold=60, max_held=1)

    async def scenario():
        first = asyncio.create_task(hub.read(CODE, "1"))
        await _pending(first)
        second = await asyncio.wait_for(hub.read(CODE, "1"), 30)  # not held: the limit is one
        writer.write(CODE, {"v": 2, "step": 1, "q": ""})
        hub.notify(CODE)
        return second, await asyncio.wait_for(first, 30)

    assert _run(scenario()) == ({"v": 1, "step": 0, "q": ""}, {"v": 2, "step": 1, "q": ""})


# -- the teacher's answer count -------------------------------------------------------------------------------------
def test_the_teachers_count_read_is_held_until_an_answer_is_taken_and_carries_the_rounds_numbers(tmp_path):
    hub = FeedHub(FeedWriter(tmp_path), hold=60)

    async def scenario():
        at_once = await hub.read_answers(CODE, None)  # no version named: at once
        task = asyncio.create_task(hub.read_answers(CODE, "0"))
        held = await _pending(task)
        count = hub.held_count()
        hub.answered(CODE, {"q": "q1", "answered": 1, "students": 3, "value": -0.5, "student": "s1"})
        return at_once, held, count, await asyncio.wait_for(task, 30), hub.held_count()

    at_once, held, count, got, after = _run(scenario())
    assert at_once == {"answers": 0}
    assert held and count == 1 and after == 0
    # numbers only: what the store would say of an answer (its value, who gave it) never reaches the read
    assert got == {"answers": 1, "q": "q1", "answered": 1, "students": 3}
    assert hub.answers_taken(CODE) == 1


def test_a_count_told_late_never_lowers_the_rounds_answered_and_a_new_round_starts_again(tmp_path):
    hub = FeedHub(FeedWriter(tmp_path), hold=60)
    hub.answered(CODE, {"q": "q1", "answered": 5, "students": 30})
    hub.answered(CODE, {"q": "q1", "answered": 4, "students": 29})  # counted before the other, told after it
    first = _run(hub.read_answers(CODE, None))
    hub.answered(CODE, {"q": "q2", "answered": 1, "students": 29})  # the next round (Ask again) counts from 1
    second = _run(hub.read_answers(CODE, "2"))
    hub.answered(CODE, None)  # the store could not say: the version moves on, the numbers are not guessed
    third = _run(hub.read_answers(CODE, "3"))
    assert first == {"answers": 2, "q": "q1", "answered": 5, "students": 29}
    assert second == {"answers": 3, "q": "q2", "answered": 1, "students": 29}
    assert third == {"answers": 4}


def test_the_teacher_key_is_one_per_room_and_teacher_and_nothing_else_passes(tmp_path):
    hub = FeedHub(FeedWriter(tmp_path))
    key = hub.teacher_key(CODE, "the-teachers-token")
    assert len(key) == 32 and hub.teacher_key(CODE, "the-teachers-token") == key  # every run of the panel: one key
    assert hub.key_ok(CODE, key)
    other = hub.teacher_key("BCD348", "another-token")
    assert other != key and hub.key_ok("BCD348", other) and not hub.key_ok(CODE, other)
    for wrong in (None, "", key[:-1], key + "x", key.upper(), "x" * 65, 12345, "the-teachers-token"):
        assert not hub.key_ok(CODE, wrong), wrong
    assert not hub.key_ok("ZZZ999", key)  # a room no teacher asked a key for
    again = hub.teacher_key(CODE, "a-new-rooms-token")  # the code drawn again by another class: a new key
    assert again != key and hub.key_ok(CODE, again) and not hub.key_ok(CODE, key)


def test_the_hub_keeps_the_counts_and_keys_of_a_bounded_number_of_rooms(tmp_path):
    hub = FeedHub(FeedWriter(tmp_path), max_rooms=2)
    keys = {code: hub.teacher_key(code, "t-" + code) for code in ("AAA222", "BBB333", "CCC444")}
    for code in keys:
        hub.answered(code, {"q": "q1", "answered": 1, "students": 1})
    assert [hub.key_ok(code, key) for code, key in keys.items()] == [False, True, True]  # the oldest forgotten
    assert [hub.answers_taken(code) for code in keys] == [0, 1, 1]
    assert len(hub._tallies) == 2
