"""The notebook player in a real JupyterLab and a real Chromium (issue 20).

The test starts JupyterLab itself (``sys.executable -m jupyter lab``) on a free loopback port, without a
token or XSRF check (``--allow-root``: CI runs as root), no update check, extension index or language
servers, in a temporary folder
holding a copy of ``examples/chain_rule.ipynb``, with its own settings, data and workspace folders (nothing
of the user's Jupyter setup is read or written), and starts the notebook's kernel through the REST API.
Chromium opens the notebook, runs every cell, and the widget of ``stepper(f)`` is checked the way a student uses it:

- it renders the graph and the explanation, at the step the notebook set from Python (``player.step = 2``);
- Next changes the explanation in the same moment as the click: the page sends no message to the kernel
  between the click and the new explanation (every websocket frame to the kernel is counted in the page);
- three quick presses send exactly one message to the kernel, a ``comm_msg`` writing the step back
  (``STEP_SYNC_MS`` after the last press), never an ``execute_request``: the measured bound;
- the presenter keys step it while it has the focus;
- a click on a node brings the node inspector's facts from the kernel;
- by keyboard, the graph is one Tab stop walked with ↓/↑ and Enter on a node brings its facts (issue 28).

Screenshots of the widget and of its cell are saved as ``artifacts/e2e-notebook-stepper.png`` and
``artifacts/e2e-notebook-cell.png``.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.streamlit_client import free_port
from tests.e2e.conftest import _stop

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
NOTEBOOK = ROOT / "examples" / "chain_rule.ipynb"
START_SECONDS = 120
SLOW = 180_000
"""Milliseconds for what the kernel computes (starting, importing lucid, drawing with ``dot``) on a busy machine."""

#: Counts every frame the page sends on a kernel's websocket, and the message type each one carries
#: (JSON text, or the binary v1 kernel protocol whose header is JSON text too).
COUNT_KERNEL_FRAMES = """
(() => {
  window.__kernelFrames = [];
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (String(this.url).includes('/api/kernels/')) {
      let text = '';
      if (typeof data === 'string') text = data;
      else {
        try { text = new TextDecoder().decode(data instanceof ArrayBuffer ? new Uint8Array(data) : data); }
        catch (e) { text = ''; }
      }
      const m = /"msg_type"\\s*:\\s*"([a-z_]+)"/.exec(text);
      window.__kernelFrames.push(m ? m[1] : '?');
    }
    return send.call(this, data);
  };
})();
"""
PLAYER = ".jp-OutputArea-output .lucid-widget"
#: No news toast covers the page.
LAB_SETTINGS = {"@jupyterlab/apputils-extension/notification": {"fetchNews": "false"}}
#: Every code cell shows the number of its run ("[3]:"), none is waiting for the kernel ("[*]:").
ALL_RUN = ("() => { const p = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')];"
           " return p.length > 0 && p.every((e) => /\\[[0-9]+\\]/.test(e.textContent)); }")


def _api(url: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(url, data=data, method="GET" if body is None else "POST",  # noqa: S310
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as r:  # noqa: S310
        return json.loads(r.read())


def start_kernel(lab: str, notebook: str) -> None:
    """Start the notebook's kernel through the server's REST API (the page then waits until it is idle).

    Opening a notebook that has no session makes JupyterLab start one while the page is still loading,
    which can race with a Run All; with the session there first, the page simply connects to it.
    """
    session = _api(f"{lab}/api/sessions", {"path": notebook, "type": "notebook", "name": notebook,
                                           "kernel": {"name": "python3"}})
    assert session["kernel"]["name"] == "python3"


def _lab_ready(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status", timeout=2) as r:  # noqa: S310
            return r.status == 200
    except OSError:
        return False


@contextlib.contextmanager
def jupyter_lab(folder: Path) -> Iterator[str]:
    """JupyterLab serving ``folder`` on a free loopback port with no token; always stopped afterwards."""
    ARTIFACTS.mkdir(exist_ok=True)
    for plugin, settings in LAB_SETTINGS.items():
        path = folder / ".settings" / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "JUPYTER_CONFIG_DIR": str(folder / ".config"),
           "JUPYTERLAB_SETTINGS_DIR": str(folder / ".settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(folder / ".workspaces"), "JUPYTER_RUNTIME_DIR": str(folder / ".run"),
           # no kernel spec of the user's can stand in for this interpreter's own "python3" kernel
           "JUPYTER_DATA_DIR": str(folder / ".data")}
    with open(ARTIFACTS / "e2e-jupyterlab.log", "wb") as log:
        port = free_port()
        lab = subprocess.Popen(  # noqa: S603
            [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ServerApp.ip=127.0.0.1",
             f"--ServerApp.port={port}", "--ServerApp.port_retries=0", "--IdentityProvider.token=",
             "--ServerApp.password=", f"--ServerApp.root_dir={folder}", "--LabApp.news_url=",
             "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", "--LabApp.extension_manager=readonly",
             "--ServerApp.terminals_enabled=False", "--ServerApp.jpserver_extensions={'jupyter_lsp': False}",
             "--ServerApp.disable_check_xsrf=True", "--allow-root"],
            cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + START_SECONDS
            while not _lab_ready(port):
                if lab.poll() is not None:
                    pytest.fail("jupyter lab exited before answering; see artifacts/e2e-jupyterlab.log")
                if time.monotonic() > deadline:
                    pytest.fail(f"jupyter lab did not answer within {START_SECONDS}s")
                time.sleep(0.2)
            yield f"http://127.0.0.1:{port}"
        finally:
            _stop(lab)


@pytest.fixture()
def lab_url(tmp_path) -> Iterator[str]:
    for name in ("jupyterlab", "anywidget", "ipykernel"):
        pytest.importorskip(name)
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")
    shutil.copy(NOTEBOOK, tmp_path / NOTEBOOK.name)
    with jupyter_lab(tmp_path) as url:
        start_kernel(url, NOTEBOOK.name)
        yield url


def _head(page) -> str:
    return page.locator(f"{PLAYER} .lucid-expl-head").first.inner_text()


def test_the_stepper_plays_in_jupyterlab_without_asking_the_kernel(tab, lab_url):
    page = tab
    page.add_init_script(COUNT_KERNEL_FRAMES)
    page.goto(f"{lab_url}/lab/tree/{NOTEBOOK.name}")
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=SLOW)
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=SLOW)  # connected to the running kernel
    # Run all: the Run menu's command, as a person would pick it.
    page.locator(".jp-NotebookPanel").first.click()
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()

    # Both stepper cells render; the first one opens at step 2, which the next cell set from Python.
    page.wait_for_function(f"() => document.querySelectorAll('{PLAYER} .lucid-player').length === 2", timeout=SLOW)
    player = page.locator(PLAYER).first
    player.scroll_into_view_if_needed()
    page.wait_for_function(f"() => document.querySelector('{PLAYER} .lucid-expl-head')?.textContent"
                           ".startsWith('Step 2 of 4')", timeout=SLOW)
    assert _head(page) == "Step 2 of 4: f → z through ×"
    assert player.locator(".lucid-svg-host svg g.node").count() >= 5
    page.wait_for_function(ALL_RUN, timeout=SLOW)  # every cell has run: no kernel traffic of its own is left

    # Next: the new explanation is on screen in the same task as the click, before any frame to the kernel.
    same_moment = page.evaluate(f"""() => {{
        const root = document.querySelector('{PLAYER}');
        const sent = window.__kernelFrames.length;
        const before = root.querySelector('.lucid-expl-head').textContent;
        root.querySelector('button[data-action=next]').click();
        return {{ before, after: root.querySelector('.lucid-expl-head').textContent,
                 framesBetween: window.__kernelFrames.length - sent, sent }};
    }}""")
    assert same_moment["before"] == "Step 2 of 4: f → z through ×"
    assert same_moment["after"] == "Step 3 of 4: q → x through +"
    assert same_moment["framesBetween"] == 0
    assert "grad" in player.locator(".lucid-expl-body").inner_text()

    # The step is written back once the person stops on it: one comm_msg, never an execute_request.
    page.wait_for_function("n => window.__kernelFrames.length > n", arg=same_moment["sent"], timeout=SLOW)
    assert page.evaluate("n => window.__kernelFrames.slice(n)", same_moment["sent"]) == ["comm_msg"]

    # A burst of presses (Prev, Next, Next) writes the last step back once.
    page.evaluate(f"""() => {{
        const root = document.querySelector('{PLAYER}');
        window.__burstFrom = window.__kernelFrames.length;
        for (const action of ['prev', 'next', 'next']) root.querySelector(`button[data-action=${{action}}]`).click();
    }}""")
    assert _head(page) == "Step 4 of 4: q → y through +"
    page.wait_for_function("() => window.__kernelFrames.length > window.__burstFrom", timeout=SLOW)
    assert page.evaluate("() => window.__kernelFrames.slice(window.__burstFrom)") == ["comm_msg"]

    # A real mouse press on Prev moves the picture back.
    player.locator("button[data-action=prev]").click()
    assert _head(page) == "Step 3 of 4: q → x through +"

    # The presenter keys work once the player has the focus, and belong to it (the notebook keeps its cell).
    active = "() => document.querySelector('.jp-Notebook .jp-Cell.jp-mod-active')?.innerText"
    active_cell = page.evaluate(active)
    player.locator(".lucid-player").focus()
    page.keyboard.press("Home")
    assert _head(page) == "Step 0 of 4: seed grad f = 1"
    page.keyboard.press("ArrowRight")
    assert _head(page) == "Step 1 of 4: f → q through ×"
    page.keyboard.press("End")
    assert _head(page) == "Step 4 of 4: q → y through +"
    page.keyboard.press("ArrowLeft")
    assert _head(page) == "Step 3 of 4: q → x through +"
    assert page.evaluate(active) == active_cell

    # A click on z asks the kernel for its facts: value -4, gradient 3 (final at the last step).
    player.locator(".lucid-svg-host g.node#t3").click()
    facts = player.locator(".lucid-facts")
    facts.get_by_text("t3 · z").wait_for(timeout=SLOW)
    assert "Gradient (final)" in facts.inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    player.screenshot(path=str(ARTIFACTS / "e2e-notebook-stepper.png"))
    # the cell with its code and the widget (the README's picture, docs/screenshot-notebook.png)
    page.locator(".jp-CodeCell", has=page.locator(PLAYER)).first.screenshot(
        path=str(ARTIFACTS / "e2e-notebook-cell.png"))

    # By keyboard (issue 28): the graph is one Tab stop walked with ↓/↑; Enter on a node asks for its facts, and
    # the notebook keeps Enter (it would open the cell's editor) and its cell.
    svg = player.locator(".lucid-svg-host > svg")
    assert svg.get_attribute("aria-label") == "Computation graph, 5 nodes"
    active_at = ("() => [...document.querySelectorAll('.jp-Notebook .jp-Cell')]"
                 ".findIndex((c) => c.classList.contains('jp-mod-active'))")
    cell = page.evaluate(active_at)
    player.locator(".lucid-svg-host g.node#t0").focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    assert page.evaluate("() => document.activeElement.id") == "t2"
    named = "() => document.activeElement.querySelector(':scope > title').textContent"  # its accessible name
    assert page.evaluate(named).startswith("q, add of x, y, ")
    page.keyboard.press("Enter")
    facts.get_by_text("t2 · q").wait_for(timeout=SLOW)
    assert page.evaluate(active_at) == cell
    assert page.locator(".jp-Notebook .jp-Cell.jp-mod-active .jp-InputArea-editor.jp-mod-focused").count() == 0
