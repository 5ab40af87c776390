"""Running a notebook top to bottom in a real kernel, for the tests of the example notebooks (one copy of it).

nbclient starts an ipykernel of the interpreter running the tests, from a kernel spec of its own found first on
``JUPYTER_PATH`` (so no ``python3`` kernel installed for another Python can stand in), with this checkout first on
``PYTHONPATH`` (so ``import lucid`` finds it wherever the notebook runs), and keeps the widgets' state as a notebook
saved from JupyterLab would. What the kernel needs (nbformat, nbclient, ipykernel, anywidget, Graphviz's ``dot``)
is checked first: missing, the tests skip, or fail under ``CI=true`` (``tests.needs``).
"""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.needs import require, unavailable

ROOT = Path(__file__).resolve().parents[1]
README_SNIPPET = """from lucid import Tensor
from lucid.viz import stepper

x, y, z = Tensor(-2.0, requires_grad=True), Tensor(5.0, requires_grad=True), Tensor(-4.0, requires_grad=True)
f = (x + y) * z
f.backward()
player = stepper(f, step=1)
player"""
"""The README's notebook snippet: the saved-picture, nbconvert and reopened-notebook tests all run it."""
KERNEL = "lucid-tests-python"
#: How long one cell may run (a kernel's first import of lucid and torch on a busy machine included).
CELL_SECONDS = 180


def notebook_format() -> Any:
    """nbformat, to build a notebook in a test (``nbformat.v4.new_notebook()``), or skip / fail as ``execute`` does."""
    return require("nbformat", "the notebook extra")


def execute(notebook: Path | Any, tmp_path_factory: pytest.TempPathFactory, *, cwd: Path = ROOT,
            needs: tuple[str, ...] = ()) -> Any:
    """The notebook (a path, or a notebook made with nbformat) after running every cell in a fresh kernel whose
    working folder is ``cwd``.

    ``needs``: more modules the notebook imports (``torch``). Imported here, not at module level: nbformat's
    schema checker alone takes seconds to import, and every pytest process (each xdist worker) imports every
    test module to collect it.
    """
    nbformat = require("nbformat", "the notebook extra")
    nbclient = require("nbclient", "the notebook extra")
    for module in ("ipykernel", "anywidget", *needs):
        require(module, "pip install -r requirements-dev.txt")
    if shutil.which("dot") is None:
        unavailable("Graphviz's dot is not installed")
    spec = tmp_path_factory.mktemp("jupyter") / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python (lucid tests)", "language": "python"}), encoding="utf-8")
    nb = nbformat.read(notebook, as_version=4) if isinstance(notebook, Path) else notebook
    with pytest.MonkeyPatch.context() as env:
        env.setenv("JUPYTER_PATH", str(spec.parent.parent))
        env.setenv("PYTHONPATH", str(ROOT))
        client = nbclient.NotebookClient(nb, timeout=CELL_SECONDS, kernel_name=KERNEL, store_widget_state=True,
                                         resources={"metadata": {"path": str(cwd)}})
        client.execute()
    return nb
