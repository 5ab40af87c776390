"""A class server stops within 5 s of SIGTERM, even with a session inside a long computation (issue 16, item 7).

Streamlit interrupts a script only at its ``st`` calls and Python waits for every script thread before it
exits, so a thread busy in a long computation kept a stopped server alive until SIGKILL. The app's
watchdog (``lucid.ui.shutdown``, installed by ``app.py``) ends the process shortly after the runtime stops.
"""
from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import threading

import pytest

from bench.streamlit_client import run_sync, server, session
from lucid.ui import shutdown
from tests.serve_counted import BUSY_SECONDS, launcher


@pytest.mark.parametrize("where", ["script", "worker"],
                         ids=["in the script thread", "in a worker thread, as the GIF export's dot layouts"])
def test_a_server_stops_within_5_s_of_sigterm_while_a_session_is_inside_a_long_computation(tmp_path, where):
    log = tmp_path / "work.log"
    env = {"LUCID_TEST_BUSY": "load", "LUCID_TEST_BUSY_IN": where}

    async def stop_while_busy(running) -> int:
        async with session(running.port, page="train_mlp") as student:
            await student.rerun()  # the page's first shared work (the dataset) now spins for a minute
            for _ in range(1200):
                if log.exists() and "load busy" in log.read_text().splitlines():
                    break
                await asyncio.sleep(0.1)
            else:
                pytest.fail(f"the session never reached the long computation:\n{running.output(2000)}")
            os.kill(running.pid, signal.SIGTERM)
            try:
                return running.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pytest.fail(f"still running 5 s after SIGTERM, with {BUSY_SECONDS:.0f} s of work left to do")

    with server(log=tmp_path / "server.log", launcher=launcher(log), env=env) as running:
        code = run_sync(stop_while_busy(running))
    assert code == 0


def test_the_watchdog_waits_for_the_runtime_to_stop_then_gives_the_grace_period():
    stopped, ended = threading.Event(), threading.Event()
    watchdog = shutdown.watch(stopped.is_set, grace=0.05, poll=0.01, end=ended.set)
    assert not ended.wait(0.1)  # a running server is left alone
    stopped.set()
    assert ended.wait(30) and shutdown.stopping()
    watchdog.join(30)
    assert not watchdog.is_alive() and watchdog.daemon


def test_no_watchdog_without_a_real_server():
    assert shutdown.install() is False  # bare mode (and AppTest's mock runtime): nothing to watch, nothing ended


def test_the_watchdog_finds_the_dot_layouts_this_process_started():
    child = subprocess.Popen(["sleep", "30"])  # noqa: S607 - stands in for a `dot` layout still running
    try:
        assert child.pid in shutdown.children_of_this_process()
    finally:
        child.kill()
        child.wait()
    assert child.pid not in shutdown.children_of_this_process()
