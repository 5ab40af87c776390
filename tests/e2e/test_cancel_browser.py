"""In a real server and browser, a long loop polling ``session_should_stop`` ends when the user clicks or leaves.

Streamlit interrupts a script only inside ``st`` calls, so finite differences (thousands of re-runs, no
``st`` call) kept a core busy after the student had moved on. The probe app stands in for them.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.streamlit_client import free_port, healthy
from tests.e2e.conftest import ACTION_TIMEOUT_MS, ROOT, SERVER_START_SECONDS, _stop

PROBE = Path(__file__).with_name("stop_probe_app.py")


def events(log: Path) -> dict[str, list[str]]:
    """The probe's lines grouped by session, in order."""
    found: dict[str, list[str]] = {}
    for line in (log.read_text().splitlines() if log.exists() else []):
        session, _, event = line.partition(" ")
        found.setdefault(session, []).append(event)
    return found


def wait_until(log: Path, condition, seconds: float = 60) -> dict[str, list[str]]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = events(log)
        if condition(found):
            return found
        time.sleep(0.1)
    pytest.fail(f"the probe's log never got there: {events(log)}")


def ended(session_events: list[str]) -> int:
    return sum(1 for e in session_events if e != "start")


def running(found: dict[str, list[str]]) -> list[str]:
    """Sessions with a run that started and has not ended (with fast reruns, Streamlit starts the next run
    while the old one is still stopping, so their lines interleave)."""
    return [s for s, evs in found.items() if evs.count("start") > ended(evs)]


@pytest.fixture()
def probe_server(tmp_path):
    log = tmp_path / "probe.log"
    port = free_port()
    env = {**os.environ, "LUCID_STOP_PROBE_LOG": str(log), "PYTHONPATH": str(ROOT)}
    with open(tmp_path / "server.log", "wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(PROBE), "--server.headless", "true",
             "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
             "--server.fileWatcherType", "none"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + SERVER_START_SECONDS
            while not healthy(port):
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"the probe server did not start: {(tmp_path / 'server.log').read_text()}")
                time.sleep(0.2)
            yield f"http://127.0.0.1:{port}", log
        finally:
            _stop(server)


def test_a_click_and_a_closed_tab_each_stop_the_loop_at_once(browser, probe_server):
    url, log = probe_server
    context = browser.new_context(viewport={"width": 1000, "height": 700})
    try:
        tab = context.new_page()
        tab.set_default_timeout(ACTION_TIMEOUT_MS)
        tab.goto(url)
        tab.get_by_role("button", name="Again").wait_for()
        found = wait_until(log, lambda f: len(running(f)) == 1 and all(
            evs.count("start") == ended(evs) + 1 for evs in f.values() if evs.count("start") > ended(evs)))
        time.sleep(1.0)
        (session,) = running(found)
        runs_before = found[session].count("start")
        tab.get_by_role("button", name="Again").click()  # a rerun request while the loop runs
        found = wait_until(log, lambda f: f[session].count("start") == runs_before + 1
                           and ended(f[session]) == runs_before)
        assert found[session].count("ran to the end") == 0  # the earlier run was stopped, not finished
        time.sleep(1.0)
    finally:
        context.close()  # the student leaves while the latest run's loop is still going
    found = wait_until(log, lambda f: not running(f))
    stops = [float(e.split()[1]) for evs in found.values() for e in evs if e.startswith("stopped")]
    assert len(stops) == sum(evs.count("start") for evs in found.values())
    assert max(stops) < 30  # nothing ran towards its 60 s end
