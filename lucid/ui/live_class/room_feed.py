"""Where the room feeds live on disk and at which address the browser polls them: the one module that
knows how Streamlit serves an app's static files.

Streamlit serves the folder ``static/`` beside the main script (``app.py``) at ``<base>/app/static/``
when ``server.enableStaticServing`` is on (``.streamlit/config.toml``), reading each file from disk per
request with no script run. That is the whole dependency; ``tests/server/test_room_feed.py`` starts a
real server and fetches a feed through it, so a Streamlit upgrade that moves or drops the route fails
there, not in a classroom.
"""
from __future__ import annotations

from pathlib import Path

import streamlit as st

from lucid.live_class.feed import FeedWriter

APP_ROOT = Path(__file__).resolve().parents[3]
"""The folder holding ``app.py`` (the main script), under which Streamlit looks for ``static/``."""
FEED_DIR = APP_ROOT / "static" / "rooms"
ROUTE = "app/static/rooms"


def writer() -> FeedWriter:
    return FeedWriter(FEED_DIR)


def serving_on() -> bool:
    """Whether this server serves static files (without it students cannot poll: the page says so)."""
    try:
        return bool(st.get_option("server.enableStaticServing"))
    except RuntimeError:
        return False


def feed_url(code: str) -> str:
    """The feed's address from the page's origin (behind a proxy, under ``server.baseUrlPath`` too)."""
    base = str(st.get_option("server.baseUrlPath") or "").strip("/")
    return "/" + "/".join(p for p in (base, ROUTE, f"{code}.json") if p)
