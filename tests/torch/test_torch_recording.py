"""lucid.torch: a recorded PyTorch pass plays with torch's own numbers, in an order torch's engine used.

Every program here runs with inputs and upstream gradients that are not all ones. Under CI torch must be
installed (requirements-dev pins it): a missing torch fails loudly instead of skipping these tests.
"""
from __future__ import annotations

import math
import threading

import numpy as np
import pytest

from tests.needs import require_torch

torch = require_torch()  # CI installs torch: missing there, these tests fail instead of skipping
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from lucid.torch import RecordingFileError, from_json, record, replay, to_json  # noqa: E402
from lucid.torch.capture import RecordError  # noqa: E402
from lucid.viz import explain  # noqa: E402


def _recorded(fn, grad=None, **names):
    with record(names=names) as rec:
        out = fn()
    if grad is None:
        out.backward()
    else:
        out.backward(grad)
    return rec, out


def _check_against_torch(rec, leaves: dict):
    """Every final total equals torch's .grad, every value torch's, every step's arithmetic holds."""
    graph = rec.graph()
    root, trace = replay(graph)
    finals = {id(s.parent): s.accumulated for s in trace.steps if s.is_final}
    by_name = {t.name: t for t in trace.order if t.name}
    for name, tensor in leaves.items():
        assert name in by_name, f"{name} is not a named leaf of the drawing"
        np.testing.assert_array_equal(finals[id(by_name[name])], tensor.grad.double().numpy())
    for node in graph.nodes:
        assert node.value.dtype == np.float64
    for s in trace.steps[1:]:
        if s.local is not None:  # upstream · local, summed over the broadcast axes, is torch's contribution
            raw = s.upstream * s.local
            summed = raw.sum(axis=s.summed_axes).reshape(s.contribution.shape) if s.summed_axes else raw
            np.testing.assert_allclose(np.broadcast_to(summed, s.contribution.shape), s.contribution,
                                       rtol=1e-5, atol=1e-6)
        assert s.contribution.shape == s.parent.data.shape
    for k in range(len(trace.steps)):
        assert explain(trace, k).text
    return root, trace


def test_a_scalar_program_plays_with_torchs_numbers_and_lucids_rules():
    a = torch.tensor(1.5, requires_grad=True)
    b = torch.tensor(-2.0, requires_grad=True)
    c = torch.tensor(0.7, requires_grad=True)
    rec, out = _recorded(lambda: torch.tanh(a * b + c ** 2) * torch.sigmoid(a - c), torch.tensor(-0.8),
                         a=a, b=b, c=c)
    root, trace = _check_against_torch(rec, {"a": a, "b": b, "c": c})
    assert [t._op.name for t in trace.order if t._op is not None] == ["mul", "pow", "add", "tanh", "sub",
                                                                       "sigmoid", "mul"]
    assert trace.steps[0].contribution == pytest.approx(-0.8)
    assert root.data == pytest.approx(out.item())
    # the same program in lucid draws the same graph: ops and edges
    import lucid
    la, lb, lc = (lucid.Tensor(v, requires_grad=True) for v in (1.5, -2.0, 0.7))
    mine = lucid.tanh(la * lb + lc ** 2) * lucid.sigmoid(la - lc)
    mine.backward(np.array(-0.8))
    from lucid.autograd import topological_order
    assert [t._op.name for t in topological_order(mine) if t._op is not None] == \
        [t._op.name for t in trace.order if t._op is not None]
    assert la.grad == pytest.approx(a.grad.item()) and lc.grad == pytest.approx(c.grad.item())


def test_a_fan_out_adds_one_contribution_per_use_and_the_total_is_torchs_grad():
    x = torch.tensor([0.5, -1.25, 2.0], requires_grad=True)
    rec, _ = _recorded(lambda: (x * x).sum() * 3.0, x=x)
    root, trace = _check_against_torch(rec, {"x": x})
    into_x = [s for s in trace.steps if s.parent.name == "x"]
    assert len(into_x) == 2  # x * x: two edges, two steps, the second one adds
    np.testing.assert_allclose(into_x[0].contribution, 3.0 * x.detach().numpy())
    np.testing.assert_allclose(into_x[1].accumulated, 6.0 * x.detach().numpy())
    assert into_x[1].is_final and not into_x[0].is_final


def test_a_broadcast_bias_shows_the_summed_axis():
    W = torch.tensor([[0.3, -0.7, 1.1], [0.9, 0.2, -0.4]], requires_grad=True)
    bias = torch.tensor([0.05, -0.3], requires_grad=True)
    X = torch.tensor([[1.0, 2.0, -1.0], [0.5, -0.5, 3.0], [-2.0, 1.5, 0.25], [0.0, 1.0, 1.0]])
    rec, _ = _recorded(lambda: ((X @ W.T + bias).relu() ** 2).mean(), W=W, bias=bias)
    root, trace = _check_against_torch(rec, {"W": W, "bias": bias})
    into_bias = next(s for s in trace.steps if s.parent.name == "bias")
    assert into_bias.summed_axes == (0,) and into_bias.contribution_raw.shape == (4, 2)


def test_an_mlp_with_cross_entropy_names_parameters_and_groups_layers():
    torch.manual_seed(3)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    x = torch.randn(5, 3)
    y = torch.tensor([0, 1, 1, 0, 1])
    with record(model) as rec:
        loss = F.cross_entropy(model(x), y)
    loss.backward()
    leaves = dict(model.named_parameters())
    root, trace = _check_against_torch(rec, leaves)
    graph = rec.graph()
    assert [n.op for n in graph.nodes if n.kind == "op"] == ["linear", "tanh", "linear", "cross_entropy"]
    assert [n.module for n in graph.nodes if n.kind == "op"][:3] == [("model", "0"), ("model", "1"), ("model", "2")]
    assert root.name == "loss" and root._op.name == "cross_entropy"
    from lucid.viz import group_of
    tanh = next(t for t in trace.order if t._op is not None and t._op.describe() == "tanh")
    assert group_of(tanh) == ("model", "model.1")  # its box is named as torch names the module


def test_the_step_order_is_torchs_engine_order():
    """linear's weight gradient leaves through torch's inner transpose node, after the bias and input ones."""
    torch.manual_seed(4)
    lin = nn.Linear(3, 2)
    x = torch.randn(4, 3, requires_grad=True)
    with record(lin) as rec:
        out = torch.sigmoid(lin(x)).sum()
    out.backward()
    _check_against_torch(rec, {"weight": lin.weight, "bias": lin.bias, "x": x})
    names = [s.parent.name for s in replay(rec.graph())[1].steps]
    assert names.index("bias") < names.index("weight") and names.index("x") < names.index("weight")


def test_a_cnn_layer_and_attention_play_with_torchs_gradients():
    torch.manual_seed(5)
    conv = nn.Conv2d(1, 2, 3)
    img = torch.randn(1, 1, 6, 6)
    with record(conv) as rec:
        out = (F.max_pool2d(conv(img), 2) * torch.tensor([1.5, -0.5]).view(1, 2, 1, 1)).sum()
    out.backward()
    root, trace = _check_against_torch(rec, {"weight": conv.weight, "bias": conv.bias})
    assert {"conv2d", "max_pool2d"} <= {t._op.describe() for t in trace.order if t._op is not None}
    q, k, v = (torch.randn(4, 8, requires_grad=True) for _ in range(3))
    with record() as rec2:
        att = (torch.softmax(q @ k.T / math.sqrt(8), dim=-1) @ v).pow(2).sum()
    att.backward()
    _check_against_torch(rec2, {"q": q, "k": k, "v": v})


def test_the_numbers_of_the_users_computation_do_not_change():
    torch.manual_seed(6)
    model = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 1))
    x = torch.randn(7, 3)
    plain = [p.detach().clone() for p in model.parameters()]
    loss0 = F.mse_loss(model(x), torch.ones(7, 1) * 0.3)
    loss0.backward()
    grads0 = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    with record(model) as rec:
        loss1 = F.mse_loss(model(x), torch.ones(7, 1) * 0.3)
    loss1.backward()
    assert torch.equal(loss0, loss1)
    for g0, p in zip(grads0, model.parameters()):
        assert torch.equal(g0, p.grad)
    assert all(torch.equal(a, b) for a, b in zip(plain, model.parameters()))
    _check_against_torch(rec, dict(model.named_parameters()))


def test_in_place_ops_are_refused_with_a_message():
    x = torch.tensor([1.0, -2.0], requires_grad=True)
    with pytest.raises(RecordError, match="in place"):
        with record():
            y = x * 2
            y.add_(1.0)


def test_no_grad_and_detach_enter_as_constants():
    x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
    with record() as rec:
        with torch.no_grad():
            scale = x.abs().max()
        z = (x * scale + x.detach()).sum()
    z.backward()
    graph = rec.graph()
    assert [n.op for n in graph.nodes if n.kind == "op"] == ["mul", "add", "sum"]
    _check_against_torch(rec, {"x": x})


def test_backward_twice_shows_the_first_pass_and_says_so():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with record() as rec:
        y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    graph = rec.graph()
    assert any("first pass" in note for note in graph.notes)
    assert len(graph.steps) == 4  # the seed, sum → x * x, and x * x → x twice


def test_no_backward_is_a_clear_error():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with record() as rec:
        (x * 3).sum()
    with pytest.raises(RecordError, match="backward"):
        rec.graph()


def test_a_saved_recording_reads_back_and_plays_the_same(tmp_path):
    torch.manual_seed(7)
    model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 2))
    with record(model) as rec:
        loss = F.cross_entropy(model(torch.randn(4, 2)), torch.tensor([1, 0, 1, 1]))
    loss.backward()
    path = rec.save(tmp_path / "step.lucid")
    from lucid.torch import load
    again = load(path)
    r1, t1 = replay(rec.graph())
    r2, t2 = replay(again)
    assert len(t1.steps) == len(t2.steps)
    for a, b in zip(t1.steps, t2.steps):
        np.testing.assert_array_equal(a.accumulated, b.accumulated)
        assert explain(t1, a.index).text == explain(t2, b.index).text


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.update(format="other"), "not a lucid recording"),
    (lambda d: d.update(version=99), "version"),
    (lambda d: d["nodes"][1].update(inputs=[5]), "nodes\\[1\\].inputs"),
    (lambda d: d["nodes"][0]["value"].update(shape=[9]), "needs 9 numbers"),
    (lambda d: d["nodes"][0].update(name="x" * 500), "nodes\\[0\\].name"),
    (lambda d: d["nodes"][2].update(op="__import__('os')"), "not a valid name"),
    (lambda d: d["steps"][1].update(parent=0, slot=0, node=0), "steps\\[1\\].node"),
    (lambda d: d["steps"][1]["contribution"].update(data=["1e400x"]), "steps\\[1\\].contribution"),
])
def test_a_hostile_file_is_refused_with_the_field_it_got_wrong(mutate, message):
    import json
    x = torch.tensor([0.5, -1.5], requires_grad=True)
    rec, _ = _recorded(lambda: (x * 2.0).sum())
    data = json.loads(to_json(rec.graph()))
    mutate(data)
    with pytest.raises(RecordingFileError, match=message):
        from_json(json.dumps(data))


def test_an_oversized_file_is_refused_before_it_is_parsed():
    from lucid.torch import FileLimits
    with pytest.raises(RecordingFileError, match="at most 100$"):
        from_json("[" * 10_000, FileLimits(max_bytes=100))


def test_two_threads_record_at_once_without_mixing():
    results = {}

    def work(k: float):
        x = torch.tensor([k, -k], requires_grad=True)
        with record() as rec:
            y = (torch.tanh(x) * k).sum()
        y.backward()
        results[k] = (rec.graph(), x.grad.clone())

    threads = [threading.Thread(target=work, args=(k,)) for k in (0.5, 1.5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for graph, grad in results.values():
        assert [n.op for n in graph.nodes if n.kind == "op"] == ["tanh", "mul", "sum"]
        root, trace = replay(graph)
        final = next(s.accumulated for s in trace.steps if s.parent.name == "x" and s.is_final)
        np.testing.assert_array_equal(final, grad.double().numpy())


def test_stepper_plays_a_recording():
    pytest.importorskip("anywidget")
    from lucid.viz import stepper
    a = torch.tensor(0.8, requires_grad=True)
    with record() as rec:
        out = torch.exp(a * -1.5) + a
    out.backward()
    player = stepper(rec)
    assert player.n_steps == len(rec.graph().steps)


def test_stepper_plays_a_recording_read_from_a_file(tmp_path):
    pytest.importorskip("anywidget")
    from lucid.torch import load
    from lucid.viz import stepper
    w = torch.tensor([0.4, -1.2], requires_grad=True)
    with record() as rec:
        out = torch.sigmoid(w * torch.tensor([2.0, 0.5])).sum()
    out.backward()
    player = stepper(load(rec.save(tmp_path / "step.lucid")))
    assert player.n_steps == len(rec.graph().steps) == 4  # the seed, sum, sigmoid, w * const


def test_the_recording_bench_runs_and_leaves_the_gradients_as_torchs(capsys, monkeypatch):
    from bench import bench_torch_record
    monkeypatch.setattr("sys.argv", ["bench_torch_record.py", "--repeats", "1"])
    bench_torch_record.main()
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["plain", "recorded", "graph", "replay"]
    assert all("× plain" in line for line in lines)


def test_the_issues_own_example_picks_the_targets_with_lucids_index_op():
    """``model(x).log_softmax(-1)[range(4), y].neg().mean()``: the pick is lucid's ``[ ]``, explained as lucid's."""
    torch.manual_seed(8)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 3))
    x = torch.randn(4, 3)
    y = torch.tensor([0, 2, 1, 1])
    with record(model) as rec:
        loss = model(x).log_softmax(-1)[range(4), y].neg().mean()
    loss.backward()
    root, trace = _check_against_torch(rec, dict(model.named_parameters()))
    pick = next(t for t in trace.order if t._op is not None and t._op.name == "getitem")
    np.testing.assert_array_equal(pick.data, model(x).log_softmax(-1)[range(4), y].detach().double().numpy())
    into_logp = next(s for s in trace.steps if s.node is pick)
    assert np.count_nonzero(into_logp.contribution) == 4  # one picked entry per row gets -1/4
    np.testing.assert_array_equal(into_logp.contribution[range(4), y.numpy()], [-0.25] * 4)
