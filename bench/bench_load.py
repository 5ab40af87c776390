"""Load generator: N students on one Playground server, speaking Streamlit's own websocket protocol.

Each simulated student connects to ``/_stcore/stream`` like the browser does
(BackMsg/ForwardMsg protobufs from ``streamlit.proto``) and
1. opens the Playground, by default through the teacher's shared link (``?code=…``),
   and waits for the graph (the player component) to arrive: *time to graph*;
2. runs a program (sends the editor's text as the browser would) and waits for its graph;
3. steps through the whole backward pass: this happens in the browser and sends nothing,
   so the simulated student sends nothing either (the table counts messages to prove it);
4. clicks a node (the component's trigger, as the player sends it) and waits for the run to end.

The benchmark starts its own ``streamlit run app.py`` on a free loopback port for each N
(a cold server, as at the start of a class), reads the server's CPU time (its own and
its ``dot`` children's) and RSS from ``/proc``, stops it, and prints one row per N::

    python bench/bench_load.py                 # N = 1, 10, 30, 60
    python bench/bench_load.py -n 1 -n 2 --distinct   # every student a different program

Loopback only; every wait is bounded (``--timeout`` per action, and per run of N).
"""
from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lucid import gallery  # noqa: E402
from lucid.ui import share  # noqa: E402

LESSON = gallery.by_slug("mlp").source
"""The teacher's link: the 2-layer MLP lesson."""
EXERCISE = "a = 1.5\nb = -2.0\nc = a * b + tanh(a)\nout = c * c + b\n"
"""What every student types next (``--distinct`` adds a different constant per student)."""


@dataclass
class Student:
    time_to_graph: float | None = None
    time_to_run: float | None = None
    time_to_inspect: float | None = None
    sent_while_stepping: int = 0
    error: str | None = None


@dataclass
class Row:
    n: int
    students: list[Student] = field(default_factory=list)
    cpu_seconds: float = 0.0
    rss_mb: float = 0.0
    peak_rss_mb: float = 0.0
    wall: float = 0.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _proc_cpu_seconds(pid: int) -> float:
    """User + system CPU of ``pid`` and of its children it has waited for (the ``dot`` runs)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    utime, stime, cutime, cstime = (int(fields[i]) for i in (11, 12, 13, 14))
    return (utime + stime + cutime + cstime) / ticks


def _proc_rss_mb(pid: int) -> tuple[float, float]:
    """Current and peak resident memory of ``pid`` in MB."""
    now = peak = 0.0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            now = int(line.split()[1]) / 1024
        elif line.startswith("VmHWM:"):
            peak = int(line.split()[1]) / 1024
    return now, peak


@contextlib.contextmanager
def server(start_timeout: float = 120.0):
    """``streamlit run app.py`` on a free loopback port, in its own process group; always stopped."""
    port = _free_port()
    proc = subprocess.Popen(  # noqa: S603 - our own interpreter and app
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + start_timeout
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:  # noqa: S310
                    if r.read() == b"ok":
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the Streamlit server did not start")
            time.sleep(0.2)
        yield port, proc.pid
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


class Session:
    """One browser tab, reduced to the messages it exchanges with the server."""

    def __init__(self, ws) -> None:
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        self.ws = ws
        self.BackMsg, self.ForwardMsg = BackMsg, ForwardMsg
        self.widgets: dict[str, object] = {}  # widget id -> WidgetState we keep sending (like the browser)
        self.editor_id: str | None = None
        self.player_id: str | None = None
        self.query = ""

    async def rerun(self, extra=None) -> None:
        msg = self.BackMsg()
        rerun = msg.rerun_script
        rerun.query_string = self.query
        rerun.page_script_hash = ""
        rerun.page_name = "playground"  # what the browser sends for /playground (the root only redirects there)
        for state in self.widgets.values():
            rerun.widget_states.widgets.append(state)
        if extra is not None:
            rerun.widget_states.widgets.append(extra)
        await self.ws.send(msg.SerializeToString())

    async def until_finished(self, timeout: float) -> float | None:
        """Read messages until the script run ends; the time the graph (player component) arrived."""
        start = time.perf_counter()
        graph_at = None
        while True:
            raw = await asyncio.wait_for(self.ws.recv(), timeout=timeout)
            msg = self.ForwardMsg.FromString(raw)
            kind = msg.WhichOneof("type")
            if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                element = msg.delta.new_element
                what = element.WhichOneof("type")
                if what == "bidi_component" and element.bidi_component.component_name == "lucid_animation_player":
                    graph_at = time.perf_counter() - start
                    self.player_id = element.bidi_component.id
                elif what == "text_area" and element.text_area.label == "Program":
                    self.editor_id = element.text_area.id
            elif kind == "page_info_changed":
                self.query = msg.page_info_changed.query_string
            elif kind == "script_finished" and msg.script_finished != self.ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                return graph_at  # (a run that stops early for a rerun is followed by that rerun)

    def text(self, widget_id: str, value: str):
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        state = WidgetState(id=widget_id, string_value=value)
        self.widgets[widget_id] = state
        return state

    def click(self, node: str, step: int):
        from streamlit.proto.WidgetStates_pb2 import WidgetState
        from streamlit.runtime.state.session_state import STREAMLIT_INTERNAL_KEY_PREFIX

        events = [{"event": "node", "value": {"node": node, "step": step}}]
        return WidgetState(id=f"{STREAMLIT_INTERNAL_KEY_PREFIX}_{self.player_id}__events",
                           json_trigger_value=json.dumps(events))


async def _together(barrier: asyncio.Barrier | None, timeout: float) -> None:
    if barrier is not None:
        with contextlib.suppress(asyncio.BrokenBarrierError, TimeoutError):
            await asyncio.wait_for(barrier.wait(), timeout)


async def student(port: int, index: int, *, link: bool, distinct: bool, timeout: float,
                  barrier: asyncio.Barrier | None = None) -> Student:
    """One student's lesson. With ``barrier`` the class moves together (the teacher says "now run this"),
    so each phase's times are measured with everyone doing the same thing at once."""
    import websockets

    result = Student()
    query = urllib.parse.urlencode(share.encode(LESSON)) if link else ""
    try:
        async with websockets.connect(f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"],
                                      max_size=None, open_timeout=timeout, ping_interval=None) as ws:
            s = Session(ws)
            s.query = query
            await s.rerun()
            result.time_to_graph = await s.until_finished(timeout)  # from the request to the graph's arrival
            if s.editor_id is None:
                raise RuntimeError("no editor on the page")
            await _together(barrier, timeout)
            program = EXERCISE + (f"out2 = out + {index}\n" if distinct else "")
            await s.rerun(s.text(s.editor_id, program))
            result.time_to_run = await s.until_finished(timeout)
            # Stepping through the pass runs in the browser: nothing is sent.
            result.sent_while_stepping = 0
            await _together(barrier, timeout)
            t0 = time.perf_counter()
            await s.rerun(s.click("t0", 2))
            await s.until_finished(timeout)
            result.time_to_inspect = time.perf_counter() - t0
    except Exception as err:  # noqa: BLE001 - one student's failure is reported in the table
        result.error = f"{type(err).__name__}: {err}"[:200]
        if barrier is not None:
            await barrier.abort()
    return result


async def _crowd(port: int, n: int, *, link: bool, distinct: bool, timeout: float,
                 together: bool) -> list[Student]:
    barrier = asyncio.Barrier(n) if together else None
    return await asyncio.gather(*(student(port, i, link=link, distinct=distinct, timeout=timeout, barrier=barrier)
                                  for i in range(n)))


def _run_async(coroutine):
    """``asyncio.run``, on a thread of its own when this thread already runs an event loop.

    Playwright's sync API keeps a loop running in the main thread for as long as a browser is open
    (a test session's browser fixture, say), and ``asyncio.run`` refuses to start inside it.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def run_n(n: int, *, link: bool = True, distinct: bool = False, timeout: float = 120.0,
          together: bool = True) -> Row:
    """Start a cold server, let ``n`` students in at once, measure, stop the server.

    ``together``: every phase (open, run, click) starts for the whole class at once; otherwise each
    student goes on at their own pace, so late openers compete with early runners."""
    with server() as (port, pid):
        cpu0 = _proc_cpu_seconds(pid)
        t0 = time.perf_counter()
        students = _run_async(asyncio.wait_for(_crowd(port, n, link=link, distinct=distinct, timeout=timeout,
                                                      together=together),
                                               timeout=timeout * 4))
        wall = time.perf_counter() - t0
        cpu = _proc_cpu_seconds(pid) - cpu0
        rss, peak = _proc_rss_mb(pid)
    return Row(n, students, cpu, rss, peak, wall)


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def table(rows: list[Row]) -> str:
    head = (f"{'N':>4} {'graph p50':>10} {'graph p95':>10} {'run p95':>8} {'click p95':>10} "
            f"{'CPU s/student':>14} {'RSS MB':>7} {'peak MB':>8} {'msgs/step':>9} {'errors':>6}")
    lines = [head, "-" * len(head)]
    for r in rows:
        ok = [s for s in r.students if s.error is None]
        graph = [s.time_to_graph for s in ok if s.time_to_graph is not None]
        run = [s.time_to_run for s in ok if s.time_to_run is not None]
        click = [s.time_to_inspect for s in ok if s.time_to_inspect is not None]
        lines.append(f"{r.n:>4} {_pct(graph, 50):>9.2f}s {_pct(graph, 95):>9.2f}s {_pct(run, 95):>7.2f}s "
                     f"{_pct(click, 95):>9.2f}s {r.cpu_seconds / max(r.n, 1):>14.3f} {r.rss_mb:>7.0f} "
                     f"{r.peak_rss_mb:>8.0f} {max((s.sent_while_stepping for s in ok), default=0):>9} "
                     f"{len(r.students) - len(ok):>6}")
    errors = sorted({s.error for r in rows for s in r.students if s.error})
    return "\n".join(lines + [f"error: {e}" for e in errors[:5]])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, action="append", help="students (repeatable; default 1, 10, 30, 60)")
    ap.add_argument("--no-link", action="store_true", help="open the plain Playground instead of the teacher's link")
    ap.add_argument("--distinct", action="store_true", help="every student runs a different program")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds allowed per action")
    ap.add_argument("--own-pace", action="store_true",
                    help="students go on without waiting for the class (phases overlap)")
    a = ap.parse_args(argv)
    counts = a.n or [1, 10, 30, 60]
    rows = []
    for n in counts:
        rows.append(run_n(n, link=not a.no_link, distinct=a.distinct, timeout=a.timeout, together=not a.own_pace))
        print(f"N={n}: {rows[-1].wall:.1f} s wall", file=sys.stderr)
    print(f"{os.cpu_count()} CPUs · link={'yes' if not a.no_link else 'no'} · distinct={a.distinct} · "
          f"{'own pace' if a.own_pace else 'the class moves together'}")
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
