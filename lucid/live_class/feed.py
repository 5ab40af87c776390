"""The room feed: a tiny JSON file per room that students' browsers poll, so following costs no script run.

Measured on this 2-core machine (``bench/bench_class.py``): a script run per student per tick (fragment
polling) or per step (the server rerunning every student's session) grows with the class; a file read
from disk by the web server's static route does not run the page at all. The feed says only what
every student may see: the room's version, the teacher's step, which program (its key, not its text),
and which question is open (its id and whether it is revealed). Never the token, never answers.

A browser follows the step from the feed by itself; it asks the server for a rerun only when the
program or the question changed (a few times per class, not per step). With a question open, the feed also
carries its card (``question_card``: the label and the step asked, and after the reveal the answer), so a
student's page shows the question, and then the answer, the moment its read answers, before the class panel's
run draws the form or the verdict.

``FeedWriter`` writes a feed atomically (a reader never sees half a file). With several server
processes sharing rooms through Redis, ``RedisFeedRelay`` publishes each feed on a channel and every
process writes it into its own static folder, so a student polls whichever process serves them.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lucid.i18n import L_
from lucid.live_class.codes import clean_code
from lucid.live_class.rooms import RoomView
from lucid.live_class.store import StoreUnavailable


def program_key(seed: object, source: str) -> str:
    """The key the player gives a program (``clickable_graph.program_key``), so the feed can name it."""
    return hashlib.blake2b(f"{seed}\n{source}".encode(), digest_size=8).hexdigest()


def question_key(question: dict[str, Any] | None) -> str:
    """What changes when a question opens, is revealed or closes: a student's page reruns on it."""
    if not question:
        return ""
    return f"{question.get('id', '')}:{1 if question.get('revealed') else 0}"


def exercise_key(view: RoomView | None) -> str:
    """The exercise the teacher sent now ("" for none): a student's page reruns when it changes."""
    exercise = view.exercise if view is not None else None
    return str(exercise.get("id", "")) if exercise else ""


DRAWING_WORDS = ("dir", "hide", "large", "style")
"""The parts of the teacher's view (link words) a student takes: how the graph is drawn. Classroom mode, the
graph size and the speed are each student's own (a laptop is not a projector)."""


def drawing_key(view_words: dict[str, Any]) -> str:
    """What changes when the teacher draws the graph another way (direction, style, what nodes show)."""
    words = sorted((k, str(v)) for k, v in view_words.items() if k in DRAWING_WORDS)
    return hashlib.blake2b(json.dumps(words).encode(), digest_size=4).hexdigest()


def feed_of(view: RoomView) -> dict[str, Any]:
    """The feed of a room: everything a student's browser polls, and nothing more."""
    return {"v": view.version, "step": view.step, "program": program_key(view.seed, view.source),
            "q": question_key(view.question), "d": drawing_key(view.view), "x": exercise_key(view)}


_listeners: list[Callable[[str], None]] = []


def on_write(listener: Callable[[str], None]) -> None:
    """Call ``listener(code)`` after every write or removal of a feed by this process (``FeedWriter``), from the
    writing thread: held reads of that feed answer now (``lucid.live_class.feed_push``). Added once."""
    if listener not in _listeners:
        _listeners.append(listener)


def _wrote(code: str) -> None:
    for listener in list(_listeners):
        with contextlib.suppress(Exception):  # a listener's failure never fails the write
            listener(code)


def question_card(view: RoomView) -> dict[str, Any]:
    """``{"card": ...}``: what every student's screen shows of the open question before the panel's run: the label
    and the step asked (the form shows both), and once revealed the answer as the page writes it. Empty without
    an open question. Nothing an unrevealed question's answer could be read from."""
    q = view.question
    if not q:
        return {}
    card: dict[str, Any] = {"label": str(q.get("label", "")), "step": int(q.get("step", 0))}
    if q.get("revealed"):
        card["answer"] = str(q.get("expected_text", ""))
    return {"card": card}


def published(view: RoomView) -> dict[str, Any]:
    """What the server writes for a room: its feed and the open question's card."""
    return feed_of(view) | question_card(view)


class FeedWriter:
    """Writes ``<code>.json`` feeds into ``directory`` (the static folder's ``rooms/``)."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)

    def path(self, code: str) -> Path:
        clean = clean_code(code)
        if clean is None:
            raise ValueError("not a room code")
        return self.directory / f"{clean}.json"

    def write(self, code: str, feed: dict[str, Any]) -> None:
        target = self.path(code)
        self.directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".feed-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w") as f:
                json.dump(feed, f, separators=(",", ":"))
            os.chmod(tmp, 0o644)
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        _wrote(target.stem)

    def remove(self, code: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.path(code).unlink()
            _wrote(clean_code(code) or "")

    def sweep(self, older_than: float) -> int:
        """Remove feeds not written for ``older_than`` seconds (rooms that expired idle); returns how many."""
        removed = 0
        limit = time.time() - older_than
        for path in self.directory.glob("*.json"):
            with contextlib.suppress(OSError):
                if path.stat().st_mtime < limit:
                    path.unlink()
                    removed += 1
        return removed


class LocalFeed:
    """Feeds written straight into this process's folder (one server process, or several on one disk)."""

    def __init__(self, writer: FeedWriter) -> None:
        self.writer = writer

    def publish(self, code: str, feed: dict[str, Any] | None) -> None:
        if feed is None:
            self.writer.remove(code)
        else:
            self.writer.write(code, feed)

    def answered(self, code: str, tally: dict[str, Any] | None) -> None:
        """An answer this process took: no other process to tell (the teacher's page is served here)."""


TALLY_FIELDS = {"q": str, "answered": int, "students": int}
"""An answer's news between processes: the round's id and its counts (``FeedHub.answered``), nothing else."""


def clean_tally(tally: object) -> dict[str, Any] | None:
    """``tally`` as another process may send it: only ``TALLY_FIELDS`` of their types, counts in 0..10**6 and an
    id of at most 64 characters; None when nothing of it is usable (the count then comes from the panel's run)."""
    if not isinstance(tally, dict):
        return None
    kept: dict[str, Any] = {}
    for name, kind in TALLY_FIELDS.items():
        value = tally.get(name)
        if kind is int and isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 10**6:
            kept[name] = value
        elif kind is str and isinstance(value, str) and len(value) <= 64:
            kept[name] = value
    return kept if "q" in kept and "answered" in kept else None


class RedisFeedRelay:
    """Feeds published on a Redis channel; a thread in every process writes them into its own folder."""

    def __init__(self, client: Any, writer: FeedWriter, channel: str = "lucid:feeds",
                 on_answered: Callable[[str, dict[str, Any] | None], None] | None = None) -> None:
        self.client = client
        self.writer = writer
        self.channel = channel
        self.on_answered = on_answered
        """Called (from the relay's thread) with a room code and its tally when another process took an answer
        there: the teacher's held count read in this process answers at once (``FeedHub.answered``)."""
        self._origin = secrets.token_hex(8)  # this process, so its own news is not taken twice
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def publish(self, code: str, feed: dict[str, Any] | None) -> None:
        self.start()
        local = LocalFeed(self.writer)
        local.publish(code, feed)  # this process at once; the others through the channel
        import redis

        try:
            self.client.publish(self.channel, json.dumps({"code": code, "feed": feed}))
        except redis.RedisError as err:
            raise StoreUnavailable(L_("The class server's store (Redis) cannot be reached: {error}",
                                      error=type(err).__name__)) from err

    def answered(self, code: str, tally: dict[str, Any] | None) -> None:
        """An answer this process took: every other process hears of it, so a teacher served by another one sees
        the count at once instead of on the panel's timer. Best effort: the answer is stored already, and a lost
        message costs only that wait."""
        import redis

        self.start()
        with contextlib.suppress(redis.RedisError):
            self.client.publish(self.channel, json.dumps({"code": code, "answered": clean_tally(tally) or {},
                                                          "from": self._origin}))

    def start(self) -> None:
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._thread = threading.Thread(target=self._listen, name="lucid-feed-relay", daemon=True)
            self._thread.start()

    def _listen(self) -> None:
        while True:
            try:
                pubsub = self.client.pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(self.channel)
                for message in pubsub.listen():
                    self._apply(message.get("data"))
            except Exception:  # noqa: BLE001 - Redis restarting: listen again shortly
                time.sleep(1.0)

    def _apply(self, data: object) -> None:
        try:
            item = json.loads(data) if isinstance(data, str | bytes) and len(data) < 4096 else None
        except ValueError:
            return
        if not isinstance(item, dict) or clean_code(item.get("code")) is None:
            return
        if "answered" in item:  # another process took an answer in this room
            if item.get("from") != self._origin and self.on_answered is not None:
                self.on_answered(item["code"], clean_tally(item["answered"]))
            return
        feed = item.get("feed")
        LocalFeed(self.writer).publish(item["code"], feed if isinstance(feed, dict) else None)
