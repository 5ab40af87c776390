"""A student's session leaving its websocket leaves the room's count: the bookkeeping (``Presence``) and the hook on
Streamlit's runtime (``session_presence.install``), driven with made-up sessions and a stand-in runtime."""
from __future__ import annotations

import pytest

from lucid.live_class.presence import FORGET_SECONDS, Presence
from lucid.ui.live_class import session_presence


def test_a_disconnected_session_leaves_its_seat_once_and_a_reconnect_takes_it_again():
    p = Presence()
    p.seated("s1", "ROOM01", "alice")
    assert p.disconnected("s1") == ("ROOM01", "alice")
    assert p.disconnected("s1") is None  # said once
    assert p.reconnected("s1") == ("ROOM01", "alice")
    assert p.reconnected("s1") is None
    assert p.closed("s1") == ("ROOM01", "alice")
    assert len(p) == 0


def test_a_run_that_finishes_after_its_tab_closed_is_sent_out_of_the_room_again():
    p = Presence()
    assert p.seated("s1", "ROOM01", "alice") is None
    assert p.disconnected("s1") == ("ROOM01", "alice")
    # the page's run was under way when the tab closed: it joins the room after the leave
    assert p.seated("s1", "ROOM01", "alice") == ("ROOM01", "alice")
    assert p.seated("s1", "ROOM01", "alice") == ("ROOM01", "alice")  # each such join is undone
    assert p.reconnected("s1") == ("ROOM01", "alice")  # only a reconnect brings it back
    assert p.seated("s1", "ROOM01", "alice") is None
    assert p.closed("s1") == ("ROOM01", "alice")
    assert p.seated("s1", "ROOM01", "alice") == ("ROOM01", "alice")  # closed for good: never seated again
    assert len(p) == 0


def test_a_late_run_of_a_closed_tab_leaves_alone_a_seat_another_tab_holds():
    p = Presence()
    p.seated("tab1", "ROOM01", "alice")
    p.seated("tab2", "ROOM01", "alice")
    assert p.disconnected("tab1") is None
    assert p.seated("tab1", "ROOM01", "alice") is None  # tab2 still shows alice


def test_a_seat_open_in_two_tabs_leaves_only_with_the_last_one():
    p = Presence()
    p.seated("tab1", "ROOM01", "alice")
    p.seated("tab2", "ROOM01", "alice")  # the same link opened twice
    assert p.disconnected("tab1") is None
    assert p.disconnected("tab2") == ("ROOM01", "alice")


def test_a_session_closed_after_its_disconnect_does_not_leave_twice_and_unknown_sessions_do_nothing():
    p = Presence()
    p.seated("s1", "ROOM01", "bob")
    assert p.disconnected("s1") == ("ROOM01", "bob")
    assert p.closed("s1") is None
    assert p.disconnected("nobody") is None and p.closed("nobody") is None and p.reconnected("nobody") is None


def test_a_session_that_moved_to_another_seat_holds_only_the_new_one():
    p = Presence()
    p.seated("s1", "ROOM01", "bob")
    p.seated("s1", "ROOM02", "bob2")
    assert p.seat_of("s1") == ("ROOM02", "bob2")
    assert p.disconnected("s1") == ("ROOM02", "bob2")


def test_sessions_disconnected_long_ago_are_forgotten():
    now = [0.0]
    p = Presence(clock=lambda: now[0])
    p.seated("old", "ROOM01", "carol")
    p.disconnected("old")  # Streamlit's storage may drop it without closing it
    now[0] = FORGET_SECONDS + 1
    p.seated("new", "ROOM01", "dave")
    assert p.seat_of("old") is None and len(p) == 1


class FakeRuntime:
    """The three runtime methods the hook wraps, with Streamlit's meaning: a disconnect keeps the session for a
    reconnect unless the client that disconnected is no longer the session's."""

    def __init__(self) -> None:
        self.active: set[str] = set()

    def is_active_session(self, session_id: str) -> bool:
        return session_id in self.active

    def connect_session(self, client=None, user_info=None, existing_session_id=None, session_id_override=None):
        session_id = existing_session_id or f"s{len(self.active) + 1}"
        self.active.add(session_id)
        return session_id

    def disconnect_session(self, session_id: str, *, client=None) -> None:
        if client != "stale":
            self.active.discard(session_id)

    def close_session(self, session_id: str) -> None:
        self.active.discard(session_id)


class FakeRooms:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str, str]] = []

    def leave(self, code: str, student: str) -> None:
        self.calls.append(("leave", code, student))

    def join(self, code: str, student: str) -> bool:
        self.calls.append(("join", code, student))
        return True


@pytest.fixture()
def hooked(monkeypatch):
    rooms = FakeRooms()
    monkeypatch.setattr(session_presence, "_rooms", lambda: rooms)
    monkeypatch.setattr(session_presence, "PRESENCE", Presence())
    session_presence.install(FakeRuntime)
    return FakeRuntime(), rooms


def test_the_runtime_hook_leaves_on_disconnect_joins_on_reconnect_and_ignores_a_stale_client(hooked):
    runtime, rooms = hooked
    sid = runtime.connect_session()
    session_presence.PRESENCE.seated(sid, "ROOM01", "alice")
    runtime.disconnect_session(sid, client="stale")  # a reconnect already took the session over: still here
    session_presence.flush()
    assert rooms.calls == []
    runtime.disconnect_session(sid)
    session_presence.flush()
    assert rooms.calls == [("leave", "ROOM01", "alice")]
    assert runtime.connect_session(existing_session_id=sid) == sid
    session_presence.flush()
    assert rooms.calls[-1] == ("join", "ROOM01", "alice")
    runtime.close_session(sid)
    session_presence.flush()
    assert rooms.calls[-1] == ("leave", "ROOM01", "alice") and len(rooms.calls) == 3


def test_a_join_written_by_a_run_after_the_disconnect_is_followed_by_a_leave(hooked):
    runtime, rooms = hooked
    sid = runtime.connect_session()
    session_presence.seated(sid, "ROOM01", "alice")
    runtime.disconnect_session(sid)
    session_presence.flush()  # the disconnect's leave is written
    rooms.join("ROOM01", "alice")  # then the page's run, still under way, joins again
    session_presence.seated(sid, "ROOM01", "alice")
    session_presence.flush()
    assert rooms.calls == [("leave", "ROOM01", "alice"), ("join", "ROOM01", "alice"), ("leave", "ROOM01", "alice")]


def test_installing_twice_wraps_once(hooked):
    runtime, rooms = hooked
    session_presence.install(FakeRuntime)
    sid = runtime.connect_session()
    session_presence.PRESENCE.seated(sid, "ROOM01", "eve")
    runtime.close_session(sid)
    session_presence.flush()
    assert rooms.calls == [("leave", "ROOM01", "eve")]
