"""The process-wide rooms of this server: an SQLite file in the data folder, or Redis when ``LUCID_REDIS_URL`` is set.

One ``Rooms`` and one feed publisher per process, made on first use. By default rooms live in
``<data folder>/rooms.sqlite3`` (``LUCID_DATA_DIR``, else ``.data/`` beside ``app.py``), so a restart resumes every
open class and an ended class's exit ticket stays for a day, with nothing to set up. With ``LUCID_REDIS_URL``
(e.g. ``redis://127.0.0.1:6379/0``) several Streamlit processes share rooms, and every process writes every
room's feed into its own static folder (``lucid.live_class.feed.RedisFeedRelay``).
"""
from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lucid.live_class import MemoryStore, RedisStore, Rooms, SQLiteStore, StoreUnavailable
from lucid.live_class.feed import LocalFeed, RedisFeedRelay, published
from lucid.ui.live_class import room_feed, room_push

REDIS_ENV = "LUCID_REDIS_URL"
DATA_ENV = "LUCID_DATA_DIR"
_lock = threading.Lock()
_made: dict[str, Any] = {}


def data_dir() -> Path:
    """Where the server keeps what must outlive it (the rooms' file)."""
    configured = os.environ.get(DATA_ENV, "").strip()
    return Path(configured) if configured else room_feed.APP_ROOT / ".data"


def _embedded_store() -> SQLiteStore:
    """The data folder's SQLite file; in memory (with a warning in the server's log) where the folder cannot be
    written, so class mode still works, only without surviving a restart."""
    path = data_dir() / "rooms.sqlite3"
    try:
        return SQLiteStore(path)
    except (OSError, sqlite3.Error) as err:
        logging.getLogger(__name__).warning("class rooms kept in memory: %s cannot be used (%s)", path, err)
        return MemoryStore()


def rooms() -> Rooms:
    with _lock:
        if "rooms" not in _made:
            url = os.environ.get(REDIS_ENV, "").strip()
            if url:
                store = RedisStore.from_url(url)
                _made["feed"] = RedisFeedRelay(store.r, room_feed.writer(),
                                               on_answered=lambda code, tally: room_push.hub().answered(code, tally))
                _made["feed"].start()
            else:
                store = _embedded_store()
                _made["feed"] = LocalFeed(room_feed.writer())
            made = _made["rooms"] = Rooms(store)
            room_feed.writer().sweep(made.limits.idle_seconds)
            for code in store.index():  # after a restart: every open class's feed is there for its students
                view = made.view(code)
                _made["feed"].publish(code, None if view is None else published(view))
        return _made["rooms"]


def publish(code: str) -> None:
    """Write the room's feed (or remove it when the room is gone), for every student's browser to poll."""
    view = rooms().view(code)
    _made["feed"].publish(code, None if view is None else published(view))


def answered(code: str, tally: Callable[[], dict[str, Any] | None]) -> None:
    """A student's answer was taken by this process: the teacher's panel hears of it at once, whichever process
    serves the teacher (``room_push.answered`` here, the Redis relay for the others)."""
    counted = room_push.answered(code, tally)
    rooms()
    with contextlib.suppress(StoreUnavailable):
        _made["feed"].answered(code, counted)
