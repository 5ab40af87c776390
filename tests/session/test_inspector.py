"""The node inspector's data and the analysis behind the page, without Streamlit."""
import numpy as np
import pytest

from lucid import gallery
from lucid.session import inspector
from lucid.session.analysis import analyze


def test_nodes_are_listed_in_topological_order_with_names_and_shapes():
    a = analyze("x = 3.0\ny = x * x\n")
    assert inspector.node_choices(a) == ["t0 · x · scalar", "t1 · y · scalar"]
    assert (a.n_tensors, a.n_ops, a.n_steps) == (2, 1, 3)


def test_details_of_a_node_used_twice_show_both_contributions_added():
    a = analyze("x = 3.0\ny = x * x\n")
    first = inspector.node_details(a, 0, step=1)
    assert first.gradient == "3" and not first.gradient_is_final
    final = inspector.node_details(a, 0)
    assert final.value == "3" and final.gradient == "6" and final.gradient_is_final
    assert final.kind == "input (requires grad)"
    assert final.children == ("t1 · y",) and final.parents == ()


def test_details_of_an_op_result_name_its_op_formula_and_parents():
    a = analyze("p = 2.0\nq = 5.0\nr = p * q\n")
    d = inspector.node_details(a, 2, step=0)
    assert d.kind == "output" and d.op == "×"
    assert d.parents == ("t0 · p", "t1 · q")
    assert d.gradient == "1"
    assert len(d.derivatives) == 2


def test_a_node_not_reached_yet_has_no_gradient():
    a = analyze(gallery.DEFAULT.source)
    assert inspector.node_details(a, 0, step=0).gradient is None


def test_full_array_shows_every_element():
    text = inspector.full_array(np.arange(12.0).reshape(3, 4) / 7)
    assert text.count("\n") == 2 and "1.57143" in text and "..." not in text


@pytest.mark.parametrize(("node_id", "expected"), [
    ("t0", 0), ("t15", 15), ("op7", 7), ("t16", None), ("op", None), ("x3", None), ("t-1", None), ("t١", None),
])
def test_clicks_map_to_tensor_indices(node_id, expected):
    assert inspector.node_from_click(node_id, 16) == expected


def test_constant_program_has_no_trace_but_a_reason():
    a = analyze("k = const(2.0)\nm = k * 3\n")
    assert a.trace is None and a.n_steps == 0
    assert "constant" in a.problem


def test_analysis_numbers_nodes_like_the_trace_order():
    a = analyze(gallery.by_slug("mlp").source)
    assert [a.index_of(t) for t in a.order] == list(range(a.n_tensors))
    assert a.order[-1] is a.program.output
