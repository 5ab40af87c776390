"""A recorded torch pass drawn as a lucid graph and trace, with torch's numbers in torch's order.

Each recorded call becomes a lucid node. A call lucid knows (``torch.tanh``, ``x @ w``, ``F.cross_entropy``)
is rebuilt with lucid's own op on the recorded inputs, so it has lucid's symbol, rule text and
explanation; its value is then set to torch's (after checking the two agree), and its local derivatives
are read at torch's values. A call lucid does not know (``linear``, ``conv2d``, ``max_pool2d``) is drawn
with torch's name and stepped with a generic explanation: torch's gradient, no local rule. The trace's
upstream gradients and contributions are torch's, in the order its engine produced them; the running
totals add them up as ``+=`` does.
"""
from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

import lucid
from lucid._backend.core import OpSpec, match_shape, operation
from lucid._tensor.tensor import Tensor
from lucid.autograd import Trace, TraceStep
from lucid.autograd.backward import topological_order
from lucid.i18n import N_, _
from lucid.torch.data import RecordedGraph
from lucid.viz.graph.groups import tag

Builder = Callable[[list[Tensor], dict[str, Any]], Tensor]


def _arg(params: dict[str, Any], name: str, position: int, default: Any = None) -> Any:
    """A torch argument given by keyword (``dim=1``) or by position (``x.sum(1)`` → ``arg1``)."""
    if name in params:
        return params[name]
    return params.get(f"arg{position}", default)


def _axis(v: Any) -> Any:
    return tuple(v) if isinstance(v, list) else v


def _index(v: Any) -> Any:
    """A recorded ``__getitem__`` index back as Python's (slices, ints, lists, ``...``)."""
    if isinstance(v, dict) and "slice" in v:
        return slice(*v["slice"])
    if v == "...":
        return Ellipsis
    if isinstance(v, list) and any(isinstance(x, (dict, list)) or x == "..." or x is None for x in v):
        return tuple(_index(x) for x in v)
    return v


def _swap(build: Callable[[Tensor, Tensor], Tensor]) -> Builder:
    return lambda t, p: build(t[1], t[0])


def _reduction(build: Callable[..., Tensor]) -> Builder:
    def make(t: list[Tensor], p: dict[str, Any]) -> Tensor:
        if _arg(p, "dtype", 2) is not None and "dtype" in p:
            raise ValueError("a dtype argument")
        return build(t[0], axis=_axis(_arg(p, "dim", 1)), keepdims=bool(_arg(p, "keepdim", 2, False)))
    return make


def _softmax(build: Callable[..., Tensor]) -> Builder:
    return lambda t, p: build(t[0], axis=_arg(p, "dim", 1))


def _cross_entropy(t: list[Tensor], p: dict[str, Any]) -> Tensor:
    if any(p.get(k) not in (None, "mean", -100, 0.0) for k in ("reduction", "ignore_index", "label_smoothing")) \
            or p.get("weight") is not None:
        raise ValueError("options lucid's cross_entropy does not have")
    return lucid.cross_entropy(t[0], np.asarray(_arg(p, "target", 1), dtype=np.intp))


def _mse(t: list[Tensor], p: dict[str, Any]) -> Tensor:
    if p.get("reduction", "mean") != "mean":
        raise ValueError("reduction other than mean")
    return lucid.mse_loss(t[0], t[1])


def _reshape(t: list[Tensor], p: dict[str, Any]) -> Tensor:
    shape = [v for k, v in sorted(p.items()) if k.startswith("arg")] or [p.get("shape")]
    flat = shape[0] if len(shape) == 1 and isinstance(shape[0], list) else shape
    return lucid.reshape(t[0], *flat)


def _transpose(t: list[Tensor], p: dict[str, Any]) -> Tensor:
    return lucid.swapaxes(t[0], _arg(p, "dim0", 1), _arg(p, "dim1", 2))


def _joined(build: Callable[..., Tensor]) -> Builder:
    """``torch.stack([a, b], dim)`` / ``torch.cat``: the tensors are the inputs, ``dim`` the one number left."""
    def make(t: list[Tensor], p: dict[str, Any]) -> Tensor:
        positional = [v for k, v in p.items() if k.startswith("arg")]
        if len(positional) > 1 or set(p) - {"dim"} - {k for k in p if k.startswith("arg")}:
            raise ValueError("arguments lucid's op does not have")
        dim = p.get("dim", positional[0] if positional else 0)
        return build(list(t), axis=int(dim))
    return make


KNOWN: dict[str, Builder] = {
    **dict.fromkeys(("add", "__add__", "__radd__"), lambda t, p: lucid.add(t[0], t[1])),
    **dict.fromkeys(("sub", "__sub__"), lambda t, p: lucid.sub(t[0], t[1])),
    **dict.fromkeys(("__rsub__", "rsub"), _swap(lucid.sub)),
    **dict.fromkeys(("mul", "__mul__", "__rmul__", "multiply"), lambda t, p: lucid.mul(t[0], t[1])),
    **dict.fromkeys(("div", "__truediv__", "true_divide", "divide"), lambda t, p: lucid.div(t[0], t[1])),
    **dict.fromkeys(("__rtruediv__", "__rdiv__"), _swap(lucid.div)),
    **dict.fromkeys(("pow", "__pow__"), lambda t, p: lucid.pow(t[0], t[1])),
    "__rpow__": _swap(lucid.pow),
    **dict.fromkeys(("neg", "__neg__", "negative"), lambda t, p: lucid.neg(t[0])),
    **{name: (lambda f: lambda t, p: f(t[0]))(getattr(lucid, name))
       for name in ("exp", "log", "tanh", "sigmoid", "relu", "sin", "cos", "sqrt", "abs", "softplus")},
    **dict.fromkeys(("matmul", "__matmul__", "mm"), lambda t, p: lucid.matmul(t[0], t[1])),
    "maximum": lambda t, p: lucid.maximum(t[0], t[1]), "minimum": lambda t, p: lucid.minimum(t[0], t[1]),
    "sum": _reduction(lucid.sum), "mean": _reduction(lucid.mean),
    "softmax": _softmax(lucid.softmax), "log_softmax": _softmax(lucid.log_softmax),
    "cross_entropy": _cross_entropy, "mse_loss": _mse,
    **dict.fromkeys(("reshape", "view"), _reshape),
    **dict.fromkeys(("t", "T"), lambda t, p: lucid.transpose(t[0])),
    "transpose": _transpose,
    "stack": _joined(lucid.stack), **dict.fromkeys(("cat", "concat", "concatenate"), _joined(lucid.concatenate)),
    "__getitem__": lambda t, p: lucid.getitem(t[0], _index(p["arg1"])),
    "unsqueeze": lambda t, p: lucid.unsqueeze(t[0], _arg(p, "dim", 1)),
    "squeeze": lambda t, p: lucid.squeeze(t[0], _axis(_arg(p, "dim", 1))),
    "leaky_relu": lambda t, p: lucid.leaky_relu(t[0], float(_arg(p, "negative_slope", 1, 0.01))),
}

#: What a generic node's explanation says the op computes, for torch calls students meet often (English: the
#: explanation shows each through the reader's catalog).
FORMULAS = {"linear": "out = x·Wᵀ + b", "conv2d": N_("out = x ⋆ W + b (2-D convolution)"),
            "max_pool2d": N_("out = the largest entry of each window"),
            "avg_pool2d": N_("out = the mean of each window"), "dropout": N_("out = x · mask / (1 − p)"),
            "layer_norm": N_("out = (x − mean) / √(var + ε) · γ + β"),
            "batch_norm": N_("out = (x − mean) / √(var + ε) · γ + β"), "gelu": "out = x · Φ(x)",
            "nll_loss": N_("out = −mean of the picked log-probabilities"),
            "flatten": N_("out = x with axes joined"), "silu": "out = x · σ(x)",
            "embedding": N_("out = the rows of W picked by the indices")}
#: The formula of a torch call lucid knows nothing of: its name, and who computed it.
UNKNOWN_FORMULA = N_("out = {op}(…) (computed by PyTorch)")


class torch_op(operation):
    """A torch call lucid has no op for: drawn with torch's name, stepped with torch's gradients only.

    Never registered (no ``name``), so the registry stays lucid's; ``custom_spec`` is what the drawing
    and the explanation read instead.
    """

    def __init__(self, op: str, params: dict[str, Any], n_inputs: int) -> None:
        self.op = op
        self.params = {k: v for k, v in params.items() if not isinstance(v, list) or len(v) <= 4}
        # an unknown op's formula is put in words now, in the reader's language (no catalog holds its name)
        formula = FORMULAS.get(op) or _(UNKNOWN_FORMULA).format(op=op)
        self.custom_spec = OpSpec(op, op, formula, (), "torch", None, torch_op)
        self.symbol = op

    def local_derivatives(self) -> None:
        return None

    def describe(self) -> str:
        """torch's name alone: its keyword arguments (``padding=0, dilation=1``) would crowd the drawing."""
        return self.op


def _mirror_known(node: Any, parents: list[Tensor]) -> Tensor | None:
    build = KNOWN.get(node.op)
    if build is None:
        return None
    try:
        with np.errstate(all="ignore"):
            out = build(parents, node.params)
    except (ValueError, TypeError, IndexError, KeyError, AttributeError):
        return None
    if not isinstance(out, Tensor) or out._op is None or out.data.shape != node.value.shape:
        return None
    if not np.allclose(out.data, node.value, rtol=1e-4, atol=1e-5, equal_nan=True):
        return None
    out.data = node.value.copy()
    return out


def _mirror_generic(node: Any, parents: list[Tensor]) -> Tensor:
    op = torch_op(node.op, node.params, len(parents))
    out = Tensor(node.value.copy(), requires_grad=True)
    out._op = op
    out._prev = list(parents)
    op._result = weakref.ref(out)
    return out


def _slots(out: Tensor, parents: list[Tensor]) -> list[int] | None:
    """Where each torch input sits in the lucid node's ``_prev`` (``x * x``: the two uses in order)."""
    taken: set[int] = set()
    slots = []
    for p in parents:
        slot = next((i for i, q in enumerate(out._prev) if q is p and i not in taken), None)
        if slot is None:
            if p.requires_grad:
                return None
            slots.append(-1)
            continue
        taken.add(slot)
        slots.append(slot)
    return slots


def module_groups(module: tuple[str, ...]) -> tuple[str, ...]:
    """The group path of a module path: each level named as torch names the module (``model.0``).

    ``("model", "0", "1")`` becomes ``("model", "model.0", "model.0.1")``, so a collapsed box says which
    layer it is (``model.0``, as ``model.named_modules()`` and the parameter names ``0.weight`` say it),
    not only ``0``.
    """
    return tuple(".".join(module[:i + 1]) for i in range(len(module)))


def mirror(graph: RecordedGraph) -> tuple[list[Tensor], list[list[int]]]:
    """A lucid tensor per recorded node, and per node where its torch inputs sit in ``_prev``."""
    tensors: list[Tensor] = []
    slot_maps: list[list[int]] = []
    for node in graph.nodes:
        if node.kind == "leaf":
            t = Tensor(node.value.copy(), requires_grad=node.requires_grad, name=node.name)
            slot_maps.append([])
        else:
            parents = [tensors[i] for i in node.inputs]
            t = _mirror_known(node, parents)
            slots = None if t is None else _slots(t, parents)
            if slots is None:
                t = _mirror_generic(node, parents)
                slots = list(range(len(parents)))
            t.name = node.name
            slot_maps.append(slots)
        if node.module:  # a module's calls and its parameters: one box per module when the graph collapses
            tag(t, module_groups(node.module))
        tensors.append(t)
    return tensors, slot_maps


def replay(graph: RecordedGraph) -> tuple[Tensor, Trace]:
    """``(root, trace)``: the recording as lucid's tensors with torch's values and torch's backward steps."""
    tensors, slot_maps = mirror(graph)
    root = tensors[graph.root]
    totals: dict[int, np.ndarray] = {}
    steps: list[TraceStep] = []
    locals_cache: dict[int, Any] = {}
    last = {}
    for k, s in enumerate(graph.steps):
        last[s.parent] = k
    for k, s in enumerate(graph.steps):
        parent = tensors[s.parent]
        contribution = np.asarray(s.contribution, dtype=np.float64)
        total = contribution if s.parent not in totals else totals[s.parent] + contribution
        final = last[s.parent] == k
        recorded_grad = graph.nodes[s.parent].grad
        if final and recorded_grad is not None and np.allclose(total, recorded_grad, rtol=1e-5, atol=1e-7):
            total = recorded_grad  # torch's own .grad, added up in its precision
        totals[s.parent] = total
        if s.node is None:
            steps.append(TraceStep(0, None, parent, 0, None, None, contribution, contribution, (), total))
            continue
        node = tensors[s.node]
        slot = slot_maps[s.node][s.slot]
        upstream = graph.nodes[s.node].upstream
        local = raw = None
        axes: tuple[int, ...] = ()
        if upstream is not None and node._op is not None and not isinstance(node._op, torch_op):
            if s.node not in locals_cache:
                with np.errstate(all="ignore"):
                    locals_cache[s.node] = node._op.local_derivatives()
            ls = locals_cache[s.node]
            if ls is not None and slot < len(ls) and ls[slot] is not None:
                with np.errstate(all="ignore"):
                    candidate = np.asarray(upstream * np.asarray(ls[slot], dtype=np.float64))
                matched, summed = match_shape(candidate, parent.data.shape)
                if matched.shape == contribution.shape and np.allclose(matched, contribution, rtol=1e-4, atol=1e-6,
                                                                        equal_nan=True):
                    local, raw, axes = np.asarray(ls[slot], dtype=np.float64), candidate, summed
        if raw is None:
            raw = contribution
        steps.append(TraceStep(k, node, parent, slot, upstream, local, raw, contribution, axes, total))
    steps = [TraceStep(**{**st.__dict__, "is_final": last[graph.steps[st.index].parent] == st.index})
             for st in steps]
    order = topological_order(root)
    return root, Trace(root, order, steps)
