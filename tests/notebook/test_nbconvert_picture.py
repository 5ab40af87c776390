"""An executed-notebook HTML export shows the stepper's still picture offline (issue 29).

``jupyter nbconvert --to html --execute`` runs a small notebook (the README's snippet) in a real kernel. Plain,
nbconvert's HTML exporter writes a stepper's output as the widget view alone (it ranks that mimetype above
``text/html``): a script for a widget manager from a CDN, no picture. This is checked, since the README says
so. With lucid's preprocessor (``lucid.notebook.still_pictures.StillPictures``) the same export holds the
step's SVG, its title and its explanation inline: the page needs no network to show the graph.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.needs import require
from tests.notebook_kernel import README_SNIPPET

ROOT = Path(__file__).resolve().parents[2]
KERNEL = "lucid-tests-nbconvert"
SNIPPET = README_SNIPPET
PREPROCESSOR = "lucid.notebook.still_pictures.StillPictures"


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> dict[str, str]:
    nbformat = require("nbformat")  # each a loud failure under CI (which installs them), skipped elsewhere
    require("nbconvert")
    require("ipykernel")
    require("anywidget")
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")
    folder = tmp_path_factory.mktemp("nbconvert")
    spec = folder / "jupyter" / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python (lucid tests)", "language": "python",
        "env": {"PYTHONPATH": str(ROOT)}}), encoding="utf-8")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(SNIPPET)]
    nb.metadata["kernelspec"] = {"name": KERNEL, "display_name": "Python (lucid tests)", "language": "python"}
    nbformat.write(nb, folder / "small.ipynb")
    env = {**os.environ, "JUPYTER_PATH": str(folder / "jupyter"), "PYTHONPATH": str(ROOT)}
    pages = {}
    for name, extra in (("plain", []), ("pictures", [f"--HTMLExporter.preprocessors={PREPROCESSOR}"])):
        subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--execute",  # noqa: S603
                        *extra, "small.ipynb", "--output", f"{name}.html"],
                       cwd=folder, env=env, check=True, capture_output=True, timeout=300)
        pages[name] = (folder / f"{name}.html").read_text(encoding="utf-8")
    return pages


def _outputs(page: str) -> str:
    """The notebook's output area (the page's styles and the widget state left out)."""
    return "".join(re.findall(r'<div class="jp-OutputArea-child.*?</div>\s*</div>\s*</div>', page, re.DOTALL))


def test_the_plain_export_writes_only_the_widget_view(exported):
    outputs = _outputs(exported["plain"])
    assert 'type="application/vnd.jupyter.widget-view+json"' in outputs
    assert '<div class="lucid-static"' not in exported["plain"]


def test_with_lucids_preprocessor_the_export_shows_the_steps_picture(exported):
    page = exported["pictures"]
    start = page.index('<div class="lucid-static"')
    picture = page[start:]
    import base64

    found = re.findall(r"<img[^>]*src=\"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)\"", picture)
    assert found, picture[:600]
    (encoded,) = found[:1]
    svg = base64.b64decode(encoded).decode("utf-8")  # the step's SVG, as an image in the page
    assert 'id="t2"' in svg and "−4.000" in svg  # t2's gradient after step 1: grad out · z = −4
    assert "Step 1 of 4: out → t2 through ×" in picture
    assert "∂out/∂t2 = t3 = −4.000" in picture
    assert "A still picture of step 1 of 4: run the notebook to step through the backward pass." in picture
    # the picture needs nothing from the network: no src or href in it points anywhere
    body = picture[:picture.index("A still picture")]
    assert not re.search(r'(?:src|href)="(?:https?:)?//', body)
