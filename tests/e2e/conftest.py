"""Real-browser fixtures: a Streamlit server on a free port and Debian's headless Chromium.

The server is started by the tests themselves (``streamlit run app.py``) and
waited on through ``/_stcore/health``; Playwright drives the system Chromium,
never a downloaded one. Everything waits on elements and conditions, not on
network idle (Streamlit keeps a websocket open forever).
"""
from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("LUCID_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = ROOT / "artifacts"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1) as r:
            return r.read() == b"ok"
    except OSError:
        return False


@contextlib.contextmanager
def streamlit_server(log_name: str = "e2e-server.log") -> Iterator[str]:
    """Start ``streamlit run app.py`` on a free port, wait for its health check, stop it afterwards."""
    port = _free_port()
    ARTIFACTS.mkdir(exist_ok=True)
    log = ARTIFACTS / log_name
    with open(log, "wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
             "--server.port", str(port), "--browser.gatherUsageStats", "false",
             "--server.fileWatcherType", "none"],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 90
            while not _healthy(port):
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"streamlit did not become healthy; see {log}")
                time.sleep(0.2)
            yield f"http://127.0.0.1:{port}"
        finally:
            server.terminate()
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()


@pytest.fixture(scope="session")
def app_url() -> Iterator[str]:
    """Base URL of a ``streamlit run app.py`` shared by the whole test session."""
    with streamlit_server() as url:
        yield url


@pytest.fixture()
def fresh_app_url() -> Iterator[str]:
    """A server no browser has visited yet (first requests behave differently in Streamlit)."""
    with streamlit_server("e2e-fresh-server.log") as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM,
                              args=["--no-sandbox", "--headless=new", "--disable-gpu", "--disable-dev-shm-usage"])
        yield b
        b.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """Remember each phase's report on the test item, so ``tab`` can photograph failures."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture()
def tab(browser, request):
    """A fresh browser tab (own Streamlit session) at 1400×950, not yet pointed anywhere.

    When the test fails, the tab's last state is saved as ``artifacts/e2e-failure-<test>.png``.
    """
    context = browser.new_context(viewport={"width": 1400, "height": 950})
    new_tab = context.new_page()
    new_tab.set_default_timeout(45_000)
    yield new_tab
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        ARTIFACTS.mkdir(exist_ok=True)
        try:
            new_tab.screenshot(path=str(ARTIFACTS / f"e2e-failure-{request.node.name}.png"))
        except Exception as err:  # noqa: BLE001 - a failed picture must not hide the test's own failure
            print(f"could not save the failure screenshot: {err}")
    context.close()


@pytest.fixture()
def page(tab, app_url):
    """A fresh tab for the shared server (``app_url``)."""
    return tab
