"""What the browser tests wait on: Streamlit's own run state and the graph's frame id, never the clock.

Streamlit marks its root element with the script's run state
(``data-test-script-state``: ``running``, ``rerunRequested``, ``notRunning``)
and the websocket's state (``data-test-connection-state``). Its "running" status
widget is no substitute: it only appears after half a second of running, so a
short run never shows it. And "not running" is also true in the instant between
a click and the rerun it asks for, so after an action the tests first wait for
the action's own visible effect (a new SVG frame, a new text), then for the
run to finish.

The Playground's graph component keeps the id of the SVG it shows in
``.lucid-svg-host[data-frame]``; a redraw is that id changing.
"""
from __future__ import annotations

import contextlib
import urllib.parse
from collections.abc import Callable

from playwright.sync_api import TimeoutError as PlaywrightTimeout

IDLE = ("[data-testid='stApp'][data-test-connection-state='CONNECTED']"
        "[data-test-script-state='notRunning']")
FRAME_HOST = ".lucid-svg-host"

SLOW = 120_000
"""Milliseconds allowed for anything the server computes (a page's main result, a fresh server's first run)."""


def wait_until_idle(page, timeout: float = SLOW) -> None:
    """Wait until the session is connected and no script or fragment run is going on or asked for."""
    page.wait_for_selector(IDLE, state="attached", timeout=timeout)


def frame_id(page, scope: str = "") -> str | None:
    """Id of the SVG frame the graph component shows now (None before the first one)."""
    return page.evaluate("sel => document.querySelector(sel)?.dataset.frame ?? null", f"{scope} {FRAME_HOST}".strip())


def wait_for_new_frame(page, old: str | None, scope: str = "", timeout: float = SLOW) -> str:
    """Wait until the graph shows a frame other than ``old``; return the new frame id."""
    selector = f"{scope} {FRAME_HOST}".strip()
    page.wait_for_function("([sel, old]) => { const f = document.querySelector(sel)?.dataset.frame;"
                           " return f !== undefined && f !== old; }", arg=[selector, old], timeout=timeout)
    return frame_id(page, scope)


def after_paint(page) -> None:
    """Wait until the browser has painted what the last layout change produced (two animation frames)."""
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


def retry_idempotent(action: Callable[[], None], done: Callable[[float], bool], *, attempts: int = 3,
                     each_timeout: float = 30_000) -> None:
    """Do ``action`` until ``done(timeout_ms)`` reports its effect, at most ``attempts`` times.

    Only for actions that mean the same thing when repeated (clicking a graph node selects
    that node again): a click that lands while Streamlit swaps the element during a rerun
    can be lost, and repeating it is what a person would do. ``done`` waits up to the
    timeout it is given and returns whether the effect appeared.
    """
    for _ in range(attempts):
        action()
        if done(each_timeout):
            return
    raise AssertionError(f"no effect after {attempts} attempts of {getattr(action, '__name__', action)!r}")


def url_step(page, expected: int | None = None, timeout: float = 10_000) -> int | None:
    """The ``step=`` of the page's address (None without one); with ``expected``, once it says that or after
    ``timeout`` ms: the player rewrites the address after it has painted the step, not in the key press."""
    def step_of(url: str) -> int | None:
        values = urllib.parse.parse_qs(urllib.parse.urlparse(url).query).get("step")
        return int(values[0]) if values else None

    if expected is not None:
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_url(lambda url: step_of(url) == expected, timeout=timeout)
    return step_of(page.url)
