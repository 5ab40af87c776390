"""The graph as text (``lucid.viz.player.node_text``): every drawn node's parts of speech and its gradient per step."""
from lucid import gallery
from lucid.notebook.widget import record
from lucid.viz.player.animation import build_animation
from lucid.viz.player.node_text import node_texts, number_text
from lucid.viz.player.redact import redacted


def circuit():
    rec = record(gallery.by_slug("cs231n-circuit").source)
    return rec.root, rec.trace


def test_every_drawn_tensor_is_named_in_topological_order_with_its_op_inputs_and_users():
    root, trace = circuit()
    nodes = node_texts(root, trace)
    order = {n["id"]: n for n in nodes["order"]}
    assert [n["name"] for n in nodes["order"]] == ["x", "y", "q", "z", "f"]
    assert order["t2"] == {"id": "t2", "name": "q", "kind": "intermediate", "op": "add", "value": "3.000",
                           "inputs": ["t0", "t1"], "users": ["t4"], "grad": True}
    assert order["t4"]["op"] == "mul" and order["t4"]["users"] == [] and order["t4"]["value"] == "−12.00"
    assert order["t0"]["kind"] == "leaf" and order["t0"]["inputs"] == []


def test_each_trace_step_gives_its_node_the_accumulated_gradient_and_whether_it_is_final():
    root, trace = circuit()
    grads = node_texts(root, trace)["grads"]
    assert grads == [[0, "t4", "1.000", True], [1, "t2", "−4.000", True], [2, "t3", "3.000", True],
                     [3, "t0", "−4.000", True], [4, "t1", "−4.000", True]]


def test_arrays_are_said_element_by_element_when_small_and_by_shape_and_summary_when_large():
    import numpy as np
    assert number_text(np.float64(0.76159)) == "0.7616"
    assert number_text(np.array([1.0, -2.0])) == "[1.000, −2.000]"
    assert number_text(np.arange(12.0).reshape(3, 4)) == "3×4: min 0, mean 5.500, max 11.00"


def test_the_animation_carries_the_text_and_a_students_copy_keeps_only_the_gradients_shown():
    root, trace = circuit()
    anim = build_animation(root, trace)
    assert anim.to_json()["nodes"] == anim.nodes and len(anim.nodes["grads"]) == anim.n_steps == 5
    cut = redacted(anim, 2)
    assert cut.nodes["order"] == anim.nodes["order"]
    assert cut.nodes["grads"] == [[0, "t4", "1.000", True], [1, "t2", "−4.000", True]]


def collapsed_animation():
    from lucid.autograd import backward_trace
    from lucid.expr import run
    from lucid.viz.graph.collapse import CollapsedView
    from lucid.viz.player.animation import build_collapsed_animation
    from tests.large_programs import scalar_mlp_source

    program = run(scalar_mlp_source(), seed=0)
    view = CollapsedView(program.output, backward_trace(program.output), ())
    return view, build_collapsed_animation(view)


def test_a_collapsed_drawing_names_its_tensors_drawn_alone_and_lists_its_boxes_by_label():
    view, anim = collapsed_animation()
    nodes = anim.nodes
    assert [n["id"] for n in nodes["order"]] == view.units
    boxes = [n for n in nodes["order"] if n.get("box")]
    assert len(boxes) == sum(u.startswith("g") for u in view.units) >= 5
    assert all(set(b) == {"id", "box", "name"} for b in boxes)
    v0 = next(n for n in nodes["order"] if n["name"] == "v0")
    assert v0["kind"] == "leaf" and v0["value"] == "−0.6000" and v0["inputs"] == []
    assert v0["users"] and all(u in view.units for u in v0["users"])
    alone = {u for u in view.units if u.startswith("t")}
    assert {g[1] for g in nodes["grads"]} <= alone  # a gradient inside a box is not sent
    assert 0 < len(nodes["grads"]) < len(view.trace.steps)
    steps = [g[0] for g in nodes["grads"]]
    assert steps == sorted(steps)


def test_a_students_copy_of_a_collapsed_drawing_keeps_the_gradients_of_the_steps_it_keeps_only():
    _view, anim = collapsed_animation()
    upto = anim.trace_steps[3] + 1
    cut = redacted(anim, upto)
    assert cut.n_steps == 4
    assert cut.nodes["grads"] == [g for g in anim.nodes["grads"] if g[0] <= anim.trace_steps[3]]
    assert all(g[0] < upto for g in cut.nodes["grads"]) and len(cut.nodes["grads"]) < len(anim.nodes["grads"])
