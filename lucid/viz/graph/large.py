"""Large graphs in one call: the collapsed drawing, an overview and a detail, for one step.

The Playground (and any page) draws a big graph with::

    view = large_view(root, trace, expanded)          # once per (graph, opened groups)
    frame = large_frame(view, step)                   # per step of view.steps
    frame.main, frame.overview, frame.detail          # graphviz.Digraph each
    expanded = toggle(view, expanded, clicked_id)     # a click on a box (g<n>) opens/closes it

``step`` counts ``view.steps`` (the collapsed steps); ``view.step_of(trace_step)`` maps a
step of the backward trace to it, and ``view.steps[c].first``/``.last`` back.

- ``main``: the whole graph at the opened level, the current box or tensor marked.
- ``overview``: the whole graph fully collapsed and small (``size``), the top-level box
  that holds the current step marked as the region (class ``region``).
- ``detail``: that region large, with the groups around the current step opened down to
  single tensors, so the individual gradient steps inside it show; its neighbours are
  drawn as context.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import graphviz

from lucid._tensor.tensor import Tensor
from lucid.autograd import Trace
from lucid.viz.graph.collapse import CollapsedStep, CollapsedView, collapsed_dot

#: Graphviz ``size`` of the overview, in inches (it is scaled down to fit; never up).
OVERVIEW_SIZE = "5,3.5"


@dataclass
class LargeFrame:
    step: CollapsedStep | None
    region: str | None  # id of the overview's box that holds the current step
    main: graphviz.Digraph
    overview: graphviz.Digraph
    detail: graphviz.Digraph


def large_view(root: Tensor, trace: Trace | None = None, expanded: Iterable[str] = ()) -> CollapsedView:
    """The collapsed view of ``root``'s graph with the groups in ``expanded`` (keys or ``g<n>`` ids) open."""
    return CollapsedView(root, trace, expanded)


def large_frame(view: CollapsedView, step: int | None = None, *, direction: str = "LR") -> LargeFrame:
    """Main, overview and detail drawings after collapsed step ``step`` (None: the end of the pass)."""
    if view.trace is None or not view.steps:
        main = collapsed_dot(view, None, direction=direction)
        top = CollapsedView(view.root, None, (), hierarchy=view.hierarchy)
        return LargeFrame(None, None, main, collapsed_dot(top, None, direction=direction, size=OVERVIEW_SIZE,
                                                          clusters=False), main)
    n = len(view.steps)
    index = n - 1 if step is None else int(step)
    if not 0 <= index < n:
        raise IndexError(f"step {index} is out of range: this view has steps 0..{n - 1}")
    current = view.steps[index]
    last = view.trace.steps[current.last]
    focus = view.index_of[id(last.node if last.node is not None else last.parent)]
    main = collapsed_dot(view, index, direction=direction)

    top = CollapsedView(view.root, view.trace, (), hierarchy=view.hierarchy)
    region = top.unit_of[focus]
    overview = collapsed_dot(top, top.step_of(current.last), direction=direction, size=OVERVIEW_SIZE,
                             highlight=region, clusters=False, upto=current.last)

    path = view.hierarchy.path_of[focus]
    near = CollapsedView(view.root, view.trace, set(view.expanded) | set(path), hierarchy=view.hierarchy)
    top_key = path[0] if path else None
    inside = {u for u in near.units
              if (top_key is None and u == near.unit_of[focus])
              or (top_key is not None and top_key in near.hierarchy.path_of[near.members[u][0]])}
    inside |= {g.id for g in near.open_groups if top_key is not None and g.key.split("/")[0] == top_key}
    around = {e.tail for e in near.edges.values() if e.head in inside} | \
             {e.head for e in near.edges.values() if e.tail in inside}
    detail = collapsed_dot(near, near.step_of(current.last), direction=direction, only=inside | around,
                           upto=current.last)
    return LargeFrame(current, region, main, overview, detail)
