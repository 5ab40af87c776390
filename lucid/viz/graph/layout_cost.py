"""What a Graphviz ``dot`` layout will cost, predicted from the graph before ``dot`` runs.

``dot`` ranks the nodes, orders each rank to reduce crossings, then places them. Three
things make it slow, and each is counted here:

- size: nodes and edges;
- long edges: an edge that skips ranks becomes a chain of invisible nodes (``layout_span``
  in ``structure`` counts them);
- clusters: every cluster is laid out as its own sub-problem and then kept in one
  piece while the ranks are ordered; edges that enter or leave a cluster make that
  ordering much harder. A program with 20 name-prefix clusters whose edges all cross
  between clusters (60 leaves ``p{i%10}_v{i}``, 60 products, two sums) took ``dot``
  about 1.4 s on this machine (14 s on another) against 0.12 s without the clusters.
  ``cluster_cost`` is the number of clusters times the edges that cross a cluster's
  border; past ``MAX_CLUSTER_COST`` the clusters are not drawn (their names remain in
  the labels).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lucid.viz.graph.collapse import CollapsedView

#: Most ``clusters × border-crossing edges`` a drawing may have and still draw its clusters. The
#: gallery's and the lessons' clustered graphs need under 100; the 20-cluster program above needs 2,400.
MAX_CLUSTER_COST = 400
#: Most nodes + edges + skipped ranks a collapsed drawing is laid out with. Measured with ``dot`` 2.43 on the
#: scalar MLP's groups: cost 560 → 0.06 s, 1,570 → 0.36 s, 2,990 → 1.1 s, 5,800 → 3.4 s; 2,500 keeps a
#: layout under about 1 s on a quiet core and under 3 s on a busy one.
LAYOUT_BUDGET = 2500


def cluster_cost(cluster_of: dict[str, int | None], edges: Iterable[tuple[str, str]]) -> int:
    """``clusters × edges crossing a cluster border`` for nodes mapped to cluster numbers (None: none)."""
    clusters = {c for c in cluster_of.values() if c is not None}
    if not clusters:
        return 0
    crossing = sum(1 for a, b in edges if cluster_of.get(a) != cluster_of.get(b))
    return len(clusters) * crossing


def cluster_budget_ok(view: CollapsedView) -> bool:
    """Whether the open groups of a collapsed view may be drawn as clusters."""
    if not view.open_groups:
        return True
    open_keys = {g.key for g in view.open_groups}
    cluster_of: dict[str, int | None] = {}
    numbers = {key: i for i, key in enumerate(sorted(open_keys))}
    for unit in view.units:
        k0 = view.members[unit][0]
        opened = [key for key in view.hierarchy.path_of[k0] if key in open_keys]
        cluster_of[unit] = numbers[opened[-1]] if opened else None
    edges = [(e.tail, e.head) for e in view.edges.values()]
    return cluster_cost(cluster_of, edges) <= MAX_CLUSTER_COST


def view_cost(view: CollapsedView) -> int:
    """Nodes + edges + the ranks long edges skip, for a collapsed view (clusters are budgeted apart)."""
    level: dict[str, int] = {}
    successors: dict[str, list[str]] = {}
    for e in view.edges.values():
        successors.setdefault(e.tail, []).append(e.head)
    for unit in reversed(view.units):  # units are in topological order of their first member
        level[unit] = max((level.get(s, 0) + 1 for s in successors.get(unit, ())), default=0)
    span = sum(max(0, level.get(e.tail, 0) - level.get(e.head, 0) - 1) for e in view.edges.values())
    return view.node_count + len(view.edges) + span
