"""The example notebook teaches the chain rule with ``stepper`` and runs top to bottom in a real kernel (issue 20).

Every cell of ``examples/chain_rule.ipynb`` runs in the project folder in a kernel of the interpreter running the
tests (``tests.notebook_kernel``), which keeps the widgets' state as a notebook saved from JupyterLab would.
"""
import pytest

from tests.notebook_kernel import ROOT, execute

NOTEBOOK = ROOT / "examples" / "chain_rule.ipynb"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    return execute(NOTEBOOK, tmp_path_factory, cwd=ROOT)


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
