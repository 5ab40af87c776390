"""lucid.viz.to_dot: nodes, edges, labels and per-step classes, every DOT checked by the real `dot`.

The worked example (scalars a = 2, b = -3):  c = a × b,  out = c + a.
Backward steps: 0 seed at out; 1 + → c (1, final); 2 + → a (1, partial);
3 × → a (b = -3, total -2, final); 4 × → b (a = 2, final).
"""
import re
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import lucid
from lucid import Tensor
from lucid.autograd import backward_trace
from lucid.viz import GraphTooLarge, draw, legend, to_dot
from lucid.viz.graph.style import RED, VERMILLION_TEXT
from tests.dot_layout import geometry

SVG = "{http://www.w3.org/2000/svg}"


def render_svg(graph) -> ET.Element:
    """Lay the DOT out with Graphviz's own `dot`; fail on any error or warning."""
    done = subprocess.run(["dot", "-Tsvg"], input=graph.source.encode(), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr == b"", done.stderr.decode()
    return ET.fromstring(done.stdout)


def classes(svg: ET.Element) -> dict[str, set[str]]:
    """id -> classes of every node and edge group in the SVG."""
    out = {}
    for g in svg.iter(f"{SVG}g"):
        cls = g.get("class", "").split()
        if "node" in cls or "edge" in cls:
            out[g.get("id")] = set(cls)
    return out


def texts(svg: ET.Element, element_id: str) -> str:
    group = next(g for g in svg.iter(f"{SVG}g") if g.get("id") == element_id)
    text = " ".join((t.text or "").replace("\u00a0", " ") for t in group.iter(f"{SVG}text"))
    return " ".join(text.split())  # runs of padding collapsed; alignment has its own tests


def note_colour(svg: ET.Element, element_id: str) -> str:
    """The fill of an edge's note (its text), lower-cased."""
    group = next(g for g in svg.iter(f"{SVG}g") if g.get("id") == element_id)
    return next(t.get("fill") for t in group.iter(f"{SVG}text") if (t.text or "").strip()).lower()


def worked_example():
    a = Tensor(2.0, requires_grad=True, name="a")
    b = Tensor(-3.0, requires_grad=True, name="b")
    c = a * b
    c.name = "c"
    out = c + a
    return a, b, c, out


def test_nodes_and_edges_have_stable_ids_in_topological_order():
    *_, out = worked_example()
    svg = render_svg(to_dot(out))
    cls = classes(svg)
    assert set(cls) == {"t0", "t1", "t2", "t3", "op2", "op3", "e2_0", "e2_1", "o2", "e3_0", "e3_1", "o3"}
    assert cls["t0"] == {"node", "leaf", "nograd"}
    assert cls["t3"] == {"node", "output", "nograd"}
    assert cls["op2"] == {"node", "op"}
    assert cls["e3_1"] == {"edge", "input"}


def test_labels_show_name_shape_value_and_op_symbols():
    a = Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, name="weights")
    out = a.sum(axis=0)
    svg = render_svg(to_dot(out))
    # up to 8×8 every element is drawn, one heatmap cell each (the numbers stay: colour is not the only signal)
    assert texts(svg, "t0") == "weights leaf · 2×2 val 1.000 2.000 3.000 4.000 grad —"
    assert texts(svg, "op1") == "Σ(axis=0)"
    assert texts(svg, "t1").startswith("out output · 2 val 4.000 6.000")


def test_x_times_x_draws_two_edges():
    x = Tensor(3.0, requires_grad=True, name="x")
    y = x * x
    g = to_dot(y)
    render_svg(g)
    assert re.findall(r"t0 -> op1 \[.*?id=(e1_\d)", g.source) == ["e1_0", "e1_1"]


@pytest.mark.parametrize("step, expected", [
    (0, {"t0": {"leaf", "pending", "nograd"}, "t1": {"leaf", "pending", "nograd"},
         "t2": {"intermediate", "pending", "nograd"}, "t3": {"output", "current", "final"},
         "op2": {"op", "pending"}, "op3": {"op", "pending"},
         "e3_0": {"input", "pending"}, "e3_1": {"input", "pending"}, "o3": {"output", "flowed"}}),
    (2, {"t0": {"leaf", "current", "partial"}, "t1": {"leaf", "pending", "nograd"},
         "t2": {"intermediate", "done", "final"}, "t3": {"output", "done", "final", "source"},
         "op2": {"op", "pending"}, "op3": {"op", "active"},
         "e3_0": {"input", "flowed"}, "e3_1": {"input", "flowing"}, "e2_0": {"input", "pending"},
         "o3": {"output", "active"}, "o2": {"output", "flowed"}}),
    (3, {"t0": {"leaf", "current", "final"}, "t2": {"intermediate", "done", "final", "source"},
         "op2": {"op", "active"}, "op3": {"op", "done"},
         "e3_1": {"input", "flowed"}, "e2_0": {"input", "flowing"}, "e2_1": {"input", "pending"}}),
    (4, {"t0": {"leaf", "done", "final"}, "t1": {"leaf", "current", "final"},
         "e2_0": {"input", "flowed"}, "e2_1": {"input", "flowing"}}),
])
def test_classes_say_the_state_at_each_step(step, expected):
    *_, out = worked_example()
    trace = backward_trace(out)
    cls = classes(render_svg(to_dot(out, trace, step)))
    for element, want in expected.items():
        kind = "edge" if element[0] in "eo" and not element.startswith("op") else "node"
        assert cls[element] == want | {kind}, (element, cls[element])


def test_gradient_text_and_the_flowing_edge_label_at_a_step():
    *_, out = worked_example()
    trace = backward_trace(out)
    svg = render_svg(to_dot(out, trace, 3))
    assert "grad −2.000 final" in texts(svg, "t0")
    assert "grad —" in texts(svg, "t1") and "pending" in texts(svg, "t1")
    assert texts(svg, "e2_0").strip() == "◀ grad += −3.000"
    assert texts(svg, "e2_1").strip() == ""  # reserved, blank until its turn
    svg2 = render_svg(to_dot(out, trace, 2))
    assert "grad 1.000 partial" in texts(svg2, "t0")
    # once flowed, a contribution keeps its number (in a calmer colour) while the next one flows
    svg4 = render_svg(to_dot(out, trace, 4))
    assert texts(svg4, "e2_0").strip() == "◀ grad += −3.000"
    assert texts(svg4, "e3_0").strip() == texts(svg4, "e3_1").strip() == "◀ grad += 1.000"
    assert texts(svg4, "e2_1").strip() == "◀ grad += 2.000"
    assert note_colour(svg4, "e2_1") == VERMILLION_TEXT.lower()  # flowing now: dark vermilion (4.5:1), like its edge
    assert note_colour(svg4, "e2_0") == note_colour(svg4, "e3_1") == "#35607f"  # flowed: calmer


def test_exactly_one_current_node_and_one_flowing_edge_per_step():
    x = Tensor(0.8, requires_grad=True, name="x")
    w = Tensor(-1.7, requires_grad=True, name="w")
    out = lucid.tanh(x * w + x ** 2) * lucid.sigmoid(w - x)
    trace = backward_trace(out)
    for step in range(len(trace.steps)):
        cls = classes(render_svg(to_dot(out, trace, step)))
        current = [k for k, c in cls.items() if "current" in c]
        flowing = [k for k, c in cls.items() if "flowing" in c]
        parent_index = next(i for i, t in enumerate(trace.order) if t is trace.steps[step].parent)
        assert current == [f"t{parent_index}"]
        assert len(flowing) == (0 if step == 0 else 1)


def _ids(source: str) -> list[str]:
    return re.findall(r"\bid=\"?([A-Za-z0-9_]+)", source)


def _structure(source: str) -> list[str]:
    """Each statement without the attributes that may change between frames."""
    names = "class|color|fillcolor|penwidth|style|fontcolor|tooltip|label|xlabel"
    volatile = rf'(?:(?<=\s)|(?<=\[))(?:{names})=(?:"[^"]*"|<<.*?>>|<[^>]*>|\S+)'
    return [re.sub(volatile, "", line) for line in source.splitlines()]


@pytest.mark.parametrize("expression", ["scalars", "broadcast"])
def test_every_frame_has_the_same_layout(expression):
    if expression == "scalars":
        *_, out = worked_example()
        out = lucid.log(out * out + 1.5) * out
    else:
        a = Tensor([0.5, -1.5], requires_grad=True, name="a")
        b = Tensor([[3.0, 4.0], [5.0, -6.0]], requires_grad=True, name="b")
        out = ((a * b + a) ** 2).mean()
    trace = backward_trace(out)
    sources = [to_dot(out, trace, s).source for s in range(len(trace.steps))]
    assert len({tuple(_ids(s)) for s in sources}) == 1
    assert len({tuple(_structure(s)) for s in sources}) == 1
    first = geometry(sources[0])
    for s in sources[1:]:
        assert geometry(s) == first  # every node, edge spline and the bounding box


def test_broadcast_edge_names_the_summed_axis():
    a = Tensor([1.0, 2.0], requires_grad=True, name="a")
    b = Tensor([[3.0, 4.0], [5.0, 6.0]], requires_grad=True, name="b")
    out = (a * b).sum()
    trace = backward_trace(out)
    step = next(s.index for s in trace.steps if s.parent is a)
    svg = render_svg(to_dot(out, trace, step))
    assert texts(svg, "e2_0").strip() == "◀ grad += [8.000 10.00] (Σ axis 0)"


def test_options_hide_values_gradients_shapes_and_constants():
    x = Tensor([1.0, 2.0], requires_grad=True, name="x")
    k = Tensor(3.0, name="k")
    out = (x * k).sum()
    out.backward()
    full = render_svg(to_dot(out))
    assert "val" in texts(full, "t0") and "grad" in texts(full, "t0") and "2" in texts(full, "t0")
    assert classes(full)["t1"] == {"node", "const", "nograd"}
    bare = render_svg(to_dot(out, show_values=False, show_grads=False, show_shapes=False, show_constants=False))
    assert texts(bare, "t0") == "x leaf"
    assert "t1" not in classes(bare) and "e2_1" not in classes(bare)
    assert set(classes(bare)) == {"t0", "op2", "t2", "e2_0", "o2", "op3", "t3", "e3_0", "o3"}


def test_without_a_trace_the_tensors_current_gradients_are_shown():
    a, b, c, out = worked_example()
    out.backward()
    svg = render_svg(to_dot(out))
    assert "grad −2.000" in texts(svg, "t0") and "grad 2.000" in texts(svg, "t1")
    assert classes(svg)["t0"] == {"node", "leaf", "final"}


@pytest.mark.parametrize("direction", ["LR", "TB", "RL", "BT"])
def test_direction_sets_rankdir(direction):
    *_, out = worked_example()
    g = to_dot(out, direction=direction)
    render_svg(g)
    assert f"rankdir={direction}" in g.source


def test_bad_arguments_are_clear_errors():
    *_, out = worked_example()
    trace = backward_trace(out)
    with pytest.raises(ValueError, match="direction"):
        to_dot(out, direction="sideways")
    with pytest.raises(IndexError, match="steps 0..4"):
        to_dot(out, trace, 5)
    other = Tensor(1.0, requires_grad=True) * 2.0
    with pytest.raises(ValueError, match="different output"):
        to_dot(other, trace, 1)


def test_nan_values_are_flagged_in_red_with_text():
    x = Tensor([-1.0, 4.0], requires_grad=True, name="x")
    with np.errstate(invalid="ignore"):
        out = lucid.log(x).sum()
    g = to_dot(out)
    svg = render_svg(g)
    assert "nan" in classes(svg)["t1"]
    assert "⚠ NaN/inf in value" in texts(svg, "t1")
    assert "val nan 1.386" in texts(svg, "t1")
    assert f'COLOR="{RED}"' in g.source


def test_long_unary_chain_collapses_in_large_mode():
    x = Tensor(0.3, requires_grad=True, name="x")
    y = x
    for _ in range(3000):
        y = lucid.sin(y)
    g = to_dot(y)  # 6001 nodes: "auto" switches large mode on and the chain becomes one node
    svg = render_svg(g)
    cls = classes(svg)
    assert set(cls) == {"t0", "op3000", "t3000", "e1_0", "o3000"}
    assert cls["op3000"] == {"node", "op", "chain"}
    assert texts(svg, "op3000") == "sin → sin → … → sin (3000 ops)"
    with pytest.raises(GraphTooLarge, match="6001 nodes to draw, more than the limit of 400"):
        to_dot(y, large=False)


def test_collapsed_chain_is_current_while_its_hidden_tensors_receive_gradient():
    x = Tensor(0.3, requires_grad=True, name="x")
    out = lucid.exp(lucid.tanh(lucid.sin(x)))
    trace = backward_trace(out)
    cls = classes(render_svg(to_dot(out, trace, 2, large=True)))
    assert cls["op3"] == {"node", "op", "chain", "active", "current"}
    assert not any("current" in c for k, c in cls.items() if k != "op3")


def test_large_mode_clusters_by_name_prefix():
    rng = np.random.default_rng(1)
    h = Tensor(rng.normal(size=(3, 2)), name="x")
    for i in range(2):
        w = Tensor(rng.normal(size=(2, 2)), requires_grad=True, name=f"layer{i}.W")
        b = Tensor(rng.normal(size=2), requires_grad=True, name=f"layer{i}.b")
        h = lucid.tanh(h @ w + b)
    g = to_dot(h.sum(), large=True)
    svg = render_svg(g)
    clusters = [g for g in svg.iter(f"{SVG}g") if "cluster" in g.get("class", "").split()]
    labels = sorted(" ".join(t.text for t in c.iter(f"{SVG}text")) for c in clusters)
    assert labels == ["layer0", "layer1"]
    assert "mean" in texts(svg, "t1")  # one-line summaries instead of grids


def test_node_cap_raises_a_clear_message():
    x = Tensor(1.0, requires_grad=True, name="x")
    y = x
    for i in range(30):
        y = y * Tensor(1.0 + i, requires_grad=True)
    with pytest.raises(GraphTooLarge) as info:
        to_dot(y, max_nodes=50, large=False)
    assert info.value.nodes == 91 and info.value.limit == 50
    assert "91 nodes to draw, more than the limit of 50" in str(info.value)


def test_past_the_node_cap_large_mode_draws_the_graph_collapsed_instead_of_refusing():
    x = Tensor(1.0, requires_grad=True, name="x")
    y = x
    for i in range(30):
        y = y * Tensor(1.0 + i, requires_grad=True)
    graph = to_dot(y, max_nodes=50)
    assert "lucid-collapsed" in graph.source
    svg = render_svg(graph)
    boxes = [i for i, c in classes(svg).items() if "group" in c]
    assert boxes and len(classes(svg)) < 50


def test_legend_alone_and_beside_the_graph():
    svg = render_svg(legend())
    ids = set(classes(svg))
    assert {"legend_leaf", "legend_const", "legend_output", "legend_current", "legend_flowing_edge"} <= ids
    *_, out = worked_example()
    with_legend = render_svg(to_dot(out, legend=True))
    assert "legend_partial" in classes(with_legend) and "t3" in classes(with_legend)


def test_draw_returns_the_digraph_of_to_dot():
    *_, out = worked_example()
    g = draw(out, direction="TB")
    assert g.source == to_dot(out, direction="TB").source
    assert hasattr(g, "_repr_mimebundle_")


def test_a_leaf_output_and_a_constant_output():
    x = Tensor([1.0, 2.0], requires_grad=True, name="x")
    trace = backward_trace(x)
    cls = classes(render_svg(to_dot(x, trace, 0)))
    assert cls == {"t0": {"node", "output", "current", "final"}}
    k = Tensor(2.0, name="k") * 3.0  # nothing requires grad: a constant, drawn without a gradient row
    svg = render_svg(to_dot(k))
    assert classes(svg) == {"t0": {"node", "output", "nograd"}}
    assert texts(svg, "t0") == "out output · scalar val 6.000"  # an unnamed output is called "out"
