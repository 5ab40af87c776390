"""A Tensor shown in a notebook draws the graph that made it, with values and gradients (issue 20).

The numbers are checked against gradients worked out by hand here, not against lucid's own.
"""
import math
import re
import shutil
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import lucid
from lucid import Tensor
from lucid.viz import RenderError

SVG = "image/svg+xml"
NS = "{http://www.w3.org/2000/svg}"

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot program is not installed")


def _number(text: str) -> float:
    """A number as a label prints it: U+2212 minus, no-break spaces."""
    return float(text.replace("\u2212", "-").replace("\xa0", " ").replace("\u2007", " ").strip())


def _node_texts(svg: str) -> dict[str, list[str]]:
    """Each drawn node's lines of text, keyed by its first line (the tensor's name or the op's symbol)."""
    root = ET.fromstring(svg)
    nodes = {}
    for g in root.iter(f"{NS}g"):
        if "node" in (g.get("class") or "").split():
            lines = [t.text or "" for t in g.iter(f"{NS}text")]
            if lines:
                nodes[lines[0]] = lines
    return nodes


def _row(lines: list[str], word: str) -> float:
    """The number on a node's ``val`` or ``grad`` row."""
    (line,) = [x for x in lines if x.startswith(word)]
    return _number(line[len(word):])


def _grad_of(lines: list[str]) -> float:
    return _row(lines, "grad")


def _tanh_example():
    a = Tensor(0.5, requires_grad=True, name="a")
    b = Tensor(-1.5, requires_grad=True, name="b")
    c = Tensor(0.8, requires_grad=True, name="c")
    out = lucid.tanh(a * b + c ** 2)
    out.backward()
    return a, b, c, out


@needs_dot
def test_the_svg_of_tanh_names_each_input_and_shows_its_gradient():
    a, b, c, out = _tanh_example()
    s = 0.5 * -1.5 + 0.8 ** 2  # by hand: d tanh(s)/ds = 1 - tanh(s)^2, then the chain rule
    ds = 1.0 - math.tanh(s) ** 2
    expected = {"a": ds * -1.5, "b": ds * 0.5, "c": ds * 2 * 0.8}
    assert expected == pytest.approx({"a": -1.48200, "b": 0.49400, "c": 1.58080}, abs=1e-4)

    bundle = out._repr_mimebundle_()
    assert bundle["text/plain"] == repr(out)
    nodes = _node_texts(bundle[SVG])
    for name, grad in expected.items():
        assert name in nodes, f"input {name} is not drawn"
        assert _grad_of(nodes[name]) == pytest.approx(grad, rel=1e-3)
    assert {"tanh", "×", "+"} <= set(nodes)
    assert _row(nodes["out"], "val") == pytest.approx(math.tanh(s), rel=1e-3)


@needs_dot
def test_repr_svg_is_the_same_picture_without_the_xml_prolog():
    *_, out = _tanh_example()
    svg = out._repr_svg_()
    assert svg.startswith("<svg")
    assert svg == out._repr_mimebundle_()[SVG]


@needs_dot
def test_a_2000_node_chain_is_drawn_folded():
    x = Tensor(0.1, requires_grad=True, name="x")
    y = x
    for _ in range(2000):
        y = lucid.tanh(y)
    y.backward()
    expected = 1.0  # d/dx of tanh applied 2000 times, by hand: the product of 1 - tanh(v)^2 along the chain
    v = 0.1
    for _ in range(2000):
        v = math.tanh(v)
        expected *= 1.0 - v * v

    nodes = _node_texts(y._repr_svg_())
    assert len(nodes) == 3  # x, one folded box for the 2000 tanh ops, the output
    assert any("2000 ops" in key for key in nodes)
    assert _grad_of(nodes["x"]) == pytest.approx(expected, rel=1e-3)


@needs_dot
def test_a_graph_past_the_layout_budget_is_drawn_collapsed_into_boxes():
    x = Tensor(0.1, requires_grad=True, name="x")
    y = x
    for _ in range(1000):  # 2000 op results, every op also reads x: no chain to fold
        y = lucid.tanh(y) * x
    svg = y._repr_svg_()
    assert 'class="graph lucid&#45;graph lucid&#45;collapsed"' in svg  # Graphviz escapes the hyphens
    boxes = re.findall(r"([\d,]+) nodes", svg)
    assert 2 <= len(boxes) <= 12
    assert sum(int(n.replace(",", "")) for n in boxes) >= 2000


def test_without_dot_the_bundle_is_text_only(monkeypatch, tmp_path):
    *_, out = _tanh_example()
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no dot anywhere
    assert out._repr_mimebundle_() == {"text/plain": repr(out)}
    assert out._repr_svg_() is None


def test_a_failed_drawing_falls_back_to_text(monkeypatch):
    *_, out = _tanh_example()

    def broken(graph, fmt, **kwargs):
        raise RenderError("Graphviz failed: syntax error")

    monkeypatch.setattr("lucid.viz.export.pictures.render", broken)
    assert out._repr_mimebundle_() == {"text/plain": repr(out)}


@needs_dot
def test_excluding_svg_skips_the_drawing():
    *_, out = _tanh_example()
    assert set(out._repr_mimebundle_(exclude=[SVG])) == {"text/plain"}
    assert set(out._repr_mimebundle_(include=["text/plain"])) == {"text/plain"}


def test_a_plain_constant_is_shown_as_text():
    t = Tensor(np.arange(4.0))
    assert t._repr_mimebundle_() == {"text/plain": "Tensor([0. 1. 2. 3.], grad=None)"}


@needs_dot
def test_ipython_displays_the_graph():
    formatters = pytest.importorskip("IPython.core.formatters")
    *_, out = _tanh_example()
    data, _metadata = formatters.DisplayFormatter().format(out)
    assert data["text/plain"] == repr(out)
    assert data[SVG].startswith("<svg") and ">a<" in data[SVG]
