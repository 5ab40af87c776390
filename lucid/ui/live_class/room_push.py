"""The room feed's held reads, served by Streamlit's own web server (``lucid.live_class.feed_push``).

The route takes the feed's own address (``room_feed.feed_url``), ahead of Streamlit's static route: a read with
``?v=<version>`` is held until the feed is newer than that version (at most ``feed_push.HOLD_SECONDS``), a read
without it answers at once, as the static file did. A read with ``?answers=<count>`` is the teacher's panel: it is
held until this process took another answer in that room, or heard of one another process took
(``FeedHub.answered``; ``room_service.answered`` tells the others) and answers with the open round's
count. It must carry the room's teacher key in the ``X-Lucid-Teacher`` header (``teacher_key``: drawn only into the
teacher's page, never in an address, so no log or shared link holds it); without it the read is refused at once
(403), before anything is held. A custom header also keeps other sites' pages from sending it (their fetch would
need a preflight this route does not answer).

Where the route could not be added (no Starlette server found: ``streamlit_internals.add_route``), the static
route keeps serving the same address and every read answers at once: the page's poll interval then sets how soon
it follows (``room_view.player_room``), and the teacher's panel its own timer.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from lucid.live_class import StoreUnavailable
from lucid.live_class import feed as feed_module
from lucid.live_class.codes import clean_code
from lucid.live_class.feed_push import HOLD_SECONDS, FeedHub
from lucid.ui.live_class import room_feed
from lucid.ui.runtime import streamlit_internals

ROUTE_NAME = "lucid_room_feed"
KEY_HEADER = "X-Lucid-Teacher"
"""The header a teacher's answer read names the room's teacher key in."""
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
    if answers is not None:  # the teacher's panel: the open round's count, to the teacher only
        if not hub().key_ok(code, request.headers.get(KEY_HEADER)):
            return Response(status_code=403, headers=_HEADERS)
        return JSONResponse(await hub().read_answers(code, answers[:12]), headers=_HEADERS)
    seen = request.query_params.get("v")
    feed = await hub().read(code, seen[:24] if seen is not None else None)
    if feed is None:
        return Response(status_code=404, headers=_HEADERS)
    return JSONResponse(feed, headers=_HEADERS)


def answered(code: str, tally: Callable[[], dict[str, Any] | None] | None = None) -> dict[str, Any] | None:
    """A student's answer was taken: the teacher's panel hears of it at once, with what ``tally()`` says (the round's
    count: ``{"q", "answered", "students"}``, read only where the route is served; a store out of reach sends the
    news without it, and the answer stays taken). Returns the count told, for the other processes."""
    if not _state.get("on"):
        return None
    try:
        counted = tally() if tally is not None else None
    except StoreUnavailable:
        counted = None
    hub().answered(code, counted)
    return counted


def teacher_key(code: str, token: str) -> str:
    """The key the teacher's answer watcher reads room ``code``'s count with (call only for the room's teacher)."""
    return hub().teacher_key(code, token)


def answers_seen(code: str) -> int:
    """How many answers to room ``code`` this process took so far (what the teacher's panel was drawn with)."""
    return hub().answers_taken(code)
