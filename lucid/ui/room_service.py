"""The process-wide rooms of this server: the in-process store, or Redis when ``LUCID_REDIS_URL`` is set.

One ``Rooms`` and one feed publisher per process, made on first use. With ``LUCID_REDIS_URL`` (e.g.
``redis://127.0.0.1:6379/0``) several Streamlit processes share rooms, and every process writes every
room's feed into its own static folder (``lucid.classroom.feed.RedisFeedRelay``).
"""
from __future__ import annotations

import os
import threading
from typing import Any

from lucid.classroom import MemoryStore, RedisStore, Rooms
from lucid.classroom.feed import LocalFeed, RedisFeedRelay, feed_of
from lucid.ui import room_feed

REDIS_ENV = "LUCID_REDIS_URL"
_lock = threading.Lock()
_made: dict[str, Any] = {}


def rooms() -> Rooms:
    with _lock:
        if "rooms" not in _made:
            url = os.environ.get(REDIS_ENV, "").strip()
            if url:
                store = RedisStore.from_url(url)
                _made["feed"] = RedisFeedRelay(store.r, room_feed.writer())
                _made["feed"].start()
            else:
                store = MemoryStore()
                _made["feed"] = LocalFeed(room_feed.writer())
            _made["rooms"] = Rooms(store)
            room_feed.writer().sweep(Rooms(store).limits.idle_seconds)
        return _made["rooms"]


def publish(code: str) -> None:
    """Write the room's feed (or remove it when the room is gone), for every student's browser to poll."""
    view = rooms().view(code)
    _made["feed"].publish(code, None if view is None else feed_of(view))
