"""Any websocket client may send ``clear_cache``; it must not empty the class's shared work (issue 16, item 5).

Streamlit answers that message by clearing ``st.cache_data`` and ``st.cache_resource`` for every session,
so the app keeps its shared work in process-wide caches the message does not reach. Checked against a
real server with a raw client, counting the work the server does (not timing it).
"""
from __future__ import annotations

import re

from tests.live_server import ROOT, Tab, live_server
from tests.serve_counted import counts


def test_a_clear_cache_message_leaves_the_train_pages_shared_work_cached(tmp_path):
    log = tmp_path / "work.log"
    with live_server(tmp_path, count_log=log) as server, Tab(server.port) as student, Tab(server.port) as other:
        student.open("train_mlp")
        assert student.until_finished() == []
        warm = counts(log)
        assert warm["step_graphs"] == 1 and warm["compare_tensor_scalar"] == 1 and warm["load"] >= 1

        clear = student.BackMsg()
        clear.clear_cache = True
        student.send(clear)
        student.open("train_mlp")  # the same connection: handled after the clear message
        assert student.until_finished() == []
        other.open("train_mlp")  # and a classmate's fresh session
        assert other.until_finished() == []
        assert counts(log) == warm  # nothing was computed again


def test_no_page_keeps_shared_work_in_a_cache_any_client_can_clear():
    used = re.compile(r"@(st\.)?cache_(data|resource)\b|\bst\.cache_(data|resource)\("
                      r"|import [^\n]*\bcache_(data|resource)\b")
    sources = [*ROOT.joinpath("pages").glob("*.py"), ROOT / "app.py", *ROOT.joinpath("lucid").rglob("*.py")]
    offenders = [str(p.relative_to(ROOT)) for p in sources if used.search(p.read_text(encoding="utf-8"))]
    assert offenders == []
