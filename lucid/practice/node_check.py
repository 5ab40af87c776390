"""The detective's magnifying glass: check one node of a backward pass against float64 central differences.

A whole-program gradient check says *that* something is wrong; the detective needs *where*. One node's
backward step is checked on its own, with the numbers the (possibly broken) trace shows:

- **its total**: the gradient the node holds equals the sum of what its users sent it (a tensor used twice
  must add both parts; ``=`` instead of ``+=`` fails here, at the tensor that lost a part);
- **its local step**, once per input: for a random direction ``v`` (the input's shape), the directional
  derivative of ⟨upstream, f(x)⟩ by central differences, ⟨upstream, (f(x + εv) − f(x − εv)) / 2ε⟩, must
  equal ⟨what the node sent to x, v⟩. A wrong local rule, a lost transpose or a wrong broadcast sum fails
  here, at the op whose rule is wrong, and nowhere else: every node is checked against its *own* upstream, so
  a mistake above it does not make a correct node fail.

The op is run again with the same parameters on perturbed copies of its inputs (``type(op)(**op.params)``),
under ``no_grad``: nothing of the program's graph changes. ε is scaled to the input (``1e-6 · max(1, |x|)``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from lucid._backend.grad_mode import no_grad
from lucid._tensor.tensor import Tensor
from lucid.autograd.trace import Trace

__all__ = ["TOLERANCE", "InputCheck", "NodeCheck", "check_node"]

TOLERANCE = 1e-5
"""Relative error above which a check fails: central differences in float64 agree to ~1e-9 on smooth ops."""

_TINY = 1e-10


@dataclass(frozen=True)
class InputCheck:
    """The local step into input ``slot``: ``expected`` (central differences) against ``shown`` (the trace)."""

    slot: int
    expected: float
    shown: float
    rel_error: float

    @property
    def passed(self) -> bool:
        return self.rel_error <= TOLERANCE


@dataclass(frozen=True)
class NodeCheck:
    """Everything checked at node ``index`` of the trace's order.

    ``total_error`` compares the node's gradient with the sum of its users' contributions (None: no user sent
    anything, or it is the output, whose gradient is the seed); ``inputs`` the local step into each input that
    received a gradient (empty for a leaf). ``checkable`` is False when the op could not be run again."""

    index: int
    total_error: float | None
    inputs: tuple[InputCheck, ...]
    checkable: bool = True

    @property
    def passed(self) -> bool:
        total_ok = self.total_error is None or self.total_error <= TOLERANCE
        return total_ok and all(c.passed for c in self.inputs)

    @property
    def worst_error(self) -> float:
        errors = [c.rel_error for c in self.inputs]
        if self.total_error is not None:
            errors.append(self.total_error)
        return max(errors, default=0.0)


def _relative(expected: float, shown: float, scale: float) -> float:
    gap = abs(expected - shown)
    size = max(abs(expected), abs(shown))
    if size <= _TINY * max(scale, 1.0):
        return 0.0 if gap <= _TINY * max(scale, 1.0) else float("inf")
    return gap / size


def _total_error(trace: Trace, node: Tensor) -> float | None:
    if node is trace.root:
        return None
    into = [s for s in trace.steps[1:] if s.parent is node]
    if not into:
        return None
    summed = np.zeros(np.shape(into[0].contribution))
    for s in into:
        summed = summed + s.contribution
    shown = into[-1].accumulated
    gap = float(np.max(np.abs(summed - shown), initial=0.0))
    size = float(max(np.max(np.abs(summed), initial=0.0), np.max(np.abs(shown), initial=0.0)))
    if size <= _TINY:
        return 0.0 if gap <= _TINY else float("inf")
    return gap / size


def _fresh(op: Any) -> tuple[Any, tuple]:
    """A new call of ``op``'s class with its parameters, and the extra arguments its forward takes.

    Most ops keep their parameters as keywords (``sum(axis=0)``); a few take them as arguments and keep
    them in ``params`` for display (``cross_entropy``'s targets); a student's own op is built from its
    definition."""
    cls = type(op)
    if hasattr(op, "definition"):  # lucid.expr.defined.defined_op
        return cls(op.definition, op.forward_formula, op.rule_formulas), ()
    try:
        return cls(**op.params), ()
    except TypeError:
        return cls(), tuple(op.params.values())


def _run_again(node: Tensor, inputs: list[np.ndarray]) -> np.ndarray:
    op = node._op
    tensors = [Tensor(x) for x in inputs]
    again, extra = _fresh(op)
    with no_grad(), np.errstate(all="ignore"):
        if getattr(type(op).forward, "n_in", 1) is None:
            out = again(tensors, *extra)
        else:
            out = again(*tensors, *extra)
    return np.asarray(out.data, dtype=np.float64)


def _local_checks(trace: Trace, node: Tensor, index: int) -> tuple[tuple[InputCheck, ...], bool]:
    edges = [s for s in trace.steps[1:] if s.node is node]
    if not edges or node._op is None:
        return (), True
    upstream = np.asarray(edges[0].upstream, dtype=np.float64)
    base = [np.asarray(t.data, dtype=np.float64) for t in node._prev]
    try:  # the op run again must give the node's own value, or its differences mean nothing
        same = np.allclose(_run_again(node, base), node.data, rtol=1e-12, atol=1e-12, equal_nan=True)
    except Exception:  # an op that cannot be run again on its own: reported as not checkable
        same = False
    if not same:
        return (), False
    checks = []
    for edge in edges:
        x = base[edge.slot]
        rng = np.random.default_rng([index, edge.slot, 7])
        v = rng.standard_normal(x.shape)
        eps = 1e-6 * max(1.0, float(np.max(np.abs(x), initial=0.0)))
        plus, minus = list(base), list(base)
        plus[edge.slot], minus[edge.slot] = x + eps * v, x - eps * v
        try:
            diff = (_run_again(node, plus) - _run_again(node, minus)) / (2 * eps)
        except Exception:  # an op that cannot be run again on its own (it is then reported as not checkable)
            return (), False
        expected = float(np.sum(upstream * diff))
        shown = float(np.sum(np.asarray(edge.contribution, dtype=np.float64) * v))
        scale = float(np.sum(np.abs(upstream) * np.abs(diff))) + float(np.sum(np.abs(edge.contribution)))
        checks.append(InputCheck(edge.slot, expected, shown, _relative(expected, shown, scale)))
    return tuple(checks), True


def check_node(trace: Trace, index: int) -> NodeCheck:
    """Check node ``index`` (of ``trace.order``) of the backward pass ``trace`` shows: its total, its local step.

    Deterministic: the same trace and node give the same directions and so the same verdict."""
    if not 0 <= index < len(trace.order):
        raise IndexError(f"node {index} is not in this graph of {len(trace.order)} nodes")
    node = trace.order[index]
    inputs, checkable = _local_checks(trace, node, index)
    return NodeCheck(index, _total_error(trace, node), inputs, checkable)
