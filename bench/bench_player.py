"""Key to paint in the backward-pass player, per program, against a no-op key in the same run. Asserts nothing.

Starts its own ``streamlit run app.py`` on a free loopback port (``bench.streamlit_client.server``),
opens the Playground in Classroom mode (``classroom=1``) at 1280×720 in Debian's headless Chromium
(Playwright, never a downloaded browser) and steps the player with real key presses (→, ←, Home, End,
sent through the browser's input pipeline) on each program:

- ``cs231n``: the gallery's CS231n sigmoid neuron (``example=cs231n-sigmoid``);
- ``mlp``: the gallery's 2-layer MLP on a batch (``example=mlp``, the lecture's lesson link);
- ``scalar-287``: a 3 → 4 tanh → 1 network written one scalar at a time on 5 samples: 287 nodes, which
  the Playground draws collapsed into boxes (18 drawn) and steps box by box (50 steps);
- ``collapsed``: the same network on 10 samples, 552 nodes, 18 drawn, 100 steps.

What is measured, in the page: a ``keydown`` listener on ``window`` (capture phase, so it runs before the
player's own listener) takes ``performance.now()`` and asks for an animation frame; in that frame's
``requestAnimationFrame`` callback it checks the player's ``data-step`` changed, and posts a message
(``MessageChannel``) whose task runs after the frame's style, layout and paint: key-to-paint is the time
from the keydown to that task. The baseline is the same measurement for a key that changes nothing but
still waits for the next frame (Shift, which the player ignores): the floor is up to one frame of waiting
for the next vsync plus the paint, so a step can cost no less. Baseline presses are interleaved with the
steps, so both see the same machine load. Presses are paced (``--gap`` ms) as a presenter's would be, and
below the browser's limit on history updates (every step rewrites the address's ``step=``, once it is painted).

Printed per program: median, p95 and max of key-to-paint for steps and for the baseline, the step's
median over the baseline's, how many steps missed the one-frame target (16 ms at 60 Hz), and the long
tasks (over 50 ms) the page ran while stepping. ``--against`` starts a second app from another checkout
(an export of main, say) and steps both in turn, 10 presses at a time, so a before/after comparison sees
the same machine load (on a shared machine the load moves more than the player does)::

    python bench/bench_player.py                      # every program, 60 steps each
    python bench/bench_player.py -p mlp -n 120
    git archive main | tar -x -C /tmp/main-export && python bench/bench_player.py --against /tmp/main-export
    python bench/bench_player.py -p scalar-287 --trace /tmp/player-trace.json   # a Chrome trace too

Loopback only; the server is always stopped.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.streamlit_client import Server, free_port, healthy, server, stop  # noqa: E402
from lucid.session import share  # noqa: E402
from tests.large_programs import scalar_mlp_source  # noqa: E402

CHROMIUM = os.environ.get("LUCID_CHROMIUM") or "/usr/bin/chromium"
PLAYER = ".st-key-pg_graph .lucid-player"
IDLE = ("[data-testid='stApp'][data-test-connection-state='CONNECTED']"
        "[data-test-script-state='notRunning']")
TARGET_MS = 1000 / 60
VIEWPORT = {"width": 1280, "height": 720}


def program_queries() -> dict[str, str]:
    """Each program's Playground query (Classroom mode)."""
    def code(source: str) -> str:
        return urllib.parse.urlencode({**share.encode(source), "classroom": "1"})
    return {"cs231n": "example=cs231n-sigmoid&classroom=1", "mlp": "example=mlp&classroom=1",
            "scalar-287": code(scalar_mlp_source(samples=5)), "collapsed": code(scalar_mlp_source(samples=10))}


INSTALL = """(sel) => {
    const root = document.querySelector(sel);
    const lp = window.__lucidBench = {last: null, long: 0};
    if (typeof PerformanceObserver !== 'undefined') {
        try {
            new PerformanceObserver((list) => { lp.long += list.getEntries().length; })
                .observe({type: 'longtask'});
        } catch (e) { /* no long-task timing in this browser */ }
    }
    window.addEventListener('keydown', () => {
        const t0 = performance.now();
        const before = root.dataset.step;
        lp.last = new Promise((done) => {
            requestAnimationFrame(() => {
                const frame = performance.now();
                const channel = new MessageChannel();
                channel.port1.onmessage = () => done({ms: performance.now() - t0, frame_ms: frame - t0,
                                                      step: Number(root.dataset.step),
                                                      changed: root.dataset.step !== before});
                channel.port2.postMessage(0);
            });
        });
    }, true);
}"""


@dataclass
class Result:
    name: str
    code: str  # which checkout's player: "this" or "against"
    nodes: int = 0
    steps: int = 0
    step_ms: list[float] = field(default_factory=list)
    baseline_ms: list[float] = field(default_factory=list)
    long_tasks: int = 0


def key_plan(n_steps: int, presses: int) -> Iterator[tuple[str, int]]:
    """(key, step it should show) for ``presses`` steps: forward to the end, back to 0, and Home/End now and then."""
    step, forward, made = 0, True, 0
    while made < presses:
        if made % 15 == 14:
            key, step = ("End", n_steps - 1) if step < n_steps // 2 else ("Home", 0)
        else:
            if forward and step >= n_steps - 1:
                forward = False
            elif not forward and step <= 0:
                forward = True
            key, step = ("ArrowRight", step + 1) if forward else ("ArrowLeft", step - 1)
        made += 1
        yield key, step


def press(tab, key: str) -> dict:
    tab.keyboard.press(key)
    return tab.evaluate("() => window.__lucidBench.last")


def open_program(tab, url: str) -> tuple[int, int]:
    """Open ``url``, wait until the player has settled, install the measurement; (nodes drawn, steps)."""
    tab.goto(url)
    tab.wait_for_selector(f"{PLAYER} g.node.current", timeout=180_000)
    tab.wait_for_selector(IDLE, state="attached", timeout=180_000)
    tab.wait_for_timeout(1500)  # the player's settle passes (0, 250, 800 ms) and the page's own late frames
    tab.evaluate("() => document.activeElement && document.activeElement.blur()")
    tab.evaluate(INSTALL, PLAYER)
    for _ in range(3):  # warm up: the first presses compile the handlers
        press(tab, "Shift")
    press(tab, "Home")
    tab.evaluate("() => { window.__lucidBench.long = 0; }")
    return tuple(tab.eval_on_selector(PLAYER, """el => [el.querySelectorAll('.lucid-svg-host g.node').length,
                                                           Number(el.querySelector('.lucid-step').max) + 1]"""))


def step_block(tab, result: Result, plan: Iterator[tuple[str, int]], presses: int, gap_ms: int) -> None:
    """``presses`` step keys from ``plan``, each followed by a no-op key; samples go into ``result``."""
    tab.bring_to_front()
    tab.evaluate("() => document.activeElement && document.activeElement.blur()")
    for _ in range(presses):
        key, expected = next(plan)
        tab.wait_for_timeout(gap_ms)
        r = press(tab, key)
        if not r["changed"] or r["step"] != expected:
            raise RuntimeError(f"{result.name}: {key} showed step {r['step']}, expected {expected}")
        result.step_ms.append(r["ms"])
        tab.wait_for_timeout(gap_ms)
        r = press(tab, "Shift")
        if r["changed"]:
            raise RuntimeError(f"{result.name}: Shift changed the step")
        result.baseline_ms.append(r["ms"])


def measure(browser, bases: dict[str, str], name: str, query: str, presses: int, gap_ms: int,
            trace: Path | None) -> list[Result]:
    """Step ``name`` on every server in ``bases`` (code -> URL), in interleaved blocks of 10 presses."""
    contexts, tabs, results, plans = [], {}, {}, {}
    try:
        for code, base in bases.items():
            context = browser.new_context(viewport=VIEWPORT)
            contexts.append(context)
            tabs[code] = context.new_page()
            nodes, n_steps = open_program(tabs[code], f"{base}/playground?{query}")
            results[code] = Result(name, code, nodes, n_steps)
            plans[code] = key_plan(n_steps, presses)
        if trace is not None:
            browser.start_tracing(page=tabs["this"], path=str(trace), screenshots=False,
                                  categories=["devtools.timeline", "blink.user_timing", "v8.execute",
                                              "disabled-by-default-devtools.timeline"])
        done = 0
        while done < presses:
            block = min(10, presses - done)
            for code in bases:
                step_block(tabs[code], results[code], plans[code], block, gap_ms)
            done += block
        if trace is not None:
            browser.stop_tracing()
        for code, tab in tabs.items():
            results[code].long_tasks = int(tab.evaluate("() => window.__lucidBench.long"))
        return list(results.values())
    finally:
        for context in contexts:
            context.close()


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def table(results: list[Result]) -> str:
    head = (f"{'program':<11} {'player':<7} {'nodes':>5} {'steps':>5} | {'step median':>11} {'p95':>6} {'max':>6} | "
            f"{'no-op median':>12} {'p95':>6} {'max':>6} | {'ratio':>5} {'>16ms':>6} {'long':>4}")
    lines = [head, "-" * len(head)]
    for r in results:
        s, b = statistics.median(r.step_ms), statistics.median(r.baseline_ms)
        over = sum(1 for v in r.step_ms if v > TARGET_MS)
        lines.append(f"{r.name:<11} {r.code:<7} {r.nodes:>5} {r.steps:>5} | {s:>9.1f}ms {p95(r.step_ms):>6.1f} "
                     f"{max(r.step_ms):>6.1f} | {b:>10.1f}ms {p95(r.baseline_ms):>6.1f} {max(r.baseline_ms):>6.1f} "
                     f"| {s / b if b else float('inf'):>5.2f} {over:>3}/{len(r.step_ms):<2} {r.long_tasks:>4}")
    lines.append(f"target: every step painted within one frame ({TARGET_MS:.1f} ms at 60 Hz) of its key; "
                 "no-op: a key the player ignores (Shift), the floor of waiting for the next frame; "
                 "ratio: step median / no-op median; long: tasks over 50 ms while stepping")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    programs = program_queries()
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("-p", "--program", action="append", choices=sorted(programs),
                    help="a program to step (repeatable; default: all)")
    ap.add_argument("-n", "--presses", type=int, default=60, help="step keys per program (default 60)")
    ap.add_argument("--gap", type=int, default=60, help="ms between presses (default 60)")
    ap.add_argument("--against", type=Path,
                    help="another checkout of the project (e.g. a worktree of main): its app is started too and "
                         "stepped in turn with this one, 10 presses at a time, so both see the same machine load")
    ap.add_argument("--trace", type=Path, help="save a Chrome performance trace of the (last) program's steps")
    ap.add_argument("--json", type=Path, help="also write every sample as JSON")
    a = ap.parse_args(argv)
    names = a.program or list(programs)
    if not Path(CHROMIUM).exists():
        print(f"no Chromium at {CHROMIUM}", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    results: list[Result] = []
    with contextlib.ExitStack() as stack:
        bases = {"this": f"http://127.0.0.1:{stack.enter_context(server()).port}"}
        if a.against is not None:
            bases["against"] = f"http://127.0.0.1:{stack.enter_context(other_server(a.against.resolve())).port}"
        pw = stack.enter_context(sync_playwright())
        browser = pw.chromium.launch(executable_path=CHROMIUM,
                                     args=["--no-sandbox", "--headless=new", "--disable-gpu",
                                           "--disable-dev-shm-usage"])
        stack.callback(browser.close)
        for name in names:
            trace = a.trace if a.trace is not None and name == names[-1] else None
            results += measure(browser, bases, name, programs[name], a.presses, a.gap, trace)
            print(f"{name}: done", file=sys.stderr, flush=True)
    print(table(results))
    if a.json:
        a.json.write_text(json.dumps([r.__dict__ for r in results], indent=1))
    return 0


@contextlib.contextmanager
def other_server(checkout: Path) -> Iterator[Server]:
    """``streamlit run app.py`` of another checkout (its own code and player) on a free loopback port."""
    port = free_port()
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
               "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
               "--server.fileWatcherType", "none"]
    process = subprocess.Popen(command, cwd=checkout, env={**os.environ, "PYTHONPATH": str(checkout)},  # noqa: S603
                               stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not healthy(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the Streamlit server of {checkout} did not start")
            time.sleep(0.2)
        yield Server(port, process)
    finally:
        stop(process)


if __name__ == "__main__":
    sys.exit(main())
