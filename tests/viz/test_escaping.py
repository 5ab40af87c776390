"""Hostile names and values never break the DOT, inject nodes or turn into markup.

Every graph here is laid out by the real `dot` and its SVG parsed as XML; the
names must come back as the same visible text, and only our own ids may exist.
"""
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lucid
from lucid import Tensor
from lucid.autograd import backward_trace
from lucid.viz import to_dot

SVG = "{http://www.w3.org/2000/svg}"

HOSTILE = [
    'a"b', "<b>bold</b>", "a&b", "&amp;", "{braces}[]", "semi;colon", "line1\nline2", "tab\there",
    "\\N", "\\G\\L\\E", "ends with backslash\\", "'single'", "]]>", "<!-- comment -->", "-->",
    'z" -> evil [label="x', "}; digraph evil {", "<<TABLE>>", "\u202eright-to-left", "nul\x00bell\x07",
    "é ü 中文 ∂", "x" * 200,
]


def svg_of(graph) -> ET.Element:
    done = subprocess.run(["dot", "-Tsvg"], input=graph.source.encode(), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr == b"", done.stderr.decode()
    return ET.fromstring(done.stdout)


def group_text(svg: ET.Element, element_id: str) -> str:
    group = next(g for g in svg.iter(f"{SVG}g") if g.get("id") == element_id)
    return " ".join(" ".join((t.text or "").replace("\u00a0", " ").split()) for t in group.iter(f"{SVG}text"))


def ids(svg: ET.Element) -> set[str]:
    return {g.get("id") for g in svg.iter(f"{SVG}g")
            if set(g.get("class", "").split()) & {"node", "edge"}}


def shown(name: str) -> str:
    """What a name should look like: control characters made visible, long names cut."""
    text = name.replace("\n", "⏎").replace("\t", " ").replace("\x00", "\ufffd").replace("\x07", "\ufffd")
    text = text if len(text) <= 32 else text[:31] + "…"
    return " ".join(text.split())


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_render_literally(name):
    x = Tensor(1.5, requires_grad=True, name=name)
    y = Tensor(-2.0, requires_grad=True, name=name)
    out = x * y - x
    out.name = name
    trace = backward_trace(out)
    for step in (None, 2):
        svg = svg_of(to_dot(out, trace, step))
        assert ids(svg) == {"t0", "t1", "op2", "t2", "op3", "t3", "e2_0", "e2_1", "o2", "e3_0", "e3_1", "o3"}
        # three tensors share the name: the graph tells them apart by a subscript, in program order
        assert group_text(svg, "t0").startswith(shown(name) + "₁ leaf")
        assert group_text(svg, "t3").startswith(shown(name) + "₃ output")


def test_hostile_names_in_large_mode_clusters():
    tensors = [Tensor(float(i + 1), requires_grad=True, name=f'{n[:10]}.{i}') for i, n in enumerate(HOSTILE)]
    out = tensors[0]
    for t in tensors[1:]:
        out = out * t + t
    svg = svg_of(to_dot(out, large=True))
    assert {f"t{k}" for k in range(3)} <= ids(svg)
    assert not any(i and "evil" in i for i in ids(svg))


@pytest.mark.parametrize("values", [
    [np.nan, 1.0], [np.inf, -np.inf], [1e308, -1e-308], [5e-324, 0.0], [-0.0, 1e-300],
])
def test_extreme_values_render(values):
    x = Tensor(values, requires_grad=True, name="x")
    with np.errstate(all="ignore"):
        out = (x * 2.0).sum()
        trace = backward_trace(out)
    svg = svg_of(to_dot(out, trace, 1))
    text = group_text(svg, "t0")
    for v in values:
        if np.isnan(v):
            assert "nan" in text
        elif np.isinf(v):
            assert ("−inf" if v < 0 else "inf") in text


def test_hostile_op_parameters_are_escaped():
    x = Tensor(np.arange(6.0).reshape(2, 3), requires_grad=True, name="x")
    y = x[[0, 0]]  # the index array shows up in the op label
    out = lucid.clip(y, low=-1e300, high=2.5).sum()
    svg = svg_of(to_dot(out))
    assert group_text(svg, "op1") == "[ ](index=[0,0])"
    assert group_text(svg, "op2") == "clip(low=-1e+300, high=2.5)"


@settings(max_examples=40, deadline=None)
@given(name=st.text(min_size=0, max_size=60))
def test_any_name_gives_valid_dot_with_only_our_ids(name):
    x = Tensor(0.5, requires_grad=True, name=name or None)
    out = x * x
    out.name = name or None
    svg = svg_of(to_dot(out, backward_trace(out), 1, legend=False))
    assert ids(svg) == {"t0", "op1", "t1", "e1_0", "e1_1", "o1"}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_render_literally_in_the_circuit_preset(name):
    x = Tensor(1.5, requires_grad=True, name=name)
    y = Tensor(-2.0, requires_grad=True, name=name)
    out = x * y - x
    out.name = name
    trace = backward_trace(out)
    for step in (None, 2):
        svg = svg_of(to_dot(out, trace, step, preset="circuit"))
        assert ids(svg) == {"t0", "t1", "op2", "t2", "op3", "t3", "e2_0", "e2_1", "o2", "e3_0", "e3_1", "o3"}
        assert group_text(svg, "t0").startswith(shown(name) + "₁ 1.500")
        assert group_text(svg, "t3").startswith(shown(name) + "₃ −4.500")


@pytest.mark.parametrize("values", [[np.nan, 1.0], [np.inf, -np.inf], [1e308, -1e-308]])
def test_extreme_values_render_in_the_circuit_preset(values):
    x = Tensor(values, requires_grad=True, name="x")
    with np.errstate(all="ignore"):
        out = (x * 2.0).sum()
        trace = backward_trace(out)
    text = group_text(svg_of(to_dot(out, trace, 1, preset="circuit")), "t0")
    for v in values:
        if np.isnan(v):
            assert "nan" in text and "NaN/inf" in text
        elif np.isinf(v):
            assert ("−inf" if v < 0 else "inf") in text


def _visible_by_category(text: str) -> str:
    """``visible``'s rule written out character by character (what its fast path must agree with)."""
    import unicodedata

    out = []
    for ch in text:
        if ch in "\r\n":
            out.append("⏎")
        elif ch == "\t":
            out.append(" ")
        elif unicodedata.category(ch) in ("Cc", "Cs", "Co", "Cn") or ch in "\u2028\u2029":
            out.append("\ufffd")
        else:
            out.append(ch)
    return "".join(out)


def test_visible_text_replaces_exactly_the_control_characters_on_its_fast_path_too():
    from lucid.viz.graph.text import visible

    points = [*range(0x10000), *range(0x10000, 0x110000, 97), 0xE0001, 0xF0000, 0x10FFFF]
    wrong = [hex(p) for p in points for text in (chr(p), f"w{chr(p)}1")
             if visible(text) != _visible_by_category(text)]
    assert wrong == []
    assert visible("가중치 w1") == "가중치 w1" and visible("a\nb\tc\u2028") == "a⏎b c\ufffd"
