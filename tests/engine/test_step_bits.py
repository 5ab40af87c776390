"""The benchmark MLP step gives the engine floor's numbers to the bit, and the fast paths behind it keep every rule.

``bench/engine_floor.py`` writes the same nine ops with no rule at all; lucid's step (grad mode, dtype
rules, gradient ownership, bias sums, 0-d results kept as arrays) must change none of the bits. The
cheaper spellings inside the engine (a 0-d ``neg`` negating the Python float, the full mean dividing as
a Python float, ``x.mean()`` without ``__init__``, gradient functions with default arguments, the one
dtype read per gradient) are each checked against the plain NumPy they replace.
"""
from __future__ import annotations

import numpy as np
import pytest

import lucid
from bench import engine_floor as ef
from lucid import Tensor
from lucid._func import reduce
from lucid.nn import MLP
from lucid.nn.data import toy_binary_data
from lucid.optim import SGD


def test_the_benchmark_step_gives_the_floors_loss_and_gradients_bit_for_bit():
    x, y = toy_binary_data(80, 5, seed=0)
    model = MLP([5, 2, 1], activation="tanh", output_activation="sigmoid", seed=0)
    params = [ef._tensor(np.array(a, dtype=np.float64), True) for pair in model.weights() for a in pair]
    w1, b1, w2, b2 = params
    opt = SGD(model.parameters(), lr=0.5)
    xt, yt, fx, fy = Tensor(x), Tensor(y), ef._tensor(x), ef._tensor(y)
    for _ in range(25):
        opt.zero_grad()
        p = model(xt)
        loss = -(yt * lucid.log(p) + (1 - yt) * lucid.log(1 - p)).mean()
        loss.backward()
        for q in params:
            q.grad = None
        fp = ef.sigmoid(ef.add(ef.matmul(ef.tanh(ef.add(ef.matmul(fx, w1), b1)), w2), b2))
        floor_loss = ef.neg(ef.mean(ef.add(ef.mul(fy, ef.log(fp)), ef.mul(ef.sub(1, fy), ef.log(ef.sub(1, fp))))))
        ef.backward(floor_loss)
        assert loss.data.tobytes() == np.asarray(floor_loss.data).tobytes()
        for mine, theirs in zip(model.parameters(), params):
            assert type(mine.grad) is np.ndarray and mine.grad.dtype == np.float64
            assert mine.grad.shape == theirs.data.shape and mine.grad.tobytes() == theirs.grad.tobytes()
        opt.step()
        for q in params:
            q.data -= 0.5 * q.grad
        assert loss.grad is None and p.grad is None  # the op results' gradients released


@pytest.mark.parametrize("value", [1.5, -2.25, 0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324])
def test_a_zero_d_neg_is_numpys_negation_to_the_bit_and_stays_an_array(value):
    x = Tensor(value, requires_grad=True)
    out = -x
    assert type(out.data) is np.ndarray and out.data.shape == () and out.data.dtype == np.float64
    assert out.data.tobytes() == np.negative(np.array(value)).tobytes()
    out.backward(np.array(value))
    assert type(x.grad) is np.ndarray and x.grad.tobytes() == np.negative(np.array(value)).tobytes()
    (g,) = out._grad_fn(np.float64(2.0))  # a NumPy scalar upstream still works
    assert g == -2.0
    arr = Tensor([1.0, -0.0], requires_grad=True)
    np.testing.assert_array_equal((-arr).data, [-1.0, 0.0])
    assert np.signbit((-arr).data).tolist() == [True, False]


@pytest.mark.parametrize("data", [np.linspace(-3, 7, 12).reshape(3, 4), np.array([1e308, 1e308]),
                                  np.array([np.nan, 1.0]), np.array([0.1, 0.2, 0.3]), np.zeros((0, 3))])
def test_the_full_mean_is_numpys_sum_over_n_to_the_bit(data):
    with np.errstate(all="ignore"):
        expected = np.add.reduce(data, None) / data.size
        got = Tensor(data).mean().data
    assert type(got) is np.ndarray and got.shape == () and got.tobytes() == np.asarray(expected).tobytes()


def test_mean_without_options_is_the_same_op_as_with_its_defaults():
    x = Tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    bare, given = x.mean(), lucid.mean(x, axis=None, keepdims=False)
    assert type(bare._op) is reduce.mean and bare._op is not x.mean()._op
    assert dict(bare._op.params) == dict(given._op.params) == {"axis": None, "keepdims": False}
    assert bare._op.describe() == given._op.describe()
    with pytest.raises(TypeError):  # the class's defaults are read-only
        bare._op.params["axis"] = 0
    assert lucid.mean(x, 0)._op.params == {"axis": 0, "keepdims": False}
    assert x.sum()._op.params["axis"] is None and x.max(axis=1)._op.params["axis"] == 1
    bare.backward()
    np.testing.assert_array_equal(x.grad, np.full((2, 3), 1 / 6))


def test_a_gradient_is_float64_even_where_a_parents_data_was_set_to_float32_by_hand():
    w = Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = Tensor([0.5, -0.5], requires_grad=True)
    out = (Tensor([[1.0, 0.5], [2.0, 1.0], [0.0, 1.0]]) @ w + b).sum()
    w.data, b.data = w.data.astype(np.float32), b.data.astype(np.float32)
    out.backward()
    assert w.grad.dtype == np.float64 and b.grad.dtype == np.float64
    np.testing.assert_array_equal(w.grad, [[3.0, 3.0], [2.5, 2.5]])
    np.testing.assert_array_equal(b.grad, [3.0, 3.0])


def test_a_grad_function_that_returns_another_dtype_goes_through_the_general_rule():
    class doubles_as_int(lucid._backend.core.operation):
        @lucid._backend.core.unary_func_op()
        def forward(self, a):
            return Tensor(a.data * 2), lambda g: (np.ones(a.shape, dtype=np.int64) * 2,)

    a = Tensor([1.0, 2.0], requires_grad=True)
    doubles_as_int()(a).backward(np.array([1.0, 1.0]))
    assert a.grad.dtype == np.float64
    np.testing.assert_array_equal(a.grad, [2.0, 2.0])
