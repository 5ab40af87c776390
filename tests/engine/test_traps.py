"""The classic autodiff traps, one named test each, with hand-computed numbers.

Upstream gradients are deliberately not all ones: summing instead of reshaping
for broadcasts, and expanding instead of repeating for reductions, only show
up when the upstream gradient varies from element to element.
"""
import sys
import threading
import warnings

import numpy as np
import pytest

import lucid
from lucid import Tensor
from lucid._backend.core import func_op, operation, unary_func_op

G34 = np.array([[1.0, 0.0, 2.0, -1.0],
                [0.5, 1.0, -1.0, 2.0],
                [3.0, -2.0, 0.0, 1.0]])


# ----- unbroadcasting --------------------------------------------------------------
def test_unbroadcast_row_1x4_against_3x4_sums_over_the_rows():
    a = Tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    b = Tensor([[1.0, -2.0, 0.5, 3.0]], requires_grad=True)
    (a + b).backward(G34)
    assert b.grad.shape == (1, 4)
    np.testing.assert_array_equal(b.grad, [[4.5, -1.0, 1.0, 2.0]])  # column sums of G
    np.testing.assert_array_equal(a.grad, G34)


def test_unbroadcast_row_in_a_product_weights_by_the_other_factor():
    a = Tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    b = Tensor([[1.0, -2.0, 0.5, 3.0]], requires_grad=True)
    (a * b).backward(G34)
    # b.grad[j] = Σᵢ G[i, j]·a[i, j]
    np.testing.assert_array_equal(b.grad, [[0 + 2.0 + 24.0, 0 + 5.0 - 18.0, 4.0 - 6.0 + 0, -3.0 + 14.0 + 11.0]])
    np.testing.assert_array_equal(a.grad, G34 * [[1.0, -2.0, 0.5, 3.0]])


def test_unbroadcast_column_3x1_against_3x4_sums_over_the_columns():
    a = Tensor(np.ones((3, 4)), requires_grad=True)
    c = Tensor([[2.0], [-1.0], [0.5]], requires_grad=True)
    (a - c).backward(G34)
    assert c.grad.shape == (3, 1)
    np.testing.assert_array_equal(c.grad, [[-2.0], [-2.5], [-2.0]])  # minus the row sums of G


def test_unbroadcast_scalar_against_matrix_sums_everything():
    s = Tensor(2.0, requires_grad=True)
    m = Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    upstream = np.array([[1.0, -1.0], [0.5, 2.0]])
    (s * m).backward(upstream)
    assert s.grad.shape == ()
    assert s.grad == pytest.approx(1.0 - 2.0 + 1.5 + 8.0)  # Σ upstream·m
    np.testing.assert_array_equal(m.grad, 2.0 * upstream)


def test_unbroadcast_new_leading_axes_are_summed_away():
    v = Tensor([1.0, 2.0, 3.0], requires_grad=True)
    t = Tensor(np.zeros((2, 2, 3)))
    upstream = np.arange(12.0).reshape(2, 2, 3)
    (t + v).backward(upstream)
    np.testing.assert_array_equal(v.grad, [0 + 3 + 6 + 9, 1 + 4 + 7 + 10, 2 + 5 + 8 + 11])


# ----- reductions ------------------------------------------------------------------
X23 = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])


def test_sum_over_axis_0_copies_the_upstream_down_each_column():
    x = Tensor(X23, requires_grad=True)
    x.sum(axis=0).backward(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(x.grad, [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])


def test_sum_over_axis_1_copies_the_upstream_along_each_row():
    x = Tensor(X23, requires_grad=True)
    x.sum(axis=1).backward(np.array([5.0, -1.0]))
    np.testing.assert_array_equal(x.grad, [[5.0, 5.0, 5.0], [-1.0, -1.0, -1.0]])


def test_mean_over_axis_1_divides_by_the_row_length():
    x = Tensor(X23, requires_grad=True)
    x.mean(axis=1).backward(np.array([3.0, -6.0]))
    np.testing.assert_array_equal(x.grad, [[1.0, 1.0, 1.0], [-2.0, -2.0, -2.0]])


def test_sum_over_a_tuple_of_axes_keeps_the_middle_axis_gradient():
    x = Tensor(np.arange(12.0).reshape(2, 3, 2), requires_grad=True)
    out = x.sum(axis=(0, 2))
    np.testing.assert_array_equal(out.data, [0 + 1 + 6 + 7, 2 + 3 + 8 + 9, 4 + 5 + 10 + 11])
    out.backward(np.array([1.0, -2.0, 0.5]))
    np.testing.assert_array_equal(x.grad[0], [[1.0, 1.0], [-2.0, -2.0], [0.5, 0.5]])
    np.testing.assert_array_equal(x.grad[1], x.grad[0])


def test_sum_with_keepdims_takes_an_upstream_of_the_kept_shape():
    x = Tensor(X23, requires_grad=True)
    out = x.sum(axis=1, keepdims=True)
    assert out.shape == (2, 1)
    out.backward(np.array([[2.0], [-3.0]]))
    np.testing.assert_array_equal(x.grad, [[2.0, 2.0, 2.0], [-3.0, -3.0, -3.0]])


def test_max_over_axis_0_sends_the_gradient_to_the_winner_only():
    x = Tensor([[1.0, 7.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    x.max(axis=0).backward(np.array([10.0, 20.0, 30.0]))
    np.testing.assert_array_equal(x.grad, [[0.0, 20.0, 0.0], [10.0, 0.0, 30.0]])


# ----- reuse and accumulation ------------------------------------------------------
def test_x_times_x_gives_two_x_through_two_edges():
    x = Tensor([1.5, -2.0, 3.0], requires_grad=True)
    y = x * x
    assert len(y._prev) == 2 and y._prev[0] is x and y._prev[1] is x
    y.backward(np.array([1.0, 2.0, -1.0]))
    np.testing.assert_array_equal(x.grad, [3.0, -8.0, -6.0])  # 2x · upstream


def test_repeated_index_accumulates_every_copy():
    x = Tensor([10.0, 20.0, 30.0], requires_grad=True)
    y = x[[0, 0, 1]]
    np.testing.assert_array_equal(y.data, [10.0, 10.0, 20.0])
    y.backward(np.array([1.0, 2.0, 4.0]))
    np.testing.assert_array_equal(x.grad, [3.0, 4.0, 0.0])


def test_residual_reuse_gives_eight_without_retain_grad():
    x = Tensor([1.5, -1.0], requires_grad=True)
    p = x * 2
    r = p + p * 3
    r.backward(np.array([1.0, 0.5]))
    np.testing.assert_array_equal(x.grad, [8.0, 4.0])  # dR/dP = 1 + 3, dP/dx = 2
    assert p.grad is None


def test_residual_reuse_gives_eight_with_retain_grad():
    x = Tensor([1.5, -1.0], requires_grad=True)
    p = (x * 2).retain_grad()
    r = p + p * 3
    r.backward(np.array([1.0, 0.5]))
    np.testing.assert_array_equal(p.grad, [4.0, 2.0])
    np.testing.assert_array_equal(x.grad, [8.0, 4.0])


def test_scalar_residual_is_exactly_eight():
    x = Tensor(0.7, requires_grad=True)
    p = x * 2
    (p + p * 3).backward()
    assert x.grad == 8.0


# ----- deep graphs -------------------------------------------------------------------
def test_a_100000_deep_chain_runs_without_recursion_error():
    x = Tensor(1.0, requires_grad=True)
    factor = Tensor(1.00001)  # one shared constant: the chain is 100,000 products deep
    y = x
    for _ in range(100_000):
        y = y * factor
    order = lucid.autograd.topological_order(y)
    assert len(order) == 2 + 100_000
    assert order[0] is x and order[1] is factor and order[-1] is y
    assert 100_000 > sys.getrecursionlimit()
    y.backward()
    assert x.grad == pytest.approx(1.00001 ** 100_000, rel=1e-9)
    del y, order  # freeing the chain must not recurse either


# ----- grad mode is per thread ---------------------------------------------------------
def test_no_grad_in_one_thread_does_not_disable_grad_in_another():
    inside_no_grad = threading.Event()
    other_checked = threading.Event()
    seen: dict[str, bool] = {}

    def quiet_thread():
        with lucid.no_grad():
            inside_no_grad.set()
            assert other_checked.wait(timeout=10)
            seen["quiet"] = (Tensor([1.0], requires_grad=True) * 2).requires_grad
            seen["quiet_enabled"] = lucid.is_grad_enabled()

    def busy_thread():
        assert inside_no_grad.wait(timeout=10)
        seen["busy"] = (Tensor([1.0], requires_grad=True) * 2).requires_grad
        seen["busy_enabled"] = lucid.is_grad_enabled()
        other_checked.set()

    threads = [threading.Thread(target=quiet_thread), threading.Thread(target=busy_thread)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert seen == {"busy": True, "busy_enabled": True, "quiet": False, "quiet_enabled": False}
    assert lucid.is_grad_enabled()


def test_no_grad_records_nothing_and_restores_the_mode():
    x = Tensor([1.0, 2.0], requires_grad=True)
    with lucid.no_grad():
        y = x * 3
        with lucid.enable_grad():
            z = x * 3
        assert not lucid.is_grad_enabled()
    assert lucid.is_grad_enabled()
    assert not y.requires_grad and y.is_leaf and y._prev == []
    assert z.requires_grad and z._prev[0] is x


# ----- the worked example and the backward contract ---------------------------------------
def test_worked_example_from_the_design_notes():
    a = Tensor([1, 2], requires_grad=True)
    b = Tensor([3, 4], requires_grad=True)
    c = a * b
    c.backward()
    np.testing.assert_array_equal(c.data, [3.0, 8.0])
    np.testing.assert_array_equal(a.grad, [3.0, 4.0])
    np.testing.assert_array_equal(b.grad, [1.0, 2.0])
    assert c.grad is None


def test_backward_twice_accumulates_into_leaves():
    a = Tensor([1.0, 2.0], requires_grad=True)
    b = Tensor([3.0, 4.0], requires_grad=True)
    loss = (a * b).sum()
    loss.backward()
    loss.backward()
    np.testing.assert_array_equal(a.grad, [6.0, 8.0])
    np.testing.assert_array_equal(b.grad, [2.0, 4.0])


def test_zero_grad_resets_so_the_next_backward_starts_fresh():
    a = Tensor([1.0, 2.0], requires_grad=True)
    loss = (a * a * 0.5).sum()
    loss.backward()
    a.zero_grad()
    assert a.grad is None
    loss.backward()
    np.testing.assert_array_equal(a.grad, [1.0, 2.0])


def test_non_leaf_gradients_are_released_unless_retained():
    x = Tensor([1.0, -1.0], requires_grad=True)
    h = x * 3
    kept = (h + 1).retain_grad()
    out = (kept * kept).sum()
    out.backward()
    assert h.grad is None and out.grad is None
    np.testing.assert_array_equal(kept.grad, [8.0, -4.0])  # 2·(3x + 1)
    np.testing.assert_array_equal(x.grad, [24.0, -12.0])


def test_retained_non_leaf_gradient_does_not_accumulate_across_backward_calls():
    x = Tensor([2.0], requires_grad=True)
    h = (x * 5).retain_grad()
    out = h * 2
    out.backward()
    out.backward()
    np.testing.assert_array_equal(h.grad, [2.0])  # this pass only
    np.testing.assert_array_equal(x.grad, [20.0])  # leaves accumulate: 10 + 10


def test_backward_with_an_explicit_seed_gradient():
    x = Tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).backward(grad=np.array([0.5, -1.0, 2.0]))
    np.testing.assert_array_equal(x.grad, [1.0, -4.0, 12.0])


def test_backward_accepts_a_tensor_as_seed():
    x = Tensor([1.0, 2.0], requires_grad=True)
    (x * 3).backward(Tensor([2.0, -1.0]))
    np.testing.assert_array_equal(x.grad, [6.0, -3.0])


def test_backward_rejects_a_seed_of_the_wrong_shape():
    x = Tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(ValueError, match=r"shape \(2,\).*shape \(3,\)"):
        (x * 2).backward(np.array([1.0, 2.0]))
    assert x.grad is None


def test_backward_needs_an_output_that_requires_grad():
    with pytest.raises(RuntimeError, match="requires grad"):
        (Tensor([1.0]) * 2).backward()


def test_non_scalar_output_is_seeded_with_ones():
    x = Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    (x * x).backward()
    np.testing.assert_array_equal(x.grad, [[2.0, 4.0], [6.0, 8.0]])


# ----- numerical stability at |x| = 1000 -----------------------------------------------------
BIG = np.array([-1000.0, 0.0, 1000.0])
UP3 = np.array([1.0, 2.0, 3.0])


def _strict(fn):
    """Run ``fn`` with every NumPy overflow/invalid/divide warning turned into an error."""
    with warnings.catch_warnings(), np.errstate(over="raise", invalid="raise", divide="raise", under="ignore"):
        warnings.simplefilter("error")
        return fn()


def test_sigmoid_is_stable_at_plus_minus_1000():
    x = Tensor(BIG, requires_grad=True)
    out = _strict(lambda: lucid.sigmoid(x))
    np.testing.assert_array_equal(out.data, [0.0, 0.5, 1.0])
    _strict(lambda: out.backward(UP3))
    np.testing.assert_array_equal(x.grad, [0.0, 0.5, 0.0])


def test_softplus_is_stable_at_plus_minus_1000():
    x = Tensor(BIG, requires_grad=True)
    out = _strict(lambda: lucid.softplus(x))
    np.testing.assert_allclose(out.data, [0.0, np.log(2.0), 1000.0], rtol=1e-15, atol=0)
    _strict(lambda: out.backward(UP3))
    np.testing.assert_array_equal(x.grad, [0.0, 1.0, 3.0])  # σ(x) · upstream


def test_logsumexp_is_stable_at_plus_minus_1000():
    x = Tensor([[1000.0, 1000.0], [-1000.0, -1000.0], [1000.0, -1000.0]], requires_grad=True)
    out = _strict(lambda: lucid.logsumexp(x, axis=1))
    np.testing.assert_allclose(out.data, [1000.0 + np.log(2.0), -1000.0 + np.log(2.0), 1000.0], rtol=1e-15)
    _strict(lambda: out.backward(np.array([2.0, 4.0, -1.0])))
    np.testing.assert_allclose(x.grad, [[1.0, 1.0], [2.0, 2.0], [-1.0, 0.0]], rtol=1e-12)


def test_log_softmax_is_stable_at_plus_minus_1000():
    x = Tensor([1000.0, 0.0, -1000.0], requires_grad=True)
    out = _strict(lambda: lucid.log_softmax(x))
    np.testing.assert_array_equal(out.data, [0.0, -1000.0, -2000.0])
    _strict(lambda: out.backward(UP3))
    np.testing.assert_array_equal(x.grad, [1.0 - 6.0, 2.0, 3.0])  # g − softmax·Σg, softmax = [1, 0, 0]


def test_softmax_and_cross_entropy_are_stable_at_plus_minus_1000():
    z = Tensor([[1000.0, -1000.0], [-1000.0, 1000.0]], requires_grad=True)
    probs = _strict(lambda: lucid.softmax(z))
    np.testing.assert_array_equal(probs.data, [[1.0, 0.0], [0.0, 1.0]])
    loss = _strict(lambda: lucid.cross_entropy(z, np.array([1, 1])))
    assert loss.item() == pytest.approx(1000.0)  # row 0 is 2000 off, row 1 is right: mean 1000
    _strict(loss.backward)
    np.testing.assert_array_equal(z.grad, [[0.5, -0.5], [0.0, 0.0]])


# ----- ops without gradients -----------------------------------------------------------------
def test_comparisons_return_boolean_tensors_without_grad():
    x = Tensor([-1.0, 0.0, 2.0], requires_grad=True)
    for mask in (x > 0, x >= 0, x < 0, x <= 0, x == 0, x != 0):
        assert mask.dtype == np.bool_
        assert not mask.requires_grad and mask.is_leaf and mask._prev == []
    np.testing.assert_array_equal((x > 0).data, [False, False, True])
    np.testing.assert_array_equal((x == 0).data, [False, True, False])


def test_where_gives_no_gradient_to_the_condition():
    x = Tensor([0.5, -1.0, 2.0], requires_grad=True)  # the comparison's operand could take a grad
    a = Tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = Tensor([10.0, 20.0, 30.0], requires_grad=True)
    out = lucid.where(x > 0, a, b)
    np.testing.assert_array_equal(out.data, [1.0, 20.0, 3.0])
    out.backward(np.array([2.0, 3.0, 4.0]))
    assert x.grad is None
    np.testing.assert_array_equal(a.grad, [2.0, 0.0, 4.0])
    np.testing.assert_array_equal(b.grad, [0.0, 3.0, 0.0])


def test_where_with_a_comparison_mask_routes_the_gradient():
    x = Tensor([-2.0, 3.0], requires_grad=True)
    out = lucid.where(x > 0, x * x, -x)
    out.backward(np.array([1.0, 0.5]))
    np.testing.assert_array_equal(x.grad, [-1.0, 3.0])


# ----- the func_op decorator with unusual ops (test-only subclasses, not registered) -----------
class _sin_and_cos(operation):
    """Two results from one call: each gets its own grad function, both share the op."""

    @func_op(1, n_ret=2)
    def forward(self, a):
        return ((Tensor(np.sin(a.data)), lambda g: (g * np.cos(a.data),)),
                (Tensor(np.cos(a.data)), lambda g: (-g * np.sin(a.data),)))


class _sign(operation):
    @unary_func_op(has_gradient=False)
    def forward(self, a):
        return Tensor(np.sign(a.data)), lambda g: (g,)


def test_test_only_ops_are_not_registered():
    assert "" not in lucid.REGISTRY
    assert all(spec.cls not in (_sin_and_cos, _sign) for spec in lucid.REGISTRY.values())


def test_func_op_with_two_results_backpropagates_through_both():
    x = Tensor([0.0, np.pi / 2, 1.0], requires_grad=True)
    op = _sin_and_cos()
    s, c = op(x)
    assert op.result[0] is s and op.result[1] is c
    assert s._op is op and c._op is op and s._prev[0] is x and c._prev[0] is x
    out = s * 2.0 + c * np.array([3.0, -1.0, 0.5])
    out.backward(np.array([1.0, 2.0, -1.0]))
    expected = np.array([1.0, 2.0, -1.0]) * (2.0 * np.cos(x.data) - np.array([3.0, -1.0, 0.5]) * np.sin(x.data))
    np.testing.assert_allclose(x.grad, expected, rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(x.grad, [2.0, 2.0, -(2 * np.cos(1.0) - 0.5 * np.sin(1.0))], atol=1e-15)


def test_func_op_without_gradient_gives_a_constant_result():
    x = Tensor([-2.0, 0.0, 3.0], requires_grad=True)
    out = _sign()(x)
    np.testing.assert_array_equal(out.data, [-1.0, 0.0, 1.0])
    assert not out.requires_grad and out.is_leaf and out._backward_op is None
    loss = (out * x).sum()  # the sign acts as a constant factor
    loss.backward()
    np.testing.assert_array_equal(x.grad, [-1.0, 0.0, 1.0])


def test_func_op_promotes_numbers_and_arrays_to_constant_tensors():
    y = lucid.add(np.array([1.0, 2.0]), 3)
    assert isinstance(y, Tensor) and not y.requires_grad
    np.testing.assert_array_equal(y.data, [4.0, 5.0])


# ----- the step-by-step backward trace -----------------------------------------------------------
def test_backward_trace_of_a_broadcast_records_every_edge_with_its_summed_axes():
    a = Tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    b = Tensor([[10.0, -1.0, 0.5]], requires_grad=True)
    c = a * b
    d = c + b
    seed = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
    trace = lucid.autograd.backward_trace(d, seed)

    assert [id(t) for t in trace.order] == [id(a), id(b), id(c), id(d)]
    assert len(trace.steps) == 5  # the seed plus one step per edge: d→c, d→b, c→a, c→b
    expected_edges = [(None, d, 0), (d, c, 0), (d, b, 1), (c, a, 0), (c, b, 1)]
    for step, (node, parent, slot) in zip(trace.steps, expected_edges):
        assert step.node is node and step.parent is parent and step.slot == slot
    assert [s.index for s in trace.steps] == [0, 1, 2, 3, 4]

    seed_step, d_to_c, d_to_b, c_to_a, c_to_b = trace.steps
    assert seed_step.is_seed and seed_step.upstream is None
    np.testing.assert_array_equal(seed_step.accumulated, seed)

    np.testing.assert_array_equal(d_to_c.upstream, seed)
    np.testing.assert_array_equal(d_to_c.local, np.ones((2, 3)))
    np.testing.assert_array_equal(d_to_c.contribution, seed)
    assert d_to_c.summed_axes == () and d_to_c.is_final

    np.testing.assert_array_equal(d_to_b.contribution_raw, seed)
    np.testing.assert_array_equal(d_to_b.contribution, [[0.0, 2.5, 5.0]])
    assert d_to_b.summed_axes == (0,) and d_to_b.broadcast and not d_to_b.is_final
    np.testing.assert_array_equal(d_to_b.accumulated, [[0.0, 2.5, 5.0]])

    np.testing.assert_array_equal(c_to_a.local, [[10.0, -1.0, 0.5], [10.0, -1.0, 0.5]])
    np.testing.assert_array_equal(c_to_a.contribution, [[10.0, -2.0, 1.5], [-10.0, -0.5, 1.0]])
    assert c_to_a.summed_axes == () and c_to_a.is_final

    np.testing.assert_array_equal(c_to_b.local, a.data)
    np.testing.assert_array_equal(c_to_b.contribution_raw, [[1.0, 4.0, 9.0], [-4.0, 2.5, 12.0]])
    np.testing.assert_array_equal(c_to_b.contribution, [[-3.0, 6.5, 21.0]])
    assert c_to_b.summed_axes == (0,) and c_to_b.is_final
    np.testing.assert_array_equal(c_to_b.accumulated, [[-3.0, 9.0, 26.0]])  # both paths into b

    np.testing.assert_array_equal(b.grad, [[-3.0, 9.0, 26.0]])
    assert c.grad is None  # released by the engine, but kept in the trace
    np.testing.assert_array_equal(trace.grads_at(2)[id(b)], [[0.0, 2.5, 5.0]])
    np.testing.assert_array_equal(trace.final_grads()[id(b)], [[-3.0, 9.0, 26.0]])


def test_backward_trace_of_x_times_x_has_two_steps_into_x():
    x = Tensor([1.5, -2.0], requires_grad=True)
    y = x * x
    trace = lucid.autograd.backward_trace(y, np.array([1.0, 3.0]))
    assert len(trace.steps) == 3
    first, second = trace.steps[1], trace.steps[2]
    assert first.node is y and second.node is y and first.parent is x and second.parent is x
    assert (first.slot, second.slot) == (0, 1)
    for step in (first, second):
        np.testing.assert_array_equal(step.upstream, [1.0, 3.0])
        np.testing.assert_array_equal(step.local, [1.5, -2.0])
        np.testing.assert_array_equal(step.contribution, [1.5, -6.0])
        assert step.summed_axes == ()
    np.testing.assert_array_equal(first.accumulated, [1.5, -6.0])
    np.testing.assert_array_equal(second.accumulated, [3.0, -12.0])
    assert (first.is_final, second.is_final) == (False, True)
    np.testing.assert_array_equal(x.grad, [3.0, -12.0])


def test_a_gradient_kept_from_the_first_pass_is_not_changed_by_the_second():
    x = Tensor([1.0, 2.0], requires_grad=True)
    loss = (x * 3).sum()
    loss.backward()
    kept = x.grad
    loss.backward()
    np.testing.assert_array_equal(kept, [3.0, 3.0])
    np.testing.assert_array_equal(x.grad, [6.0, 6.0])


def test_no_grad_also_works_as_a_decorator_and_nests():
    x = Tensor([1.0], requires_grad=True)

    @lucid.no_grad()
    def predict():
        return x * 2

    assert not predict().requires_grad and not predict().requires_grad
    assert lucid.is_grad_enabled()
    mode = lucid.no_grad()
    with mode:
        with mode:
            assert not lucid.is_grad_enabled()
        assert not lucid.is_grad_enabled()
    assert lucid.is_grad_enabled()


def test_a_graph_is_freed_by_reference_counting_alone():
    """No reference cycles (result ↔ op, result ↔ its backward closure): big graphs never wait for the GC."""
    import gc
    import weakref

    was_enabled = gc.isenabled()
    gc.disable()
    try:
        x = Tensor([1.0, 2.0], requires_grad=True)
        hidden = lucid.tanh(x * 3.0)
        loss = (hidden * hidden).sum()
        loss.backward()
        op = hidden._op
        assert op.result is hidden
        refs = [weakref.ref(t) for t in (hidden, loss)] + [weakref.ref(op)]
        del hidden, loss, op
        assert [r() for r in refs] == [None, None, None]
        np.testing.assert_allclose(x.grad, 2 * np.tanh(3 * x.data) * (1 - np.tanh(3 * x.data) ** 2) * 3)
    finally:
        if was_enabled:
            gc.enable()
