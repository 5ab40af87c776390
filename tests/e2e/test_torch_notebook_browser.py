"""A recorded PyTorch step plays in a real JupyterLab and a real Chromium (issue 31).

JupyterLab, its kernel and the page are started as ``test_notebook_browser.py`` starts them (its helpers, not a
copy), in a temporary folder holding a copy of ``examples/pytorch_backward.ipynb``. Chromium runs every cell; the
notebook records an MLP step from torch (``record(model)``, ``loss.backward()``), plays it (``stepper(rec)``), saves
it and plays the file back at step 3. Checked as a student uses it:

- the player renders torch's graph (the two ``linear`` layers, ``tanh``, ``cross_entropy`` and their parameters)
  at step 0, the seed, and the file's player at the step the notebook asked for;
- Next changes the explanation at once, with torch's op names in it (``CE``, ``linear``), without the kernel;
- a click on ``0.weight`` brings its facts from the kernel: torch's parameter, with its final gradient.

A second notebook of the test's own records an 80-layer ``nn.Sequential``: its player draws the model as one box,
a click on the box opens it into blocks of layers (``model.0 … model.13``), and a click on the open group's header
closes it again.

The widgets' screenshots are saved as ``artifacts/e2e-torch-notebook-stepper.png`` and
``artifacts/e2e-torch-notebook-boxes.png``.
"""
from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.test_notebook_browser import ALL_RUN, COUNT_KERNEL_FRAMES, PLAYER, SLOW, jupyter_lab, start_kernel
from tests.needs import require, require_torch

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
NOTEBOOK = ROOT / "examples" / "pytorch_backward.ipynb"


DEEP = "deep_model.ipynb"
DEEP_CODE = """import torch
import torch.nn as nn
import torch.nn.functional as F

from lucid.torch import record
from lucid.viz import stepper

torch.manual_seed(0)
model = nn.Sequential(*[m for _ in range(80) for m in (nn.Linear(4, 4), nn.Tanh())], nn.Linear(4, 3))
x, y = torch.randn(5, 4), torch.tensor([0, 2, 1, 1, 0])
with record(model) as rec:
    loss = F.cross_entropy(model(x), y)
loss.backward()
stepper(rec)"""


def _needs() -> None:
    require_torch()
    for name in ("jupyterlab", "anywidget", "ipykernel"):
        require(name, "pip install -r requirements-dev.txt")
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")


@pytest.fixture()
def torch_lab(tmp_path) -> Iterator[str]:
    _needs()
    shutil.copy(NOTEBOOK, tmp_path / NOTEBOOK.name)
    with jupyter_lab(tmp_path) as url:
        start_kernel(url, NOTEBOOK.name)
        yield url


@pytest.fixture()
def deep_lab(tmp_path) -> Iterator[str]:
    _needs()
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": DEEP_CODE}
    notebook = {"cells": [cell], "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                             "language": "python"}},
                "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / DEEP).write_text(json.dumps(notebook), encoding="utf-8")
    with jupyter_lab(tmp_path) as url:
        start_kernel(url, DEEP)
        yield url


def _run_all(page, url: str, name: str, players: int) -> None:
    page.goto(f"{url}/lab/tree/{name}")
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=SLOW)
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=SLOW)
    page.locator(".jp-NotebookPanel").first.click()
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    page.wait_for_function(f"n => document.querySelectorAll('{PLAYER} .lucid-player').length === n", arg=players,
                           timeout=SLOW)
    page.wait_for_function(ALL_RUN, timeout=SLOW)


def _head(player) -> str:
    return player.locator(".lucid-expl-head").first.inner_text()


def test_a_recorded_torch_step_plays_in_jupyterlab(tab, torch_lab):
    page = tab
    page.add_init_script(COUNT_KERNEL_FRAMES)
    # Both players render: the recording, and the file read back (opened at step 3 from Python).
    _run_all(page, torch_lab, NOTEBOOK.name, 2)
    player, from_file = page.locator(PLAYER).nth(0), page.locator(PLAYER).nth(1)
    player.scroll_into_view_if_needed()
    assert _head(player) == "Step 0 of 7: seed grad loss = 1"
    assert player.locator(".lucid-svg-host svg g.node").count() >= 9  # x, 4 parameters, 2 linear, tanh, loss
    drawn = player.locator(".lucid-svg-host svg").first.text_content()
    assert "linear" in drawn and "tanh" in drawn and "0.weight" in drawn
    assert _head(from_file) == "Step 3 of 7: t7 → t4 through linear"

    # Next: torch's first gradient, explained at once, without a message to the kernel in between.
    moved = page.evaluate(f"""() => {{
        const root = document.querySelector('{PLAYER}');
        const sent = window.__kernelFrames.length;
        root.querySelector('button[data-action=next]').click();
        return {{ head: root.querySelector('.lucid-expl-head').textContent,
                 body: root.querySelector('.lucid-expl-body').textContent,
                 framesBetween: window.__kernelFrames.length - sent }};
    }}""")
    assert moved["head"] == "Step 1 of 7: loss → t7 through CE(targets=[0,1,1,0,1])"
    assert "softmax" in moved["body"] and moved["framesBetween"] == 0
    player.locator("button[data-action=next]").click()  # a real mouse press: the step into linear's bias
    assert _head(player) == "Step 2 of 7: t7 → 2.bias through linear"
    assert "linear" in player.locator(".lucid-expl-body").inner_text()

    # A click on the first layer's weight brings its facts from the kernel.
    player.locator(".lucid-svg-host g.node#t1").click()
    facts = player.locator(".lucid-facts")
    facts.get_by_text("t1 · 0.weight").wait_for(timeout=SLOW)
    assert "Gradient" in facts.inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    player.screenshot(path=str(ARTIFACTS / "e2e-torch-notebook-stepper.png"))


def _boxes(player) -> list[str]:
    """The labels of the boxes the player draws (``model · 323 nodes``), first line only."""
    texts = player.locator(".lucid-svg-host svg g.node").evaluate_all(
        "nodes => nodes.filter((n) => /^g[0-9]+$/.test(n.id)).map((n) => n.textContent)")
    return [t.strip() for t in texts]


def test_a_deep_recorded_model_opens_module_by_module_in_jupyterlab(tab, deep_lab):
    page = tab
    _run_all(page, deep_lab, DEEP, 1)
    player = page.locator(PLAYER).first
    player.scroll_into_view_if_needed()
    assert _head(player) == "Step 0 of 323: seed grad loss = 1"
    closed = _boxes(player)
    assert len(closed) == 1 and closed[0].startswith("model")

    player.locator(".lucid-svg-host g.node#g0").click()  # the kernel draws the model opened
    page.wait_for_function(f"() => document.querySelectorAll('{PLAYER} .lucid-svg-host g.node[id^=g]').length > 5",
                           timeout=SLOW)
    opened = _boxes(player)
    assert any(label.startswith("model.0 … model.13") for label in opened)
    assert _head(player) == "Step 0 of 323: seed grad loss = 1"  # the same step
    ARTIFACTS.mkdir(exist_ok=True)
    player.screenshot(path=str(ARTIFACTS / "e2e-torch-notebook-boxes.png"))

    player.locator(".lucid-svg-host g.node#g0").click()  # the open group's header closes it
    page.wait_for_function(f"() => document.querySelectorAll('{PLAYER} .lucid-svg-host g.node[id^=g]').length === 1",
                           timeout=SLOW)
