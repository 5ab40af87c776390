"""The circuit preset of to_dot (CS231n-style): same ids and classes as the default drawing, one layout for
every frame, the trace's numbers above and below each wire, and a classroom circuit that fits a 16:9 slide.

Every DOT here is laid out by the real `dot`.
"""
import re
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import lucid
from lucid import Tensor, gallery
from lucid.autograd import backward_trace
from lucid.expr import run
from lucid.session.options import PRESETS, DrawOptions
from lucid.viz import to_dot
from lucid.viz.graph import dot as viz_dot
from lucid.viz.graph.circuit import WIRE, op_width
from tests.dot_layout import geometry

SVG = "{http://www.w3.org/2000/svg}"
CLASSROOM = "a = 1.3\nb = -0.7\nc = 0.45\nout = tanh(a*b + c**2) * sigmoid(a - c)\n"
PROGRAMS = {
    "classroom": CLASSROOM,
    "cs231n-circuit": gallery.by_slug("cs231n-circuit").source,
    "cs231n-sigmoid": gallery.by_slug("cs231n-sigmoid").source,
    "x-times-x-with-constant": "x = 3.0\nk = const(2.0)\ny = x * x * k - x\n",
    "broadcast-heatmaps": "X = randn(4, 3)\nb = [0.1, -0.2, 0.3]\nH = tanh(X + b)\nloss = sum(H * H)\n",
    "large-summaries": "A = randn(12, 10)\ns = A.sum(axis=0)\nout = sum(s * s) / 4\n",
}


def traced(name: str):
    program = run(PROGRAMS[name], seed=0)
    return program, backward_trace(program.output)


def render_svg(source: str) -> ET.Element:
    done = subprocess.run(["dot", "-Tsvg"], input=source.encode(), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr == b"", done.stderr.decode()
    return ET.fromstring(done.stdout)


def classes(svg: ET.Element) -> dict[str, set[str]]:
    return {g.get("id"): set(g.get("class", "").split()) for g in svg.iter(f"{SVG}g")
            if set(g.get("class", "").split()) & {"node", "edge"}}


def texts(svg: ET.Element, element_id: str) -> list[str]:
    group = next(g for g in svg.iter(f"{SVG}g") if g.get("id") == element_id)
    return [" ".join((t.text or "").replace("\u00a0", " ").split()) for t in group.iter(f"{SVG}text")]


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_every_step_has_the_same_ids_and_classes_as_the_default_drawing(name):
    program, trace = traced(name)
    for step in range(len(trace.steps)):
        default = classes(render_svg(to_dot(program.output, trace, step).source))
        circuit = classes(render_svg(to_dot(program.output, trace, step, preset="circuit").source))
        # the circuit draws a subset: only constants folded into a gate (and their edges) are left out
        assert all(circuit[k] == default[k] for k in circuit), f"step {step}"
        for element in default.keys() - circuit.keys():
            assert default[element] & {"const", "nograd"}, (step, element)


def test_the_sigmoid_neuron_draws_its_constants_as_gates_like_the_notes():
    program, trace = traced("cs231n-sigmoid")
    source = to_dot(program.output, trace, preset="circuit").source
    svg = render_svg(source)
    gates = {g.get("id"): "".join(t.text or "" for t in g.iter(f"{SVG}text"))
             for g in svg.iter(f"{SVG}g") if "op" in g.get("class", "").split()}
    assert sorted(gates.values()) == sorted(["×", "×", "+", "+", "neg", "exp", "+1", "1/x"])
    everything = " ".join(t.text or "" for t in svg.iter(f"{SVG}text"))
    assert "t0" not in everything and "t1 " not in everything  # no wire named after an unnamed constant
    # the folded constants' nodes and edges are not drawn; the gates have one input each
    for k in (0, 1):
        assert f'id="t{k}"' not in ET.tostring(svg, encoding="unicode")


def test_constants_that_cannot_fold_are_labelled_not_named_t():
    program = run("x = 1.5\ny = maximum(x, 0.5) * x\n")
    source = to_dot(program.output, backward_trace(program.output), preset="circuit").source
    svg = render_svg(source)
    everything = " ".join(t.text or "" for t in svg.iter(f"{SVG}text"))
    assert "constant" in everything and "0.5000" in everything
    assert "t1" not in everything.split()  # the constant 0.5 is tensor 1: labelled, not named after its id


@pytest.mark.parametrize("source, gate", [("x = 1.5\ny = x - 1\n", "x−1"), ("x = 1.5\ny = 1 - x\n", "1−x"),
                                          ("x = 1.5\ny = x ** 2\n", "x²"), ("x = 1.5\ny = x / 4\n", "x/4"),
                                          ("x = 1.5\ny = 3 * x\n", "×3"), ("x = 1.5\ny = 2 + x\n", "+2")])
def test_gates_read_like_the_notes(source, gate):
    program = run(source)
    svg = render_svg(to_dot(program.output, backward_trace(program.output), preset="circuit").source)
    op = next(g for g in svg.iter(f"{SVG}g") if "op" in g.get("class", "").split())
    assert "".join(t.text or "" for t in op.iter(f"{SVG}text")) == gate


def test_same_ids_and_classes_in_large_mode_with_a_collapsed_chain():
    x = Tensor(0.3, requires_grad=True, name="x")
    out = lucid.exp(lucid.tanh(lucid.sin(lucid.cos(x * 2.0)))) * x
    trace = backward_trace(out)
    for step in range(len(trace.steps)):
        default = classes(render_svg(to_dot(out, trace, step, large=True).source))
        circuit = classes(render_svg(to_dot(out, trace, step, large=True, preset="circuit").source))
        assert all(circuit[k] == default[k] for k in circuit)
        assert default.keys() - circuit.keys() == {"t1", "e2_1"}  # the 2.0 of x * 2.0, folded into a ×2 gate
        assert any("chain" in c for c in circuit.values())


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_every_frame_has_the_same_layout(name):
    program, trace = traced(name)
    sources = [to_dot(program.output, trace, s, preset="circuit").source for s in range(len(trace.steps))]
    first = geometry(sources[0])
    for step, source in enumerate(sources[1:], start=1):
        assert geometry(source) == first, f"step {step} moved something"  # nodes, splines, bounding box


def test_the_notes_circuit_shows_values_above_and_gradients_below_each_wire():
    """f = (x + y) * z at x = -2, y = 5, z = -4: q = 3, f = -12; ∂f/∂x = ∂f/∂y = -4, ∂f/∂z = 3."""
    program, trace = traced("cs231n-circuit")
    order = [t.name for t in trace.order]
    at = {name: f"t{order.index(name)}" for name in ("x", "y", "z", "q", "f")}
    svg = render_svg(to_dot(program.output, trace, preset="circuit").source)  # the end of the pass
    shown = {name: texts(svg, node) for name, node in at.items()}
    assert shown["x"] == ["x", "−2.000", "−4.000", "✓", ""]  # name, value, gradient, mark, spacer
    assert shown["y"][1:4] == ["5.000", "−4.000", "✓"]
    assert shown["z"][1:4] == ["−4.000", "3.000", "✓"]
    assert shown["q"][1:4] == ["3.000", "−4.000", "✓"]
    assert shown["f"][1:4] == ["−12.00", "1.000", "✓"]
    first = render_svg(to_dot(program.output, trace, 0, preset="circuit").source)
    assert texts(first, at["x"])[1:4] == ["−2.000", "—", ""]  # pending: a dash and no mark
    assert texts(first, at["f"])[1:4] == ["−12.00", "1.000", "✓"]


def test_a_partial_gradient_is_marked_until_its_last_contribution():
    x = Tensor(3.0, requires_grad=True, name="x")
    y = x * x
    trace = backward_trace(y)  # 0 seed, 1 first edge into x (3, partial), 2 second edge (6, final)
    partial = render_svg(to_dot(y, trace, 1, preset="circuit").source)
    final = render_svg(to_dot(y, trace, 2, preset="circuit").source)
    assert texts(partial, "t0")[1:4] == ["3.000", "3.000", "◐"]
    assert "partial" in classes(partial)["t0"]
    assert texts(final, "t0")[1:4] == ["3.000", "6.000", "✓"]
    assert "final" in classes(final)["t0"]


def test_the_sigmoid_neuron_shows_the_notes_gradients():
    program, trace = traced("cs231n-sigmoid")
    svg = render_svg(to_dot(program.output, trace, preset="circuit").source)
    order = [t.name for t in trace.order]
    got = {n: texts(svg, f"t{order.index(n)}")[2] for n in ("w0", "x0", "w1", "x1", "w2")}
    assert got == {"w0": "−0.1966", "x0": "0.3932", "w1": "−0.3932", "x1": "−0.5898", "w2": "0.1966"}


def test_wires_attach_at_the_rule_and_ops_are_fixed_size_circles():
    program, trace = traced("cs231n-circuit")
    source = to_dot(program.output, trace, 2, preset="circuit").source
    assert "rankdir=LR" in source
    assert re.search(rf'PORT="{WIRE}"', source)
    assert re.search(rf"t\d+:{WIRE}:e -> op\d+", source)  # into an op from the right end of a wire
    assert re.search(rf"op\d+ -> t\d+:{WIRE}:w", source)  # out of an op to the left end of the next wire
    for op in re.findall(r"^\s*op\d+ \[.*$", source, flags=re.M):  # +, ×: short symbols
        assert "shape=circle" in op and "fixedsize=true" in op
    assert op_width("+") == op_width("×") < op_width("tanh")


def test_ops_with_long_text_are_rounded_boxes_not_huge_circles():
    logits = Tensor(np.array([[0.5, -1.0, 2.0], [1.5, 0.2, -0.3]]), requires_grad=True, name="logits")
    out = lucid.log(lucid.softmax(logits, axis=1)).sum()
    source = to_dot(out, backward_trace(out), 1, preset="circuit").source
    softmax = next(line for line in source.splitlines() if "softmax" in line and line.lstrip().startswith("op"))
    assert "shape=box" in softmax and "rounded" in softmax and "height=0.32" in softmax
    log = next(line for line in source.splitlines() if re.match(r"\s*op\d+ \[label=<log>", line))
    assert "shape=circle" in log


def test_the_current_node_and_the_flowing_edge_are_highlighted():
    program, trace = traced("cs231n-circuit")
    source = to_dot(program.output, trace, 2, preset="circuit").source
    current = [line for line in source.splitlines() if re.search(r'class="[^"]*\bcurrent\b', line)]
    flowing = [line for line in source.splitlines() if re.search(r'class="[^"]*\bflowing\b', line)]
    assert len(current) == 1 and "penwidth=3" in current[0] and "color=transparent" not in current[0]
    assert len(flowing) == 1 and "penwidth=3.5" in flowing[0]
    pending = [line for line in source.splitlines() if re.search(r'class="[^"]*\bpending\b', line)
               and re.match(r"\s*t\d+ \[", line)]
    assert pending and all("color=transparent" in line for line in pending)  # no border until it matters


@pytest.mark.parametrize("name", ["classroom", "cs231n-circuit", "cs231n-sigmoid"])
def test_a_classroom_circuit_fits_a_16_9_slide_with_large_numbers(name):
    """Scaled to fill a 1920×1080 slide, the numbers (12 pt) are at least 18 px high, and larger than in the
    default drawing of the same program laid out left to right."""
    program, trace = traced(name)

    def number_pixels(source: str) -> float:
        width, height = (float(v) * 72 for v in geometry(source)[0][2:4])  # inches -> points
        return 12 * min(1920 / width, 1080 / height)

    circuit = number_pixels(to_dot(program.output, trace, 0, preset="circuit").source)
    assert circuit >= 18
    assert circuit > 1.5 * number_pixels(to_dot(program.output, trace, 0, direction="LR").source)


def test_options_hide_values_gradients_and_shapes():
    program, trace = traced("broadcast-heatmaps")
    everything = to_dot(program.output, trace, 3, preset="circuit").source
    bare = to_dot(program.output, trace, 3, preset="circuit", show_values=False, show_grads=False,
                  show_shapes=False).source
    labels, bare_labels = (re.sub(r'tooltip="[^"]*"', "", s) for s in (everything, bare))
    assert "4×3" in labels and "0.1000" in labels and "✓" in labels
    assert "4×3" not in bare_labels and "0.1000" not in bare_labels and "✓" not in bare_labels
    render_svg(bare)


def test_direction_is_ignored_and_the_legend_is_drawn():
    program, trace = traced("cs231n-circuit")
    source = to_dot(program.output, trace, 1, preset="circuit", direction="TB", legend=True).source
    assert "rankdir=LR" in source and "rankdir=TB" not in source
    svg = render_svg(source)
    assert "legend" in classes(svg)
    assert any("partial" in t for t in texts(svg, "legend"))


def test_without_a_trace_the_tensors_gradients_are_shown():
    program = run(PROGRAMS["cs231n-circuit"])
    program.output.backward()
    svg = render_svg(to_dot(program.output, preset="circuit").source)
    x = [t.name for t in lucid.autograd.topological_order(program.output)].index("x")
    assert texts(svg, f"t{x}")[1:4] == ["−2.000", "−4.000", "✓"]


def test_nan_values_are_flagged_in_words():
    x = Tensor(-1.0, requires_grad=True, name="x")
    with np.errstate(all="ignore"):
        out = lucid.log(x)
        trace = backward_trace(out)
    svg = render_svg(to_dot(out, trace, 1, preset="circuit").source)
    assert "nan" in classes(svg)["t1"]
    assert any("NaN/inf" in t for t in texts(svg, "t1"))


def test_collapsed_drawings_fall_back_to_the_default_style():
    program, trace = traced("cs231n-sigmoid")
    source = to_dot(program.output, trace, 2, preset="circuit", expanded=()).source
    assert "lucid-collapsed" in source and "lucid-circuit" not in source


@pytest.mark.parametrize("preset", ["Circuit", "cs231n", "", None, 1])
def test_an_unknown_preset_is_a_clear_error(preset):
    program, trace = traced("cs231n-circuit")
    with pytest.raises(ValueError, match="preset must be one of default, circuit"):
        to_dot(program.output, trace, 0, preset=preset)


def test_the_style_control_offers_exactly_the_presets_to_dot_accepts():
    assert set(PRESETS.values()) == set(viz_dot.PRESETS)


def test_draw_options_carry_the_preset_and_force_left_to_right():
    options = DrawOptions(direction="TB", preset="circuit")
    assert options.direction == "LR"
    assert options.as_kwargs()["preset"] == "circuit"
    assert DrawOptions().preset == "default" and DrawOptions().direction == "TB"
    program, trace = traced("cs231n-circuit")
    assert "lucid-circuit" in to_dot(program.output, trace, 0, **options.as_kwargs()).source
    assert "lucid-circuit" not in to_dot(program.output, trace, 0, **DrawOptions().as_kwargs()).source


def test_a_value_used_twice_keeps_both_contributions_on_its_edges():
    program = run("x = -1.5\ny = x * x\n")
    trace = backward_trace(program.output)
    svg = render_svg(to_dot(program.output, trace, 1, preset="circuit").source)
    notes = {e: " ".join((t.text or "").replace("\u00a0", " ") for t in g.iter(f"{SVG}text")).strip()
             for g in svg.iter(f"{SVG}g") for e in [g.get("id")] if e in ("e1_0", "e1_1")}
    assert notes == {"e1_0": "◀ grad += −1.500", "e1_1": ""}  # the second part has not flowed yet
    svg = render_svg(to_dot(program.output, trace, 2, preset="circuit").source)
    notes = {e: " ".join((t.text or "").replace("\u00a0", " ") for t in g.iter(f"{SVG}text")).strip()
             for g in svg.iter(f"{SVG}g") for e in [g.get("id")] if e in ("e1_0", "e1_1")}
    assert notes == {"e1_0": "◀ grad += −1.500", "e1_1": "◀ grad += −1.500"}  # both parts, beside the sum
    assert "−3.000" in " ".join(t.text or "" for t in svg.iter(f"{SVG}text"))
    # a value used once carries no note: the gradient below its wire already says it
    other, other_trace = traced("cs231n-circuit")
    single = to_dot(other.output, other_trace, preset="circuit").source
    assert "grad +=" not in single
