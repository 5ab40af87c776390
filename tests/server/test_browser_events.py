"""A real ``streamlit run app.py`` against hostile websocket messages: event floods and crafted click values.

Each attack is one message a student's own script could send (``bench.streamlit_client`` speaks the
protocol exactly as the browser does). The server must act on a batch of clicks once, refuse values the
player never sends without a traceback on the page, and keep serving the same tab and others.
"""
from __future__ import annotations

import asyncio
import json
import shutil
import urllib.parse
from pathlib import Path

import pytest

from bench.hostile_class import CRAFTED as HOSTILE_CRAFTED
from bench.streamlit_client import Session, run_sync, server, session
from lucid.session import browser_events, share
from tests.large_programs import scalar_mlp_source

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="the player needs Graphviz's dot")

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
TIMEOUT = 120.0
FLOOD = 30_000
DEFAULT_INSPECTED = "**t15 · out** —"
"""The inspector's heading on a fresh Playground (the default program's output)."""


@pytest.fixture(scope="module")
def port():
    ARTIFACTS.mkdir(exist_ok=True)
    with server(log=ARTIFACTS / "browser-events-server.log") as running:
        yield running.port


def run(coroutine):
    return run_sync(asyncio.wait_for(coroutine, TIMEOUT * 3))


def heading(s: Session) -> str:
    """The node inspector's heading after the last run (``**t3 · name** — …``)."""
    found = [m for m in s.last.markdown if m.startswith("**") and " · " in m.split("**")[1]]
    assert found, "no inspector heading on the page"
    return found[-1]


def events(*values: dict) -> str:
    return json.dumps([{"event": "node", "value": v} for v in values], separators=(",", ":"))


def clicks(program: str, n: int, last: dict) -> str:
    """A batch of ``n`` clicks on assorted nodes and steps, ending with ``last``."""
    batch = [{"node": f"t{k % 15}", "step": k % 17, "program": program} for k in range(n - 1)]
    return events(*batch, {**last, "program": program})


def test_a_message_of_30000_clicks_closes_its_connection_and_the_server_serves_the_others(port):
    """Over ``server.maxWidgetStateSize`` (1 MB) a message is refused before it is parsed."""
    import websockets

    async def attack():
        async with session(port, timeout=TIMEOUT) as s:
            await s.run(timeout=TIMEOUT)
            payload = clicks(s.player_data()["program_id"], FLOOD, {"node": "t2", "step": 5})
            await s.rerun(s.events(payload))
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await s.finish(TIMEOUT)
        async with session(port, timeout=TIMEOUT) as other:
            fresh = await other.run(timeout=TIMEOUT)
            calm = await other.run(other.click("t0", 1), timeout=TIMEOUT)
            return len(payload), closed.value.rcvd.code, fresh, calm, heading(other)

    size, code, fresh, calm, after_click = run(attack())
    assert size > 1_000_000 and code == 1009
    assert fresh.player is not None and fresh.exceptions == [] and calm.exceptions == []
    assert after_click.startswith("**t0 · ")


def test_a_batch_of_clicks_over_the_json_limit_is_dropped_whole_and_the_tab_goes_on(port):
    """Past ``MAX_JSON_CHARS`` a batch is not parsed at all: as if nothing had been clicked."""
    async def attack():
        async with session(port, timeout=TIMEOUT) as s:
            await s.run(timeout=TIMEOUT)
            before = heading(s)
            payload = clicks(s.player_data()["program_id"], 8_000, {"node": "t2", "step": 5})
            flooded = await s.run(s.events(payload), timeout=TIMEOUT)
            after_flood = heading(s)
            calm = await s.run(s.click("t0", 1), timeout=TIMEOUT)  # the same tab goes on working
            return len(payload), before, flooded, after_flood, calm, heading(s)

    size, before, flooded, after_flood, calm, after_click = run(attack())
    assert browser_events.MAX_JSON_CHARS < size < 1_000_000
    assert flooded.exceptions == [] and calm.exceptions == []
    assert after_flood == before
    assert after_click.startswith("**t0 · ")


def test_a_batch_of_clicks_under_the_size_limit_shows_only_its_last_click(port):
    async def attack():
        async with session(port, timeout=TIMEOUT) as s:
            await s.run(timeout=TIMEOUT)
            program = s.player_data()["program_id"]
            n = 2
            while len(clicks(program, n * 2, {"node": "t2", "step": 5})) < browser_events.MAX_JSON_CHARS:
                n *= 2
            flooded = await s.run(s.events(clicks(program, n, {"node": "t2", "step": 5})), timeout=TIMEOUT)
            return n, flooded, heading(s), s.player_data()

    n, flooded, after_flood, data = run(attack())
    assert n >= 256 and flooded.exceptions == []
    assert after_flood.startswith("**t2 · ")  # the batch's last click
    assert data["step"] == 5


def test_a_batch_of_clicks_on_a_box_toggles_it_once(port):
    """A box click opens a closed box and closes an open one: acted on once, an even batch leaves it open."""
    query = urllib.parse.urlencode(share.encode(scalar_mlp_source()))

    async def attack():
        async with session(port, query=query, timeout=TIMEOUT) as s:
            await s.run(timeout=TIMEOUT)
            closed = s.player_data()["anim"]["collapsed"]["open"]
            program = s.player_data()["program_id"]
            batch = events(*[{"node": "g2", "step": 11, "program": program}] * 600)
            assert len(batch) < browser_events.MAX_JSON_CHARS
            flooded = await s.run(s.events(batch), timeout=TIMEOUT)
            return closed, flooded, s.player_data()

    closed, flooded, data = run(attack())
    assert flooded.exceptions == []
    assert closed == 0 and data["anim"]["collapsed"]["open"] == 1
    assert any("g2 · box " in m and "open" in m for m in flooded.markdown)


CRAFTED = {
    **HOSTILE_CRAFTED,  # step Infinity/NaN, a 5,000-digit node id, 100,000-deep JSON
    "step negative": '[{"event":"node","value":{"node":"t2","step":-3,"program":"%s"}}]',
    "step huge": '[{"event":"node","value":{"node":"t2","step":1e308,"program":"%s"}}]',
    "step of 5,000 digits": '[{"event":"node","value":{"node":"t2","step":' + "9" * 5000 + ',"program":"%s"}}]',
    "step not a number": '[{"event":"node","value":{"node":"t2","step":"3","program":"%s"}}]',
    "node id not an id": '[{"event":"node","value":{"node":"<b>x</b>","step":1,"program":"%s"}}]',
    "node id out of the graph": '[{"event":"node","value":{"node":"t9999999999","step":0,"program":"%s"}}]',
    "node id a number": '[{"event":"node","value":{"node":2,"step":1,"program":"%s"}}]',
    "stale program": '[{"event":"node","value":{"node":"t2","step":1,"program":"0000000000000000"}}]',
    "no program": '[{"event":"node","value":{"node":"t2","step":1}}]',
    "value not an object": '[{"event":"node","value":[1,2,3]}]',
    "event not an object": '[1, "node", null]',
    "batch not a list": '"node"',
    "not JSON": '[{"event":"node",',
}


@pytest.mark.parametrize("name", list(CRAFTED))
def test_a_crafted_click_is_ignored_without_a_traceback(port, name):
    async def attack():
        async with session(port, timeout=TIMEOUT) as s:
            await s.run(timeout=TIMEOUT)
            before = heading(s)
            payload = CRAFTED[name].replace("%s", s.player_data()["program_id"])
            crafted = await s.run(s.events(payload), timeout=TIMEOUT)
            after = heading(s)
            calm = await s.run(s.click("t0", 1), timeout=TIMEOUT)  # the tab still works
            return before, crafted, after, calm, heading(s)

    before, crafted, after, calm, after_click = run(attack())
    assert crafted.exceptions == [] and calm.exceptions == []
    assert crafted.player is not None  # the page was drawn as before
    assert before == after and before.startswith(DEFAULT_INSPECTED)
    assert after_click.startswith("**t0 · ")


def test_a_crafted_component_state_is_ignored_without_a_traceback(port):
    """The component's own state (``json_value``) is browser-written too: deep, huge or of the wrong type."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    async def attack():
        results = []
        async with session(port, timeout=TIMEOUT) as s:
            await s.run(timeout=TIMEOUT)
            for payload in ("[" * 100_000 + "]" * 100_000, "[1, 2]", '"text"', '{"node": {"node": "t' + "9" * 5000
                            + '", "step": 1}}', "{"):
                state = WidgetState(id=s.player_id(), json_value=payload)
                results.append(await s.run(state, timeout=TIMEOUT))
            results.append(await s.run(s.click("t0", 1), timeout=TIMEOUT))
            return results, heading(s)

    results, after_click = run(attack())
    assert [r.exceptions for r in results] == [[]] * len(results)
    assert after_click.startswith("**t0 · ")


def wrong_values(widget_id: str) -> list:
    """Values of every kind, and of sizes past the gate's limits, for one widget."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    values = [WidgetState(id=widget_id, bool_value=True), WidgetState(id=widget_id, int_value=-(2**63)),
              WidgetState(id=widget_id, int_value=2**63 - 1), WidgetState(id=widget_id, double_value=float("nan")),
              WidgetState(id=widget_id, double_value=float("inf")), WidgetState(id=widget_id, string_value="no such"),
              WidgetState(id=widget_id, string_value="x" * 200_000), WidgetState(id=widget_id, trigger_value=True),
              WidgetState(id=widget_id, json_value='{"a": 1}'), WidgetState(id=widget_id, json_trigger_value="[1]")]
    for kind, items in (("string_array_value", ["no such"] * 3), ("string_array_value", ["x"] * 5_000),
                        ("int_array_value", [2**62, -(2**62)]), ("double_array_value", [float("nan")] * 2)):
        state = WidgetState(id=widget_id)
        getattr(state, kind).data.extend(items)
        values.append(state)
    return values


def widget_ids(result) -> list[str]:
    """The ids of the widgets a run drew."""
    protos = [getattr(e, e.WhichOneof("type")) for e in result.elements]
    return sorted({p.id for p in protos if getattr(p, "id", "").startswith("$$ID")})


@pytest.mark.parametrize(("page", "widgets"), [
    # each page's hundreds of runs on a worker of its own (a server of its own), not all behind one another
    pytest.param(page, widgets, marks=pytest.mark.xdist_group(f"browser_events_{page}"))
    for page, widgets in [("playground", 8), ("gradient_check", 4), ("pitfalls", 5), ("broadcasting", 4),
                          ("op_reference", 3)]])
def test_every_widget_of_a_page_takes_values_of_any_kind_without_a_traceback(port, page, widgets):
    """What a crafted client can send for a page's own widgets: wrong kinds, out of range, oversized; on the
    Playground, a click after all of them still reaches the inspector.

    (The Train page passes too, in 80 s: left out here for time.)"""
    async def attack():
        async with session(port, page=page, timeout=TIMEOUT) as s:
            first = await s.run(timeout=TIMEOUT)
            ids = widget_ids(first)
            seen = {}
            for widget_id in ids:
                for state in wrong_values(widget_id):
                    result = await s.run(state, timeout=TIMEOUT)
                    seen[(widget_id, state.WhichOneof("value"))] = result.exceptions
            last = await s.run(timeout=TIMEOUT)
            if page != "playground":
                return ids, seen, first, last, None, None
            calm = await s.run(s.click("t0", 1), timeout=TIMEOUT)
            return ids, seen, first, last, calm, heading(s)

    ids, seen, first, last, calm, after_click = run(attack())
    assert len(ids) >= widgets
    assert {k: v for k, v in seen.items() if v} == {}
    assert last.exceptions == [] and len(widget_ids(last)) >= widgets  # the page is still drawn (values that
    # are valid stay: a crafted "no such" is a program the editor now shows with its error)
    if page == "playground":  # after crafted values for every widget a click still reaches the inspector (once a
        # test of its own, which sent the same hundred crafted values again on a second session)
        assert calm.exceptions == [] and after_click.startswith("**t0 · ")


def test_a_message_over_a_megabyte_closes_only_that_connection(port):
    """``server.maxWidgetStateSize`` (.streamlit/config.toml): the frame is refused before it is parsed."""
    import websockets

    async def attack():
        async with session(port, timeout=TIMEOUT) as s:
            await s.run(timeout=TIMEOUT)
            s.set_text(s.widget_id("text_area", "Program"), "x = 1\n" + "#" * 1_100_000)
            await s.rerun()
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await s.finish(TIMEOUT)
            code = closed.value.rcvd.code if closed.value.rcvd else None
        async with session(port, timeout=TIMEOUT) as other:  # the server serves everyone else as before
            fresh = await other.run(timeout=TIMEOUT)
        return code, fresh

    code, fresh = run(attack())
    assert code == 1009  # Message Too Big
    assert fresh.player is not None and fresh.exceptions == []
