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
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.streamlit_client import free_port, healthy

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("LUCID_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = ROOT / "artifacts"
SERVER_START_SECONDS = 120
ACTION_TIMEOUT_MS = 90_000
"""Default for every Playwright wait and action: generous, because CI machines are small and busy."""


def _per_worker(name: str) -> str:
    """``name`` for this pytest-xdist worker (``e2e-server.log`` -> ``e2e-server-gw1.log``): each worker starts
    servers of its own, and two servers writing one log would garble it (and the port check that reads it)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return name
    stem, dot, suffix = name.rpartition(".")
    return f"{stem}-{worker}{dot}{suffix}" if dot else f"{name}-{worker}"


def _stop(server: subprocess.Popen) -> None:
    """Stop the server and anything it started (it leads its own process group), whatever state it is in.

    The group is signalled only while its leader is unreaped, so its id cannot belong to anyone else yet.
    """
    if server.returncode is not None:
        return  # exited and reaped already (it died on start); it started nothing that outlives it
    with contextlib.suppress(ProcessLookupError):
        os.killpg(server.pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if os.waitid(os.P_PID, server.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
            break
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(server.pid, signal.SIGKILL)  # a server that ignored SIGTERM, or a `dot` still rendering
    server.wait()


def _start(log, port: int) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


@contextlib.contextmanager
def streamlit_server(log_name: str = "e2e-server.log") -> Iterator[str]:
    """Start ``streamlit run app.py`` on a free port, wait for its health check, always stop it afterwards.

    A free port can be taken by another program between choosing it and the server binding it;
    then the server exits at once ("Port N is not available") and is started again on another port.
    """
    ARTIFACTS.mkdir(exist_ok=True)
    log = ARTIFACTS / _per_worker(log_name)
    with open(log, "wb") as out:
        for _attempt in range(3):
            port = free_port()
            start_of_attempt = log.stat().st_size
            server = _start(out, port)
            try:
                deadline = time.monotonic() + SERVER_START_SECONDS
                while not healthy(port):
                    if server.poll() is not None:
                        break
                    if time.monotonic() > deadline:
                        pytest.fail(f"streamlit was not healthy after {SERVER_START_SECONDS}s; see {log}")
                    time.sleep(0.2)
                else:
                    yield f"http://127.0.0.1:{port}"
                    return
            finally:
                _stop(server)
            with open(log, "rb") as written:
                written.seek(start_of_attempt)
                if b"is not available" not in written.read():  # Streamlit's words for a taken port
                    break
        pytest.fail(f"streamlit exited before becoming healthy (code {server.returncode}); see {log}")


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


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _unavailable(reason: str) -> None:
    """No browser: fail loudly in CI (which installs one), skip on a developer's machine."""
    if _in_ci():
        pytest.fail(f"CI=true but {reason}; the browser tests must run in CI", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """Debian's headless Chromium, driven by Playwright (never a downloaded browser)."""
    if not Path(CHROMIUM).exists():
        _unavailable(f"Chromium is not installed at {CHROMIUM} (Debian: apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the Python package playwright is not installed (pip install -r requirements-dev.txt)")

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, timeout=ACTION_TIMEOUT_MS,
                              args=["--no-sandbox", "--headless=new", "--disable-gpu", "--disable-dev-shm-usage"])
        yield b
        b.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """Remember each phase's report on the test item, so ``tab`` can photograph failures."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


VIEWPORT = {"width": 1400, "height": 950}
OUTLIVES_THE_PAGE = ("on", "once", "add_init_script", "route", "route_from_har", "expose_function", "expose_binding",
                     "set_extra_http_headers", "emulate_media")
"""What a test can do to a tab that lasts beyond the page it is on: a tab where one of these was done is closed after
the test, not handed to the next."""


class Tabs:
    """This process's browser tab, handed from test to test.

    Each test used to get a new tab in a new context, and each new tab started Streamlit's frontend (about 140
    files, 6 MB of script) in a new renderer with nothing compiled. Measured per Playground load (cgroup CPU, three
    rounds): a new context 5.3-6.0 s, a new tab in a context that had loaded it 2.7 s, a new address in a tab that
    had 1.6-1.8 s. Between tests the tab's storage is cleared and it is sent to ``about:blank``, which ends its
    Streamlit session; its permissions and cookies are taken back. A tab whose test failed, or that was given
    something that outlives its page (``OUTLIVES_THE_PAGE``), is closed and the next test gets a new one.
    Tests that cut a context's network or need a context's own settings open their own (``class_tabs``).
    """

    def __init__(self, context) -> None:
        self.context = context
        self.current = None

    def take(self) -> tuple[object, list[str]]:
        if self.current is None or self.current.is_closed():
            self.current = self.context.new_page()
        tab = self.current
        tab.set_default_timeout(ACTION_TIMEOUT_MS)
        tab.set_default_navigation_timeout(ACTION_TIMEOUT_MS)
        tab.set_viewport_size(VIEWPORT)
        marks: list[str] = []
        for name in OUTLIVES_THE_PAGE:
            setattr(tab, name, self._marking(getattr(tab, name), name, marks))
        return tab, marks

    @staticmethod
    def _marking(method, name: str, marks: list[str]):
        def marked(*args, **kwargs):
            marks.append(name)
            return method(*args, **kwargs)
        return marked

    def give_back(self, tab, marks: list[str], failed: bool) -> None:
        for name in OUTLIVES_THE_PAGE:
            vars(tab).pop(name, None)
        self.context.clear_permissions()  # the clipboard a test was given is not the next test's
        self.context.clear_cookies()
        if not failed and not marks and not tab.is_closed():
            try:
                tab.evaluate("() => { try { sessionStorage.clear(); localStorage.clear(); } catch (e) {} }")
                tab.goto("about:blank")
                return
            except Exception as err:  # noqa: BLE001 - a tab that cannot be cleared is replaced
                print(f"the tab could not be cleared for the next test ({err}); it is replaced")
        if not tab.is_closed():
            tab.close()
        self.current = None


@pytest.fixture(scope="session")
def tabs(browser) -> Iterator[Tabs]:
    """The browser context (and its one reused tab) every ``tab`` of this process is."""
    context = browser.new_context(viewport=VIEWPORT)
    yield Tabs(context)
    context.close()


@pytest.fixture()
def tab(tabs, request):
    """A browser tab (its own Streamlit session, empty storage) at 1400×950, on ``about:blank``.

    When the test fails, the tab's last state is saved as ``artifacts/e2e-failure-<test>.png``.
    """
    new_tab, marks = tabs.take()
    yield new_tab
    report = getattr(request.node, "report_call", None)
    failed = report is not None and report.failed
    if failed:
        ARTIFACTS.mkdir(exist_ok=True)
        try:
            new_tab.screenshot(path=str(ARTIFACTS / f"e2e-failure-{request.node.name}.png"))
        except Exception as err:  # noqa: BLE001 - a failed picture must not hide the test's own failure
            print(f"could not save the failure screenshot: {err}")
    tabs.give_back(new_tab, marks, failed)


@pytest.fixture()
def page(tab, app_url):
    """A fresh tab for the shared server (``app_url``)."""
    return tab
