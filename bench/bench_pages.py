"""First visit of every page: from a fresh server (cold, and once its warm-up is done), and on a warm server.

**First visits** (the default, ``--first-visit``): each page gets a server of its own, started for it,
and one new session, spoken to with ``bench.streamlit_client`` (a websocket client that follows the
page's fragment timers the way the browser does). Twice per page:

- **cold**: the page is opened as soon as the server answers its health check (the warm-up has just begun);
- **warmed**: one Playground visit (the server's first script run starts its warm-up), then the page is
  opened once the server's log says the warm-up of the default experiments is done (``WARMED``), or after
  ``--warm-timeout`` seconds without that line (a server without a warm-up: as warmed as one Playground
  visit makes it).

For each: **render**, the seconds to the first run's script-finished message (the page is drawn: titles,
text, controls, a placeholder where an experiment is still computing), and **shown**, the seconds until
the page's experiment is on screen (``EXPERIMENT``: the same text a reader waits for), both beside the
1 s target. Every visit also counts the tracebacks shown (there must be none)::

    python bench/bench_pages.py                      # first visits of every page, cold and warmed
    python bench/bench_pages.py -p gradient_check -r 3

**Warm server** (``--warm-server``): a class opening the pages one after another on one server.

A class opens the pages one after another, each in a fresh session; a page whose shared work
is already done (by the teacher, by an earlier student) should load as fast as the Playground.
This starts its own ``streamlit run app.py`` on a free loopback port (``bench_load.server``),
warms it by opening every page once, then for each page measures a first load in a NEW session:

- **server**: the time from the websocket rerun request to Streamlit's script-finished message,
  speaking Streamlit's protocol (``bench.streamlit_client.session``: one tab = one session);
- **browser**: the time from ``goto`` until the page's main content is visible, in Debian's headless
  Chromium driven by Playwright (a new browser context per load: no cookies, no cache); beside it the
  time to the page's first heading, the floor every page pays for Streamlit's own frontend.

Each measurement is the median of ``--repeats`` loads, and every page is printed beside the
Playground's load, measured in the same process, with the ratio (the machine is shared, so the
ratio says more than the seconds)::

    python bench/bench_pages.py --warm-server                    # every page, server and browser
    python bench/bench_pages.py --warm-server --no-browser -r 5  # server side only
    python bench/bench_pages.py --warm-server -p train_mlp -p pitfalls

Loopback only; every wait is bounded by ``--timeout``. Asserts nothing: speed is printed, not tested.
"""
from __future__ import annotations

import argparse
import asyncio
import math
import os
import shutil
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.streamlit_client import run_sync, server, session  # noqa: E402

BASELINE = "playground"
MAIN_CONTENT = {
    # url path -> what must be visible before the page counts as loaded (its main result; the last one
    # when the page computes several, so the whole page is in)
    "playground": [".lucid-svg-host svg"],
    "gradient_check": ["text=/All 3 inputs agree/"],
    "train_mlp": ["[data-testid='stVegaLiteChart']", "text=/nodes per step/"],
    "pitfalls": ["[data-testid='stGraphVizChart'] svg, [data-testid='stImage'] svg, [data-testid='stImage'] img",
                 "text=/RecursionError/"],
    "broadcasting": ["text=/lucid's backward gives the same/"],
    "op_reference": ["text=/differentiable ops agree with central differences/"],
}
EXPERIMENT = {
    # url path -> what a first visit waits for on the server side: each needle is an element type or a piece of
    # text of one element the server sent (the page's main results, the last of them when it computes several)
    "playground": ["bidi_component"],
    "gradient_check": ["All 3 inputs agree", "vega_lite_chart"],
    "train_mlp": ["final loss", "nodes per step", "drawn on the server in"],
    "pitfalls": ["imgs", "RecursionError"],
    "broadcasting": ["backward gives the same"],
    "op_reference": ["differentiable ops agree with central differences"],
}
TARGET = 1.0
"""Seconds a first visit may take, to the page drawn and to its experiment shown."""
WARMED = "page warm-up done"
"""What the server's log says once the default experiments of every page are computed (``lucid.ui.runtime.warmup``)."""
SHELL = "[data-testid='stMain'] [data-testid='stHeading'], [data-testid='stMain'] [data-testid='stMarkdownContainer']"
"""The first heading or text of any page: the frontend is loaded and the run's first elements are drawn."""
CHROMIUM = os.environ.get("LUCID_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


@dataclass
class Row:
    page: str
    server: list[float] = field(default_factory=list)
    browser: list[float] = field(default_factory=list)
    shell: list[float] = field(default_factory=list)
    cached: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def server_load(port: int, page: str, timeout: float) -> float:
    """Seconds from the rerun request of a new session's first run of ``page`` to its script-finished message."""
    async def first_run() -> tuple[float, list[str]]:
        async with session(port, page=page, timeout=timeout) as tab:
            start = time.perf_counter()
            run = await tab.run(timeout=timeout)
            return time.perf_counter() - start, run.exceptions

    seconds, errors = run_sync(first_run())
    if errors:
        raise RuntimeError(f"/{page}: {errors[0]}"[:200])
    return seconds


def browser_load(browser, url: str, page: str, timeout: float, context=None) -> tuple[float, float]:
    """Seconds from ``goto`` to the first heading or text drawn (the app's shell is up: the floor any page pays)
    and to every main-content element of ``page`` visible. In a new tab of ``context`` (a new session with
    that context's HTTP cache), or of a new context (nothing cached) when none is given."""
    own = context is None
    context = browser.new_context(viewport={"width": 1280, "height": 720}) if own else context
    tab = context.new_page()
    try:
        tab.set_default_timeout(timeout * 1000)
        start = time.perf_counter()
        tab.goto(f"{url}/{page}", wait_until="commit")
        tab.locator(SHELL).first.wait_for(state="visible")
        shell = time.perf_counter() - start
        for selector in MAIN_CONTENT[page]:
            tab.locator(selector).first.wait_for(state="visible")
        seconds = time.perf_counter() - start
        if tab.locator("[data-testid='stException']").count():
            raise RuntimeError(f"/{page}: an exception is shown")
        return shell, seconds
    finally:
        tab.close()
        if own:
            context.close()


def measure(pages: list[str], *, repeats: int, browser_too: bool, timeout: float) -> list[Row]:
    rows = {page: Row(page) for page in pages}
    with server() as running:
        port = running.port
        url = f"http://127.0.0.1:{port}"
        for page in pages:  # warm: every page's shared work done once, as by the teacher before class
            server_load(port, page, timeout)
        for _ in range(repeats):
            for page in pages:
                try:
                    rows[page].server.append(server_load(port, page, timeout))
                except Exception as err:  # noqa: BLE001 - reported in the table
                    rows[page].errors.append(f"server: {err}"[:200])
        if browser_too:
            from playwright.sync_api import sync_playwright

            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM,
                                            args=["--no-sandbox", "--headless=new", "--disable-gpu"])
                returning = browser.new_context(viewport={"width": 1280, "height": 720})
                try:
                    for page in pages:  # warm the browser too; a returning student has every page's scripts cached
                        try:
                            browser_load(browser, url, page, timeout)
                            browser_load(browser, url, page, timeout, context=returning)
                        except Exception as err:  # noqa: BLE001 - the measured loads will say it again
                            print(f"warm-up /{page}: {err}"[:200], file=sys.stderr)
                    for _ in range(repeats):
                        for page in pages:
                            try:
                                shell, seconds = browser_load(browser, url, page, timeout)
                                rows[page].shell.append(shell)
                                rows[page].browser.append(seconds)
                                rows[page].cached.append(browser_load(browser, url, page, timeout, returning)[1])
                            except Exception as err:  # noqa: BLE001 - reported in the table
                                rows[page].errors.append(f"browser: {err}"[:200])
                finally:
                    returning.close()
                    browser.close()
    return [rows[page] for page in pages]


@dataclass
class Visit:
    page: str
    render: list[float] = field(default_factory=list)  # cold, then warmed: seconds to the first script-finished
    shown: list[float] = field(default_factory=list)  # cold, then warmed: seconds to the experiment on screen
    warm_up: float = float("nan")  # seconds from the Playground visit that starts the warm-up to its log line
    errors: list[str] = field(default_factory=list)


def _has(elements: list, needle: str) -> bool:
    return any(e.WhichOneof("type") == needle or needle in str(e) for e in elements)


def first_visit(port: int, page: str, timeout: float) -> tuple[float, float]:
    """A new session's first visit of ``page``: seconds to its first run's end, and to its experiment shown.

    While the experiment is missing, the visit does what the browser does: it reruns each fragment the page
    set a timer for (``st.fragment(run_every=…)``) when the timer fires, and reads every run that follows
    (a fragment that finds its result ready reruns the whole page).
    """
    async def visit() -> tuple[float, float]:
        async with session(port, page=page, timeout=timeout) as tab:
            start = time.perf_counter()
            run = await tab.run(timeout=timeout)
            render = time.perf_counter() - start
            elements = list(run.elements)
            errors = list(run.exceptions)
            while not all(_has(elements, n) for n in EXPERIMENT[page]):
                if errors or time.perf_counter() - start > timeout:
                    break
                if not tab.auto_reruns:
                    raise RuntimeError(f"/{page}: the experiment is missing and nothing will fill it in")
                fragment, interval = min(tab.auto_reruns.items(), key=lambda item: item[1])
                await asyncio.sleep(interval)
                timers = dict(tab.auto_reruns)
                tab.auto_reruns.clear()  # a full run sets its timers anew (the browser clears them too)
                await tab.ws.send(tab.fragment_message(fragment))
                run = await tab.finish(timeout)
                errors += run.exceptions
                if run.fragment:  # the fragment redrew its own part: the timers run on
                    elements += run.elements
                    tab.auto_reruns.update(timers)
                else:  # the fragment reran the whole page
                    elements = list(run.elements)
            if errors:
                raise RuntimeError(f"/{page}: {errors[0]}"[:200])
            if not all(_has(elements, n) for n in EXPERIMENT[page]):
                raise RuntimeError(f"/{page}: the experiment was not shown within {timeout:.0f} s")
            return render, time.perf_counter() - start

    return run_sync(visit())


def _warmed(log: Path, limit: float) -> float:
    """Seconds until the server's log says the warm-up is done (NaN when it does not within ``limit``)."""
    start = time.monotonic()
    while time.monotonic() - start < limit:
        if log.exists() and WARMED in log.read_text(errors="replace"):
            return time.monotonic() - start
        time.sleep(0.1)
    return float("nan")


def first_visits(pages: list[str], *, repeats: int, timeout: float, warm_timeout: float) -> list[Visit]:
    """Each page's first visit on a server started for it: cold, then on another once its warm-up is done."""
    import tempfile

    visits = {page: Visit(page) for page in pages}
    cold: dict[str, list[tuple[float, float]]] = {page: [] for page in pages}
    warm: dict[str, list[tuple[float, float]]] = {page: [] for page in pages}
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as scratch:
        for k in range(repeats):
            for page in pages:
                for mode, into in (("cold", cold), ("warmed", warm)):
                    data = Path(scratch) / f"data-{page}-{mode}-{k}"  # no disk cache from an earlier server
                    log = Path(scratch) / f"{page}-{mode}-{k}.log"
                    try:
                        with server(log=log, env={"LUCID_DATA_DIR": str(data)}) as running:
                            if mode == "warmed":  # one Playground visit starts the server's warm-up (app.py)
                                start = time.monotonic()
                                first_visit(running.port, BASELINE, timeout)
                                if not math.isnan(_warmed(log, warm_timeout)):
                                    visits[page].warm_up = time.monotonic() - start
                            into[page].append(first_visit(running.port, page, timeout))
                    except Exception as err:  # noqa: BLE001 - reported in the table
                        visits[page].errors.append(f"{mode}: {err}"[:200])
    for page, visit in visits.items():
        for runs in (cold[page], warm[page]):
            visit.render.append(_median([r for r, _ in runs]))
            visit.shown.append(_median([s for _, s in runs]))
    return [visits[page] for page in pages]


def first_visit_table(visits: list[Visit]) -> str:
    """One line per page: seconds to the page drawn and to its experiment shown, cold and warmed, each against
    the target."""
    def cell(seconds: float) -> str:
        verdict = "ok" if seconds <= TARGET else "NO"  # NaN (not measured) is NO
        return f"{seconds:>6.2f} {verdict:<2}"

    head = (f"{'page':<16} {'cold render':>11} {'cold shown':>11} {'warm render':>11} {'warm shown':>11} "
            f"{'warm-up s':>9} {'errors':>6}")
    lines = [head, "-" * len(head)]
    for v in visits:
        lines.append(f"{v.page:<16} {cell(v.render[0]):>11} {cell(v.shown[0]):>11} {cell(v.render[1]):>11} "
                     f"{cell(v.shown[1]):>11} {v.warm_up:>9.1f} {len(v.errors):>6}")
    errors = sorted({e for v in visits for e in v.errors})
    return "\n".join(lines + [f"target: {TARGET:g} s to render and to show"] + [f"error: {e}" for e in errors[:5]])


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def table(rows: list[Row]) -> str:
    """One line per page: median seconds on the server and in the browser, each beside the baseline's ratio."""
    base = next((r for r in rows if r.page == BASELINE), None)
    base_server = _median(base.server) if base else float("nan")
    base_browser = _median(base.browser) if base else float("nan")
    base_cached = _median(base.cached) if base else float("nan")
    head = (f"{'page':<16} {'server s':>9} {'÷ ' + BASELINE:>13} {'1st text s':>10} {'browser s':>10} "
            f"{'÷ ' + BASELINE:>13} {'cached s':>9} {'÷ ' + BASELINE:>13} {'≤ 2 s new/cached':>16} {'errors':>6}")
    lines = [head, "-" * len(head)]
    for r in rows:
        s, b, c = _median(r.server), _median(r.browser), _median(r.cached)
        within = "/".join("yes" if max(s, x) <= 2.0 else "NO" for x in (b, c))  # NaN (not measured) is NO
        lines.append(f"{r.page:<16} {s:>9.2f} {s / base_server:>12.1f}× {_median(r.shell):>10.2f} {b:>10.2f} "
                     f"{b / base_browser:>12.1f}× {c:>9.2f} {c / base_cached:>12.1f}× "
                     f"{within:>16} {len(r.errors):>6}")
    errors = sorted({e for r in rows for e in r.errors})
    return "\n".join(lines + [f"error: {e}" for e in errors[:5]])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-p", "--page", action="append", choices=list(MAIN_CONTENT),
                    help="a page to measure (repeatable; default every page); the baseline is always measured")
    ap.add_argument("-r", "--repeats", type=int, default=None,
                    help="loads per page and side (the median is shown; default 1 first visit, 3 warm-server loads)")
    ap.add_argument("--warm-server", action="store_true",
                    help="a class on one warm server (server and browser) instead of first visits of fresh servers")
    ap.add_argument("--no-browser", action="store_true", help="with --warm-server: measure the server side only")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds allowed per load")
    ap.add_argument("--warm-timeout", type=float, default=60.0,
                    help="seconds to wait for the warm-up's log line before a warmed first visit")
    a = ap.parse_args(argv)
    pages = [BASELINE] + [p for p in (a.page or MAIN_CONTENT) if p != BASELINE]
    if not a.warm_server:
        repeats = a.repeats or 1
        visits = first_visits(pages, repeats=repeats, timeout=a.timeout, warm_timeout=a.warm_timeout)
        print(f"{os.cpu_count()} CPUs · load average {os.getloadavg()[0]:.1f} · median of {repeats} first visits "
              "per page, each on a server started for it (cold: at once; warmed: once its warm-up is done)")
        print(first_visit_table(visits))
        return 0
    a.repeats = a.repeats or 3
    rows = measure(pages, repeats=a.repeats, browser_too=not a.no_browser, timeout=a.timeout)
    print(f"{os.cpu_count()} CPUs · load average {os.getloadavg()[0]:.1f} · median of {a.repeats} first loads "
          "per page, each in a new session, on a warm server")
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
