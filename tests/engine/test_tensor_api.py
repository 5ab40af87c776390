"""The Tensor's public surface: construction, array facts, conversions, operators."""
import numpy as np
import pytest

import lucid
from lucid import Tensor


# ----- construction ---------------------------------------------------------------------
def test_integer_and_list_data_become_float64():
    t = Tensor([1, 2, 3])
    assert t.dtype == np.float64 and isinstance(t.data, np.ndarray)
    np.testing.assert_array_equal(t.data, [1.0, 2.0, 3.0])


def test_a_python_number_becomes_a_0d_tensor():
    t = Tensor(2.5)
    assert t.shape == () and t.ndim == 0 and t.size == 1 and isinstance(t.data, np.ndarray)
    assert t.item() == 2.5


def test_an_explicit_floating_dtype_becomes_float64_and_a_non_floating_one_is_kept():
    assert Tensor([1, 2], dtype=np.float32).dtype == np.float64  # float64 always (issue 29)
    assert Tensor([1, 2], dtype=np.int64).dtype == np.int64
    assert Tensor([1, 0], dtype=bool).dtype == np.bool_


def test_boolean_data_stays_boolean():
    assert Tensor([True, False]).dtype == np.bool_


def test_only_floating_tensors_can_require_grad():
    with pytest.raises(TypeError, match="floating-point"):
        Tensor([1, 2], dtype=np.int64, requires_grad=True)


def test_strings_are_rejected():
    with pytest.raises(TypeError):
        Tensor(["a", "b"])


def test_a_tensor_made_from_a_tensor_copies_its_values_not_its_graph():
    x = Tensor([1.0, 2.0], requires_grad=True)
    y = Tensor(x * 2)
    np.testing.assert_array_equal(y.data, [2.0, 4.0])
    assert not y.requires_grad and y.is_leaf


def test_new_tensors_are_leaves_without_grad():
    t = Tensor([1.0], requires_grad=True, name="w")
    assert t.is_leaf and t.grad is None and t.requires_grad and t.name == "w"
    assert t._op is None and t._prev == [] and t._backward_op is None


# ----- array facts --------------------------------------------------------------------
def test_shape_ndim_size_dtype_describe_the_data():
    t = Tensor(np.zeros((2, 3, 4)))
    assert (t.shape, t.ndim, t.size, t.dtype) == ((2, 3, 4), 3, 24, np.dtype(np.float64))
    assert len(t) == 2


def test_item_returns_a_python_float_for_one_element():
    assert Tensor([[4.5]]).item() == 4.5 and isinstance(Tensor([[4.5]]).item(), float)
    with pytest.raises(ValueError):
        Tensor([1.0, 2.0]).item()


def test_numpy_returns_the_data_array():
    t = Tensor([1.0, 2.0])
    assert t.numpy() is t.data


def test_detach_keeps_the_values_and_drops_the_graph():
    x = Tensor([1.0, 2.0], requires_grad=True)
    y = (x * 3).detach()
    np.testing.assert_array_equal(y.data, [3.0, 6.0])
    assert not y.requires_grad and y.is_leaf and y._prev == []
    (y * x).sum().backward()
    np.testing.assert_array_equal(x.grad, [3.0, 6.0])  # y acted as a constant


def test_T_transposes_and_passes_the_gradient_back_transposed():
    x = Tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = x.T
    assert y.shape == (3, 2)
    np.testing.assert_array_equal(y.data, [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]])
    y.backward(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    np.testing.assert_array_equal(x.grad, [[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]])


# ----- repr -----------------------------------------------------------------------------
def test_repr_shows_values_and_grad():
    a = Tensor([1, 2], requires_grad=True)
    b = Tensor([3, 4], requires_grad=True)
    c = a * b
    assert repr(c) == "Tensor([3. 8.], grad=None)"
    c.backward()
    assert repr(a) == "Tensor([1. 2.], grad=[3. 4.])"


def test_repr_shows_the_name_and_summarises_big_arrays():
    assert repr(Tensor(2.5, name="w")) == "Tensor(2.5, grad=None, name='w')"
    assert repr(Tensor(np.arange(30.0))) == "Tensor([ 0.  1.  2. ... 27. 28. 29.], grad=None)"


# ----- operators ------------------------------------------------------------------------
def test_arithmetic_operators_with_numbers_on_either_side():
    x = Tensor([2.0, 4.0])
    np.testing.assert_array_equal((x + 1).data, [3.0, 5.0])
    np.testing.assert_array_equal((1 + x).data, [3.0, 5.0])
    np.testing.assert_array_equal((x - 1).data, [1.0, 3.0])
    np.testing.assert_array_equal((10 - x).data, [8.0, 6.0])
    np.testing.assert_array_equal((x * 3).data, [6.0, 12.0])
    np.testing.assert_array_equal((3 * x).data, [6.0, 12.0])
    np.testing.assert_array_equal((x / 4).data, [0.5, 1.0])
    np.testing.assert_array_equal((8 / x).data, [4.0, 2.0])
    np.testing.assert_array_equal((x ** 2).data, [4.0, 16.0])
    np.testing.assert_array_equal((2 ** x).data, [4.0, 16.0])
    np.testing.assert_array_equal((-x).data, [-2.0, -4.0])
    np.testing.assert_array_equal(abs(Tensor([-1.5, 2.0])).data, [1.5, 2.0])


def test_ndarray_on_the_left_still_builds_a_tensor():
    x = Tensor([1.0, 2.0], requires_grad=True)
    y = np.array([3.0, 4.0]) * x
    assert isinstance(y, Tensor) and y.requires_grad
    y.backward()
    np.testing.assert_array_equal(x.grad, [3.0, 4.0])


def test_matmul_operator_for_matrices_and_vectors():
    a = Tensor([[1.0, 2.0], [3.0, 4.0]])
    v = Tensor([1.0, -1.0])
    np.testing.assert_array_equal((a @ v).data, [-1.0, -1.0])
    np.testing.assert_array_equal((v @ a).data, [-2.0, -2.0])
    np.testing.assert_array_equal((a @ a).data, [[7.0, 10.0], [15.0, 22.0]])


def test_operands_are_kept_in_order_in_prev():
    a, b = Tensor([1.0], requires_grad=True), Tensor([2.0], requires_grad=True)
    d = a - b
    assert d._prev[0] is a and d._prev[1] is b
    assert type(d._op).name == "sub" and d._op.describe() == "−"
    assert not d.is_leaf


def test_the_op_describes_its_parameters():
    x = Tensor(np.ones((2, 3)), requires_grad=True)
    assert x.sum(axis=0)._op.describe() == "Σ(axis=0)"
    assert type(x.sum()._op).name == "sum"


def test_methods_are_bound_to_the_lucid_functions():
    x = Tensor([[0.5, -1.0], [2.0, 0.0]])
    np.testing.assert_allclose(x.exp().data, np.exp(x.data))
    np.testing.assert_allclose(x.tanh().data, np.tanh(x.data))
    np.testing.assert_allclose(x.relu().data, [[0.5, 0.0], [2.0, 0.0]])
    np.testing.assert_allclose(x.mean(axis=1).data, [-0.25, 1.0])
    np.testing.assert_allclose(x.reshape(4).data, [0.5, -1.0, 2.0, 0.0])
    np.testing.assert_allclose(x.max().data, 2.0)
    np.testing.assert_allclose(x.clip(-0.5, 0.5).data, [[0.5, -0.5], [0.5, 0.0]])


def test_indexing_with_slices_ints_and_masks():
    x = Tensor(np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(x[1].data, [3.0, 4.0, 5.0])
    np.testing.assert_array_equal(x[:, 1:].data, [[1.0, 2.0], [4.0, 5.0]])
    np.testing.assert_array_equal(x[x > 2].data, [3.0, 4.0, 5.0])


def test_tensors_hash_by_identity():
    a, b = Tensor([1.0]), Tensor([1.0])
    assert len({a, b, a}) == 2
    seen = {id(a): "a"}
    assert seen[id(a)] == "a"


def test_lucid_exports_the_engine_helpers():
    assert callable(lucid._check_is_tensor) and callable(lucid._match_grad_shape) and callable(lucid._set_tensor_grad)
    t = lucid._check_is_tensor([1, 2])
    assert isinstance(t, Tensor) and lucid._check_is_tensor(t) is t
    g = lucid._match_grad_shape(Tensor(np.zeros((1, 3))), np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    np.testing.assert_array_equal(g, [[5.0, 7.0, 9.0]])


def test_set_tensor_grad_accumulates_and_owns_its_array():
    t = Tensor([0.0, 0.0], requires_grad=True)
    first = np.array([1.0, 2.0])
    lucid._set_tensor_grad(t, first)
    lucid._set_tensor_grad(t, np.array([0.5, 0.5]))
    np.testing.assert_array_equal(t.grad, [1.5, 2.5])
    np.testing.assert_array_equal(first, [1.0, 2.0])  # the caller's array is untouched


def test_scalar_gradients_stay_arrays():
    x = Tensor(3.0, requires_grad=True)
    y = x * x + x
    y.backward()
    assert isinstance(x.grad, np.ndarray) and x.grad.shape == () and x.grad == 7.0


def test_summing_a_comparison_counts_the_true_entries():
    x = Tensor([[-1.0, 2.0, 3.0], [4.0, -5.0, 6.0]])
    assert (x > 0).sum().item() == 4.0
    assert (x > 0).mean().item() == pytest.approx(4 / 6)
    np.testing.assert_array_equal((x > 0).sum(axis=0).data, [1.0, 1.0, 2.0])
    np.testing.assert_array_equal((x > 0).mean(axis=1).data, [2 / 3, 2 / 3])
