"""The collapsed view of a large graph: boxes for groups, the backward pass stepped box by box.

``CollapsedView(root, trace, expanded)`` decides what is drawn for one set of opened
groups: every tensor is drawn inside its outermost *closed* group (a box with a count,
``sample 3 · 58 nodes``), or on its own when every group around it is open. Edges
between boxes are merged (a count when several). The view's drawing size does not
depend on the step, so every frame of one view has the same layout.

Steps at the collapsed level (``view.steps``): the backward trace is cut into runs.
A trace step whose gradient leaves a *closed box* (its ``node`` is drawn inside a box)
is merged with the steps right before and after it that leave the same box: one
collapsed step = "the gradient works through this box and leaves it along these
edges". Every other trace step (the seed, a gradient leaving a tensor drawn on its
own, so every step inside an opened box) is a collapsed step of its own. Collapsed
steps cover the trace in order, without gaps or overlap.

Marks in a frame: the node the gradient leaves in this step is ``current`` (thick vermillion
border; for the seed, the output), the nodes it reaches are ``receiving`` (orange), and the
edges it flows along are ``flowing``. A box is ``pending`` (none of its nodes has a gradient
yet), ``partial`` or ``done`` (every node that needs one has its final gradient), and says
``k/n gradients``. A tensor drawn on its own shows its value and its gradient so far.

Ids in the drawing: a box is its group's id ``g<n>``; an opened group has a header
node with the same id (click it to close the group); a tensor drawn on its own is
``t<k>``; an edge is ``c_<tail>_<head>``.
"""
from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

import graphviz
import numpy as np

from lucid._tensor.tensor import Tensor
from lucid.autograd import Trace, topological_order
from lucid.i18n import L_, _, ngettext
from lucid.viz.errors import GraphTooLarge
from lucid.viz.explanation.opinfo import op_label
from lucid.viz.graph import statements as dot_lines
from lucid.viz.graph.hierarchy import Group, Hierarchy, build_hierarchy
from lucid.viz.graph.layout_cost import LAYOUT_BUDGET, cluster_budget_ok, view_cost
from lucid.viz.graph.style import EDGE_STYLE, FONT, KIND_STYLE, ORANGE, VERMILLION
from lucid.viz.graph.text import NBSP, attribute_text, html_text, shorten
from lucid.viz.numbers import format_number, shape_text

#: Most nodes a collapsed drawing may have (boxes, tensors, group headers). Past it, ``GraphTooLarge``.
MAX_DRAWN = 5000
#: Largest graph (tensors) the collapsed mode will group at all: grouping and stepping are linear, so this
#: only bounds memory and the time before anything is drawn.
MAX_TENSORS = 200_000

BOX_STYLE = {"shape": "box", "style": "rounded,filled,bold", "fillcolor": "#EDE7F6", "color": "#5E35B1",
             "peripheries": "1"}
HEADER_STYLE = {"shape": "box", "style": "rounded,filled,dashed", "fillcolor": "#F6F2FC", "color": "#5E35B1"}
#: Box fill per gradient state: pending (none of its members has a gradient yet), partial, done.
BOX_FILL = {"pending": "#F3F0F8", "partial": "#FFE9C7", "done": "#DCEBF7"}


@dataclass(frozen=True)
class CollapsedStep:
    """One step of the animation at the collapsed level: trace steps ``first``..``last``."""

    index: int
    first: int
    last: int
    unit: str  # the drawn node the gradient leaves (for the seed: the output's node)
    targets: tuple[str, ...]  # drawn nodes that receive gradient in this step (other than ``unit``)
    inside: int  # how many of its trace steps stay inside ``unit`` (a box)

    @property
    def size(self) -> int:
        return self.last - self.first + 1


@dataclass
class DrawnEdge:
    id: str
    tail: str
    head: str
    count: int
    trace_steps: list[int] = field(default_factory=list)


class CollapsedView:
    """What one set of opened groups draws, and the backward steps at that level."""

    def __init__(self, root: Tensor, trace: Trace | None = None, expanded: Iterable[str] | None = None,
                 hierarchy: Hierarchy | None = None) -> None:
        if trace is not None and trace.root is not root:
            raise ValueError("the trace was recorded for a different output tensor than the one given")
        order = trace.order if trace is not None else (hierarchy.order if hierarchy else topological_order(root))
        if len(order) > MAX_TENSORS:
            raise GraphTooLarge(L_("This graph has {count} nodes, more than the {MAX_TENSORS} the collapsed view "
                                   "groups. Build a smaller graph (fewer samples or a smaller network).",
                                   count=format(len(order), ","), MAX_TENSORS=format(MAX_TENSORS, ",")),
                                nodes=len(order), limit=MAX_TENSORS)
        self.root, self.trace, self.order = root, trace, order
        self.hierarchy = hierarchy if hierarchy is not None else build_hierarchy(order)
        self.index_of = {id(t): k for k, t in enumerate(order)}
        self.requested = frozenset(self.hierarchy.resolve(set(expanded or ())))
        self._layout(self.requested)
        drawn = self.node_count
        if drawn > MAX_DRAWN:
            raise GraphTooLarge(L_("With these groups open the graph has {drawn} nodes to draw, more than the "
                                   "limit of {MAX_DRAWN}. Close some groups (click an open group's header) to "
                                   "draw it.",
                                   drawn=format(drawn, ","), MAX_DRAWN=format(MAX_DRAWN, ",")),
                                nodes=drawn, limit=MAX_DRAWN)
        #: Groups closed again because the drawing would have cost more layout work than ``LAYOUT_BUDGET``.
        self.closed_for_budget: list[str] = []
        cost = view_cost(self)
        while self.open_groups and cost > LAYOUT_BUDGET:
            victims = self._groups_to_close(cost)
            self.closed_for_budget.extend(victims)
            self._layout(frozenset(k for k in self.expanded if k not in victims))
            cost = view_cost(self)
        self._grad_widths: dict[int, int] | None = None
        self.steps = self._steps() if trace is not None else []
        self._step_of = np.empty(len(trace.steps) if trace is not None else 0, dtype=np.int64)
        for c in self.steps:
            self._step_of[c.first:c.last + 1] = c.index

    def _layout(self, expanded: frozenset[str]) -> None:
        """Which node draws each tensor, for this set of open groups (only groups whose parents are open count)."""
        self.expanded = expanded
        self.unit_of = [self._unit(k) for k in range(len(self.order))]
        self.units: list[str] = []  # drawn nodes in order of first appearance
        self.members: dict[str, list[int]] = {}
        for k, u in enumerate(self.unit_of):
            if u not in self.members:
                self.units.append(u)
                self.members[u] = []
            self.members[u].append(k)
        self.open_groups = [g for g in self.hierarchy.groups.values() if g.key in expanded
                            and all(p in expanded for p in self.hierarchy.path_of[g.members[0]][:len(g.path) - 1])]
        self.edges = self._edges()

    def _groups_to_close(self, cost: int) -> list[str]:
        """The largest innermost open groups whose closing should bring the cost under budget (at least one)."""
        keys = {g.key for g in self.open_groups}
        inside: dict[str, int] = {}
        for unit in self.units:
            for key in self.hierarchy.path_of[self.members[unit][0]]:
                if key in keys:
                    inside[key] = inside.get(key, 0) + 1
        innermost = [g.key for g in self.open_groups if not any(k.startswith(g.key + "/") for k in keys)]
        innermost.sort(key=lambda k: (-inside.get(k, 0), k))
        per_node = cost / max(1, self.node_count)  # edges and span come with the nodes
        need = (cost - LAYOUT_BUDGET) / per_node
        chosen, saved = [], 0.0
        for key in innermost:
            chosen.append(key)
            saved += inside.get(key, 0)
            if saved >= need:
                break
        return chosen

    # ----- structure ----------------------------------------------------------

    def _unit(self, k: int) -> str:
        for key in self.hierarchy.path_of[k]:
            if key not in self.expanded:
                return self.hierarchy.groups[key].id
        return f"t{k}"

    def group_of_unit(self, unit: str) -> Group | None:
        return self.hierarchy.by_id(unit) if unit.startswith("g") else None

    @property
    def node_count(self) -> int:
        """Nodes drawn: boxes, tensors on their own, and headers of open groups."""
        return len(self.units) + len(self.open_groups)

    def _edges(self) -> dict[tuple[str, str], DrawnEdge]:
        edges: dict[tuple[str, str], DrawnEdge] = {}
        for k, t in enumerate(self.order):
            head = self.unit_of[k]
            for p in t._prev:
                tail = self.unit_of[self.index_of[id(p)]]
                if tail == head:
                    continue
                e = edges.get((tail, head))
                if e is None:
                    edges[(tail, head)] = DrawnEdge(f"c_{tail}_{head}", tail, head, 1)
                else:
                    e.count += 1
        return edges

    # ----- steps --------------------------------------------------------------

    def _steps(self) -> list[CollapsedStep]:
        assert self.trace is not None
        steps: list[CollapsedStep] = []
        run_unit: str | None = None
        run_first = 0
        targets: list[str] = []
        inside = 0

        def close(last: int) -> None:
            if run_unit is not None:
                steps.append(CollapsedStep(len(steps), run_first, last, run_unit, tuple(dict.fromkeys(targets)),
                                           inside))

        for s in self.trace.steps:
            parent_unit = self.unit_of[self.index_of[id(s.parent)]]
            if s.node is None:
                close(s.index - 1)
                run_unit, run_first, targets, inside = parent_unit, s.index, [], 0
                close(s.index)
                run_unit = None
                continue
            unit = self.unit_of[self.index_of[id(s.node)]]
            mergeable = unit.startswith("g")
            if not (mergeable and unit == run_unit):
                close(s.index - 1)
                run_unit, run_first, targets, inside = unit, s.index, [], 0
            if parent_unit == unit:
                inside += 1
            else:
                targets.append(parent_unit)
                edge = self.edges.get((parent_unit, unit))
                if edge is not None:
                    edge.trace_steps.append(s.index)
            if not mergeable:
                close(s.index)
                run_unit = None
        close(len(self.trace.steps) - 1)
        return steps

    def grad_width(self, k: int) -> int:
        """Characters the gradient text of tensor ``k`` needs at its widest over the whole pass, so a node
        drawn on its own keeps its size (and the layout its positions) from step to step."""
        if self._grad_widths is None:
            widths: dict[int, int] = {}
            if self.trace is not None:
                for s in self.trace.steps:
                    k2 = self.index_of[id(s.parent)]
                    if self.unit_of[k2].startswith("t"):
                        widths[k2] = max(widths.get(k2, 1), len(_brief(s.accumulated)))
            self._grad_widths = widths
        return self._grad_widths.get(k, 1)

    def step_of(self, trace_step: int) -> int:
        """The collapsed step that trace step ``trace_step`` belongs to."""
        return int(self._step_of[trace_step])

    # ----- state at one step --------------------------------------------------

    def state(self, step: int | None, upto: int | None = None) -> dict[str, object]:
        """Gradient state after collapsed step ``step`` (None: the end of the pass), or only up to
        trace step ``upto`` when that comes first."""
        if self.trace is None:
            return {"last": None, "grads": {}, "final": set()}
        n = len(self.steps)
        step = n - 1 if step is None else int(step)
        if not 0 <= step < n:
            raise IndexError(f"step {step} is out of range: this view has steps 0..{n - 1}")
        last = self.steps[step].last if upto is None else min(self.steps[step].last, int(upto))
        grads: dict[int, np.ndarray] = {}
        final: set[int] = set()
        for s in self.trace.steps[:last + 1]:
            k = self.index_of[id(s.parent)]
            grads[k] = s.accumulated
            if s.is_final:
                final.add(k)
        return {"last": last, "grads": grads, "final": final}


def toggle(view_or_hierarchy: CollapsedView | Hierarchy, expanded: Iterable[str], clicked: str) -> frozenset[str]:
    """The opened groups after a click on ``clicked`` (a box opens; an open group's header closes it and
    every group inside it). Clicks on anything else change nothing. Returns group keys."""
    h = view_or_hierarchy.hierarchy if isinstance(view_or_hierarchy, CollapsedView) else view_or_hierarchy
    keys = h.resolve(set(expanded))
    g = h.by_id(clicked) or h.groups.get(clicked)
    if g is None:
        return frozenset(keys)
    if g.key in keys:
        return frozenset(k for k in keys if k != g.key and not k.startswith(g.key + "/"))
    return frozenset(keys | {"/".join(g.path[:i + 1]) for i in range(len(g.path))})


def collapsed_dot(view: CollapsedView, step: int | None = None, *, direction: str = "LR", size: str | None = None,
                  highlight: str | None = None, clusters: bool = True, title: str | None = None,
                  only: set[str] | None = None, upto: int | None = None,
                  statements: dict | None = None) -> graphviz.Digraph:
    """The DOT of ``view`` after collapsed step ``step`` (with a trace; None = the end of the pass).

    ``highlight`` marks one drawn node as "the current region" (used by the overview).
    ``clusters=False`` never draws open groups as Graphviz clusters (their headers stay).
    ``only`` draws just those nodes (and the edges between them): the detail view.
    ``upto`` stops the gradient state at that trace step (when it ends before the collapsed step).
    ``statements``: a dict shared by the frames of ONE view drawn with the same options (the animation's
    frames); a box, tensor or edge whose look did not change since a frame already drawn reuses its DOT
    statement, so drawing every step costs what changes, not the whole graph each time.
    """
    state = view.state(step, upto) if view.trace is not None else {"last": None, "grads": {}, "final": set()}
    grads: dict[int, np.ndarray] = state["grads"]  # type: ignore[assignment]
    final: set[int] = state["final"]  # type: ignore[assignment]
    current = view.steps[step if step is not None else len(view.steps) - 1] if view.steps else None
    current_units = set()
    flowing_steps: set[int] = set()
    if current is not None:
        current_units.add(current.unit)
        flowing_steps = set(range(current.first, (current.last if upto is None else min(current.last, upto)) + 1))
    targets = set(current.targets) if current is not None else set()

    graph_attrs = {"bgcolor": "white", "fontname": FONT, "rankdir": direction, "nodesep": "0.25", "ranksep": "0.4",
                   "class": "lucid-graph lucid-collapsed", "outputorder": "edgesfirst"}
    if size:
        graph_attrs.update(size=size, ratio="compress")
    if title:
        graph_attrs.update(label=html_text(title), labelloc="t", fontsize="14")
    g = graphviz.Digraph("lucid", graph_attr=graph_attrs, node_attr={"fontname": FONT, "fontsize": "12",
                                                                       "margin": "0.08,0.04"},
                         edge_attr={"fontname": FONT, "fontsize": "10", "arrowsize": "0.7"})
    use_clusters = clusters and cluster_budget_ok(view)
    containers: dict[str, graphviz.Digraph] = {}
    open_keys = {grp.key for grp in view.open_groups}

    def container_for(path_keys: tuple[str, ...]) -> graphviz.Digraph:
        """The cluster of the innermost open group around a node (the graph itself without clusters)."""
        if not use_clusters:
            return g
        opened = [k for k in path_keys if k in open_keys]
        return containers[opened[-1]] if opened else g

    if use_clusters:
        for grp in sorted(view.open_groups, key=lambda x: len(x.path)):
            containers[grp.key] = graphviz.Digraph(name=f"cluster_{grp.id}", graph_attr={
                "label": "", "style": "rounded,dashed", "color": "#5E35B1", "id": f"cluster_{grp.id}",
                "class": "group-open"})
    for grp in view.open_groups:
        if only is not None and grp.id not in only:
            continue
        target = containers[grp.key] if use_clusters else g
        need = [k for k in grp.members if view.order[k].requires_grad]
        got = sum(1 for k in need if k in grads)
        counts = _("click to close · {count} gradients").format(count=_count(got, len(need)))
        dot_lines.node(target, grp.id, label=f"<▾ <B>{html_text(shorten(grp.label, 40))}</B> · {grp.size:,} nodes"
                                  f"<BR/><FONT POINT-SIZE=\"9\">{counts}</FONT>>",
                    id=grp.id, _attributes={"class": "group-header"},
                    tooltip=attribute_text(f"{grp.key}: open group of {grp.size} nodes; click to close it"),
                    **HEADER_STYLE)
    header_links: list[tuple[str, str]] = []
    def reused(key: tuple, target: graphviz.Digraph) -> bool:
        lines = statements.get(key) if statements is not None else None
        if lines is not None:
            target.body.extend(lines)
        return lines is not None

    def remember(key: tuple, target: graphviz.Digraph, start: int) -> None:
        if statements is not None:
            statements[key] = target.body[start:]

    for unit in view.units:
        if only is not None and unit not in only:
            continue
        members = view.members[unit]
        k0 = members[0]
        if not use_clusters:
            opened = [key for key in view.hierarchy.path_of[k0] if key in open_keys]
            header = view.hierarchy.groups[opened[-1]].id if opened else None
            if header is not None and (only is None or header in only):
                header_links.append((header, unit))
        flag = "current" if unit in current_units else ("receiving" if unit in targets else "")
        if unit.startswith("g"):
            grp = view.group_of_unit(unit)
            assert grp is not None
            where = tuple(view.hierarchy.path_of[k0][:len(grp.path) - 1])
            target = container_for(where)
            need = [k for k in members if view.order[k].requires_grad]
            got = sum(1 for k in need if k in grads)
            done = sum(1 for k in need if k in final)
            box_state = "pending" if got == 0 else ("done" if done == len(need) else "partial")
            look = ("box", unit, got, done, flag, highlight == unit)
            if reused(look, target):
                continue
            start = len(target.body)
            attrs = {**BOX_STYLE, "fillcolor": BOX_FILL[box_state]}
            classes = ["group", box_state]
            _mark(unit, classes, attrs, current_units, targets, highlight)
            if highlight == unit:
                attrs["fillcolor"] = "#FBD9C4"
            grad_line = _("{count} gradients").format(count=_count(got, len(need))) if need else _("no gradients")
            label = (f"<<B>{html_text(shorten(grp.label, 40))}</B><BR/>{grp.size:,} nodes · ▸ click to open"
                     f"<BR/><FONT POINT-SIZE=\"10\">{grad_line}</FONT>>")
            dot_lines.node(target, unit, label=label, id=unit, _attributes={"class": " ".join(classes)},
                        tooltip=attribute_text(f"{grp.key}: {grp.size} nodes, {grad_line}"), **attrs)
            remember(look, target, start)
        else:
            t = view.order[k0]
            target = container_for(view.hierarchy.path_of[k0])
            gval = grads.get(k0)
            look = ("tensor", unit, id(gval) if gval is not None else None, k0 in final, flag, highlight == unit)
            if reused(look, target):
                continue
            start = len(target.body)
            kind = "output" if t is view.root else ("intermediate" if t._op is not None else
                                                     ("leaf" if t.requires_grad else "const"))
            attrs = dict(KIND_STYLE[kind])
            classes = [kind]
            name = str(t.name) if t.name else ("out" if t is view.root else f"t{k0}")
            lines = [f"<B>{html_text(shorten(name, 20))}</B>"]
            if t._op is not None:
                lines.append(f"<FONT POINT-SIZE=\"10\">= {html_text(shorten(op_label(t), 24))}</FONT>")
            lines.append(f"<FONT FACE=\"Courier\" POINT-SIZE=\"10\">val {html_text(_brief(t.data))}</FONT>")
            if t.requires_grad and view.trace is not None:
                status = "final" if k0 in final else ("partial" if gval is not None else "pending")
                classes.append(status if status != "pending" else "nograd")
                text = ("—" if gval is None else _brief(gval)).ljust(view.grad_width(k0), NBSP)
                lines.append(f"<FONT FACE=\"Courier\" POINT-SIZE=\"10\">grad {html_text(text)}</FONT>")
            _mark(unit, classes, attrs, current_units, targets, highlight)
            dot_lines.node(target, unit, label="<" + "<BR/>".join(lines) + ">", id=unit,
                        _attributes={"class": " ".join(classes)},
                        tooltip=attribute_text(f"{name}: shape {shape_text(t.shape)}"), **attrs)
            remember(look, target, start)
    if use_clusters:  # nest clusters innermost first
        for grp in sorted(view.open_groups, key=lambda x: -len(x.path)):
            parent_path = view.hierarchy.path_of[grp.members[0]][:len(grp.path) - 1]
            opened = [k for k in parent_path if k in open_keys]
            if only is None or grp.id in only:
                (containers[opened[-1]] if opened else g).subgraph(containers[grp.key])
    seen_headers: set[str] = set()
    for header, unit in header_links:  # without clusters: a faint line from each open group's header
        if header not in seen_headers:
            seen_headers.add(header)
            dot_lines.edge(g, header, unit, style="dotted", color="#8D6CC8", arrowhead="none", id=f"h_{header}_{unit}",
                   _attributes={"class": "header-link"})
    for edge in view.edges.values():
        if only is not None and (edge.tail not in only or edge.head not in only):
            continue
        flowing = bool(flowing_steps.intersection(edge.trace_steps))
        if view.trace is None:
            edge_state = "static"
        elif flowing:
            edge_state = "flowing"
        elif edge.trace_steps and min(edge.trace_steps) <= state["last"]:  # type: ignore[operator]
            edge_state = "flowed"
        elif edge.trace_steps:
            edge_state = "pending"
        else:
            edge_state = "nograd"
        look = ("edge", edge.id, edge_state)
        if reused(look, g):
            continue
        start = len(g.body)
        attrs = dict(EDGE_STYLE[edge_state])
        if edge.count > 1:
            attrs["label"] = f"×{edge.count}"
            attrs["penwidth"] = str(min(6.0, float(attrs["penwidth"]) + 0.4 * np.log2(edge.count)))
        dot_lines.edge(g, edge.tail, edge.head, id=edge.id, _attributes={"class": f"input {edge_state}"}, **attrs)
        remember(look, g, start)
    return g


def _count(got: int, total: int) -> str:
    """``got/total`` padded with figure spaces (as wide as a digit) so the text keeps its width."""
    return "\u2007" * (len(str(total)) - len(str(got))) + f"{got}/{total}"


def _brief(a: np.ndarray) -> str:
    arr = np.asarray(a, dtype=np.float64)
    if arr.ndim == 0:
        return format_number(arr)
    if arr.size == 0:
        return f"{shape_text(arr.shape)} (empty)"
    finite = arr[np.isfinite(arr)]
    mean = format_number(finite.mean()) if finite.size else "nan"
    return _("{shape} mean {value}").format(shape=shape_text(arr.shape), value=mean)


def describe_step(view: CollapsedView, step: int) -> str:
    """One sentence for a collapsed step: where the gradient is and where it goes, in the drawing's names."""
    c = view.steps[step]

    def name(unit: str) -> str:
        grp = view.group_of_unit(unit)
        if grp is not None:
            return grp.label
        k = int(unit[1:])
        t = view.order[k]
        return str(t.name) if t.name else ("out" if t is view.root else unit)

    span = (_("trace step {k}").format(k=c.first) if c.size == 1 else
            _("trace steps {first}–{last}").format(first=c.first, last=c.last))
    if c.first == 0 and view.trace is not None and view.trace.steps[0].node is None:
        return _("Step {step}: the seed gradient 1 at {name} ({span}).").format(step=step, name=name(c.unit),
                                                                                span=span)
    parts = []
    if c.inside:
        parts.append(ngettext("{n} step inside {name}", "{n} steps inside {name}", c.inside).format(
            n=c.inside, name=name(c.unit)))
    if c.targets:
        targets = ", ".join(name(u) for u in c.targets[:4])
        if len(c.targets) > 4:
            targets = _("{names} and {k} more").format(names=targets, k=len(c.targets) - 4)
        parts.append(_("gradient leaves {name} for {targets}").format(name=name(c.unit), targets=targets))
    return _("Step {step}: {what} ({span}).").format(step=step, what="; ".join(parts), span=span)


def _mark(unit: str, classes: list[str], attrs: dict[str, str], current_units: Collection[str],
          targets: Collection[str], highlight: str | None) -> None:
    """Where the gradient is at this step, by class and border: leaving (current), arriving, overview region."""
    if unit in current_units:
        classes.append("current")
        attrs.update(color=VERMILLION, penwidth="4")
    elif unit in targets:
        classes.append("receiving")
        attrs.update(color=ORANGE, penwidth="3")
    if highlight == unit:
        classes.append("region")
        attrs.update(color=VERMILLION, penwidth="5")
