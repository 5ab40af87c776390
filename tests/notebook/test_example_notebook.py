"""The example notebook teaches the chain rule with ``stepper`` and runs top to bottom in a real kernel (issue 20).

nbclient starts an ipykernel of the interpreter running the tests (a kernel spec of its own, found first on
``JUPYTER_PATH``, so no ``python3`` kernel installed for another Python can stand in), runs every cell
of ``examples/chain_rule.ipynb`` in the project folder (so ``import lucid`` finds this checkout) and keeps
the widgets' state, as a notebook saved from JupyterLab would.
"""
import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "examples" / "chain_rule.ipynb"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


KERNEL = "lucid-tests-python"


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    # Imported here, not at module level: nbformat's schema checker alone takes seconds to import, and every
    # pytest process (each xdist worker) imports every test module to collect it.
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("anywidget")
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")
    spec = tmp_path_factory.mktemp("jupyter") / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python (lucid tests)", "language": "python"}), encoding="utf-8")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("JUPYTER_PATH", str(spec.parent.parent))
        client = nbclient.NotebookClient(nb, timeout=180, kernel_name=KERNEL, store_widget_state=True,
                                         resources={"metadata": {"path": str(ROOT)}})
        client.execute()
    return nb


def code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code"]


def texts(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def test_every_cell_runs_without_an_error(executed):
    for cell in code_cells(executed):
        assert not [o for o in cell.outputs if o.output_type == "error"], cell.source


def test_the_first_cell_prints_the_chain_rule_numbers(executed):
    assert texts(code_cells(executed)[0]).strip() == "f = -12.0  grad x = -4.0  grad y = -4.0  grad z = 3.0"


def test_the_tensor_at_the_end_of_a_cell_draws_its_graph(executed):
    (out,) = [o for o in code_cells(executed)[1].outputs if o.output_type == "execute_result"]
    assert "<svg" in out.data["image/svg+xml"]


def test_the_stepper_cells_show_widgets_whose_state_the_notebook_keeps(executed):
    cells = code_cells(executed)
    views = [o.data[WIDGET_VIEW]["model_id"] for c in (cells[2], cells[4]) for o in c.outputs
             if o.output_type == "execute_result" and WIDGET_VIEW in o.data]
    assert len(views) == 2
    state = executed.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    first = state[views[0]]["state"]
    assert first["_anywidget_id"] == "lucid.notebook.widget.Stepper"
    assert first["step"] == 2  # set from Python in the next cell
    assert len(first["data"]["anim"]["titles"]) == 5
    assert first["_esm"].startswith("// The backward-pass player")


def test_setting_the_step_from_python_moves_the_player(executed):
    assert texts(code_cells(executed)[3]).strip() == "Step 2 of 4: f → z through ×"
