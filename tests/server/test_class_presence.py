"""A closed tab leaves the class's count at once, on a real ``streamlit run``: raw websocket clients speak the
browser's protocol (``bench.streamlit_client``). A student joins, the room (read from the server's own SQLite file)
counts one student; the student's websocket closes, and the count is 0 again without waiting out the heartbeat's
150 s window, both in the data and on the teacher's panel (its count fragment, refreshed every 2 s).
"""
from __future__ import annotations

import asyncio
import shutil
import time
import urllib.parse

import pytest

from bench.streamlit_client import Run, run_sync, server, session
from lucid.live_class import Rooms, SQLiteStore

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="the player needs Graphviz's dot")
TIMEOUT = 90.0
PATIENCE = 60.0
"""Seconds the test waits for the count to change: generous for a busy machine (it was 20 s), well under the
150 s heartbeat window the count depended on before."""


def _click(run: Run, label: str):
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    button = next(b for b in run.of_type("button") if b.label == label)
    return WidgetState(id=button.id, trigger_value=True)


async def _students_after(rooms: Rooms, code: str, wanted: int) -> int:
    """The room's count once it is ``wanted`` (or whatever it is when patience runs out)."""
    deadline = time.monotonic() + PATIENCE
    while (n := rooms.view(code).students) != wanted and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    return n


async def _class_with_a_student_who_leaves(port: int, rooms_file) -> None:
    async with session(port, timeout=TIMEOUT) as teacher:
        first = await teacher.run(timeout=TIMEOUT)
        started = await teacher.run(_click(first, "Start a class"), timeout=TIMEOUT)
        code = dict(urllib.parse.parse_qsl(teacher.query))["room"]
        assert any(f"Class **{code}** · 0 students" in m for m in started.markdown), started.markdown
        rooms = Rooms(SQLiteStore(rooms_file))
        async with session(port, query=f"room={code}", timeout=TIMEOUT) as student:
            joined = await student.run(timeout=TIMEOUT)
            assert any("following the teacher" in m for m in joined.markdown), joined.markdown
            assert await _students_after(rooms, code, 1) == 1
        # The student's websocket is closed: Streamlit disconnects the session, the hook takes the seat out.
        assert await _students_after(rooms, code, 0) == 0
        count = next(f for f, seconds in teacher.auto_reruns.items() if seconds == 2.0)
        await teacher.ws.send(teacher.fragment_message(count))  # the count fragment's 2 s timer firing
        refreshed = await teacher.finish(TIMEOUT)
        assert any(f"Class **{code}** · 0 students" in m for m in refreshed.markdown), refreshed.markdown


def test_a_students_closed_websocket_drops_the_count_without_waiting_for_the_heartbeat(tmp_path):
    with server(env={"LUCID_DATA_DIR": str(tmp_path)}, start_timeout=TIMEOUT) as running:
        run_sync(_class_with_a_student_who_leaves(running.port, tmp_path / "rooms.sqlite3"))
