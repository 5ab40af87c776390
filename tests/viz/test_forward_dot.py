"""The graph at a step of forward mode: tangents where gradients would be, the current node bordered."""
import numpy as np
import pytest

from lucid.autograd.forward_trace import forward_trace
from lucid.expr import run
from lucid.viz.errors import GraphTooLarge
from lucid.viz.graph.forward_dot import forward_dot, forward_state
from lucid.viz.graph.structure import build_model

SOURCE = "x = [0.5, -1.0, 2.0]\nw = 1.5\ny = tanh(x * w)\nout = sum(y * y)"


def _trace():
    program = run(SOURCE)
    return program, forward_trace(program.output, {program.variables["x"]: np.array([1.0, 0.0, 0.0])})


def test_step_zero_shows_only_the_direction_on_the_input():
    program, trace = _trace()
    model = build_model(trace.root, trace.order, large=False)
    state = forward_state(model, trace, 0)
    x, w = program.variables["x"], program.variables["w"]
    assert state.progress[model.index_of[id(x)]] == "current"
    np.testing.assert_array_equal(state.grads[model.index_of[id(x)]], [1.0, 0.0, 0.0])
    assert state.progress[model.index_of[id(w)]] == "done"  # w never moves: drawn like a constant
    assert model.index_of[id(w)] not in state.grads
    assert state.progress[model.index_of[id(program.output)]] == "pending"


def test_a_step_borders_its_node_and_flows_along_the_moving_inputs_edges():
    program, trace = _trace()
    model = build_model(trace.root, trace.order, large=False)
    state = forward_state(model, trace, 1)  # t2 = x · w
    t2 = model.index_of[id(trace.steps[0].node)]
    assert state.progress[t2] == "current" and state.op_state[t2] == "active"
    x, w = model.index_of[id(program.variables["x"])], model.index_of[id(program.variables["w"])]
    edges = {(e.parent, e.child): state.edge_state[e.id] for e in model.edges if e.kind == "input"}
    assert edges[(x, t2)] == "flowing" and edges[(w, t2)] == "nograd"
    np.testing.assert_allclose(state.grads[t2], [1.5, 0.0, 0.0])


def test_the_drawing_names_the_tangent_row():
    _, trace = _trace()
    source = forward_dot(trace, 2).source
    assert "tang\u00a0" in source and "grad\u00a0" not in source  # label text keeps its spaces as nbsp
    assert forward_dot(trace, len(trace.steps)).source.count("current") == 1
    with pytest.raises(IndexError):
        forward_dot(trace, len(trace.steps) + 1)


def test_a_graph_past_the_node_cap_is_refused():
    program = run("x = [1.0, 2.0]\n" + "x = tanh(x)\n" * 120 + "sum(x)")
    trace = forward_trace(program.output, {program.inputs[0]: np.array([1.0, 0.0])})
    with pytest.raises(GraphTooLarge):
        forward_dot(trace, 1)
