"""Streamlit's session lifecycle, told to the rooms: a student's closed tab leaves the count within a second.

Streamlit's ``Runtime`` disconnects a session when its websocket closes (``disconnect_session``: the session is
kept a few minutes for a reconnect), closes it for good (``close_session``), and reconnects a tab that comes back
(``connect_session`` with the tab's ``existing_session_id``). ``install`` wraps those three methods, once per
process, the way ``runtime.browser_gate`` wraps the session state: after Streamlit's own work, the session's seat
(``lucid.live_class.presence``) leaves its room or joins it again. The store is written on a worker thread, never on
Streamlit's event loop (Redis may be slow to answer). ``seated`` is called by the student's page each time it
joins (``lucid.ui.live_class.room_view``).
"""
from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from lucid.live_class.presence import Presence, Seat
from lucid.ui.runtime import streamlit_internals

_LOG = logging.getLogger(__name__)
PRESENCE = Presence()
"""This process's sessions in rooms."""
_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lucid-presence")
_installed = threading.Lock()
_done: set[int] = set()  # id() of each runtime class wrapped


def _rooms() -> Any:
    from lucid.ui.live_class import room_service

    return room_service.rooms()


def _later(action: str, seat: Seat | None) -> None:
    """Take ``seat`` out of its room (``"leave"``) or count it again (``"join"``), on the worker thread."""
    if seat is None:
        return

    def run() -> None:
        try:
            getattr(_rooms(), action)(*seat)
        except Exception:  # noqa: BLE001 - the store down: the heartbeat's 150 s window still ends the count
            _LOG.warning("could not %s room %s for a session", action, seat[0], exc_info=True)

    _worker.submit(run)


def flush() -> None:
    """Wait until every leave and join asked for so far is written (tests)."""
    _worker.submit(lambda: None).result()


def seated(session: str | None, code: str, student: str) -> None:
    """This session shows room ``code`` as ``student`` (it has just joined the room's count). When its tab has
    closed meanwhile (the run was under way), the seat leaves again, after that join."""
    if session is None:
        return
    install()
    _later("leave", PRESENCE.seated(session, code, student))  # a run finishing after its tab closed


def unseated(session: str | None) -> None:
    """This session is no student (its tab was the teacher's): forget it; its seat was left by the caller."""
    if session is not None:
        PRESENCE.unseated(session)


def on_disconnect(runtime: Any, session_id: str) -> None:
    if not runtime.is_active_session(session_id):
        _later("leave", PRESENCE.disconnected(session_id))


def on_close(session_id: str) -> None:
    _later("leave", PRESENCE.closed(session_id))


def on_connect(session_id: str) -> None:
    _later("join", PRESENCE.reconnected(session_id))


def install(runtime_class: Any = None) -> None:
    """Wrap the runtime's session lifecycle (once per process; later calls do nothing). ``runtime_class``:
    Streamlit's ``Runtime`` unless a test gives its own."""
    if runtime_class is None:
        runtime_class = streamlit_internals.runtime_classes()[0]
    with _installed:
        if id(runtime_class) in _done:
            return
        connect, disconnect, close = (runtime_class.connect_session, runtime_class.disconnect_session,
                                      runtime_class.close_session)

        def connect_session(self: Any, *args: Any, **kwargs: Any) -> str:
            session_id = connect(self, *args, **kwargs)
            on_connect(session_id)
            return session_id

        def disconnect_session(self: Any, session_id: str, *args: Any, **kwargs: Any) -> None:
            disconnect(self, session_id, *args, **kwargs)
            on_disconnect(self, session_id)

        def close_session(self: Any, session_id: str) -> None:
            close(self, session_id)
            on_close(session_id)

        for name, wrapper, original in (("connect_session", connect_session, connect),
                                        ("disconnect_session", disconnect_session, disconnect),
                                        ("close_session", close_session, close)):
            wrapper.__doc__ = original.__doc__
            setattr(runtime_class, name, wrapper)
        _done.add(id(runtime_class))
