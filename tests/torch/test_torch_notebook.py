"""``examples/pytorch_backward.ipynb`` runs top to bottom in a real kernel and its numbers are torch's (issue 31).

The kernel is ``tests.notebook_kernel``'s (the one the chain-rule notebook's test uses); it runs in a folder of its
own, where the notebook saves ``mlp_step.lucid``.
"""
import pytest

from tests.notebook_kernel import ROOT, execute

NOTEBOOK = ROOT / "examples" / "pytorch_backward.ipynb"


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    work = tmp_path_factory.mktemp("run")  # the notebook saves mlp_step.lucid where it runs
    return execute(NOTEBOOK, tmp_path_factory, cwd=work, needs=("torch",)), work


def test_the_pytorch_notebook_runs_and_checks_its_gradients_against_torch(executed):
    nb, work = executed
    cells = [c for c in nb.cells if c.cell_type == "code"]
    for cell in cells:
        assert not [o for o in cell.outputs if o.output_type == "error"], cell.source
    printed = "".join(o.get("text", "") for c in cells for o in c.outputs if o.output_type == "stream")
    assert "steps recorded: 8" in printed
    assert "every parameter gradient equals torch's: ['0.bias', '0.weight', '2.bias', '2.weight', 'loss']" in printed
    players = [c for c in cells if any("application/vnd.jupyter.widget-view+json" in o.get("data", {})
                                       for o in c.outputs)]
    assert len(players) == 2  # the recording played, and the file read back played
    assert (work / "mlp_step.lucid").stat().st_size > 0
