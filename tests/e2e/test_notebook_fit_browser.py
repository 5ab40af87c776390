"""The notebook player fits its host in a real Chromium: after a JupyterLab reload, a first render, a resize.

Before (issue 29), ``fit()`` fell back to 800 px when the host had no width yet (a JupyterLab reload, anywidget 0.9's
first render) and refitted on resize only in Classroom mode: the graph was drawn 622 px wide in a 479 px column, the
step's node cut in half, and a tensor MLP opened with its seed node out of view until the first key press.

Two hosts:

- the widget's own ``render`` (the anywidget entry point) on a plain page, with a stand-in model: a column that is
  hidden when the player is drawn and shown later, a column resized outside Classroom mode, and a 25-node tensor
  MLP (16 tensors, the constant 2 among them, and 9 ops) opening with its seed node ``out`` inside the graph's box;
- a real JupyterLab (the helpers of ``test_notebook_browser``): a notebook with the MLP and the chain rule is run,
  saved and reloaded, and both players fit their column again, the MLP's seed node in view; the same in Notebook 7
  and in a marimo app (``mo.ui.anywidget(stepper(...))``, ``marimo run``), reloaded, when they are installed.
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

import numpy as np
import pytest

from bench.streamlit_client import free_port
from tests.e2e.conftest import ARTIFACTS, _stop
from tests.e2e.test_notebook_browser import (
    ALL_RUN,
    LAB_SETTINGS,
    PLAYER,
    ROOT,
    SLOW,
    START_SECONDS,
    jupyter_lab,
    start_kernel,
)
from tests.e2e.waits import after_paint

pytestmark = pytest.mark.e2e

MLP_SOURCE = """\
import numpy as np
import lucid
from lucid import Tensor
from lucid.viz import stepper

rng = np.random.default_rng(0)
x = Tensor(rng.normal(size=(4, 3)), name="x")
w1 = Tensor(rng.normal(size=(3, 5)), requires_grad=True, name="w1")
b1 = Tensor(rng.normal(size=(5,)), requires_grad=True, name="b1")
w2 = Tensor(rng.normal(size=(5, 2)), requires_grad=True, name="w2")
b2 = Tensor(rng.normal(size=(2,)), requires_grad=True, name="b2")
y = Tensor(rng.normal(size=(4, 2)), name="y")
out = ((lucid.sigmoid(lucid.tanh(x @ w1 + b1) @ w2 + b2) - y) ** 2).mean()
out.backward()
"""
CHAIN_SOURCE = """\
from lucid import Tensor
from lucid.viz import stepper

a, b, c = Tensor(-2.0, requires_grad=True), Tensor(5.0, requires_grad=True), Tensor(-4.0, requires_grad=True)
f = (a + b) * c
f.backward()
"""

#: The stand-in for anywidget: ``render({model, el})`` of the player module, with a model that only holds data.
RENDER = """async ([js, data, host]) => {
  const url = URL.createObjectURL(new Blob([js], { type: 'text/javascript' }));
  const mod = await import(url);
  const model = { get: (k) => (k === 'data' ? data : k === 'step' ? data.step : ''), set() {}, save_changes() {},
                  send() {}, on() {}, off() {} };
  mod.default().render({ model, el: document.querySelector(host) });
}"""

#: Where the graph is and where its host shows it, in CSS px of the page.
MEASURE = """(root) => {
  const host = root.querySelector('.lucid-svg-host');
  const svg = host.querySelector(':scope > svg');
  const cur = host.querySelector('g.node.current');
  const r = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  return { svg: svg.getBoundingClientRect().width, host: host.clientWidth, hostBox: r(host), seed: cur && r(cur),
           seedId: cur && cur.id, narrow: root.querySelector('.lucid-player').classList.contains('lucid-narrow') };
}"""


def _data(root) -> dict:
    """The data the widget is given for the backward pass that produced ``root`` (normal mode, beside)."""
    from lucid.notebook.widget import animate, player_data, record

    anim = animate(record(root))
    return {**player_data(anim, seconds=1.5, classroom=False, zoom="screen", beside=True), "step": 0}


def _mlp():
    import lucid
    from lucid import Tensor

    rng = np.random.default_rng(0)
    x = Tensor(rng.normal(size=(4, 3)), name="x")
    w1 = Tensor(rng.normal(size=(3, 5)), requires_grad=True, name="w1")
    b1 = Tensor(rng.normal(size=(5,)), requires_grad=True, name="b1")
    w2 = Tensor(rng.normal(size=(5, 2)), requires_grad=True, name="w2")
    b2 = Tensor(rng.normal(size=(2,)), requires_grad=True, name="b2")
    y = Tensor(rng.normal(size=(4, 2)), name="y")
    out = ((lucid.sigmoid(lucid.tanh(x @ w1 + b1) @ w2 + b2) - y) ** 2).mean()
    out.backward()
    return out


def _chain():
    from lucid import Tensor

    a, b, c = Tensor(-2.0, requires_grad=True), Tensor(5.0, requires_grad=True), Tensor(-4.0, requires_grad=True)
    f = (a + b) * c
    f.backward()
    return f


@pytest.fixture()
def plain_page(tab):
    """A page holding the player's stylesheet and a 479 px column (``#col``) with an output box (``#out``)."""
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")
    from lucid.viz import player

    tab.set_viewport_size({"width": 1000, "height": 700})
    tab.set_content("<!doctype html><html><head><meta charset=utf-8></head><body style='margin:0'>"
                    "<div id=col style='width:479px'><div id=out></div></div></body></html>")
    tab.add_style_tag(content=player.stylesheet())
    return tab


def _render(tab, data: dict) -> None:
    from lucid.viz import player

    tab.evaluate(RENDER, [player.script(), data, "#out"])
    tab.wait_for_selector("#out .lucid-svg-host g.node.current", state="attached")
    after_paint(tab)


def _inside(box: list[float], view: list[float]) -> bool:
    return box[0] >= view[0] - 1 and box[1] >= view[1] - 1 and box[2] <= view[2] + 1 and box[3] <= view[3] + 1


def test_a_player_drawn_in_a_hidden_column_fits_the_column_once_it_is_shown(plain_page):
    tab = plain_page
    tab.evaluate("() => { document.getElementById('col').style.display = 'none'; }")  # no width when drawn
    _render(tab, _data(_chain()))
    tab.evaluate("() => { document.getElementById('col').style.display = ''; }")
    tab.wait_for_function("() => document.querySelector('#out .lucid-svg-host').clientWidth > 0")
    after_paint(tab)
    after_paint(tab)
    m = tab.eval_on_selector("#out", MEASURE)
    assert m["narrow"] is True  # 479 px: the explanation goes below the graph, which gets the column's width
    assert m["host"] == 479
    assert 0 < m["svg"] <= 479.5  # never the 800 px of the old guess
    assert _inside(m["seed"], m["hostBox"])


def test_outside_classroom_mode_the_graph_is_fitted_again_when_its_column_resizes(plain_page):
    tab = plain_page
    _render(tab, _data(_chain()))
    first = tab.eval_on_selector("#out", MEASURE)
    assert first["svg"] <= first["host"] + 0.5
    tab.evaluate("() => { document.getElementById('col').style.width = '400px'; }")
    tab.wait_for_function("() => document.querySelector('#out .lucid-svg-host > svg').getBoundingClientRect().width"
                          " <= 400.5")
    narrower = tab.eval_on_selector("#out", MEASURE)
    assert narrower["host"] == 400
    assert narrower["svg"] < first["svg"]
    assert _inside(narrower["seed"], narrower["hostBox"])


def test_a_tensor_mlp_opens_with_its_seed_node_in_view(plain_page):
    tab = plain_page
    data = _data(_mlp())
    assert data["anim"]["svg"].count('class="node') == 25  # its tensors and ops, drawn
    _render(tab, data)
    m = tab.eval_on_selector("#out", MEASURE)
    assert m["seedId"] is not None
    assert m["svg"] > m["host"]  # at its smallest readable scale the graph is wider than the column: it scrolls
    viewport = [0, 0, 1000, 700]
    assert _inside(m["seed"], m["hostBox"]), m  # the seed node `out` in the graph's box, before any key press
    assert _inside(m["seed"], viewport), m  # and on screen: the page itself was not scrolled
    assert tab.evaluate("() => window.scrollY") == 0
    ARTIFACTS.mkdir(exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / "e2e-notebook-fit-mlp.png"))


def _notebook(path) -> None:
    def cell(source: str) -> dict:
        return {"cell_type": "code", "execution_count": None, "id": f"c{abs(hash(source)) % 10**8}",
                "metadata": {}, "outputs": [], "source": source}

    nb = {"cells": [cell(MLP_SOURCE + "stepper(out)"), cell(CHAIN_SOURCE + "stepper(f)")],
          "metadata": {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                                      "name": "python3"}},
          "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb), encoding="utf-8")


def test_jupyterlab_steppers_fit_their_column_after_a_reload(tab, tmp_path):
    for name in ("jupyterlab", "anywidget", "ipykernel"):
        pytest.importorskip(name)
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")
    name = "fit.ipynb"
    _notebook(tmp_path / name)
    page = tab
    page.set_viewport_size({"width": 900, "height": 800})
    with jupyter_lab(tmp_path) as lab:
        start_kernel(lab, name)
        page.goto(f"{lab}/lab/tree/{name}")
        page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=SLOW)
        page.locator(".jp-NotebookPanel").first.click()
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
        players = f"() => document.querySelectorAll('{PLAYER} .lucid-svg-host g.node.current').length === 2"
        page.wait_for_function(players, timeout=SLOW)
        page.wait_for_function(ALL_RUN, timeout=SLOW)
        # Saved from the File menu: a Ctrl+S pressed after clicking a cell reached the player drawn in it, and the
        # notebook was saved only by JupyterLab's autosave two minutes later (the test took 135 s, 20 s now).
        page.get_by_role("menuitem", name="File", exact=True).click()
        page.get_by_role("menuitem", name="Save Notebook").first.click()
        page.wait_for_function("() => !document.querySelector('.lm-TabBar-tab.jp-mod-dirty')", timeout=SLOW)
        saved = json.loads((tmp_path / name).read_text(encoding="utf-8"))
        views = [o for c in saved["cells"] for o in c["outputs"]
                 if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
        assert len(views) == 2

        page.reload()  # the widget views are drawn again from the running kernel, into a page still laying out
        page.wait_for_function(players, timeout=SLOW)
        after_paint(page)
        after_paint(page)
        outputs = page.locator(PLAYER)
        for i in range(2):
            outputs.nth(i).scroll_into_view_if_needed()
            after_paint(page)
            m = outputs.nth(i).evaluate(MEASURE)
            assert 0 < m["host"] and m["hostBox"][2] <= 900, m
            if i == 1:  # the chain rule's graph fits its column's width
                assert m["svg"] <= m["host"] + 0.5, m
            assert _inside(m["seed"], m["hostBox"]), m  # the step's node in view inside the graph's box
        page.screenshot(path=str(ARTIFACTS / "e2e-notebook-fit-reload.png"))


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:  # noqa: S310 - a loopback server this test started
            return r.status == 200
    except OSError:
        return False


@contextlib.contextmanager
def _server(args: list[str], folder: Path, ready: str, log_name: str, env: dict[str, str]) -> Iterator[str]:
    """``args`` (with ``{port}`` for a free loopback port) run in ``folder`` until ``ready`` answers; always stopped."""
    ARTIFACTS.mkdir(exist_ok=True)
    port = free_port()
    with open(ARTIFACTS / log_name, "wb") as log:
        proc = subprocess.Popen([a.format(port=port) for a in args], cwd=folder, env={**os.environ, **env},  # noqa: S603
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + START_SECONDS
            base = f"http://127.0.0.1:{port}"
            while not _answers(base + ready):
                if proc.poll() is not None:
                    pytest.fail(f"{args[2]} exited before answering; see artifacts/{log_name}")
                if time.monotonic() > deadline:
                    pytest.fail(f"{args[2]} did not answer within {START_SECONDS}s")
                time.sleep(0.2)
            yield base
        finally:
            _stop(proc)


def _check_fitted(page, players: str, count: int, width: int) -> None:
    """Each of the ``count`` players fits its column (the chain rule's graph its width), its step's node in view."""
    outputs = page.locator(players)
    assert outputs.count() == count
    for i in range(count):
        outputs.nth(i).scroll_into_view_if_needed()
        after_paint(page)
        m = outputs.nth(i).evaluate(MEASURE)
        assert 0 < m["host"] and m["hostBox"][2] <= width, m
        if i == count - 1:  # the chain rule's graph fits its column's width
            assert m["svg"] <= m["host"] + 0.5, m
        assert _inside(m["seed"], m["hostBox"]), m


def test_notebook_7_steppers_fit_their_column_after_a_reload(tab, tmp_path):
    for name in ("notebook", "anywidget", "ipykernel"):
        pytest.importorskip(name)
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")
    name = "fit.ipynb"
    _notebook(tmp_path / name)
    for plugin, settings in LAB_SETTINGS.items():
        path = tmp_path / ".settings" / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings), encoding="utf-8")
    env = {"PYTHONPATH": str(ROOT), "JUPYTER_CONFIG_DIR": str(tmp_path / ".config"),
           "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / ".settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / ".workspaces"), "JUPYTER_RUNTIME_DIR": str(tmp_path / ".run"),
           "JUPYTER_DATA_DIR": str(tmp_path / ".data")}
    args = [sys.executable, "-m", "jupyter", "notebook", "--no-browser", "--ServerApp.ip=127.0.0.1",
            "--ServerApp.port={port}", "--ServerApp.port_retries=0", "--IdentityProvider.token=",
            "--ServerApp.password=", f"--ServerApp.root_dir={tmp_path}", "--ServerApp.terminals_enabled=False",
            "--ServerApp.jpserver_extensions={{'jupyter_lsp': False}}", "--ServerApp.disable_check_xsrf=True",
            "--allow-root"]
    page = tab
    page.set_viewport_size({"width": 900, "height": 800})
    players = f"() => document.querySelectorAll('{PLAYER} .lucid-svg-host g.node.current').length === 2"
    with _server(args, tmp_path, "/api/status", "e2e-notebook7.log", env) as server:
        start_kernel(server, name)
        page.goto(f"{server}/notebooks/{name}")
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=SLOW)
        page.locator(".jp-Notebook .jp-Cell").first.click()
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
        page.wait_for_function(players, timeout=SLOW)
        page.wait_for_function(ALL_RUN, timeout=SLOW)
        page.keyboard.press("Escape")
        page.keyboard.press("Control+s")
        page.wait_for_function(
            "() => { try { return (document.title || '').length > 0 && !document.title.startsWith('*'); }"
            " catch (e) { return false; } }", timeout=SLOW)
        page.wait_for_function("""async (n) => { const r = await fetch(`/api/contents/${n}`);
            const c = (await r.json()).content; return c.cells.every((cell) => cell.outputs.some((o) =>
            o.data && 'application/vnd.jupyter.widget-view+json' in o.data)); }""", arg=name, timeout=SLOW)

        page.reload()
        page.wait_for_function(players, timeout=SLOW)
        after_paint(page)
        _check_fitted(page, PLAYER, 2, 900)
        page.screenshot(path=str(ARTIFACTS / "e2e-notebook7-fit-reload.png"))


MARIMO_APP = """\
import marimo

app = marimo.App(width="medium")


@app.cell
def _():
    import marimo as mo
    import numpy as np
    import lucid
    from lucid import Tensor
    from lucid.viz import stepper
    return Tensor, lucid, mo, np, stepper


@app.cell
def _(Tensor, lucid, mo, np, stepper):
{mlp}
    mlp_player = mo.ui.anywidget(stepper(out))
    mlp_player
    return (mlp_player,)


@app.cell
def _(Tensor, mo, stepper):
{chain}
    chain_player = mo.ui.anywidget(stepper(f))
    chain_player
    return (chain_player,)


if __name__ == "__main__":
    app.run()
"""


def test_marimo_steppers_fit_their_column_after_a_reload(tab, tmp_path):
    for name in ("marimo", "anywidget"):
        pytest.importorskip(name)
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")

    def indent(source: str) -> str:
        # a marimo cell defines each name once: the imports are the first cell's
        return "\n".join("    " + line for line in source.splitlines() if line and not line.startswith(("import",
                                                                                                        "from")))

    (tmp_path / "fit_app.py").write_text(MARIMO_APP.format(mlp=indent(MLP_SOURCE), chain=indent(CHAIN_SOURCE)),
                                         encoding="utf-8")
    env = {"PYTHONPATH": str(ROOT), "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / ".config"),
           "XDG_STATE_HOME": str(tmp_path / ".state"), "XDG_CACHE_HOME": str(tmp_path / ".cache")}
    args = [sys.executable, "-m", "marimo", "run", "fit_app.py", "--headless", "--host", "127.0.0.1",
            "--port", "{port}", "--no-token", "--no-sandbox", "--no-check"]
    page = tab
    page.set_viewport_size({"width": 900, "height": 800})
    with _server(args, tmp_path, "/health", "e2e-marimo.log", env) as server:
        for load in (page.goto, lambda _url: page.reload()):
            load(server)
            page.locator(".lucid-player .lucid-svg-host g.node.current").nth(1).wait_for(state="attached",
                                                                                          timeout=SLOW)
            after_paint(page)
            after_paint(page)
            _check_fitted(page, ".lucid-widget", 2, 900)
        page.screenshot(path=str(ARTIFACTS / "e2e-marimo-fit-reload.png"))
