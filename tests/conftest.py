"""Shared test setup: make the project root importable, and keep the tests' class rooms out of the real data folder.

Rooms persist in an SQLite file (``ui.live_class.room_service``); the tests (and every server they start, which inherit
the environment) keep theirs in a folder of their own, made anew for each run (for each pytest-xdist worker: every
worker is a process of its own and imports this file).

The suite runs on pytest-xdist's workers (pyproject's ``addopts``) with ``--dist loadgroup``: tests are handed out
one at a time, except that the tests of a module sharing a module-scoped fixture (a server under attack, an
executed notebook, a computed animation) form a group that runs on one worker, so the fixture is made once.
"""
import os
import sys
import tempfile
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# Made anew in every process that imports this file, never inherited: pytest-xdist's workers are children of the
# controller (which imports it too), and sharing one room store across workers let one worker's classes count
# against another's limits (``rooms_per_address``) while their tests ran at the same time.
_PROCESS = os.environ.get("PYTEST_XDIST_WORKER", "main")
os.environ["LUCID_DATA_DIR"] = tempfile.mkdtemp(prefix=f"lucid-test-data-{_PROCESS}-")
# No background warm-up of the lesson pages in the tests' app runs and servers (lucid.ui.runtime.warmup): each test
# computes what it asks for, on a machine the other tests share; the warm-up's own tests switch it on.
os.environ.setdefault("LUCID_WARMUP", "0")

E2E = Path(__file__).resolve().parent / "e2e"
E2E_RERUNS = 1
SHARED_SCOPES = ("module", "package", "class")


def _shares_a_fixture(item: pytest.Item) -> bool:
    """Whether the test uses a fixture made once for more tests than itself, but not once per process."""
    definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    return any(d.scope in SHARED_SCOPES for defs in definitions.values() for d in defs)


SERVERS = Path(__file__).resolve().parent / "server"
"""Tests that drive a real ``streamlit run`` server for minutes: handed out first, so that the other workers
fill in around them instead of one worker running them alone at the end."""


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than the cores (pyproject's ``--maxprocesses`` caps it). A browser test's worker
    mostly waits on its Chromium and its server; with only one worker per core, a 2-core machine sat about half idle
    while the browser tests ran."""
    return len(os.sched_getaffinity(0)) + 1


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups off the items
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if E2E in item.path.parents:
            item.add_marker(pytest.mark.e2e)  # every test in tests/e2e drives a real browser
            # A real browser against a real server on a shared 2-core machine: one test in a few hundred full runs
            # outwaits even these timeouts. It runs once more and is listed as RERUN in the summary (a failure
            # that is the code's fails both times); the rest of the suite is never rerun.
            item.add_marker(pytest.mark.flaky(reruns=E2E_RERUNS, reruns_delay=2))
        if _shares_a_fixture(item) and not any(item.iter_markers("xdist_group")):
            item.add_marker(pytest.mark.xdist_group(item.module.__name__ if item.module else item.path.stem))
    items.sort(key=lambda item: SERVERS not in item.path.parents)  # stable: each module keeps its order


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> object:
    """A failure is reported as a failure even when its traceback cannot be formatted.

    CPython 3.11 before 3.11.9 keeps the ``ast`` module's recursion count in shared state (CPython gh-106905): when
    pytest parses a failing test's source while another thread parses too (an app script still running in an
    AppTest thread after a timeout, Streamlit's magic parsing its page), ``ast.parse`` raises ``SystemError``, and
    under pytest-xdist that crashes the whole worker and ends the run. The report is made again once the other parse
    is over, and as plain text if it still fails.
    """
    try:
        return (yield)
    except SystemError as err:
        from _pytest.reports import TestReport

        for _ in range(3):
            time.sleep(0.2)
            try:
                return TestReport.from_item_and_call(item, call)
            except SystemError:
                continue
        text = _plain_failure(call, err)
        return TestReport(item.nodeid, item.location, {}, "failed", text, call.when, duration=call.duration,
                          start=call.start, stop=call.stop)


def _plain_failure(call: pytest.CallInfo, formatting_error: BaseException) -> str:
    """The failure's frames as ``file:line in function`` and its message, without reading any source."""
    lines = []
    excinfo = call.excinfo
    if excinfo is not None:
        tb = excinfo.tb
        while tb is not None:
            code = tb.tb_frame.f_code
            lines.append(f"{code.co_filename}:{tb.tb_lineno} in {code.co_name}")
            tb = tb.tb_next
        lines.append(f"{excinfo.typename}: {excinfo.value}")
    lines.append(f"(the traceback could not be formatted: {formatting_error})")
    return "\n".join(lines)
