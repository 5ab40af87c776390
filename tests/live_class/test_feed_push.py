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
