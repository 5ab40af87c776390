"""The fast DOT statements write exactly the lines graphviz's own ``node`` and ``edge`` would."""
from __future__ import annotations

from collections import OrderedDict

import graphviz
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lucid.viz.graph import statements as dot_lines

CASES = [
    ("t0", {"label": "<<B>x</B>>", "id": "t0", "_attributes": {"class": "leaf final"}, "fillcolor": "#FFF"}),
    ("node", {"label": 'say "hi"', "tooltip": "a: leaf, shape (2, 3)", "shape": "box"}),  # a DOT keyword
    ("a b", {"label": None, "color": None, "penwidth": "2"}),  # None values are left out
    ("가중치", {"label": "가중치 = 0.5", "_attributes": OrderedDict([("z", "1"), ("a", "2")])}),  # order kept
    ("t1", {}),
    ("x", {"label": "ends in a backslash \\\\", "style": "rounded,filled"}),
]


@pytest.mark.parametrize(("name", "attrs"), CASES)
def test_a_node_line_is_graphvizs_own(name, attrs):
    ours, theirs = graphviz.Digraph(), graphviz.Digraph()
    dot_lines.node(ours, name, **attrs)
    theirs.node(name, **attrs)
    assert ours.body == theirs.body


@pytest.mark.parametrize(("tail", "head", "attrs"), [
    ("t0", "t1", {"id": "e0", "_attributes": {"class": "input flowing"}, "label": "<<I>g</I>>"}),
    ("a:p:s", "b c", {"headlabel": "<<FONT POINT-SIZE=\"9\">x</FONT>>", "style": "dotted"}),
    ("edge", "graph", {}),
])
def test_an_edge_line_is_graphvizs_own(tail, head, attrs):
    ours, theirs = graphviz.Digraph(), graphviz.Digraph()
    dot_lines.edge(ours, tail, head, **attrs)
    theirs.edge(tail, head, **attrs)
    assert ours.body == theirs.body


words = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30)


@settings(max_examples=200, deadline=None)
@given(name=words, label=st.one_of(st.none(), words), values=st.dictionaries(
    st.sampled_from(["id", "tooltip", "color", "shape", "fontcolor"]), st.one_of(st.none(), words), max_size=4))
def test_any_strings_give_graphvizs_line_twice_in_a_row(name, label, values):
    """The second call answers from the remembered quoting: still graphviz's line."""
    for _ in range(2):
        ours, theirs = graphviz.Digraph(), graphviz.Digraph()
        dot_lines.node(ours, name, label, **values)
        theirs.node(name, label, **values)
        assert ours.body == theirs.body
        dot_lines.edge(ours, name, label or "t0", _attributes=values)
        theirs.edge(name, label or "t0", _attributes=values)
        assert ours.body == theirs.body
