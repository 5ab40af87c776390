"""The tree of groups a large graph is collapsed into: tags first, then names, then blocks.

Every tensor of the graph gets a *path* of group names (outermost first), from:

1. the tags that model code put on it (``lucid.viz.graph.groups``: the scalar MLP tags
   each sample, neuron and its parameters), when any tensor of the graph is tagged;
2. otherwise the program's own names: a named result and the unnamed intermediates
   that only it consumes form one group (one line of a program: ``h1 = tanh(x @ W + b)``),
   and named leaves that share a prefix (``p3_v17``, ``p3_v27``) form one group;
3. then, at every level, more than ``MAX_CHILDREN`` sibling groups are put in blocks of
   consecutive ones (``sample 0 … sample 6``), and more than ``MAX_LOOSE`` loose tensors
   in runs of consecutive ones, so that a fully collapsed level never draws more than
   about ``MAX_CHILDREN + MAX_LOOSE`` boxes however big the graph is.

Each group has a stable id ``g<n>`` (n in order of first appearance in the graph's
topological order) that a click on its box returns, and a key ``"a/b/c"`` (its path).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from lucid._tensor.tensor import Tensor
from lucid.viz.graph.groups import group_of

#: Sibling groups shown side by side before they are put in blocks.
MAX_CHILDREN = 12
#: Loose (ungrouped) tensors shown at one level before they are put in runs.
MAX_LOOSE = 24
#: Runs that too many loose tensors at one level are cut into.
LOOSE_RUNS = 6
_PREFIX = re.compile(r"^([^._/]+)[._/]")
_DIGITS = re.compile(r"\d+")


@dataclass
class Group:
    """One collapsible box: ``members`` are every tensor index under it (nested groups included)."""

    id: str
    key: str
    path: tuple[str, ...]
    label: str
    members: list[int] = field(default_factory=list)
    children: list[str] = field(default_factory=list)  # keys of the groups directly inside
    loose: list[int] = field(default_factory=list)  # tensors directly inside, in no inner group

    @property
    def size(self) -> int:
        return len(self.members)


@dataclass
class Hierarchy:
    """The groups of one graph: ``path_of[k]`` is tensor ``k``'s chain of group keys, outermost first."""

    order: list[Tensor]
    groups: dict[str, Group]
    path_of: list[tuple[str, ...]]
    top_children: list[str]
    top_loose: list[int]
    source: str  # "tags" | "names" | "none": where the groups came from

    def by_id(self, group_id: str) -> Group | None:
        """The group whose box has id ``group_id`` (``g<n>``), or None."""
        index = self.__dict__.get("_by_id")
        if index is None:
            index = {g.id: g for g in self.groups.values()}
            self.__dict__["_by_id"] = index
        return index.get(group_id)

    def resolve(self, names: set[str] | frozenset[str] | list[str] | tuple[str, ...] | None) -> set[str]:
        """Group keys for a set of keys or ids (unknown names are ignored: a link may be stale)."""
        out: set[str] = set()
        for name in names or ():
            if name in self.groups:
                out.add(name)
            elif (g := self.by_id(name)) is not None:
                out.add(g.key)
        return out


def build_hierarchy(order: list[Tensor]) -> Hierarchy:
    """Group the tensors of ``order`` (a topological order) into a tree of collapsible boxes."""
    tagged = [group_of(t) for t in order]
    if any(tagged):
        raw = [p or () for p in tagged]
        source = "tags"
    else:
        raw = _paths_from_names(order)
        source = "names" if any(raw) else "none"
    paths = _organize(raw, order)
    groups: dict[str, Group] = {}
    counter = 0
    top_children: list[str] = []
    top_loose: list[int] = []
    for k, path in enumerate(paths):
        keys = tuple("/".join(path[:i + 1]) for i in range(len(path)))
        for i, key in enumerate(keys):
            g = groups.get(key)
            if g is None:
                g = Group(f"g{counter}", key, path[:i + 1], path[i])
                counter += 1
                groups[key] = g
                if i == 0:
                    top_children.append(key)
                else:
                    groups[keys[i - 1]].children.append(key)
            g.members.append(k)
        if keys:
            groups[keys[-1]].loose.append(k)
        else:
            top_loose.append(k)
    path_of = [tuple("/".join(p[:i + 1]) for i in range(len(p))) for p in paths]
    return Hierarchy(order, groups, path_of, top_children, top_loose, source)


def _paths_from_names(order: list[Tensor]) -> list[tuple[str, ...]]:
    """Groups from a program's names: one per named result (with what only it uses), one per leaf prefix."""
    n = len(order)
    index_of = {id(t): k for k, t in enumerate(order)}
    consumers: list[list[int]] = [[] for _ in range(n)]
    for k, t in enumerate(order):
        for p in t._prev:
            consumers[index_of[id(p)]].append(k)
    owner: list[str | None] = [None] * n
    seen_names: dict[str, int] = {}
    result_key: list[str | None] = [None] * n
    for k, t in enumerate(order):  # unique keys for reassigned names: s, s #2, s #3
        if t._op is not None and t.name:
            name = str(t.name).replace("/", "∕")
            seen_names[name] = seen_names.get(name, 0) + 1
            result_key[k] = name if seen_names[name] == 1 else f"{name} #{seen_names[name]}"
    for k in range(n - 1, -1, -1):
        t = order[k]
        if t._op is None and t.name:
            continue  # a named input stays on its own (or in its name-prefix group)
        if result_key[k] is not None:
            owner[k] = result_key[k]
        else:
            owners = {owner[c] for c in consumers[k]}
            if len(owners) == 1:
                owner[k] = owners.pop()
    sizes: dict[str, int] = {}
    for o in owner:
        if o is not None:
            sizes[o] = sizes.get(o, 0) + 1
    paths: list[tuple[str, ...]] = []
    prefixes: dict[str, int] = {}
    for t in order:
        if t._op is None and t.name:
            m = _PREFIX.match(str(t.name))
            if m:
                prefixes[m.group(1)] = prefixes.get(m.group(1), 0) + 1
    for k, t in enumerate(order):
        o = owner[k]
        if o is not None and sizes[o] > 1:
            paths.append((o,))
        elif t._op is None and t.name and (m := _PREFIX.match(str(t.name))) and prefixes[m.group(1)] > 1:
            paths.append((f"{m.group(1)}…",))
        else:
            paths.append(())
    return paths


def _organize(raw: list[tuple[str, ...]], order: list[Tensor]) -> list[tuple[str, ...]]:
    """Insert block levels where a level has too many sibling groups or loose tensors."""
    paths = [list(p) for p in raw]
    _organize_level(paths, list(range(len(raw))), 0, order)
    return [tuple(p) for p in paths]


def _organize_level(paths: list[list[str]], members: list[int], depth: int, order: list[Tensor]) -> None:
    children: dict[str, list[int]] = {}
    loose: list[int] = []
    for k in members:
        if len(paths[k]) > depth:
            children.setdefault(paths[k][depth], []).append(k)
        else:
            loose.append(k)
    if len(loose) > MAX_LOOSE:
        for run in _split(loose, LOOSE_RUNS):
            label = _run_label(run, order)
            while label in children:
                label += "′"
            for k in run:
                paths[k].insert(depth, label)
            children[label] = run
    names = list(children)
    if len(names) > MAX_CHILDREN:
        families: dict[str, list[str]] = {}
        for name in names:  # "sample 3" and "sample 17" are one family; "parameters" is its own
            families.setdefault(_DIGITS.sub("#", name), []).append(name)
        singles = sum(1 for f in families.values() if len(f) == 1)
        per_family = max(2, (MAX_CHILDREN - singles) // max(1, len(families) - singles))
        blocks = []
        for family in families.values():
            blocks.extend(_split(family, per_family) if len(family) > 1 else [family])
        if len(blocks) > MAX_CHILDREN:
            blocks = _split(names, MAX_CHILDREN)
        for block in blocks:
            inner = [k for name in block for k in children[name]]
            if len(block) > 1:
                label = f"{block[0]} … {block[-1]}"
                for k in inner:
                    paths[k].insert(depth, label)
            _organize_level(paths, inner, depth + 1, order)
        return
    for name in names:
        _organize_level(paths, children[name], depth + 1, order)


def _split(items: list, parts: int) -> list[list]:
    """``items`` in at most ``parts`` runs of consecutive items, of nearly equal length."""
    size = max(1, math.ceil(len(items) / max(1, parts)))
    return [items[i:i + size] for i in range(0, len(items), size)]


def _run_label(run: list[int], order: list[Tensor]) -> str:
    def name(k: int) -> str:
        return str(order[k].name) if order[k].name else f"t{k}"

    return f"{name(run[0])} … {name(run[-1])}" if len(run) > 1 else name(run[0])
