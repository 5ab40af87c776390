"""Feeds pushed: a read of a room's feed that the server holds until the feed changes (a long poll).

A student's player reads its room's feed in a loop. Read from the static folder, each read answers at once,
so a step waits for the next read (the poll interval) and a sitting class still costs the server a read per
student per interval. Read here with the version the page saw last (``?v=``), a read answers at once only
when the feed is newer; otherwise it is held (``hold`` seconds at most) and answered the moment the feed
changes: a teacher's key press is on every screen as soon as the server hears of it, and a sitting class
costs one read per student per ``hold``.

The teacher's panel reads another thing here: the open round's answer count (``read_answers``), held until this
process takes (or, through the Redis relay, hears of) another answer in that room, so the count is on the
teacher's screen the moment a student's answer is
stored, before any script run. It carries only numbers (how many answered the round, how many are connected) and
only to the teacher: a read names the room's teacher key (``teacher_key``, drawn into the teacher's own page only),
and a read without it is refused before anything is held.

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
import hashlib
import hmac
import json
import os
import secrets
import threading
from collections import OrderedDict
from typing import Any

from lucid.live_class.feed import FeedWriter

HOLD_SECONDS = 4.0
"""How long a read waits for a change before it answers with the feed as it is (the page reads again at once)."""
CHECK_SECONDS = 0.5
"""While reads are held: how often the feed files are looked at for a write by another process."""
MAX_HELD = 2000
"""Reads held at once in one process; past it a read answers at once (the page then reads at its poll interval)."""
MAX_ROOMS = 1000
"""Rooms whose answer counts and teacher keys one process keeps (the oldest forgotten first): above the rooms a
server holds at once (``RoomLimits.max_rooms``), so only rooms long over are forgotten."""
KEY_CHARS = 64
"""The longest teacher key a read may name (one made here is 32 characters)."""


class FeedHub:
    """Held reads of room feeds, for one event loop (the web server's)."""

    def __init__(self, writer: FeedWriter, *, hold: float = HOLD_SECONDS, check_every: float = CHECK_SECONDS,
                 max_held: int = MAX_HELD, max_rooms: int = MAX_ROOMS) -> None:
        self.writer = writer
        self.hold = hold
        self.check_every = check_every
        self.max_held = max_held
        self.max_rooms = max_rooms
        self._loop: asyncio.AbstractEventLoop | None = None
        self._held: dict[str, set[asyncio.Future]] = {}
        self._files: dict[str, tuple[tuple[int, int], dict[str, Any] | None]] = {}  # code -> (stamp, feed) read
        self._checker: asyncio.Task | None = None
        self._lock = threading.Lock()
        self._answers: OrderedDict[str, int] = OrderedDict()  # code -> answers this process took (a version)
        self._tallies: dict[str, dict[str, Any]] = {}  # code -> the open round's count after the last answer taken
        self._keys: OrderedDict[str, tuple[bytes, str]] = OrderedDict()  # code -> (the teacher's token hashed, key)
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

    def answered(self, code: str, tally: dict[str, Any] | None = None) -> None:
        """A student's answer to room ``code`` was taken by this process: the teacher's held read answers now, with
        ``tally`` (the round's count as the store had it after this answer: ``{"q", "answered", "students"}``)."""
        with self._lock:
            self._answers[code] = self._answers.pop(code, 0) + 1
            if tally is not None:
                self._tallies[code] = self._newest(self._tallies.get(code), tally)
            else:
                self._tallies.pop(code, None)
            self._forget_old_rooms()
            loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._wake_answers, code)

    @staticmethod
    def _newest(before: dict[str, Any] | None, tally: dict[str, Any]) -> dict[str, Any]:
        """``tally`` kept, but never fewer answered than a count already given for the same round: two answers taken
        at once may tell their counts in either order, and a round's count only grows."""
        kept = {k: tally[k] for k in ("q", "answered", "students") if k in tally}
        if before is not None and before.get("q") == kept.get("q"):
            kept["answered"] = max(int(before.get("answered", 0)), int(kept.get("answered", 0)))
        return kept

    def answers_taken(self, code: str) -> int:
        with self._lock:
            return self._answers.get(code, 0)

    def teacher_key(self, code: str, token: str) -> str:
        """The key the teacher of room ``code`` (holding ``token``, checked by the caller) reads its answer count
        with: random, made once per room and teacher in this process, never derived from anything a student has.
        Another teacher's token for the same code (a room that ended and a new one that drew the code) gets a new
        key."""
        who = hashlib.sha256(token.encode()).digest()
        with self._lock:
            known = self._keys.get(code)
            if known is None or not hmac.compare_digest(known[0], who):
                known = (who, secrets.token_urlsafe(24))
            self._keys[code] = known
            self._keys.move_to_end(code)
            self._forget_old_rooms()
            return known[1]

    def key_ok(self, code: str, key: object) -> bool:
        """Whether ``key`` is the teacher key this process made for room ``code`` (compared in constant time)."""
        if not isinstance(key, str) or not key or len(key) > KEY_CHARS:
            return False
        with self._lock:
            known = self._keys.get(code)
        return known is not None and hmac.compare_digest(known[1].encode(), key.encode())

    def _forget_old_rooms(self) -> None:
        """Keep at most ``max_rooms`` rooms' counts and keys (under the lock)."""
        for kept in (self._answers, self._keys):
            while len(kept) > self.max_rooms:
                old, _ = kept.popitem(last=False)
                if kept is self._answers:
                    self._tallies.pop(old, None)

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

    async def read_answers(self, code: str, seen: str | None) -> dict[str, Any]:
        """``{"answers": n}``, how many answers to room ``code`` this process took (a version), with the round's
        count after the last of them (``answered``, ``students``, and ``q`` the round's id), once ``n`` differs
        from ``seen`` (or after ``hold`` seconds). The caller checked the teacher's key. An answer taken by another
        process counts too once the Redis relay tells of it (``RedisFeedRelay.on_answered``)."""
        with self._lock:
            self._loop = asyncio.get_running_loop()
            count = self._answers.get(code, 0)
        if seen is None or seen != str(count) or self.held_count() >= self.max_held:
            return self._answers_now(code)
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
        return self._answers_now(code)

    def _answers_now(self, code: str) -> dict[str, Any]:
        with self._lock:
            return {"answers": self._answers.get(code, 0), **self._tallies.get(code, {})}

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
