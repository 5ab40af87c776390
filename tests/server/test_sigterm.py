"""A class server stops within seconds of SIGTERM, whatever runs (issue 16, item 7; issue 24, item 9a).

Streamlit interrupts a script only at its ``st`` calls and Python waits for every non-daemon thread before it
exits, so a thread busy in a long computation kept a stopped server alive until SIGKILL. And Streamlit stops
its runtime only after its web server has closed every connection, which a tab that stopped reading keeps
open: a watchdog that waited for the runtime never started its clock. The app's watchdog
(``lucid.ui.runtime.shutdown``, installed by ``app.py``) starts it at the signal and ends the process
``GRACE_SECONDS`` later.

No clock is read against a deadline here (a shared, busy machine stretches every wall-clock bound): each test
asserts what ended the process. A server busy in a computation of ``BUSY_SECONDS`` (30 times the grace) must
end before that computation does (``tests/serve_counted.py`` logs ``<name> busy done`` at its end); a server
held by a stalled tab must end while that tab still holds its connection; the backstop must end its process
with ``faulthandler``'s exit code and its traceback dump. Waits for an end are only guards against a hang.
"""
from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import threading

import pytest

from bench.attack_jacobian import large_input_program, open_forward_mode, toggle_state
from bench.hostile_class import link
from bench.streamlit_client import run_sync, server, session
from lucid.ui.runtime import shutdown
from tests.serve_counted import BUSY_SECONDS, launcher

HANG_GUARD = 2 * BUSY_SECONDS
"""How long a test waits for a stopped server before it reports a hang: longer than the busy work itself, so a
server that was not ended, only finished its work, is told apart by its log, never by a clock."""


def ended_by_its_shutdown(code: int | None, output: str) -> bool:
    """Whether the app's own shutdown ended the server: exit 0 is the watchdog's ``os._exit`` after its grace
    (or a plain exit); exit 1 after ``faulthandler``'s "Timeout (…)!" dump is the backstop the signal armed,
    which ends a process whose watchdog cannot run (on a busy machine the interpreter can already be
    finalizing, which freezes the watchdog's daemon thread). ``None``: still running when the guard ran out."""
    return code == 0 or (code == 1 and "Timeout (" in output)


@pytest.mark.parametrize("where", ["script", "worker"],
                         ids=["in the script thread", "in a worker thread, as the GIF export's dot layouts"])
def test_a_server_ends_on_sigterm_before_the_long_computation_a_session_is_inside(tmp_path, where):
    log = tmp_path / "work.log"
    env = {"LUCID_TEST_BUSY": "load", "LUCID_TEST_BUSY_IN": where,
           "LUCID_WARMUP": "0"}  # the long computation is the session's own, not the warm-up's

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
                return running.process.wait(timeout=HANG_GUARD)
            except subprocess.TimeoutExpired:
                pytest.fail(f"still running {HANG_GUARD:.0f} s after SIGTERM:\n{running.output(2000)}")

    with server(log=tmp_path / "server.log", launcher=launcher(log), env=env) as running:
        code = run_sync(stop_while_busy(running))
        output = running.output(4000)
    assert ended_by_its_shutdown(code, output), output
    assert "load busy done" not in log.read_text().splitlines(), f"it ended only after its {BUSY_SECONDS:.0f} s of work"


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


def exit_code_while_held(running, tabs) -> int | None:
    """SIGTERM the server (its pid only, as a process manager does) and wait for it to end while the ``tabs``
    still hold their connections (``None``: it had not ended when the hang guard ran out); then drop the
    connections at once (a closing handshake with a dead server waits for its timeout)."""
    os.kill(running.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        running.process.wait(timeout=HANG_GUARD)
    code = running.process.poll()
    for tab in tabs:
        tab.ws.transport.abort()
    return code


async def wait_for_lines(log, line: str, count: int, running) -> None:
    for _ in range(1200):
        if log.exists() and log.read_text().splitlines().count(line) >= count:
            return
        await asyncio.sleep(0.1)
    pytest.fail(f"the sessions never reached their builds:\n{running.output(2000)}")


def test_a_server_ends_on_sigterm_before_the_three_heavy_builds_it_runs(tmp_path):
    log = tmp_path / "work.log"
    # each Jacobian build spins a minute in a worker thread the script waits for (Python joins those at exit)
    env = {"LUCID_TEST_BUSY": "shared_comparison", "LUCID_TEST_BUSY_IN": "worker"}

    async def three_builds_then_sigterm(running) -> int | None:
        async with contextlib.AsyncExitStack() as stack:
            tabs = []
            for k in range(3):
                tab = await stack.enter_async_context(session(running.port, query=link(f"x = randn(3) + {k}\nx.sum()")))
                await tab.run()
                await open_forward_mode(tab)  # folded, the panel draws nothing: its toggle is inside
                toggle_state(tab, True)
                await tab.rerun()  # "Build the whole Jacobian both ways"
                tabs.append(tab)
            await wait_for_lines(log, "shared_comparison busy", 3, running)
            return exit_code_while_held(running, tabs)

    with server(log=tmp_path / "server.log", launcher=launcher(log), env=env) as running:
        code = run_sync(three_builds_then_sigterm(running))
        output = running.output(2000)
    assert ended_by_its_shutdown(code, output), output
    assert "shared_comparison busy done" not in log.read_text().splitlines(), f"a build ran to its end\n{output}"


def test_a_server_ends_on_sigterm_while_a_tab_that_stopped_reading_still_holds_its_connection(tmp_path):
    """Before the signal started the clock this server was still running 30 s after SIGTERM: its web server
    waited for the stalled tab's connection to close before it stopped the runtime, the watchdog's trigger."""
    async def stall_then_sigterm(running) -> int | None:
        async with session(running.port, query=link(large_input_program(ops=360))) as tab:
            await tab.run()  # a 363-step graph: every run sends the whole player again
            tab.ws.transport.pause_reading()  # the tab stops reading; the server's messages back up
            for _ in range(20):
                await tab.rerun()
                await asyncio.sleep(0.2)
            await asyncio.sleep(1.0)
            return exit_code_while_held(running, [tab])

    with server(log=tmp_path / "server.log") as running:
        code = run_sync(stall_then_sigterm(running))
        output = running.output(2000)
    assert ended_by_its_shutdown(code, output), output  # while the stalled tab still held its connection


def test_the_signal_handler_starts_the_clock_and_hands_the_signal_on(monkeypatch):
    signalled, handed = threading.Event(), []
    monkeypatch.setattr(shutdown, "_signalled", signalled)
    armed = []
    monkeypatch.setattr(shutdown.faulthandler, "dump_traceback_later",
                        lambda seconds, exit: armed.append((seconds, exit)))
    handler = shutdown.chain_handler(lambda number, frame: handed.append(number))
    handler(signal.SIGTERM, None)
    handler(signal.SIGTERM, None)  # a second signal is handed on too, the backstop armed once
    assert signalled.is_set() and handed == [signal.SIGTERM, signal.SIGTERM]
    assert armed == [(shutdown.GRACE_SECONDS + shutdown.BACKSTOP_SECONDS, True)]


def test_a_signal_wakes_the_watchdog_before_the_runtime_stops(monkeypatch):
    signalled, ended = threading.Event(), threading.Event()
    monkeypatch.setattr(shutdown, "_signalled", signalled)
    watchdog = shutdown.watch(lambda: False, grace=0.05, poll=30, end=ended.set)  # the runtime never stops
    assert not ended.wait(0.1)
    signalled.set()
    assert ended.wait(10)  # woken by the signal, not by its next poll 30 s later
    watchdog.join(10)


def test_the_backstop_ends_a_process_whose_watchdog_cannot_run():
    """A thread that holds the GIL in one long C call freezes every Python thread, the watchdog too; the
    ``faulthandler`` timer the signal armed is a C thread and ends the process anyway."""
    child = subprocess.Popen([sys.executable, "-c", (  # noqa: S603 - our own interpreter and code
        "import os, signal, threading, time\n"
        "from lucid.ui.runtime import shutdown\n"
        "signal.signal(signal.SIGTERM, shutdown.chain_handler(lambda n, f: None, grace=0.5, backstop=0.5))\n"
        "shutdown.watch(lambda: False, grace=0.5, end=lambda: os._exit(0))\n"  # would exit 0: it never gets the GIL
        "print('ready', flush=True)\n"
        "while not shutdown.stopping():\n"  # the handler runs in the main thread, the watchdog wakes...
        "    time.sleep(0.01)\n"
        "threading.Thread(target=lambda: sum(range(10**12))).start()\n"  # ...then one C call that keeps the GIL
        "time.sleep(60)\n")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": os.getcwd()})
    try:
        assert child.stdout.readline().strip() == "ready", child.stderr.read()
        child.send_signal(signal.SIGTERM)
        code = child.wait(timeout=HANG_GUARD)  # the C call it is in would take hours
        stderr = child.stderr.read()
    finally:
        child.kill()
        child.wait()
    # faulthandler's exit (the watchdog's would be 0), after its dump of every thread, armed at grace + backstop
    assert code == 1 and "Timeout (0:00:01)!" in stderr, stderr
