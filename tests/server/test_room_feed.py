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
