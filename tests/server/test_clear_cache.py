"""Any websocket client may send ``clear_cache``; it must not empty the class's shared work (issue 16, item 5).

Streamlit answers that message by clearing ``st.cache_data`` and ``st.cache_resource`` for every session,
so the app keeps its shared work in process-wide caches the message does not reach. Checked against a
real server with a raw client, counting the work the server does (not timing it).
"""
from __future__ import annotations

import re

from bench.streamlit_client import ROOT, run_sync, server, session
from tests.serve_counted import counts, launcher

TIMEOUT = 180.0


def test_a_clear_cache_message_leaves_the_train_pages_shared_work_cached(tmp_path):
    log = tmp_path / "work.log"

    async def visit(port: int):
        async with session(port, page="train_mlp", timeout=TIMEOUT) as student:
            first = await student.run(timeout=TIMEOUT)
            warm = counts(log)
            await student.clear_cache()
            again = await student.run(timeout=TIMEOUT)  # the same connection: handled after the clear message
        async with session(port, page="train_mlp", timeout=TIMEOUT) as other:  # and a classmate's fresh session
            fresh = await other.run(timeout=TIMEOUT)
        return warm, [first.exceptions, again.exceptions, fresh.exceptions]

    # without the warm-up (lucid.ui.runtime.warmup), so every counted computation is this visit's own
    with server(log=tmp_path / "server.log", launcher=launcher(log), env={"LUCID_WARMUP": "0"}) as running:
        warm, exceptions = run_sync(visit(running.port))
    assert exceptions == [[], [], []]
    assert warm["step_graphs"] == 1 and warm["compare_tensor_scalar"] == 1 and warm["load"] >= 1
    assert counts(log) == warm  # nothing was computed again


def test_no_page_keeps_shared_work_in_a_cache_any_client_can_clear():
    used = re.compile(r"@(st\.)?cache_(data|resource)\b|\bst\.cache_(data|resource)\("
                      r"|import [^\n]*\bcache_(data|resource)\b")
    sources = [*ROOT.joinpath("pages").glob("*.py"), ROOT / "app.py", *ROOT.joinpath("lucid").rglob("*.py")]
    offenders = [str(p.relative_to(ROOT)) for p in sources if used.search(p.read_text(encoding="utf-8"))]
    assert offenders == []
