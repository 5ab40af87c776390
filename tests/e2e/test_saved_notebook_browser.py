"""A saved notebook reopened in JupyterLab shows the stepper's picture before any cell runs (issue 29), in Chromium.

nbclient runs the README's snippet in a real kernel and the notebook is saved with its outputs (and the widget
state, as JupyterLab saves it). JupyterLab then opens the file with no kernel: the notebook names a kernel that
does not exist here, so nothing runs and no widget model can come back. The output still shows the graph: the
step's SVG picture (an image: JupyterLab's sanitizer drops inline SVG from a notebook it did not run) with its
title and explanation, never an endless "Loading widget..." nor the graph's labels as loose words. A screenshot
is saved as ``artifacts/e2e-saved-notebook.png``.
"""
from __future__ import annotations

import pytest

from tests.e2e.test_notebook_browser import ARTIFACTS, jupyter_lab
from tests.notebook_kernel import README_SNIPPET, ROOT, execute, notebook_format

pytestmark = pytest.mark.e2e

SNIPPET = README_SNIPPET
OUTPUT = ".jp-OutputArea-output"


def test_a_saved_notebook_reopened_without_a_kernel_shows_the_graph_picture(tab, tmp_path, tmp_path_factory):
    nbformat = notebook_format()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(SNIPPET)]
    execute(nb, tmp_path_factory, cwd=ROOT)
    nb.metadata["kernelspec"] = {"name": "no-such-kernel", "display_name": "gone", "language": "python"}
    nbformat.write(nb, tmp_path / "saved.ipynb")

    with jupyter_lab(tmp_path) as lab:
        tab.set_viewport_size({"width": 1280, "height": 900})
        tab.goto(f"{lab}/lab/tree/saved.ipynb")
        tab.locator(".jp-Notebook").wait_for(timeout=180_000)
        dialog = tab.locator(".jp-Dialog")
        try:  # the missing kernel: JupyterLab asks which to start; keep none
            dialog.wait_for(timeout=15_000)
            tab.keyboard.press("Escape")
        except Exception:  # noqa: BLE001 - no dialog on this JupyterLab: nothing to dismiss
            pass
        picture = tab.locator(f"{OUTPUT} .lucid-static img")  # the SVG as an image: inline <svg> is sanitized away
        picture.first.wait_for(timeout=60_000)
        tab.wait_for_function("el => el.complete && el.naturalWidth > 0", arg=picture.first.element_handle(),
                              timeout=30_000)  # the image decoded: a drawn graph, not a broken icon
        text = tab.locator(OUTPUT).first.inner_text()
        assert "Step 1 of 4: out → t2 through ×" in text
        assert "Loading widget" not in text
        assert picture.first.bounding_box()["width"] > 100
        ARTIFACTS.mkdir(exist_ok=True)
        tab.screenshot(path=str(ARTIFACTS / "e2e-saved-notebook.png"))
