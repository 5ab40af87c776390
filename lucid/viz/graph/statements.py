"""DOT node and edge statements, the very lines ``graphviz.Digraph.node`` and ``.edge`` append, written faster.

A backward pass is drawn frame by frame, and each frame's nodes carry long labels: graphviz's own methods check
their arguments and quote every key and value with regular expressions on every call, which took about a quarter
of the time of drawing every step of a program. The lines here are assembled with graphviz's own quoting
(``graphviz.quoting``), kept for strings already seen (a label, a colour, a class recurs from frame to frame), and in
graphviz's order (the label first, then the keyword attributes sorted, then ``_attributes``), so the DOT source is
byte for byte what graphviz writes (``tests/viz/test_dot_statements.py``).
"""
from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

import graphviz
from graphviz import quoting

quote = lru_cache(maxsize=65_536)(quoting.quote)
"""``graphviz.quoting.quote``, remembered: a string is an ID as it is or is written in double quotes."""
quote_edge = lru_cache(maxsize=8_192)(quoting.quote_edge)
"""``graphviz.quoting.quote_edge``, remembered: a ``node[:port[:compass]]`` end of an edge."""


def _attribute_list(label: str | None, attrs: Mapping[str, str | None],
                    attributes: Mapping[str, str | None] | None) -> str:
    parts = [f"label={quote(label)}"] if label is not None else []
    parts += [f"{quote(k)}={quote(v)}" for k, v in sorted(attrs.items()) if v is not None]
    if attributes:
        items = sorted(attributes.items()) if type(attributes) is dict else attributes.items()
        parts += [f"{quote(k)}={quote(v)}" for k, v in items if v is not None]
    return f" [{' '.join(parts)}]" if parts else ""


def node(graph: graphviz.Digraph, name: str, label: str | None = None,
         _attributes: Mapping[str, str | None] | None = None, **attrs: str | None) -> None:
    """``graph.node(name, label, _attributes, **attrs)``: the same line appended to ``graph.body``."""
    graph.body.append(f"\t{quote(name)}{_attribute_list(label, attrs, _attributes)}\n")


def edge(graph: graphviz.Digraph, tail: str, head: str, label: str | None = None,
         _attributes: Mapping[str, str | None] | None = None, **attrs: str | None) -> None:
    """``graph.edge(tail, head, label, _attributes, **attrs)`` of a directed graph: the same line appended."""
    graph.body.append(f"\t{quote_edge(tail)} -> {quote_edge(head)}{_attribute_list(label, attrs, _attributes)}\n")
