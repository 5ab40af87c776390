"""Large graphs drawn collapsed: the seed's scalar MLP step in boxes, opening boxes, steps at the box level.

The scalar step (5 → 2 tanh → 1 sigmoid, 80 samples of the file-chunk data, built as the
design notes build it) has 4,658 nodes; drawn collapsed it is 14 boxes and nodes. Every
drawing here is laid out by the real ``dot``.
"""
import gc
import re
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import lucid
from lucid import Tensor
from lucid.autograd import backward_trace
from lucid.data import load
from lucid.expr import run
from lucid.lessons.graph_sizes import SEED_HIDDEN, SEED_SAMPLES, step_graphs
from lucid.lessons.training import make_model, prepare
from lucid.viz import (
    MAX_DRAWN,
    GraphTooLarge,
    describe_step,
    group,
    group_of,
    large_frame,
    large_view,
    tag,
    tag_subgraph,
    to_dot,
    toggle,
)
from lucid.viz.graph.layout_cost import LAYOUT_BUDGET, MAX_CLUSTER_COST, cluster_cost, view_cost
from lucid.viz.numbers import format_number
from tests.dot_layout import node_boxes

SVG = "{http://www.w3.org/2000/svg}"


def render_svg(graph) -> ET.Element:
    source = graph if isinstance(graph, str) else graph.source
    done = subprocess.run(["dot", "-Tsvg"], input=source.encode(), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr == b"", done.stderr.decode()
    return ET.fromstring(done.stdout)


def drawn(svg: ET.Element) -> dict[str, set[str]]:
    """id -> classes of every node in the SVG."""
    return {g.get("id"): set(g.get("class", "").split()) for g in svg.iter(f"{SVG}g")
            if "node" in g.get("class", "").split()}


def text_of(svg: ET.Element, node_id: str) -> str:
    for g in svg.iter(f"{SVG}g"):
        if g.get("id") == node_id:
            return " ".join(t.text or "" for t in g.iter(f"{SVG}text"))
    raise KeyError(node_id)


@pytest.fixture(scope="module")
def sizes():
    prepared = prepare(load("file chunks"))
    model = make_model(prepared.Z.shape[1], SEED_HIDDEN, 0)
    return step_graphs(model, prepared.Z, prepared.y, SEED_SAMPLES)


@pytest.fixture(scope="module")
def view(sizes):
    return large_view(sizes.scalar.root, sizes.scalar.trace)


# ----- the scalar step and its twin --------------------------------------------------------------

def test_scalar_step_is_the_notes_graph_with_the_array_steps_loss_and_gradients(sizes):
    assert sizes.samples == 80
    assert sizes.tensor.nodes == 13
    # the notes count 4,659: their Value(80) ** -1 keeps Value(80) as a node; lucid folds 80 ** -1 of constants
    assert sizes.scalar.nodes == 4658
    assert abs(sizes.scalar.loss - sizes.tensor.loss) < 1e-12
    W1, b1, W2, b2 = (p.grad for p in sizes.tensor_params)
    scalar = np.array([p.grad for p in sizes.scalar_params], dtype=float)
    np.testing.assert_allclose(scalar, np.concatenate([W1.ravel(), b1.ravel(), W2.ravel(), b2.ravel()]),
                               rtol=1e-10, atol=1e-14)


def test_scalar_step_renders_to_svg_collapsed_into_a_few_counted_boxes(sizes, view):
    svg = render_svg(large_frame(view).main)
    nodes = drawn(svg)
    assert len(nodes) == view.node_count == 14
    boxes = {k: c for k, c in nodes.items() if "group" in c}
    assert len(boxes) == 12
    counts = {}
    for box in boxes:
        m = re.search(r"([\d,]+) nodes", text_of(svg, box))
        counts[box] = int(m.group(1).replace(",", ""))
    loose = [k for k in nodes if k.startswith("t")]
    assert sum(counts.values()) + len(loose) == sizes.scalar.nodes
    labels = sorted(text_of(svg, b).split(" ", 1)[0] for b in boxes)
    assert labels.count("sample") == 10 and "parameters" in labels and "loss" in labels
    assert "sample 0 … sample 7" in text_of(svg, view.hierarchy.groups["sample 0 … sample 7"].id)


def test_to_dot_draws_the_scalar_step_collapsed_instead_of_refusing_it(sizes):
    graph = to_dot(sizes.scalar.root, sizes.scalar.trace, 10)
    assert "lucid-collapsed" in graph.source
    assert len(drawn(render_svg(graph))) == 14


# ----- opening and closing boxes -----------------------------------------------------------------

def test_opening_a_box_changes_the_drawing_and_closing_it_restores_it(sizes, view):
    before = large_frame(view, 5).main.source
    block = view.hierarchy.groups["sample 8 … sample 15"]
    opened = toggle(view, (), block.id)
    assert opened == {"sample 8 … sample 15"}
    v2 = large_view(sizes.scalar.root, sizes.scalar.trace, opened)
    svg = render_svg(large_frame(v2, 5).main)
    nodes = drawn(svg)
    assert "group-header" in nodes[block.id]  # the open group's header, clicked to close it
    inner = {view.hierarchy.groups[k].id for k in block.children}
    assert len(inner) == 8 and inner <= set(nodes)
    assert all("group" in nodes[i] for i in inner)
    # a sample is 58 nodes in the notes' count; its add into the running total is drawn in "loss sum"
    assert "57 nodes" in text_of(svg, view.hierarchy.groups["sample 8 … sample 15/sample 9"].id)
    closed = toggle(v2, opened, block.id)
    assert closed == frozenset()
    assert large_frame(large_view(sizes.scalar.root, sizes.scalar.trace, closed), 5).main.source == before


def test_opening_a_nested_box_opens_its_parents_and_shows_single_nodes(sizes, view):
    neuron = view.hierarchy.groups["sample 8 … sample 15/sample 9/hidden neuron 1"]
    opened = toggle(view, (), neuron.id)
    assert opened == {"sample 8 … sample 15", "sample 8 … sample 15/sample 9",
                      "sample 8 … sample 15/sample 9/hidden neuron 1"}
    v = large_view(sizes.scalar.root, sizes.scalar.trace, opened)
    nodes = drawn(render_svg(large_frame(v).main))
    singles = [k for k in nodes if k.startswith("t")]
    # the neuron's 16 nodes (5 inputs, 5 products, 5 sums, tanh), the sample's 13 loss-term nodes,
    # and the root with its constant 1/80
    assert len(singles) == 16 + 13 + 2
    assert "=&#160;tanh" in large_frame(v).main.source or "= tanh" in large_frame(v).main.source


def test_collapsed_drawing_refuses_past_five_thousand_drawn_nodes_with_what_to_do(sizes, view):
    assert MAX_DRAWN == 5000
    prepared = prepare(load("file chunks"))
    bigger = step_graphs(make_model(5, SEED_HIDDEN, 0), prepared.Z, prepared.y, 100).scalar  # 5,818 nodes
    every = set(large_view(bigger.root, bigger.trace).hierarchy.groups)
    with pytest.raises(GraphTooLarge) as info:
        large_view(bigger.root, bigger.trace, every)
    assert info.value.nodes >= 5000 and info.value.limit == 5000
    assert "Close some groups" in str(info.value)
    # the 4,658-node step with every group open stays under the limit: drawn, within the layout budget
    v = large_view(sizes.scalar.root, sizes.scalar.trace, set(view.hierarchy.groups))
    assert view_cost(v) <= LAYOUT_BUDGET


def test_layout_budget_closes_groups_again_before_dot_would_take_long(sizes, view):
    samples = {k for k in view.hierarchy.groups if k.startswith("sample") and k.count("/") <= 1}
    v = large_view(sizes.scalar.root, sizes.scalar.trace, samples)  # all 80 samples open: ~1,800 nodes
    assert v.closed_for_budget
    assert view_cost(v) <= LAYOUT_BUDGET
    assert v.node_count < 80 * (3 + 13)  # every sample open would draw its 3 neuron boxes and 13 nodes
    render_svg(large_frame(v).main)


# ----- steps at the collapsed level --------------------------------------------------------------

def _check_steps(v, trace):
    steps = v.steps
    assert steps[0].first == 0 and steps[-1].last == len(trace.steps) - 1
    for a, b in zip(steps, steps[1:]):
        assert b.first == a.last + 1  # in order, no gap, no overlap
    for c in steps:
        assert [v.step_of(i) for i in range(c.first, c.last + 1)] == [c.index] * c.size
        for i in range(c.first, c.last + 1):
            s = trace.steps[i]
            source = v.unit_of[v.index_of[id(s.node if s.node is not None else s.parent)]]
            assert source == c.unit  # a merged step leaves one box
        if c.size > 1:
            assert c.unit.startswith("g")  # only steps leaving a closed box are merged


def test_every_trace_step_maps_to_one_collapsed_step_in_order(sizes, view):
    trace = sizes.scalar.trace
    _check_steps(view, trace)
    assert len(view.steps) < len(trace.steps) / 20  # 162 collapsed steps for 4,481
    opened = toggle(view, (), view.hierarchy.groups["sample 8 … sample 15/sample 9/output neuron"].id)
    v = large_view(sizes.scalar.root, trace, opened)
    _check_steps(v, trace)
    # inside the opened neuron every step is its own
    inside = [c for c in v.steps if c.unit.startswith("t") and c.first > 0]
    assert inside and all(c.size == 1 for c in inside)


def test_gradients_shown_at_the_collapsed_level_are_the_traces(sizes, view):
    trace = sizes.scalar.trace
    opened = toggle(view, (), view.hierarchy.groups["sample 72 … sample 79/sample 79/output neuron"].id)
    v = large_view(sizes.scalar.root, trace, opened)
    checked = 0
    for c in v.steps[: 60]:
        svg_source = large_frame(v, c.index).main.source
        grads = {}
        for s in trace.steps[: c.last + 1]:
            grads[v.index_of[id(s.parent)]] = s.accumulated
        for unit in v.units:
            if not unit.startswith("t"):
                continue
            k = int(unit[1:])
            if not v.order[k].requires_grad:
                continue
            node = re.search(rf"^\s*{unit} \[label=<(.*?)>\s", svg_source, flags=re.M).group(1)
            shown = re.search(r"grad ([^<]*)<", node).group(1).rstrip("\u00a0")
            expected = format_number(grads[k]) if k in grads else "—"
            assert shown == expected, (c.index, unit)
            checked += 1
    assert checked > 100


def test_current_box_and_receiving_boxes_follow_the_step(sizes, view):
    c = next(c for c in view.steps if c.targets and c.unit.startswith("g"))
    nodes = drawn(render_svg(large_frame(view, c.index).main))
    assert "current" in nodes[c.unit]
    assert all("receiving" in nodes[t] for t in c.targets)
    assert sum("current" in cls for cls in nodes.values()) == 1
    text = describe_step(view, c.index)
    assert text.startswith(f"Step {c.index}:") and "leaves" in text


def test_overview_marks_the_region_and_detail_shows_its_single_steps(sizes, view):
    trace = sizes.scalar.trace
    c = view.steps[40]
    frame = large_frame(view, 40)
    assert frame.step == c
    overview = drawn(render_svg(frame.overview))
    assert [k for k, cls in overview.items() if "region" in cls] == [frame.region]
    assert 'size="5,3.5"' in frame.overview.source
    s = trace.steps[c.last]
    focus = view.index_of[id(s.node if s.node is not None else s.parent)]
    detail = drawn(render_svg(frame.detail))
    assert f"t{focus}" in detail and "current" in detail[f"t{focus}"]
    # stepping on moves both views together
    later = large_frame(view, 120)
    assert later.region is not None
    assert later.detail.source != frame.detail.source


# ----- groups from tags and from names -----------------------------------------------------------

def test_tag_subgraph_nests_groups_and_stops_at_inputs_and_tagged_tensors():
    x = Tensor(0.5, requires_grad=True, name="x")
    with group("block"):
        with group("inner"):
            h = lucid.tanh(x * 2.0)
            assert tag_subgraph(h, stop=[x]) == 3  # tanh, mul, the constant 2
        out = h + 1.0
        tag_subgraph(out)
    assert group_of(h) == ("block", "inner")
    assert group_of(out) == ("block",)
    assert group_of(x) is None
    tag(x, "params/first")
    assert group_of(x) == ("params", "first")
    with pytest.raises(ValueError):
        with group("a/b"):
            pass


def test_tags_die_with_their_tensors():
    from lucid.viz.graph import groups

    t = Tensor(1.0)
    tag(t, ("gone",))
    key = id(t)
    assert key in groups._tags
    del t
    gc.collect()
    assert key not in groups._tags


def test_program_names_group_a_long_program_that_reuses_one_value():
    source = "x = randn(3)\n" + "\n".join(f"a{i} = tanh(x * {i + 1})" for i in range(60)) + \
        "\nout = " + " + ".join(f"a{i}" for i in range(60))
    program = run(source)
    trace = backward_trace(program.output)
    v = large_view(program.output, trace)
    assert v.hierarchy.source == "names"
    assert view_cost(v) <= LAYOUT_BUDGET and v.node_count <= 40
    _check_steps(v, trace)
    svg = render_svg(to_dot(program.output, trace, 3))  # auto: collapsed, not refused
    assert len(drawn(svg)) == v.node_count


# ----- the cost of clusters (issue: 60 prefixed leaves, 60 products, two sums) ---------------------

def cluster_program() -> str:
    from bench.bench_large_graph import cluster_program as the_issue_program

    return the_issue_program()


def test_prefix_clusters_whose_edges_all_cross_are_not_drawn():
    source = cluster_program()
    assert 2600 < len(source) < 2800
    program = run(source)
    trace = backward_trace(program.output)
    graph = to_dot(program.output, trace, 5)
    assert "subgraph cluster" not in graph.source
    render_svg(graph)


def test_cluster_cost_counts_clusters_times_border_crossings():
    cluster_of = {"a": 0, "b": 0, "c": 1, "d": None}
    edges = [("a", "b"), ("b", "c"), ("c", "d"), ("a", "d")]
    assert cluster_cost(cluster_of, edges) == 2 * 3
    assert cluster_cost({"a": None}, edges) == 0
    assert MAX_CLUSTER_COST < 20 * 60  # the cluster case: 20 clusters, every product edge crossing


def test_clusters_that_cost_little_are_still_drawn():
    rng = np.random.default_rng(1)
    h = Tensor(rng.normal(size=(3, 2)), name="x")
    for i in range(2):
        w = Tensor(rng.normal(size=(2, 2)), requires_grad=True, name=f"layer{i}.W")
        b = Tensor(rng.normal(size=2), requires_grad=True, name=f"layer{i}.b")
        h = lucid.tanh(h @ w + b)
    assert to_dot(h.sum(), large=True).source.count("subgraph cluster") == 2


def test_every_collapsed_frame_has_the_same_layout(sizes, view):
    opened = toggle(view, (), view.hierarchy.groups["sample 72 … sample 79/sample 79/output neuron"].id)
    v = large_view(sizes.scalar.root, sizes.scalar.trace, opened)
    frames = [0, 1, 5, len(v.steps) // 2, len(v.steps) - 1]
    layouts = [node_boxes(large_frame(v, c).main.source) for c in frames]
    assert all(layout == layouts[0] for layout in layouts[1:])
    assert len(layouts[0]) == v.node_count


def test_a_drawing_predicted_to_cost_more_than_the_budget_is_collapsed_before_dot_runs(monkeypatch):
    from lucid.viz.graph import dot as dot_module
    from lucid.viz.graph.structure import build_model, model_cost

    source = "x = randn(3)\n" + "\n".join(f"a{i} = tanh(x)" for i in range(20)) + \
        "\nout = " + " + ".join(f"a{i}" for i in range(20))
    program = run(source)
    cost = model_cost(build_model(program.output))
    assert cost == 615  # 79 nodes, 97 edges, 439 ranks skipped
    assert "lucid-collapsed" not in to_dot(program.output).source
    monkeypatch.setattr(dot_module, "LAYOUT_BUDGET", cost - 1)
    assert "lucid-collapsed" in to_dot(program.output).source
    assert "lucid-collapsed" not in to_dot(program.output, large=False).source
