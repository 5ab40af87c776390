"""Broadcasting lesson: shapes parse and validate; backward sums exactly the broadcast axes."""
import numpy as np
import pytest

from lucid.lessons.broadcasting import (
    alignment,
    broadcast_demo,
    broadcast_shape,
    parse_shape,
    shape_cases,
    summed_axes_text,
)


@pytest.mark.parametrize("text,shape", [("3, 1, 4", (3, 1, 4)), ("(3, 4)", (3, 4)), ("[2,5]", (2, 5)),
                                        ("4,", (4,)), ("3x4", (3, 4)), ("", ()), ("()", ())])
def test_parse_shape_accepts_python_like_spellings(text, shape):
    assert parse_shape(text) == shape


@pytest.mark.parametrize("text,message", [("3, a", "not a shape"), ("0, 2", "between 1 and 6"),
                                          ("7", "between 1 and 6"), ("1,1,1,1,1", "at most 4 axes"),
                                          ("2,,3", "not a shape")])
def test_parse_shape_rejects_with_a_reason(text, message):
    with pytest.raises(ValueError, match=message):
        parse_shape(text)


def test_incompatible_shapes_name_the_clashing_axis():
    with pytest.raises(ValueError, match=r"axis -1 has sizes 2 and 4"):
        broadcast_shape((3, 2), (4,))
    assert broadcast_shape((3, 1), (4,)) == (3, 4)


def test_alignment_says_who_is_copied_on_each_axis():
    rows = alignment((3, 1), (4,))
    assert [(r["a"], r["b"], r["result"]) for r in rows] == [("3", "—", "3"), ("1", "4", "4")]
    assert rows[0]["what happens"] == "b gets a new axis, copied 3×"
    assert rows[1]["what happens"] == "a is stretched from 1 to 4"


def test_column_plus_row_sums_each_gradient_over_the_other_axis():
    demo = broadcast_demo((3, 1), (4,), "+")
    a, b = demo.inputs
    np.testing.assert_array_equal(demo.upstream, np.arange(1, 13).reshape(3, 4) * 0.5)
    assert demo.out.shape == (3, 4)
    assert a.summed_axes == (1,) and b.summed_axes == (0,)
    np.testing.assert_array_equal(a.grad, [[5.0], [13.0], [21.0]])  # row sums of the upstream
    np.testing.assert_array_equal(b.grad, [7.5, 9.0, 10.5, 12.0])  # column sums
    assert a.agrees_with_engine and b.agrees_with_engine


def test_product_gradient_multiplies_by_the_other_input_before_summing():
    demo = broadcast_demo((2, 3), (), "×")
    a, s = demo.inputs
    np.testing.assert_array_equal(demo.b, 10.0)
    np.testing.assert_array_equal(a.grad, demo.upstream * 10.0)
    assert a.summed_axes == ()
    assert s.summed_axes == (0, 1)
    assert s.grad.shape == ()
    assert float(s.grad) == float(np.sum(demo.upstream * demo.a))  # 0.5*1 + 1*2 + ... + 3*6 = 45.5
    assert float(s.grad) == 45.5
    assert a.agrees_with_engine and s.agrees_with_engine


def test_summed_axes_text_separates_new_and_stretched_axes():
    demo = broadcast_demo((4, 1), (2, 4, 3), "+")
    a, b = demo.inputs
    assert a.summed_axes == (0, 2)
    assert summed_axes_text(a, demo.out.shape) == ("sum over axes [0, 2]: axes [0] are new leading axes for a and "
                                                   "axes [2] were size 1 in a and stretched; summing drops the new "
                                                   "axes, leaving (4, 1).")
    assert summed_axes_text(b, demo.out.shape) == "b already has the output's shape: nothing to sum."


def test_unknown_op_is_refused():
    with pytest.raises(ValueError, match="op must be"):
        broadcast_demo((2,), (2,), "-")


def test_case_table_covers_every_branch_with_live_numbers():
    cases = {c.example: c for c in shape_cases()}
    names = [c.case for c in shape_cases()]
    assert names[:5] == ["same shape", "scalar input", "scalar gradient", "reshape", "broadcast-and-sum"]
    same = cases["a * b, both (2, 3)"]
    np.testing.assert_array_equal(same.grad_out, same.grad_in)
    scalar_in = cases["s * x, s is () and x is (2, 3)"]
    assert scalar_in.grad_out.shape == () and float(scalar_in.grad_out) == 10.5 and scalar_in.summed_axes == (0, 1)
    scalar_grad = cases["a 0-d gradient for a (2, 3) input"]
    np.testing.assert_array_equal(scalar_grad.grad_out, np.full((2, 3), 2.5))
    reshape = cases["a (3,) gradient for a (1, 3) input"]
    np.testing.assert_array_equal(reshape.grad_out, [[0.5, 1.0, 1.5]])
    bias = cases["x + bias, x is (3, 4) and bias is (1, 4)"]
    np.testing.assert_array_equal(bias.grad_out, [[7.5, 9.0, 10.5, 12.0]])
    assert bias.summed_axes == (0,)
    column = cases["x + c, x is (2, 4, 3) and c is (4, 1)"]
    assert column.summed_axes == (0, 2)
    np.testing.assert_array_equal(column.grad_out, column.grad_in.sum(axis=(0, 2))[:, None])
