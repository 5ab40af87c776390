"""Which browser sessions sit in which room as which student: so a closed tab leaves the count at once.

A room counts a student as connected now when they were seen within ``present_seconds`` (150 s: the page's
heartbeat says so once a minute). A tab that closes stops saying so, but it stayed counted for up to two and a
half minutes. The server knows sooner: Streamlit disconnects the tab's session the moment its websocket closes.
``Presence`` is this process's bookkeeping of session id -> (room code, student id):
``lucid.ui.live_class.session_presence``
tells it when a session disconnects, reconnects or closes, and it answers which seat should leave the room (or
join it again). A student's id can be open in two tabs (a copied link): the seat leaves only when the last of its
connected sessions goes. Each server process keeps its own sessions (several processes on Redis each handle the
disconnects of the sessions they serve).

No Streamlit here: the tests drive it with made-up session ids.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

Seat = tuple[str, str]
"""(room code, student id)."""


FORGET_SECONDS = 3600.0
"""A session disconnected this long is forgotten: Streamlit keeps one for a reconnect only minutes, and may drop
it without closing it (its storage evicts it), so nothing else would remove it."""


class Presence:
    """session id -> seat, and which sessions are disconnected now (kept by Streamlit for a reconnect);
    ``clock`` is injectable for tests."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.Lock()
        self._clock = clock
        self._seats: dict[str, Seat] = {}
        self._away: dict[str, float] = {}  # session -> when it disconnected
        self._closed: dict[str, float] = {}  # session -> when Streamlit closed it for good

    def _held_elsewhere(self, session: str, seat: Seat) -> bool:
        return any(s == seat and other != session and other not in self._away for other, s in self._seats.items())

    def seated(self, session: str, code: str, student: str) -> Seat | None:
        """``session`` shows room ``code`` as ``student`` (it joined, or said so again). A session that moves to
        another seat simply holds the new one: the old one's heartbeat window ends its count.

        Returns the seat to take out of its room again, if any: a page run that was under way when its tab closed
        (Streamlit finishes it) joins the room after the disconnect's leave, and nothing else would ever take
        that student out of the count before the heartbeat window ends. Only a reconnect (``reconnected``)
        brings a disconnected session back."""
        with self._lock:
            limit = self._clock() - FORGET_SECONDS
            for gone in [k for k, at in self._away.items() if at < limit]:
                self._seats.pop(gone, None)
                del self._away[gone]
            for gone in [k for k, at in self._closed.items() if at < limit]:
                del self._closed[gone]
            seat = (code, student)
            if session in self._closed:
                return seat
            self._seats[session] = seat
            if session in self._away and not self._held_elsewhere(session, seat):
                return seat
            return None

    def unseated(self, session: str) -> Seat | None:
        """``session`` is no student any more (its tab turned out to be the teacher's); its seat, if it held one
        no other session holds."""
        with self._lock:
            seat = self._seats.pop(session, None)
            away = session in self._away
            self._away.pop(session, None)
            if seat is None or away or self._held_elsewhere(session, seat):
                return None
            return seat

    def disconnected(self, session: str) -> Seat | None:
        """``session``'s websocket closed (it may reconnect): the seat that leaves its room now, if any."""
        with self._lock:
            seat = self._seats.get(session)
            if seat is None or session in self._away:
                return None
            self._away[session] = self._clock()
            return None if self._held_elsewhere(session, seat) else seat

    def reconnected(self, session: str) -> Seat | None:
        """``session`` came back (the same tab, its network back): the seat that joins its room again, if any."""
        with self._lock:
            seat = self._seats.get(session)
            if seat is None or session not in self._away:
                return None
            self._away.pop(session, None)
            return seat

    def closed(self, session: str) -> Seat | None:
        """``session`` is gone for good: the seat that leaves its room (None when it left at the disconnect)."""
        with self._lock:
            self._closed[session] = self._clock()
        return self.unseated(session)

    def seat_of(self, session: str) -> Seat | None:
        with self._lock:
            return self._seats.get(session)

    def __len__(self) -> int:
        with self._lock:
            return len(self._seats)
