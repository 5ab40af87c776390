"""The gallery's shipped recording (``lucid/torch/recordings/mlp_step.lucid``) is what torch computes today.

The file is re-recorded with torch by its own script (``scripts/record_torch_gallery.py``); every value and
gradient of the shipped file must equal the fresh recording's and torch's own tensors, and the steps must be
the ones torch's engine takes now, so a changed torch, recorder or script cannot leave a stale file behind.
"""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

if os.environ.get("CI") == "true":
    import torch  # noqa: F401 - CI installs torch; this test must run there
pytest.importorskip("torch")

from lucid import gallery  # noqa: E402
from lucid.torch import from_json  # noqa: E402
from lucid.torch.analysis import analyze_recording  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = gallery.RECORDINGS[0]


def _script():
    spec = importlib.util.spec_from_file_location("record_torch_gallery", ROOT / "scripts" / "record_torch_gallery.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def fresh():
    rec, model, loss = _script().record_mlp_step()
    return rec.graph(), model, loss


def test_the_script_writes_the_file_the_gallery_ships():
    assert _script().TARGET == ROOT / "lucid" / SHIPPED.file


def test_the_shipped_values_and_gradients_equal_a_fresh_torch_recording(fresh):
    graph, model, loss = fresh
    shipped = from_json(SHIPPED.data())
    assert len(shipped.nodes) == len(graph.nodes) == 9
    for old, new in zip(shipped.nodes, graph.nodes, strict=True):
        assert (old.kind, old.op, old.inputs, old.name, old.module) == (new.kind, new.op, new.inputs, new.name,
                                                                        new.module)
        np.testing.assert_allclose(old.value, new.value, rtol=1e-6, atol=1e-7)
        for a, b in ((old.upstream, new.upstream), (old.grad, new.grad)):
            assert (a is None) == (b is None)
            if a is not None:
                np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    assert [(s.node, s.slot, s.parent) for s in shipped.steps] == [(s.node, s.slot, s.parent) for s in graph.steps]
    for old, new in zip(shipped.steps, graph.steps, strict=True):
        np.testing.assert_allclose(old.contribution, new.contribution, rtol=1e-6, atol=1e-7)


def test_the_shipped_file_plays_torchs_loss_and_parameter_gradients(fresh):
    _, model, loss = fresh
    analysis = analyze_recording(SHIPPED.data())
    assert analysis.n_steps == 8
    np.testing.assert_allclose(analysis.output.data, loss.item(), rtol=1e-6)
    finals = {s.parent.name: s.accumulated for s in analysis.trace.steps if s.is_final}
    for name, p in model.named_parameters():
        np.testing.assert_allclose(finals[name], p.grad.double().numpy(), rtol=1e-5, atol=1e-7)
        assert np.abs(p.grad.numpy()).max() > 1e-3  # gradients that really flow, not zeros
