"""A recorded PyTorch step plays in a real JupyterLab and a real Chromium (issue 31).

JupyterLab, its kernel and the page are started as ``test_notebook_browser.py`` starts them (its helpers, not a
copy), in a temporary folder holding a copy of ``examples/pytorch_backward.ipynb``. Chromium runs every cell; the
notebook records an MLP step from torch (``record(model)``, ``loss.backward()``), plays it (``stepper(rec)``), saves
it and plays the file back at step 3. Checked as a student uses it:

- the player renders torch's graph (the two ``linear`` layers, ``tanh``, ``cross_entropy`` and their parameters)
  at step 0, the seed, and the file's player at the step the notebook asked for;
- Next changes the explanation at once, with torch's op names in it (``CE``, ``linear``), without the kernel;
- a click on ``0.weight`` brings its facts from the kernel: torch's parameter, with its final gradient.

The widget's screenshot is saved as ``artifacts/e2e-torch-notebook-stepper.png``.
"""
from __future__ import annotations

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


@pytest.fixture()
def torch_lab(tmp_path) -> Iterator[str]:
    require_torch()
    for name in ("jupyterlab", "anywidget", "ipykernel"):
        require(name, "pip install -r requirements-dev.txt")
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")
    shutil.copy(NOTEBOOK, tmp_path / NOTEBOOK.name)
    with jupyter_lab(tmp_path) as url:
        start_kernel(url, NOTEBOOK.name)
        yield url


def _head(player) -> str:
    return player.locator(".lucid-expl-head").first.inner_text()


def test_a_recorded_torch_step_plays_in_jupyterlab(tab, torch_lab):
    page = tab
    page.add_init_script(COUNT_KERNEL_FRAMES)
    page.goto(f"{torch_lab}/lab/tree/{NOTEBOOK.name}")
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=SLOW)
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=SLOW)
    page.locator(".jp-NotebookPanel").first.click()
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()

    # Both players render: the recording, and the file read back (opened at step 3 from Python).
    page.wait_for_function(f"() => document.querySelectorAll('{PLAYER} .lucid-player').length === 2", timeout=SLOW)
    page.wait_for_function(ALL_RUN, timeout=SLOW)
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
