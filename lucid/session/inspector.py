"""What the node inspector shows: a node's full value and gradient arrays, its op and its parents.

Nodes are numbered in topological order (``t<k>``, the same ids the SVG
carries), so choosing "t3" in the list and clicking node t3 in the graph agree.
A graph drawn collapsed also has boxes (``g<n>``, ``lucid.viz.graph.hierarchy``): clicking one
shows what it holds (``group_details``).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from lucid._backend.core import REGISTRY
from lucid._tensor.tensor import Tensor
from lucid.autograd.trace import Trace
from lucid.i18n import N_, _
from lucid.viz.graph.hierarchy import Group, Hierarchy
from lucid.viz.numbers import shape_text


class RecordedPass(Protocol):
    """A backward pass as the inspector reads it: an ``Analysis`` (the app) or a notebook widget's ``Recording``."""

    @property
    def order(self) -> list[Tensor]: ...  # the tensors in topological order, output last

    @property
    def trace(self) -> Trace | None: ...

    @property
    def n_steps(self) -> int: ...

    @property
    def output(self) -> Tensor: ...


@dataclass(frozen=True)
class NodeDetails:
    """Everything about one tensor node at one step of the backward pass."""

    node_id: str
    title: str
    kind: str
    shape: tuple[int, ...]
    value: str
    gradient: str | None
    gradient_is_final: bool
    op: str | None
    formula: str | None
    derivatives: tuple[str, ...]
    parents: tuple[str, ...]
    children: tuple[str, ...]


def node_name(analysis: RecordedPass, k: int) -> str:
    """Short human label for node ``k``: its variable name, else what made it."""
    t = analysis.order[k]
    if t.name:
        return t.name
    if t._op is not None:
        return t._op.describe()
    return _("constant") if not t.requires_grad else _("input")


def node_choices(analysis: RecordedPass) -> list[str]:
    """Labels for the inspector's list, one per tensor in topological order, output last."""
    return [f"t{k} · {node_name(analysis, k)} · {shape_text(tuple(t.shape))}" for k, t in enumerate(analysis.order)]


def node_from_click(node_id: str, n_tensors: int) -> int | None:
    """Tensor index for a clicked SVG node: ``t<k>`` is tensor k, ``op<k>`` the op that made tensor k."""
    for prefix in ("t", "op"):
        rest = node_id[len(prefix):]
        if node_id.startswith(prefix) and rest.isdigit() and rest.isascii():
            k = int(rest)
            return k if k < n_tensors else None
    return None


def full_array(arr: np.ndarray) -> str:
    """The whole array, readable and aligned (no '...' for the sizes the language allows)."""
    arr = np.asarray(arr)
    if arr.ndim == 0:
        return f"{arr.item():.6g}"
    return np.array2string(arr, precision=5, suppress_small=True, max_line_width=100, threshold=10_000)


def _kind(analysis: RecordedPass, t: Tensor) -> str:
    """The node's role, in English (the inspector shows it translated)."""
    if t is analysis.output:
        return N_("output")
    if t._op is not None:
        return N_("intermediate")
    return N_("input (requires grad)") if t.requires_grad else N_("constant")


def node_details(analysis: RecordedPass, k: int, step: int | None = None) -> NodeDetails:
    """Details of node ``k``; its gradient as it stands after ``step`` (the last step when None)."""
    t = analysis.order[k]
    grad = None
    final = False
    if analysis.trace is not None:
        last = analysis.n_steps - 1
        at = last if step is None else max(0, min(step, last))
        grad_arr = analysis.trace.grads_at(at).get(id(t))
        if grad_arr is not None:
            grad = full_array(grad_arr)
            done = [s for s in analysis.trace.steps[: at + 1] if s.parent is t]
            final = bool(done and done[-1].is_final)
    op = formula = None
    derivatives: tuple[str, ...] = ()
    if t._op is not None:
        op = t._op.describe()
        spec = REGISTRY.get(type(t._op).name) or getattr(t._op, "custom_spec", None)  # a program's own op (def)
        if spec is not None:
            formula = spec.formula
            derivatives = spec.derivatives
    label = {id(n): f"t{i} · {node_name(analysis, i)}" for i, n in enumerate(analysis.order)}
    parents = tuple(label[id(p)] for p in t._prev if id(p) in label)
    children = tuple(label[id(c)] for c in analysis.order if any(p is t for p in c._prev))
    return NodeDetails(f"t{k}", node_name(analysis, k), _kind(analysis, t), tuple(t.shape), full_array(t.data),
                       grad, final, op, formula, derivatives, parents, children)


@dataclass(frozen=True)
class GroupDetails:
    """One box of a collapsed drawing (``g<n>``) at one step: what it holds and how far its gradients got."""

    group_id: str
    label: str
    key: str
    size: int
    inner_groups: int  # groups directly inside it
    loose: int  # tensors directly inside it, in no inner group
    needing_gradient: int
    with_gradient: int
    final_gradient: int
    is_open: bool
    members: tuple[str, ...]  # the first few members, "t<k> · name"
    more: int  # members not listed


def group_from_click(node_id: str, hierarchy: Hierarchy) -> Group | None:
    """The group of a clicked box or open group's header (``g<n>``), or None for anything else."""
    rest = node_id[1:]
    if node_id.startswith("g") and rest.isdigit() and rest.isascii():
        return hierarchy.by_id(node_id)
    return None


def group_details(analysis: RecordedPass, hierarchy: Hierarchy, group_id: str, step: int | None = None,
                  expanded: Iterable[str] = (), listed: int = 8) -> GroupDetails | None:
    """Details of box ``group_id`` after trace step ``step`` (the last when None); None if there is no such box."""
    g = hierarchy.by_id(group_id)
    if g is None:
        return None
    need = [k for k in g.members if analysis.order[k].requires_grad]
    got = final = 0
    if analysis.trace is not None and need:
        last = analysis.n_steps - 1
        at = last if step is None else max(0, min(step, last))
        reached: dict[int, bool] = {}
        for s in analysis.trace.steps[: at + 1]:
            reached[id(s.parent)] = s.is_final
        got = sum(1 for k in need if id(analysis.order[k]) in reached)
        final = sum(1 for k in need if reached.get(id(analysis.order[k]), False))
    members = tuple(f"t{k} · {node_name(analysis, k)}" for k in g.members[:listed])
    return GroupDetails(g.id, g.label, g.key, g.size, len(g.children), len(g.loose), len(need), got, final,
                        g.key in hierarchy.resolve(set(expanded)), members, max(0, g.size - listed))
