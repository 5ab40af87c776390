"""The gradient detective's catalogue: real mistakes of hand-written backward passes, one at a time (issue 30).

A teacher breaks one rule of one op for a program; the student sees the numbers a broken engine would show
and finds the culprit with per-node checks (``lucid.practice.node_check``). Each fault here is a mistake
people really make when writing autodiff by hand:

- ``overwrite``: ``grad = g`` instead of ``grad += g`` on a tensor used twice (the last path wins);
- ``no-broadcast-sum``: the broadcast sum left out, so a broadcast input keeps one copy's gradient;
- ``reshape-match``: the original sketch's ``_match_grad_shape``, which reshapes a broadcast gradient to the
  input's shape and sums the wrong numbers together (right only when the upstream gradient is all ones);
- ``matmul-no-transpose``: ``g @ b`` for ``∂/∂a`` (and ``a @ g`` for ``∂/∂b``) where ``bᵀ``/``aᵀ`` belongs;
- ``tanh-from-input``: tanh′ = 1 − x² from the input, where it is 1 − out² from the output;
- ``sigmoid-prime-sigma``: sigmoid′ = σ, forgetting the factor (1 − σ);
- ``mean-without-n``: mean's gradient without the 1/n;
- ``sub-sign``, ``div-sign``: the minus sign of ``∂(a − b)/∂b`` and ``∂(a / b)/∂b`` lost.

The broken pass never touches the engine: ``broken_trace`` reads the program's graph (its grad functions
are pure: they return new arrays and write nothing) and the correct trace, and writes a new ``Trace`` of its
own. So a fault lives in one session's record only; no other session, and no later backward pass, can see it.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from lucid._backend.core import match_shape
from lucid._tensor.tensor import Tensor
from lucid.autograd.trace import Trace, TraceStep
from lucid.i18n import L_, Message

__all__ = ["FAULTS", "Fault", "Target", "applicable_targets", "broken_trace", "fault_by_slug"]

Array = np.ndarray


@dataclass(frozen=True)
class Fault:
    """One mistake. ``where`` says what breaks: ``"op"`` an op's backward rule (the culprit is that op's node),
    ``"total"`` the accumulation into a tensor (the culprit is the tensor whose gradient was overwritten).

    ``op``: the registry name the rule belongs to (None: any op). ``rule(node, slot, upstream, raw)`` returns
    the broken raw gradient for one input (None: that input is not affected); ``match(raw, shape, axes)`` the
    broken shape matching of a broadcast input (None: the engine's)."""

    slug: str
    title: Message
    where: str
    op: str | None = None
    rule: Callable[[Tensor, int, Array, Array], Array | None] | None = None
    local: Callable[[Tensor, int, Array | None], Array | None] | None = None
    match: Callable[[Array, tuple[int, ...], tuple[int, ...]], Array] | None = None


@dataclass(frozen=True)
class Target:
    """Where a fault is planted: the fault and the index of the culprit in the trace's ``order``."""

    fault: Fault
    index: int


# ----- the broken rules -------------------------------------------------------------------------------------
def _tanh_from_input(node: Tensor, slot: int, upstream: Array, raw: Array) -> Array:
    x = node._prev[0].data
    return upstream * (1.0 - x * x)


def _sigmoid_is_sigma(node: Tensor, slot: int, upstream: Array, raw: Array) -> Array:
    return upstream * node.data


def _mean_without_n(node: Tensor, slot: int, upstream: Array, raw: Array) -> Array:
    n = node._prev[0].data.size / max(node.data.size, 1)
    return raw * n


def _second_sign(node: Tensor, slot: int, upstream: Array, raw: Array) -> Array | None:
    return -raw if slot == 1 else None


def _matmul_no_transpose(node: Tensor, slot: int, upstream: Array, raw: Array) -> Array | None:
    a, b = (t.data for t in node._prev)
    if a.ndim != 2 or b.ndim != 2 or np.ndim(upstream) != 2:
        return None
    try:
        broken = upstream @ b if slot == 0 else a @ upstream
    except ValueError:  # the shapes do not allow the mistake: it would crash, not give numbers
        return None
    return broken if broken.shape == np.shape(raw) else None


def _first_copy(raw: Array, shape: tuple[int, ...], axes: tuple[int, ...]) -> Array:
    """One broadcast copy's gradient where the sum over the copies belongs."""
    kept = raw[tuple(slice(0, 1) if i in axes else slice(None) for i in range(raw.ndim))]
    return kept.reshape(shape)


def _reshape_match(raw: Array, shape: tuple[int, ...], axes: tuple[int, ...]) -> Array:
    """The design notes' ``_match_grad_shape`` for a gradient larger than its input: reshape, then sum.

    It reshapes the gradient to ``(*shape, k)`` (k = how many times larger it is) and sums the last axis,
    so each entry adds k *neighbouring* numbers of the flattened gradient instead of the k copies of itself.
    """
    size = math.prod(shape)
    if not shape:
        return np.asarray(raw.sum())
    if raw.size == size:
        return raw.reshape(shape)
    return raw.reshape(*shape, raw.size // size).sum(axis=-1)


def _local_tanh(node: Tensor, slot: int, local: Array | None) -> Array:
    x = node._prev[0].data
    return 1.0 - x * x


def _local_sigma(node: Tensor, slot: int, local: Array | None) -> Array:
    return np.asarray(node.data, dtype=np.float64)


def _local_flipped(node: Tensor, slot: int, local: Array | None) -> Array | None:
    return None if local is None or slot != 1 else -local


def _local_ones(node: Tensor, slot: int, local: Array | None) -> Array | None:
    return None if local is None else np.ones_like(local)


FAULTS: tuple[Fault, ...] = (
    Fault("overwrite", L_("= instead of += : a tensor used twice keeps only the last gradient"), "total"),
    Fault("no-broadcast-sum", L_("The broadcast sum left out: a broadcast input keeps one copy's gradient"), "op",
          match=_first_copy),
    Fault("reshape-match", L_("The sketch's _match_grad_shape: a broadcast gradient reshaped instead of summed"),
          "op", match=_reshape_match),
    Fault("matmul-no-transpose", L_("matmul without the transpose: g @ b where g @ bᵀ belongs"), "op", "matmul",
          rule=_matmul_no_transpose),
    Fault("tanh-from-input", L_("tanh′ from the input: 1 − x² where 1 − out² belongs"), "op", "tanh",
          rule=_tanh_from_input, local=_local_tanh),
    Fault("sigmoid-prime-sigma", L_("sigmoid′ = σ, without the factor (1 − σ)"), "op", "sigmoid",
          rule=_sigmoid_is_sigma, local=_local_sigma),
    Fault("mean-without-n", L_("mean's gradient without the 1/n"), "op", "mean", rule=_mean_without_n,
          local=_local_ones),
    Fault("sub-sign", L_("The sign of ∂(a − b)/∂b lost: +1 where −1 belongs"), "op", "sub", rule=_second_sign,
          local=_local_flipped),
    Fault("div-sign", L_("The sign of ∂(a / b)/∂b lost: +a/b² where −a/b² belongs"), "op", "div",
          rule=_second_sign, local=_local_flipped),
)
_BY_SLUG = {f.slug: f for f in FAULTS}


def fault_by_slug(slug: str) -> Fault | None:
    return _BY_SLUG.get(slug)


# ----- the broken pass ----------------------------------------------------------------------------------------
def _kept(array: Array) -> Array:
    kept = np.array(array, dtype=np.float64, copy=True)
    kept.flags.writeable = False
    return kept


def broken_trace(trace: Trace, target: Target) -> Trace:
    """The backward pass of ``trace``'s graph as an engine with ``target``'s fault would run it.

    The same edges in the same order as the correct pass (the engine's order does not depend on numbers);
    each upstream is what the broken pass itself delivered, so a mistake flows on to everything below it,
    exactly as it would in a broken engine. The correct trace's local derivatives are shown where the rule is
    right; a broken rule shows its own (tanh′ = 1 − x²), so the explanation matches the numbers on screen.
    """
    order = trace.order
    culprit = order[target.index]
    fault = target.fault
    totals: dict[int, Array] = {}
    seed = trace.steps[0]
    totals[id(seed.parent)] = seed.accumulated
    steps: list[TraceStep] = [seed]
    pushed: dict[int, tuple[Array, tuple]] = {}  # a node's upstream and its grad function's answer
    for step in trace.steps[1:]:
        node, parent, slot = step.node, step.parent, step.slot
        if id(node) not in pushed:  # the node's gradient is complete once its first edge runs
            upstream = _kept(totals[id(node)])
            pushed[id(node)] = (upstream, tuple(node._grad_fn(upstream)))
        upstream, raw_all = pushed[id(node)]
        raw = np.asarray(raw_all[slot], dtype=np.float64)
        local = step.local
        if node is culprit and fault.rule is not None:
            broken = fault.rule(node, slot, upstream, raw)
            if broken is not None:
                raw = np.asarray(broken, dtype=np.float64)
                if fault.local is not None:
                    local = fault.local(node, slot, step.local)
                    local = None if local is None else _kept(np.broadcast_to(local, np.shape(step.local)))
        matched, axes = match_shape(raw, parent.data.shape)
        if node is culprit and fault.match is not None and axes:
            matched = fault.match(raw, parent.data.shape, axes)
        matched = np.asarray(matched, dtype=np.float64)
        previous = totals.get(id(parent))
        if previous is None or (fault.where == "total" and parent is culprit):
            total = matched  # the first contribution, or the broken ``=``: the last path wins
        else:
            total = previous + matched
        total = _kept(total)
        totals[id(parent)] = total
        steps.append(TraceStep(step.index, node, parent, slot, upstream, local, _kept(raw), _kept(matched),
                               axes, total, step.is_final))
    return Trace(trace.root, order, steps)


def _changes_numbers(correct: Trace, broken: Trace) -> bool:
    for right, wrong in zip(correct.steps, broken.steps):
        if right.accumulated.shape != wrong.accumulated.shape:
            return True
        if not np.allclose(right.accumulated, wrong.accumulated, rtol=1e-9, atol=1e-12):
            return True
    return False


def _candidates(trace: Trace, fault: Fault) -> list[int]:
    index_of = {id(t): i for i, t in enumerate(trace.order)}
    if fault.where == "total":
        counts: dict[int, int] = {}
        for step in trace.steps[1:]:
            counts[id(step.parent)] = counts.get(id(step.parent), 0) + 1
        return sorted(index_of[k] for k, n in counts.items() if n >= 2)
    found = set()
    for step in trace.steps[1:]:
        op = step.node._op
        if fault.op is not None and getattr(op, "name", None) != fault.op:
            continue
        if fault.match is not None and not step.summed_axes and step.contribution_raw.shape == \
                step.contribution.shape:
            continue
        found.add(index_of[id(step.node)])
    return sorted(found)


def applicable_targets(trace: Trace, faults: tuple[Fault, ...] = FAULTS) -> list[Target]:
    """Every (fault, node) of this program where the fault changes at least one number on screen.

    A fault that would change nothing (sigmoid′ = σ where the upstream is 0, a reshape that happens to sum
    the right numbers) is no puzzle, so it is not offered.
    """
    targets = []
    for fault in faults:
        for index in _candidates(trace, fault):
            target = Target(fault, index)
            if _changes_numbers(trace, broken_trace(trace, target)):
                targets.append(target)
    return targets
