"""The gallery's programs written in PyTorch play like lucid's own: same numbers, same gradients, same picture.

Each twin is the gallery program line for line in torch, on the very inputs lucid's run drew (its ``randn``
leaves), in float64. It is recorded, replayed, and held against lucid's own run of the program with the same
upstream gradient (not ones): every tensor's value and final gradient, and every step's upstream gradient and
contribution, agree to rounding; the steps are the edges lucid steps (in an order torch's engine used: nothing
leaves a node before everything has reached it); and the graph lucid draws for the replay has the nodes, ops,
labels and edges it draws for the program.

A twin returns ``locals()``: the names the recorder gives the graph, as a program's variables name lucid's.
"""
from __future__ import annotations

import numpy as np
import pytest

from tests.needs import require_torch

torch = require_torch()

from lucid.autograd import backward_trace, topological_order  # noqa: E402
from lucid.expr.program import run  # noqa: E402
from lucid.gallery import EXAMPLES  # noqa: E402
from lucid.torch import record, replay  # noqa: E402
from lucid.viz.explanation.opinfo import COMMUTATIVE, spec_of  # noqa: E402
from lucid.viz.graph.naming import constant_text  # noqa: E402
from lucid.viz.graph.structure import build_model  # noqa: E402

T = torch


def scalar(a, b, c):
    out = T.tanh(a * b + c ** 2) * T.sigmoid(a - c) + T.log(b * b + 1)
    return locals()


def cs231n_circuit(x, y, z):
    q = x + y
    f = q * z
    return locals()


def cs231n_sigmoid(w0, x0, w1, x1, w2):
    f = 1 / (1 + T.exp(-(w0 * x0 + w1 * x1 + w2)))
    return locals()


def neuron(x, w, b):
    z = T.sum(x * w) + b
    out = T.tanh(z)
    return locals()


def used_twice(x):
    y = x * x
    return locals()


def bias_broadcast(X, b):
    H = T.tanh(X + b)
    loss = T.sum(H * H)
    return locals()


def reduction(A):
    s = A.sum(dim=0)
    out = T.sum(s * s) / 4
    return locals()


def softmax_ce(logits, Y):
    p = T.softmax(logits, dim=1)
    loss = -T.sum(Y * T.log(p)) / 4
    return locals()


def mlp(x, W1, b1, W2, b2, t):
    h = T.tanh(x @ W1 + b1)
    y = h @ W2 + b2
    loss = T.mean((y - t) ** 2)
    return locals()


def mse(pred, target):
    loss = T.mean((pred - target) ** 2)
    return locals()


def residual(x, w):
    branch = T.tanh(w * x)
    r = x + branch
    out = r * r
    return locals()


def div_pow(x, y):
    q = x ** 3 / (y + 1)
    r = q ** 0.5
    out = r / x
    return locals()


def relu_gate(x, weights):
    y = T.relu(x)
    out = T.sum(y * weights)
    return locals()


def sigmoid_saturation(x):
    s = T.sigmoid(x)
    out = T.sum(s)
    return locals()


def fused_ce(logits, targets):
    loss = T.nn.functional.cross_entropy(logits, targets.long())
    return locals()


def matmul(A, B):
    C = A @ B
    out = T.sum(C * C)
    return locals()


def reverse_3_to_1(x):
    f = T.sum(T.sin(x) * x)
    return locals()


def forward_1_to_3(t):
    p = T.stack([T.cos(t), T.sin(t), t * t])
    return locals()


def korean_mlp(입력, 가중치1, 편향1, 가중치2, 편향2):
    은닉 = T.tanh(입력 @ 가중치1 + 편향1)
    출력 = 은닉 @ 가중치2 + 편향2
    손실 = T.mean(출력 * 출력)
    return locals()


class swish(torch.autograd.Function):  # lower case: named as the program's own op, def swish(x)
    """The program's own op in torch: its formula forward, its rule ``d swish / d x`` backward."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * T.sigmoid(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (T.sigmoid(x) * (1 + x * (1 - T.sigmoid(x))))


def own_op_swish(w, a, b):
    y = T.sum(swish.apply(w * a + b))
    return locals()


#: Gallery slug -> its PyTorch twin.
TWINS = {"scalar": scalar, "cs231n-circuit": cs231n_circuit, "cs231n-sigmoid": cs231n_sigmoid, "neuron": neuron,
         "used-twice": used_twice, "bias-broadcast": bias_broadcast, "reduction": reduction,
         "softmax-ce": softmax_ce, "mlp": mlp, "mse": mse, "residual": residual, "div-pow": div_pow,
         "relu-gate": relu_gate, "sigmoid-saturation": sigmoid_saturation, "fused-ce": fused_ce,
         "matmul": matmul, "reverse-3-to-1": reverse_3_to_1, "forward-1-to-3": forward_1_to_3,
         "korean-mlp": korean_mlp, "own-op-swish": own_op_swish}

#: Gallery programs PyTorch's recorder cannot express as lucid draws them, and why.
NOT_IN_TORCH = {
    "gradient-penalty": "grad(loss, x) inside the program is torch.autograd.grad(create_graph=True): torch builds "
                        "those derivative nodes inside its engine, where no torch call is seen, so the recorder "
                        "refuses it (tests/torch/test_torch_passes.py)",
    "hessian-vector": "two grad() passes inside the program: torch.autograd.grad(create_graph=True), refused for "
                      "the same reason",
}


def test_every_gallery_program_has_a_torch_twin_or_a_named_reason():
    slugs = [e.slug for e in EXAMPLES]
    assert set(TWINS) | set(NOT_IN_TORCH) == set(slugs) and not set(TWINS) & set(NOT_IN_TORCH)
    assert len(TWINS) == 20 and len(slugs) == 22  # the README says how many are covered


#: Programs whose picture differs from lucid's only in the order of a commutative op's inputs, and why.
SWAPPED_OPERANDS = {
    "cs231n-sigmoid": "torch runs 1 + x as x.add(1) (its __radd__ is add with the operands swapped), so the "
                      "recorder sees, and draws, the number as add's second input",
}


def _expression(t) -> str:
    """A tensor as the expression the picture draws (names, numbers, ops), a commutative op's inputs sorted."""
    if t._op is None:
        return t.name or constant_text(t)
    inputs = [_expression(p) for p in t._prev]
    if spec_of(t) is not None and spec_of(t).name in COMMUTATIVE:
        inputs.sort()
    return f"{t.name or ''}={t._op.describe()}({', '.join(inputs)})"


def _paired(theirs, mine) -> dict[int, object]:
    """id of each of lucid's tensors -> the replay's tensor at the same place of the expression."""
    pairs: dict[int, object] = {}

    def walk(a, b) -> None:
        pairs[id(b)] = a
        ins_a, ins_b = list(a._prev), list(b._prev)
        assert len(ins_a) == len(ins_b) and _expression(a) == _expression(b)
        if spec_of(b) is not None and spec_of(b).name in COMMUTATIVE:
            ins_a.sort(key=_expression)
            ins_b.sort(key=_expression)
        for x, y in zip(ins_a, ins_b):
            walk(x, y)

    walk(theirs, mine)
    return pairs


def _seed(shape: tuple[int, ...]) -> np.ndarray:
    """An upstream gradient of the root's shape that is not all ones (and not symmetric)."""
    size = int(np.prod(shape))
    return np.linspace(-0.85, 1.4, size).reshape(shape) if size > 1 else np.full(shape, -0.8)


def _lucid_run(slug: str):
    example = next(e for e in EXAMPLES if e.slug == slug)
    program = run(example.source)
    seed = _seed(program.output.data.shape)
    trace = backward_trace(program.output, seed)
    return program, trace, seed


def _torch_run(slug: str, program, seed: np.ndarray):
    inputs = {name: torch.tensor(t.data, dtype=torch.float64, requires_grad=t.requires_grad)
              for name, t in program.variables.items() if t._op is None}
    names: dict = {}
    with record(names=names) as rec:
        names.update(TWINS[slug](**inputs))
    root = next(v for v in reversed(list(names.values())) if isinstance(v, torch.Tensor) and v.grad_fn is not None)
    root.backward(torch.tensor(seed, dtype=torch.float64))
    return rec, inputs


def _picture(root, order):
    """What lucid draws, as plain data: each node's id, kind and label, each op's text, each edge's ends and slot."""
    model = build_model(root, order, large=False)
    return ([(n.id, n.kind, n.label) for n in model.tensors], [(o.id, o.text) for o in model.ops],
            [(e.id, e.tail, e.head, e.slot_name) for e in model.edges])


def _finals(trace):
    index = {id(t): k for k, t in enumerate(trace.order)}
    return {index[id(s.parent)]: s.accumulated for s in trace.steps if s.is_final}


def _sent(trace) -> dict[tuple[int, int], tuple[np.ndarray | None, np.ndarray]]:
    """(child, parent) -> the upstream gradient at the child and what it sent the parent (both uses of x * x
    added up: a commutative op's two slots may be swapped between the two drawings)."""
    index = {id(t): k for k, t in enumerate(trace.order)}
    out: dict[tuple[int, int], tuple[np.ndarray | None, np.ndarray]] = {}
    for s in trace.steps:
        key = (index[id(s.node)] if s.node is not None else -1, index[id(s.parent)])
        before = out.get(key)
        out[key] = (s.upstream, s.contribution if before is None else before[1] + s.contribution)
    return out


def _edges(trace):
    index = {id(t): k for k, t in enumerate(trace.order)}
    return sorted((index[id(s.node)] if s.node is not None else -1, index[id(s.parent)]) for s in trace.steps)


@pytest.mark.parametrize("slug", list(TWINS))
def test_a_gallery_program_in_torch_plays_like_lucids(slug):
    program, mine, seed = _lucid_run(slug)
    rec, inputs = _torch_run(slug, program, seed)
    root, theirs = replay(rec.graph())
    order = topological_order(program.output)
    assert len(theirs.order) == len(order)
    pairs = _paired(root, program.output)
    position = {id(t): k for k, t in enumerate(theirs.order)}
    at = [position[id(pairs[id(m)])] for m in order]  # lucid's tensor k is the replay's tensor at[k]
    if slug not in SWAPPED_OPERANDS:  # the same place in the expression is the same node of the drawing
        assert at == list(range(len(order)))
    for k, m in enumerate(order):  # every value
        np.testing.assert_allclose(theirs.order[at[k]].data, m.data, rtol=1e-12, atol=1e-15, err_msg=f"value of t{k}")
    finals, expected = _finals(theirs), _finals(mine)
    assert set(finals) == {at[k] for k in expected}
    for k in expected:  # every gradient, at every node that received one
        np.testing.assert_allclose(finals[at[k]], expected[k], rtol=1e-12, atol=1e-15, err_msg=f"gradient of t{k}")
    for name, leaf in inputs.items():  # and torch's own .grad
        if leaf.requires_grad:
            np.testing.assert_allclose(leaf.grad.numpy(), program.variables[name].grad, rtol=1e-12, atol=1e-15)
    assert _edges(theirs) == sorted((at[c] if c >= 0 else -1, at[q]) for c, q in _edges(mine))  # one step per edge
    sent, expected_sent = _sent(theirs), _sent(mine)
    for (c, q), (upstream, contribution) in expected_sent.items():  # every step's numbers, edge by edge
        got_upstream, got = sent[(at[c] if c >= 0 else -1, at[q])]
        np.testing.assert_allclose(got, contribution, rtol=1e-12, atol=1e-15, err_msg=f"t{c} → t{q}")
        if upstream is not None:
            np.testing.assert_allclose(got_upstream, upstream, rtol=1e-12, atol=1e-15, err_msg=f"upstream of t{c}")


@pytest.mark.parametrize("slug", list(TWINS))
def test_a_gallery_program_in_torch_steps_in_an_order_torchs_engine_can_run(slug):
    """The order is the recording's; here it is checked to be a real backward order: a node sends its gradient
    on only after every contribution into it has arrived, and the seed comes first."""
    program, _, seed = _lucid_run(slug)
    rec, _ = _torch_run(slug, program, seed)
    _, trace = replay(rec.graph())
    assert trace.steps[0].node is None and trace.steps[0].parent is trace.root
    np.testing.assert_array_equal(trace.steps[0].contribution, seed)
    arrived: dict[int, int] = {}
    for k, s in enumerate(trace.steps):
        arrived[id(s.parent)] = k
        if s.node is not None:
            last_in = arrived.get(id(s.node))
            assert last_in is not None and last_in < k
            assert all(id(later.parent) != id(s.node) for later in trace.steps[k:])


@pytest.mark.parametrize("slug", list(TWINS))
def test_a_gallery_program_in_torch_draws_lucids_picture(slug):
    program, _, seed = _lucid_run(slug)
    rec, _ = _torch_run(slug, program, seed)
    root, trace = replay(rec.graph())
    order = topological_order(program.output)
    if slug in SWAPPED_OPERANDS:
        assert _picture(root, trace.order) != _picture(program.output, order)
        assert _expression(root) == _expression(program.output)
    else:
        assert _picture(root, trace.order) == _picture(program.output, order)
