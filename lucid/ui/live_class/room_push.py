"""The room feed's held reads, served by Streamlit's own web server (``lucid.live_class.feed_push``).

The route takes the feed's own address (``room_feed.feed_url``), ahead of Streamlit's static route: a read with
``?v=<version>`` is held until the feed is newer than that version (at most ``feed_push.HOLD_SECONDS``), a read
without it answers at once, as the static file did. A read with ``?answers=<count>`` is the teacher's panel: it is
held until this process took another answer in that room (``FeedHub.answered``).

Where the route could not be added (no Starlette server found: ``streamlit_internals.add_route``), the static
route keeps serving the same address and every read answers at once: the page's poll interval then sets how soon
it follows (``room_view.player_room``), and the teacher's panel its own timer.
"""
from __future__ import annotations

import threading
from typing import Any

from lucid.live_class import feed as feed_module
from lucid.live_class.codes import clean_code
from lucid.live_class.feed_push import HOLD_SECONDS, FeedHub
from lucid.ui.live_class import room_feed
from lucid.ui.runtime import streamlit_internals

ROUTE_NAME = "lucid_room_feed"
_lock = threading.Lock()
_state: dict[str, Any] = {}
_HEADERS = {"Cache-Control": "no-store", "Access-Control-Allow-Origin": "*", "X-Content-Type-Options": "nosniff"}


def hub() -> FeedHub:
    with _lock:
        if "hub" not in _state:
            _state["hub"] = FeedHub(room_feed.writer())
            feed_module.on_write(_state["hub"].notify)
        return _state["hub"]


def serving() -> bool:
    """Whether this process holds feed reads (adds the route on first call; cheap after)."""
    with _lock:
        if "on" in _state:
            return _state["on"]
    on = streamlit_internals.add_route(f"{room_feed.ROUTE}/{{name}}", _endpoint, ROUTE_NAME)
    hub()
    with _lock:
        _state["on"] = on
    return on


def hold_ms() -> int:
    """What the player is told: how long a read may be held (0: reads answer at once, poll)."""
    return int(HOLD_SECONDS * 1000) if serving() else 0


async def _endpoint(request: Any) -> Any:
    from starlette.responses import JSONResponse, Response

    name = str(request.path_params.get("name", ""))
    code = clean_code(name[:-5]) if name.endswith(".json") else None
    if code is None:
        return Response(status_code=404, headers=_HEADERS)
    answers = request.query_params.get("answers")
    if answers is not None:  # the teacher's panel: how many answers this process took
        return JSONResponse({"answers": await hub().read_answers(code, answers[:12])}, headers=_HEADERS)
    seen = request.query_params.get("v")
    feed = await hub().read(code, seen[:24] if seen is not None else None)
    if feed is None:
        return Response(status_code=404, headers=_HEADERS)
    return JSONResponse(feed, headers=_HEADERS)


def answered(code: str) -> None:
    """A student's answer was taken: the teacher's panel hears of it at once (where the route is served)."""
    if _state.get("on"):
        hub().answered(code)


def answers_seen(code: str) -> int:
    """How many answers to room ``code`` this process took so far (what the teacher's panel was drawn with)."""
    return hub().answers_taken(code)
