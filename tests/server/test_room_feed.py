"""Streamlit serves the room feed from disk: the one dependency of class mode on how Streamlit serves files.

If an upgrade moves the static route, stops honouring ``server.enableStaticServing`` or starts caching
the file, students would stop following the teacher: this test fails first.
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request

from bench.streamlit_client import server
from lucid.ui.live_class import room_feed

CODE = "XQXQXQ"


def _get(port: int) -> tuple[int, str, dict]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/{room_feed.ROUTE}/{CODE}.json", timeout=10) as r:  # noqa: S310
        return r.status, r.headers.get("Content-Type", ""), json.loads(r.read())


def test_the_feed_written_on_disk_is_what_the_browser_reads_and_a_rewrite_is_seen():
    writer = room_feed.writer()
    try:
        writer.write(CODE, {"v": 1, "step": 0, "program": "p", "q": ""})
        with server() as running:
            status, kind, body = _get(running.port)
            assert status == 200 and "json" in kind and body["v"] == 1
            writer.write(CODE, {"v": 2, "step": 5, "program": "p", "q": ""})
            assert _get(running.port)[2] == {"v": 2, "step": 5, "program": "p", "q": ""}
            writer.remove(CODE)
            try:
                _get(running.port)
                gone = False
            except urllib.error.HTTPError as err:
                gone = err.code == 404
            assert gone  # an ended room's feed is gone: the students' pages learn it from the 404
    finally:
        writer.remove(CODE)


def test_a_students_page_turns_the_feeds_address_into_held_reads_answered_by_the_teachers_next_step(tmp_path):
    """Once a student's page ran (``room_push``: the route is added then), a read naming the version the page has
    waits for the next change and answers with it; a read naming none answers at once, as the static file does."""
    import threading
    import urllib.parse

    from bench.streamlit_client import run_sync, session
    from lucid.live_class import Rooms, SQLiteStore
    from lucid.live_class.feed import published

    async def student_page(port: int) -> dict:
        async with session(port, query="example=scalar", timeout=90) as teacher:
            first = await teacher.run(timeout=90)
            from streamlit.proto.WidgetStates_pb2 import WidgetState

            start = next(b for b in first.of_type("button") if b.label == "Start a class")
            await teacher.run(WidgetState(id=start.id, trigger_value=True), timeout=90)
            code = dict(urllib.parse.parse_qsl(teacher.query))["room"]
            async with session(port, query=f"room={code}", timeout=90) as student:
                await student.run(timeout=90)
                return {"code": code, **student.player_data()["room"]}

    with server(env={"LUCID_DATA_DIR": str(tmp_path)}) as running:
        room = run_sync(student_page(running.port))
        assert room["hold_ms"] > 0 and room["feed"].endswith(f"/{room['code']}.json")
        url = f"http://127.0.0.1:{running.port}{room['feed']}"
        with urllib.request.urlopen(url, timeout=10) as r:  # noqa: S310 - no version: at once, like the file
            now = json.loads(r.read())
        held: dict = {}

        def read_held() -> None:
            with urllib.request.urlopen(f"{url}?v={now['v']}", timeout=30) as r:  # noqa: S310
                held["feed"] = json.loads(r.read())

        reader = threading.Thread(target=read_held)
        reader.start()
        reader.join(1.0)
        assert reader.is_alive()  # nothing changed: the read is held
        rooms = Rooms(SQLiteStore(tmp_path / "rooms.sqlite3"))
        view = rooms.view(room["code"])
        feed = published(view) | {"v": view.version + 1, "step": view.step + 1}
        # the teacher's next step as another process on this disk writes it: the server sees the file change
        room_feed.writer().write(room["code"], feed)
        reader.join(30)
        room_feed.writer().remove(room["code"])
        assert not reader.is_alive() and held["feed"]["step"] == view.step + 1
