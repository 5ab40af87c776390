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
    assert grads == [["t4", "1.000", True], ["t2", "−4.000", True], ["t3", "3.000", True],
                     ["t0", "−4.000", True], ["t1", "−4.000", True]]


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
    assert cut.nodes["grads"] == [["t4", "1.000", True], ["t2", "−4.000", True]]
