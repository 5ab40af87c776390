"""What one Playground session costs the server in CPU: a new session on a warm server, a warm rerun, a click.

Prints numbers next to the target (a warm rerun at most ``TARGET_MS`` of CPU), asserts nothing.

1. In this process, with Streamlit's AppTest (the real page script, no browser) and the script cache
   shared between runs as a server shares it: the CPU time of the script's own thread
   (``time.thread_time``) for
   - a new session opening the teacher's link (the 2-layer MLP lesson) on a warm process;
   - a warm rerun of that session (nothing changed: what any widget costs on top of its own work);
   - a click on a node (the player names the animation it holds, so the run sends it no animation back);
   - a program of the student's own (``bench_load``'s exercise with a constant of its own: parsed, run,
     traced, laid out by ``dot`` and animated, the whole cost of ``bench_load --distinct``'s run phase);
   against a baseline measured in the same process: Streamlit's own cost of a page that draws as many
   plain elements as the Playground does (its floor for a page of that size).
2. With ``--server`` (on by default; ``--no-server`` skips it): a real ``streamlit run app.py`` and the
   websocket client (``bench.streamlit_client``), sessions one after another, the whole server's CPU
   (every thread, and ``dot``) per action: what a class of N costs is N times these.

Run: python bench/bench_rerun_cost.py [-n 20] [--no-server]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.components.v2.bidi_component.main import _make_trigger_id  # noqa: E402
from streamlit.proto.WidgetStates_pb2 import WidgetStates  # noqa: E402
from streamlit.runtime.scriptrunner import script_runner  # noqa: E402
from streamlit.runtime.scriptrunner.script_cache import ScriptCache  # noqa: E402
from streamlit.testing.v1 import AppTest, local_script_runner  # noqa: E402

from bench.bench_load import CLICKED_NODE, CLICKED_STEP, EXERCISE, LESSON  # noqa: E402
from bench.streamlit_client import cpu_seconds, run_sync, server, session  # noqa: E402
from lucid.session import share  # noqa: E402
from lucid.session.browser_events import NodeClick  # noqa: E402
from lucid.ui.playground.keys import keys  # noqa: E402
from lucid.ui.runtime import warmup  # noqa: E402

PAGE = str(ROOT / "pages" / "playground.py")
TARGET_MS = 25.0
"""A warm rerun of the Playground costs the server at most this much CPU."""

_CACHE = ScriptCache()
_RUNS: list[float] = []


def _share_the_script_cache() -> None:
    """AppTest compiles the page anew for every run; a server compiles it once. Measure as a server runs."""
    local_script_runner.ScriptCache = lambda: _CACHE
    run = script_runner.ScriptRunner._run_script

    def timed(self, *args, **kwargs):
        t0 = time.thread_time()
        try:
            return run(self, *args, **kwargs)
        finally:
            _RUNS.append(time.thread_time() - t0)

    script_runner.ScriptRunner._run_script = timed


def _cpu_of(action) -> float:
    """Script-thread CPU seconds of the runs ``action()`` makes."""
    _RUNS.clear()
    action()
    return sum(_RUNS)


def opened() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params.update(share.encode(LESSON))
    return at


def _player(at: AppTest):
    return next(c for c in at.get("bidi_component") if c.proto.component_name == "lucid_animation_player")


def click(at: AppTest) -> AppTest:
    """A click on the lesson's first input at step 2, as the player's JavaScript sends it."""
    component = _player(at)
    data = json.loads(component.proto.json)
    value = {"node": CLICKED_NODE, "step": CLICKED_STEP, "program": data["program_id"]}
    if "anim" in NodeClick.__dataclass_fields__:  # players name the animation they hold (older ones did not)
        value["anim"] = data["anim_id"]
    states: WidgetStates = at._tree.get_widget_states()
    trigger = states.widgets.add()
    trigger.id = _make_trigger_id(component.proto.id, "events")
    trigger.json_trigger_value = json.dumps([{"event": "node", "value": value}])
    return at._run(states)


def elements(at: AppTest) -> int:
    count = 0
    stack = [at._tree]
    while stack:
        node = stack.pop()
        count += getattr(node, "proto", None) is not None
        stack.extend((getattr(node, "children", None) or {}).values())
    return count


def floor_page(n: int) -> str:
    """A page of ``n`` plain elements, written to a temporary file: Streamlit's own cost per element."""
    path = Path(tempfile.mkdtemp(prefix="lucid-bench-")) / "floor.py"
    path.write_text("import streamlit as st\n" + "".join(f"st.markdown('line {i}')\n" for i in range(n)))
    return str(path)


def median_ms(samples: list[float]) -> float:
    return 1000 * statistics.median(samples)


def in_process(n: int) -> dict[str, float]:
    _share_the_script_cache()
    warm = opened().run()  # the process imports, computes the lesson and its animation
    assert not warm.exception, warm.exception
    size = elements(warm)
    floor = AppTest.from_file(floor_page(size), default_timeout=60).run()
    firsts, reruns, clicks, floors, programs = [], [], [], [], []
    for i in range(n):
        at = opened()
        firsts.append(_cpu_of(at.run))
        reruns.append(_cpu_of(at.run))
        clicks.append(_cpu_of(lambda at=at: click(at)))
        held = json.loads(_player(at).proto.json)["anim"] is None
        floors.append(_cpu_of(floor.run))
        own = EXERCISE + f"out2 = out + {i + 7}\n"
        programs.append(_cpu_of(lambda at=at, own=own: at.text_area(key=keys("pg").source).set_value(own).run()))
    assert not at.exception, at.exception
    result = {"first": median_ms(firsts), "rerun": median_ms(reruns), "click": median_ms(clicks),
              "floor": median_ms(floors), "elements": size, "program": median_ms(programs)}
    print(f"In this process (AppTest, script thread CPU, median of {n}); the page draws {size} elements")
    print(f"  baseline: a page of {size} plain elements (Streamlit's floor)   {result['floor']:6.1f} ms")
    for name, label in (("first", "new session opening the link (warm process)"),
                        ("rerun", "warm rerun (nothing changed)"),
                        ("click", "click on a node" + (" (no animation sent back)" if held else ""))):
        ms = result[name]
        print(f"  {label:<58} {ms:6.1f} ms  = {ms / result['floor']:4.2f}x the baseline"
              f"   target <= {TARGET_MS:.0f} ms: {'ok' if ms <= TARGET_MS else 'MISS'}")
    print(f"  {'a program of its own (script thread; dot runs beside it)':<58} {result['program']:6.1f} ms  = "
          f"{result['program'] / result['floor']:4.2f}x the baseline")
    return result


async def _server_costs(port: int, pid: int, n: int) -> dict[str, list[float]]:
    query = urllib.parse.urlencode(share.encode(LESSON))
    async with session(port, query=query) as s:  # the server imports, computes the lesson and its animation
        await s.run()
    costs: dict[str, list[float]] = {"open": [], "rerun": [], "click": []}
    for _ in range(n):
        async with session(port, query=query) as s:
            c0 = cpu_seconds(pid)
            await s.run()
            c1 = cpu_seconds(pid)
            await s.run()
            c2 = cpu_seconds(pid)
            await s.run(s.click(CLICKED_NODE, CLICKED_STEP))
            c3 = cpu_seconds(pid)
        costs["open"].append(c1 - c0)
        costs["rerun"].append(c2 - c1)
        costs["click"].append(c3 - c2)
    return costs


def _after_the_warm_up(running, limit: float = 600.0) -> None:
    """Wait until the server's background warm-up of the lesson pages is done (``lucid.ui.runtime.warmup``): its
    CPU is the process's too, and measured during it a rerun cost three times what it costs after."""
    first_line = warmup.DONE_LINE.split("{")[0]
    deadline = time.monotonic() + limit
    while first_line not in running.output(10**6) and time.monotonic() < deadline:
        time.sleep(0.5)


def on_a_server(n: int) -> dict[str, float]:
    with server(log=Path(tempfile.mkdtemp(prefix="lucid-bench-")) / "server.log") as running:
        run_sync(_server_costs(running.port, running.pid, 0))  # the first visit starts the warm-up
        _after_the_warm_up(running)
        costs = run_sync(_server_costs(running.port, running.pid, n))
    # The kernel counts CPU in ticks of 10 ms: the mean over many actions is the figure, not one action.
    result = {k: 1000 * statistics.mean(v) for k, v in costs.items()}
    print(f"On a real server after its warm-up (streamlit run, websocket client; whole server CPU incl. the event "
          f"loop, mean of {n})")
    for name, label in (("open", "new session opening the link (warm server)"), ("rerun", "warm rerun"),
                        ("click", "click on a node")):
        ms = result[name]
        print(f"  {label:<58} {ms:6.1f} ms   target <= {TARGET_MS:.0f} ms: {'ok' if ms <= TARGET_MS else 'MISS'}")
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=20, help="sessions measured (default 20)")
    ap.add_argument("--no-server", action="store_true", help="skip the real-server measurement")
    a = ap.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{os.cpu_count()} CPUs, load average {load:.2f} (other work on the machine inflates CPU times too)")
    in_process(a.n)
    if not a.no_server:
        on_a_server(a.n)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
