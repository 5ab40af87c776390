"""``examples/pytorch_backward.ipynb`` runs top to bottom in a real kernel and its numbers are torch's (issue 31)."""
import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "examples" / "pytorch_backward.ipynb"
KERNEL = "lucid-tests-python"


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("anywidget")
    pytest.importorskip("torch")
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")
    spec = tmp_path_factory.mktemp("jupyter") / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python (lucid tests)", "language": "python"}), encoding="utf-8")
    work = tmp_path_factory.mktemp("run")  # the notebook saves mlp_step.lucid where it runs
    nb = nbformat.read(NOTEBOOK, as_version=4)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("JUPYTER_PATH", str(spec.parent.parent))
        env.setenv("PYTHONPATH", str(ROOT))
        client = nbclient.NotebookClient(nb, timeout=180, kernel_name=KERNEL, store_widget_state=True,
                                         resources={"metadata": {"path": str(work)}})
        client.execute()
    return nb, work


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
