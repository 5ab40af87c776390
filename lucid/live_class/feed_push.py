"""Feeds pushed: a read of a room's feed that the server holds until the feed changes (a long poll).

A student's player reads its room's feed in a loop. Read from the static folder, each read answers at once,
so a step waits for the next read (the poll interval) and a sitting class still costs the server a read per
student per interval. Read here with the version the page saw last (``?v=``), a read answers at once only
when the feed is newer; otherwise it is held (``hold`` seconds at most) and answered the moment the feed
changes: a teacher's key press is on every screen as soon as the server hears of it, and a sitting class
costs one read per student per ``hold``.

The feed file stays the one truth (``lucid.live_class.feed.FeedWriter``): this hub wakes held reads when a
writer of this process says it wrote (``notify``, from any thread), and, while reads are held, looks at the
files' modification times every ``check_every`` seconds, so a feed written by another process (several
processes on one disk, or the Redis relay's thread) wakes them too. A lost connection costs nothing: the
page reads again with the version it has and catches up at once.

Nothing here imports Streamlit: the route that serves ``FeedHub.read`` is added by ``lucid.ui.live_class.room_push``.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
from typing import Any

from lucid.live_class.feed import FeedWriter

HOLD_SECONDS = 4.0
"""How long a read waits for a change before it answers with the feed as it is (the page reads again at once)."""
CHECK_SECONDS = 0.5
"""While reads are held: how often the feed files are looked at for a write by another process."""
MAX_HELD = 2000
"""Reads held at once in one process; past it a read answers at once (the page then reads at its poll interval)."""


class FeedHub:
    """Held reads of room feeds, for one event loop (the web server's)."""

    def __init__(self, writer: FeedWriter, *, hold: float = HOLD_SECONDS, check_every: float = CHECK_SECONDS,
                 max_held: int = MAX_HELD) -> None:
        self.writer = writer
        self.hold = hold
        self.check_every = check_every
        self.max_held = max_held
        self._loop: asyncio.AbstractEventLoop | None = None
        self._held: dict[str, set[asyncio.Future]] = {}
        self._files: dict[str, tuple[tuple[int, int], dict[str, Any] | None]] = {}  # code -> (stamp, feed) read
        self._checker: asyncio.Task | None = None
        self._lock = threading.Lock()
        self._answers: dict[str, int] = {}  # code -> answers this process took (the teacher's panel follows it)
        self._answer_held: dict[str, set[asyncio.Future]] = {}

    # -- from any thread ------------------------------------------------------------------------------------
    def notify(self, code: str) -> None:
        """A writer of this process wrote (or removed) ``code``'s feed: wake its held reads now."""
        with self._lock:
            loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closing (server shutdown)
            loop.call_soon_threadsafe(self._wake, code)

    def answered(self, code: str) -> None:
        """A student's answer to room ``code`` was taken by this process: the teacher's held read answers now."""
        with self._lock:
            self._answers[code] = self._answers.get(code, 0) + 1
            loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._wake_answers, code)

    def answers_taken(self, code: str) -> int:
        with self._lock:
            return self._answers.get(code, 0)

    def held_count(self) -> int:
        return sum(len(v) for v in self._held.values()) + sum(len(v) for v in self._answer_held.values())

    # -- on the event loop ----------------------------------------------------------------------------------
    def current(self, code: str) -> dict[str, Any] | None:
        """The feed on disk (None: no such room), read again only when the file changed."""
        try:
            path = self.writer.path(code)
        except ValueError:
            return None
        mtime = _stamp(path)
        if mtime is None:
            self._files.pop(code, None)
            return None
        known = self._files.get(code)
        if known is not None and known[0] == mtime:
            return known[1]
        try:
            feed = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return known[1] if known is not None else None  # mid-replace: the last good one
        feed = feed if isinstance(feed, dict) else None
        self._files[code] = (mtime, feed)
        return feed

    async def read(self, code: str, seen: str | None) -> dict[str, Any] | None:
        """The room's feed once it differs from version ``seen`` (at once when it does, or ``seen`` is None),
        or as it is after ``hold`` seconds; None when the room has no feed (ended, or never was)."""
        with self._lock:
            self._loop = asyncio.get_running_loop()
        feed = self.current(code)
        if feed is None or seen is None or str(feed.get("v")) != seen or self.held_count() >= self.max_held:
            return feed
        waiter = self._loop.create_future()
        self._held.setdefault(code, set()).add(waiter)
        self._ensure_checker()
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(waiter), self.hold)
        finally:
            held = self._held.get(code)
            if held is not None:
                held.discard(waiter)
                if not held:
                    del self._held[code]
        return self.current(code)

    async def read_answers(self, code: str, seen: str | None) -> int:
        """How many answers to room ``code`` this process took, once that differs from ``seen`` (or after ``hold``
        seconds). Answers taken by another process are not counted here: the teacher's panel still refreshes on its
        own timer."""
        with self._lock:
            self._loop = asyncio.get_running_loop()
            count = self._answers.get(code, 0)
        if seen is None or seen != str(count) or self.held_count() >= self.max_held:
            return count
        waiter = self._loop.create_future()
        self._answer_held.setdefault(code, set()).add(waiter)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(waiter), self.hold)
        finally:
            held = self._answer_held.get(code)
            if held is not None:
                held.discard(waiter)
                if not held:
                    del self._answer_held[code]
        with self._lock:
            return self._answers.get(code, 0)

    def _wake_answers(self, code: str) -> None:
        for waiter in self._answer_held.get(code, ()):
            if not waiter.done():
                waiter.set_result(None)

    def _wake(self, code: str) -> None:
        self._files.pop(code, None)  # read it again: the write may share the last one's mtime tick
        for waiter in self._held.get(code, ()):
            if not waiter.done():
                waiter.set_result(None)

    def _ensure_checker(self) -> None:
        if self._checker is None or self._checker.done():
            self._checker = asyncio.get_running_loop().create_task(self._check())

    async def _check(self) -> None:
        """While reads are held: wake those whose feed file another process changed."""
        while self._held:
            await asyncio.sleep(self.check_every)
            for code in list(self._held):
                before = self._files.get(code)
                try:
                    mtime = _stamp(self.writer.path(code))
                except ValueError:
                    mtime = None
                if before is None or mtime != before[0]:
                    self._wake(code)


def _stamp(path: os.PathLike) -> tuple[int, int] | None:
    """What changes when a feed is written again: ``FeedWriter`` replaces the file, so its inode changes even
    within one tick of the clock."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_ino, stat.st_mtime_ns
