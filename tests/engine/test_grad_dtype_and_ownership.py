"""Numbers and gradients are float64 always, and no two tensors ever share one gradient array.

The backward pass borrows intermediate gradients and keeps freshly made leaf gradients without a
copy (it is the engine's hot path); these tests pin that a caller can never observe either saving.
"""
from __future__ import annotations

import numpy as np
import pytest

import lucid
from lucid import Tensor

# ----- dtype -------------------------------------------------------------------------------------
# Numbers are float64 always (issue 29: a float32 input became float64 in every op while its own ``.grad`` alone
# stayed float32, and a docstring promised float32 kept): a float32 input is widened to float64, exactly, and
# every value, gradient and running total is float64.

def test_a_float32_array_and_dtype_float32_become_float64_tensors_exactly():
    values = np.array([0.1, -2.5, 3.0e-8], dtype=np.float32)
    for t in (Tensor(values), Tensor(values, requires_grad=True), Tensor([0.1, -2.5, 3.0e-8], dtype=np.float32),
              Tensor(values.astype(np.float16))):
        assert t.dtype == np.float64
    np.testing.assert_array_equal(Tensor(values).data, values.astype(np.float64))  # widened, not rounded again
    assert Tensor(values).data[0] == np.float64(np.float32(0.1)) != 0.1


def test_every_op_on_a_float32_input_gives_float64_and_its_gradient_is_float64():
    x = Tensor(np.array([[0.1, -0.4], [0.7, 0.2]], dtype=np.float32), requires_grad=True)
    hidden = lucid.tanh(x * 3.0)
    out = (hidden * hidden).sum() + (x * 0.5).sum()
    assert hidden.dtype == np.float64 and out.dtype == np.float64
    upstream = np.float32(1.75)  # an upstream gradient handed over in float32, not one
    out.backward(upstream)
    assert x.grad.dtype == np.float64
    x64 = np.array([[0.1, -0.4], [0.7, 0.2]], dtype=np.float32).astype(np.float64)
    expected = 1.75 * (2 * np.tanh(3 * x64) * (1 - np.tanh(3 * x64) ** 2) * 3 + 0.5)
    np.testing.assert_allclose(x.grad, expected, rtol=1e-14)


def test_a_float32_input_used_twice_against_float64_central_differences():
    x = Tensor(np.array([1.5, -2.0], dtype=np.float32), requires_grad=True)
    upstream = np.array([1.0, 3.0])
    (x * x).backward(upstream)  # two contributions into x
    assert x.grad.dtype == np.float64
    np.testing.assert_array_equal(x.grad, [3.0, -12.0])
    eps, x0 = 1e-6, x.data.copy()
    central = ((x0 + eps) ** 2 - (x0 - eps) ** 2) / (2 * eps) * upstream
    np.testing.assert_allclose(x.grad, central, rtol=1e-8)


def test_gradients_stay_float64_across_backward_calls_and_a_hand_set_float32_grad():
    x = Tensor(np.array([0.5, 1.0, 2.0], dtype=np.float32), requires_grad=True)
    w = Tensor(np.array([2.0, -1.0, 0.25]), requires_grad=True)
    for _ in range(3):
        (x * w + x).sum().backward()
    assert x.grad.dtype == np.float64 and w.grad.dtype == np.float64
    np.testing.assert_allclose(x.grad, 3 * (w.data + 1.0), rtol=1e-15)
    np.testing.assert_allclose(w.grad, 3 * x.data, rtol=1e-15)
    t = Tensor(np.zeros(2), requires_grad=True)
    t.grad = np.array([0.1, 0.2], dtype=np.float32)  # set by hand in float32
    lucid._set_tensor_grad(t, np.array([0.5, 0.25]))
    assert t.grad.dtype == np.float64
    np.testing.assert_array_equal(t.grad, np.array([0.1, 0.2], dtype=np.float32).astype(np.float64) + [0.5, 0.25])


def test_the_backward_trace_of_a_float32_input_keeps_float64_running_totals():
    x = Tensor(np.array([1.0, 2.0], dtype=np.float32), requires_grad=True)
    trace = lucid.autograd.backward_trace((x * x).sum())
    assert x.grad.dtype == np.float64
    into_x = [s for s in trace.steps if s.parent is x]
    assert len(into_x) == 2 and all(s.accumulated.dtype == np.float64 for s in into_x)
    np.testing.assert_array_equal(into_x[-1].accumulated, [2.0, 4.0])


def test_grad_and_hand_set_seeds_of_a_float32_input_are_float64():
    x = Tensor(np.array([1.0, 2.0], dtype=np.float32), requires_grad=True)
    (gx,) = lucid.autograd.grad((x * x * 0.5).sum(), [x])
    assert gx.dtype == np.float64
    np.testing.assert_array_equal(gx.data, [1.0, 2.0])
    x.grad = np.array([0.5, 0.5], dtype=np.float32)
    trace = lucid.autograd.backward_trace(x, np.array([1.0, 3.0]))
    assert trace.steps[0].accumulated.dtype == np.float64 and x.grad.dtype == np.float64
    np.testing.assert_array_equal(x.grad, [1.5, 3.5])


# ----- ownership ---------------------------------------------------------------------------------
def test_two_leaves_of_one_sum_get_two_arrays():
    a, b = Tensor([1.0, 2.0], requires_grad=True), Tensor([3.0, 4.0], requires_grad=True)
    seed = np.array([0.5, -1.0])
    (a + b).backward(seed)
    assert a.grad is not b.grad and a.grad is not seed and b.grad is not seed
    a.grad[0] = 99.0
    np.testing.assert_array_equal(b.grad, [0.5, -1.0])
    np.testing.assert_array_equal(seed, [0.5, -1.0])


def test_a_leaf_never_shares_its_gradient_with_a_retained_intermediate():
    x = Tensor([1.0, -1.0], requires_grad=True)
    mid = x + 0.0
    mid.retain_grad()
    out = mid * 1.0
    out.retain_grad()
    out.backward(np.array([2.0, 3.0]))
    grads = [x.grad, mid.grad, out.grad]
    assert len({id(g) for g in grads}) == 3
    x.grad += 1.0
    np.testing.assert_array_equal(mid.grad, [2.0, 3.0])
    np.testing.assert_array_equal(out.grad, [2.0, 3.0])


def test_a_gradient_array_kept_by_the_caller_never_changes_afterwards():
    w = Tensor(np.array([[1.0, 2.0], [3.0, 4.0]]), requires_grad=True)
    x = Tensor(np.array([[0.5, -1.0]]))
    (x @ w).sum().backward()
    kept = w.grad
    snapshot = kept.copy()
    (x @ w).sum().backward()
    np.testing.assert_array_equal(kept, snapshot)
    np.testing.assert_array_equal(w.grad, 2 * snapshot)


@pytest.mark.parametrize("make", [
    lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: (a @ b.T),
    lambda a, b: lucid.maximum(a, b), lambda a, b: lucid.where(a.data > 0, a, b),
])
def test_no_two_leaves_share_a_gradient_whatever_the_op(make):
    a = Tensor(np.array([[0.5, -1.5]]), requires_grad=True)
    b = Tensor(np.array([[2.0, 1.0]]), requires_grad=True)
    out = make(a, b)
    out.backward(np.ones(out.shape) * 2.0)
    assert a.grad is not b.grad and not np.shares_memory(a.grad, b.grad)


def test_tensor_backward_and_the_traced_backward_give_bit_identical_gradients():
    """``Tensor.backward`` walks only the op results; the trace walks every node. Same order, same sums."""
    rng = np.random.default_rng(3)
    data = [rng.normal(size=(4, 3)), rng.normal(size=(3,)), rng.normal(size=(4, 1))]

    def build():
        a, b, c = (Tensor(d, requires_grad=True) for d in data)
        shared = lucid.tanh(a * b + c)
        out = (shared * shared + lucid.sigmoid(shared) * a - lucid.log(1.0 + shared * shared) * c).mean()
        return out, (a, b, c)

    out, plain = build()
    out.backward()
    out, traced = build()
    lucid.autograd.backward_trace(out)
    for p, t in zip(plain, traced):
        np.testing.assert_array_equal(p.grad, t.grad)


def test_backward_on_a_leaf_adds_the_seed_to_its_gradient():
    x = Tensor([1.0, 2.0], requires_grad=True)
    x.backward(np.array([0.5, 0.5]))
    x.backward(np.array([1.0, -1.0]))
    np.testing.assert_array_equal(x.grad, [1.5, -0.5])
