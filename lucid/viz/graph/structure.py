"""The frame-independent shape of a picture: which nodes and edges, in which order.

Everything here depends only on the graph and the drawing options, never on the
backward step, so every frame of one animation lists exactly the same nodes and
edges in the same order: Graphviz then lays each frame out identically.

Ids (stable, used by the browser tests to find things in the SVG):

- tensor ``k`` of ``topological_order(root)`` (= ``trace.order``) is ``t<k>``;
- the op that produced tensor ``k`` is ``op<k>``;
- the edge from input slot ``i`` of that op's tensor into ``op<k>`` is ``e<k>_<i>``;
- the edge from ``op<k>`` to its result ``t<k>`` is ``o<k>``.

Large-graph mode may collapse a chain of one-input ops ``k1 → … → kn`` into a
single op node ``op<kn>`` (class ``chain``): its input edge keeps the id of the
first op's edge (``e<k1>_<i>``), the tensors ``t<k1>`` … ``t<k(n-1)>`` and the ops
inside it are not drawn.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from lucid._tensor.tensor import Tensor
from lucid.autograd import topological_order
from lucid.i18n import L_
from lucid.viz.errors import GraphTooLarge
from lucid.viz.explanation.opinfo import COMMUTATIVE, op_label, slot_word, spec_of
from lucid.viz.graph.layout_cost import MAX_CLUSTER_COST, cluster_cost
from lucid.viz.graph.naming import display_names
from lucid.viz.graph.style import DERIVATIVE_CLUSTER
from lucid.viz.graph.text import NAME_LIMIT, shorten

#: ``large="auto"`` switches large-graph mode on above this many nodes (tensors + ops).
LARGE_AUTO_NODES = 60
#: Chains of at least this many one-input ops are collapsed in large-graph mode.
MIN_CHAIN = 3
#: Most edge length a drawing may need, counted in ranks (see ``layout_span``). ``dot`` lays out each
#: edge that skips ranks as a chain of invisible nodes, and its layout time grows steeply with their
#: number: a value reused by every step of a 50-line program takes it about a minute (graphviz 2.43).
#: 800 keeps any drawing under about two seconds; every example of the gallery needs less than 40.
MAX_LAYOUT_SPAN = 800
#: Name length shown in large-graph mode.
LARGE_NAME_LIMIT = 16
_PREFIX = re.compile(r"^([^._/]+)[._/]")


@dataclass
class TensorNode:
    index: int
    tensor: Tensor
    kind: str  # "leaf" | "const" | "intermediate" | "output"
    label: str
    cluster: int | None = None

    @property
    def id(self) -> str:
        return f"t{self.index}"


@dataclass
class OpNode:
    index: int  # index of the tensor this op produces
    covers: tuple[int, ...]  # tensor indices whose ops this node draws (more than one: a collapsed chain)
    text: str
    cluster: int | None = None

    @property
    def id(self) -> str:
        return f"op{self.index}"

    @property
    def is_chain(self) -> bool:
        return len(self.covers) > 1


@dataclass
class Edge:
    id: str
    tail: str
    head: str
    kind: str  # "input" (tensor -> op) | "output" (op -> tensor)
    child: int  # index of the tensor the op produces
    slot: int = 0
    parent: int = -1  # index of the input tensor (input edges)
    slot_name: str | None = None  # shown at the op end for ops whose inputs are not interchangeable


@dataclass
class GraphModel:
    root: Tensor
    order: list[Tensor]
    index_of: dict[int, int]
    tensors: list[TensorNode]
    ops: list[OpNode]
    edges: list[Edge]
    clusters: list[str] = field(default_factory=list)
    large: bool = False
    hidden_in: dict[int, int] = field(default_factory=dict)  # hidden tensor index -> op node index

    @property
    def node_count(self) -> int:
        return len(self.tensors) + len(self.ops)

    def tensor_node(self, index: int) -> TensorNode | None:
        return self._by_index().get(index)

    def _by_index(self) -> dict[int, TensorNode]:
        cached = getattr(self, "_cache", None)
        if cached is None:
            cached = {n.index: n for n in self.tensors}
            self._cache = cached
        return cached


def kind_of(tensor: Tensor, root: Tensor) -> str:
    """``output`` for the root, ``leaf`` for inputs that require grad, ``const`` for other inputs."""
    if tensor is root:
        return "output"
    if tensor._op is None:
        return "leaf" if tensor.requires_grad else "const"
    return "intermediate"


def node_label(tensor: Tensor, index: int | None = None, *, is_root: bool = False,
               limit: int | None = None) -> str:
    """What a tensor is called in pictures and explanations: its name, else a short id.

    The short id is ``t<index>`` (the graph's node id) when the index is known;
    an unnamed output is called ``out``.
    """
    if tensor.name:
        return shorten(str(tensor.name), limit) if limit else str(tensor.name)
    if is_root:
        return "out"
    if index is not None:
        return f"t{index}"
    return f"t{id(tensor) & 0xFFFF:04x}"


def build_model(root: Tensor, order: list[Tensor] | None = None, *, show_constants: bool = True,
                large: bool | str = "auto", max_nodes: int = 400) -> GraphModel:
    """Decide what to draw; raise ``GraphTooLarge`` rather than produce a giant graph."""
    order = topological_order(root) if order is None else order
    index_of = {id(t): k for k, t in enumerate(order)}
    kinds = [kind_of(t, root) for t in order]
    shown = [show_constants or kinds[k] != "const" for k in range(len(order))]
    raw_count = sum(shown) + sum(1 for t in order if t._op is not None)
    is_large = raw_count > LARGE_AUTO_NODES if large == "auto" else bool(large)
    limit = LARGE_NAME_LIMIT if is_large else NAME_LIMIT

    inputs = {k: [(slot, index_of[id(p)]) for slot, p in enumerate(t._prev) if shown[index_of[id(p)]]]
              for k, t in enumerate(order) if t._op is not None}
    chains = _chains(order, inputs, root) if is_large else []
    hidden_in: dict[int, int] = {}
    chain_of: dict[int, tuple[int, ...]] = {}
    for chain in chains:
        chain_of[chain[-1]] = chain
        for k in chain[:-1]:
            hidden_in[k] = chain[-1]

    tensors: list[TensorNode] = []
    ops: list[OpNode] = []
    edges: list[Edge] = []
    shown_names = display_names(order, root, limit)  # a rebound name gets a subscript: a₁, a₂
    for k, t in enumerate(order):
        if not shown[k] or k in hidden_in:
            continue
        if t._op is not None:
            covers = chain_of.get(k, (k,))
            ops.append(OpNode(k, covers, _chain_text([order[c] for c in covers])))
            first = covers[0]
            spec = spec_of(order[first])
            name_slots = len(order[first]._prev) > 1 and (spec is None or spec.name not in COMMUTATIVE)
            for slot, p in inputs[first]:
                edges.append(Edge(f"e{first}_{slot}", f"t{p}", f"op{k}", "input", first, slot, p,
                                  slot_word(slot) if name_slots else None))
            edges.append(Edge(f"o{k}", f"op{k}", f"t{k}", "output", k))
        tensors.append(TensorNode(k, t, kinds[k], shown_names[k]))

    model = GraphModel(root, order, index_of, tensors, ops, edges, large=is_large, hidden_in=hidden_in)
    if model.node_count > max_nodes:
        hint = "" if is_large else L_(" or turn on large-graph mode")
        raise GraphTooLarge(
            L_("This graph has {node_count} nodes to draw, more than the limit of "
               "{max_nodes}: drawing it would make the page unresponsive. Try a smaller "
               "expression{hint}.",
               node_count=model.node_count, max_nodes=max_nodes, hint=hint),
            nodes=model.node_count, limit=max_nodes)
    span = layout_span(model)
    if span > MAX_LAYOUT_SPAN:
        raise GraphTooLarge(
            L_("This graph reuses values far from where they are made: its edges would span "
               "{span} ranks, more than the limit of {MAX_LAYOUT_SPAN}, and Graphviz would "
               "take far too long to lay it out. Try a shorter program, or fewer uses of the "
               "same variable across many lines.",
               span=span, MAX_LAYOUT_SPAN=MAX_LAYOUT_SPAN),
            nodes=model.node_count, limit=max_nodes)
    if is_large:
        _assign_clusters(model)
    _assign_derivative_cluster(model)
    return model


def is_derivative(tensor: Tensor) -> bool:
    """Whether ``tensor`` was made by a recorded backward pass (``grad(..., create_graph=True)``)."""
    op = tensor._op
    return op is not None and op.differentiates is not None


def _assign_derivative_cluster(model: GraphModel) -> None:
    """Put the nodes of a recorded backward pass in one cluster of their own (``DERIVATIVE_CLUSTER``),
    so the derivative subgraph reads as the backward pass of the forward part it is wired to."""
    members = [n for n in model.tensors if n.cluster is None and is_derivative(n.tensor)]
    if not members:
        return
    model.clusters.append(DERIVATIVE_CLUSTER)
    index = len(model.clusters) - 1
    for node in members:
        node.cluster = index
    cluster_of = {n.index: n.cluster for n in members}
    for op in model.ops:
        if op.index in cluster_of:
            op.cluster = index


def layout_span(model: GraphModel) -> int:
    """Total length of the edges, in ranks, with every node ranked as late as its consumers allow.

    That is how ``dot`` ranks a graph (it minimises total edge length: inputs sit just before
    their first use), so this estimates the invisible nodes ``dot`` adds for edges that skip
    ranks: a chain of ops has span = number of edges; one leaf used by every line of a long
    program has a span that grows with the square of the program's length.
    """
    successors: dict[str, list[str]] = {}
    for edge in model.edges:
        successors.setdefault(edge.tail, []).append(edge.head)
    drawn_ops = {op.index for op in model.ops}
    level: dict[str, int] = {}  # ranks before the end of the picture
    for node in reversed(model.tensors):
        ids = (node.id, f"op{node.index}") if node.index in drawn_ops else (node.id,)
        for node_id in ids:
            level[node_id] = max((level.get(s, 0) + 1 for s in successors.get(node_id, ())), default=0)
    return sum(level.get(e.tail, 0) - level.get(e.head, 0) for e in model.edges)


def model_cost(model: GraphModel) -> int:
    """Predicted layout work of a drawing: nodes + edges + the ranks its long edges skip (``layout_cost``)."""
    return model.node_count + len(model.edges) + layout_span(model)


def _chains(order: list[Tensor], inputs: dict[int, list[tuple[int, int]]], root: Tensor) -> list[tuple[int, ...]]:
    """Maximal runs of one-input ops whose intermediate results feed only the next op."""
    uses = [0] * len(order)
    for ins in inputs.values():
        for _, p in ins:
            uses[p] += 1
    one_input = {k for k, ins in inputs.items() if len(ins) == 1}
    follows: dict[int, int] = {}  # k -> the op right before it in a chain
    for k in one_input:
        p = inputs[k][0][1]
        if p in one_input and uses[p] == 1 and order[p] is not root:
            follows[k] = p
    followed = set(follows.values())
    chains = []
    for end in sorted(k for k in follows if k not in followed):
        chain = [end]
        while chain[-1] in follows:
            chain.append(follows[chain[-1]])
        if len(chain) >= MIN_CHAIN:
            chains.append(tuple(reversed(chain)))
    return chains


def _chain_text(tensors: list[Tensor]) -> str:
    """An op's label, or ``tanh → exp → … (7 ops)`` for a collapsed chain."""
    labels = [op_label(t) for t in tensors]
    if len(labels) == 1:
        return labels[0]
    shown = labels if len(labels) <= 4 else labels[:2] + ["…", labels[-1]]
    return " → ".join(shown) + f" ({len(labels)} ops)"


def _assign_clusters(model: GraphModel) -> None:
    """Group named tensors by the part of their name before the first ``.``, ``_`` or ``/``.

    Only while the clusters are cheap to lay out (``layout_cost.cluster_cost``): past
    ``MAX_CLUSTER_COST`` none are drawn, the names still say which part a node belongs to.
    """
    members: dict[str, list[TensorNode]] = {}
    for node in model.tensors:
        m = _PREFIX.match(str(node.tensor.name or ""))
        if m:
            members.setdefault(m.group(1), []).append(node)
    for prefix, nodes in members.items():
        if len(nodes) < 2:
            continue
        model.clusters.append(prefix)
        for node in nodes:
            node.cluster = len(model.clusters) - 1
    cluster_of = {n.index: n.cluster for n in model.tensors}
    for op in model.ops:
        op.cluster = cluster_of.get(op.index)
    by_id: dict[str, int | None] = {n.id: n.cluster for n in model.tensors}
    by_id.update({op.id: op.cluster for op in model.ops})
    if cluster_cost(by_id, ((e.tail, e.head) for e in model.edges)) > MAX_CLUSTER_COST:
        # Too many edges between clusters: dot would spend seconds keeping each cluster in one piece.
        model.clusters.clear()
        for node in model.tensors:
            node.cluster = None
        for op in model.ops:
            op.cluster = None
