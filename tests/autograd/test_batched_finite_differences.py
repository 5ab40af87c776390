"""Batched re-runs give the same central differences as re-running one perturbed input at a time.

Row ``b`` of a batched pass is re-run ``b`` computed with the same kernels, so the two ways agree to
rounding (the last digits of a sum taken in another order), far below what finite differences resolve.
Programs whose path mixes rows (matrix products, reshapes, indexing, axis reductions) are not batched.
"""
import numpy as np
import pytest

from lucid import Tensor
from lucid.autograd.gradcheck import batched_numerical_grad, numerical_grad
from lucid.expr import run

BATCHABLE = {
    "broadcast row and column": "a = randn(3, 1)\nb = randn(4)\nc = tanh(a * b) + a / (2 + b * b)\nc.sum()",
    "scalar leaf into a matrix": "w = 0.7\nX = const(randn(3, 4))\nout = sigmoid(X * w - w ** 2)\nout.mean()",
    "tensor output": "x = randn(2, 3)\ny = 1.5\nsin(x) * y + exp(-x * x)",
    "where, comparison and const": "x = randn(5)\nm = x > 0\nwhere(m, x * x, const(x) * 3 - x)",
    "relu, clip, maximum": "x = randn(6)\nz = maximum(relu(x), clip(x, -0.5, 0.5) * 2)\nz.sum() * 1.7",
    "sum then scalar chain": "x = randn(20)\ns = x.sum()\ns = sin(cos(sin(s * 0.3)))\ns * s",
    "two inputs of different rank": "a = randn(2, 3, 4)\nb = randn(4)\n(log(1 + a * a) * b).mean()",
}
UNBATCHABLE = {
    "matrix product": "x = randn(3, 2)\n(x @ const(ones(2))).sum()",
    "reshape": "x = randn(6)\nx.reshape(2, 3).sum()",
    "indexing": "x = randn(4)\n(x[1] * x).sum()",
    "sum over one axis": "x = randn(3, 2)\ns = x.sum(axis=0)\n(s * s).sum()",
    "softmax": "x = randn(4)\nsoftmax(x)",
}


def upstream_for(program) -> np.ndarray:
    rng = np.random.default_rng(7)
    return rng.uniform(0.5, 1.5, program.output.shape) * rng.choice([-1.0, 1.0], program.output.shape)


@pytest.mark.parametrize("name", list(BATCHABLE))
@pytest.mark.parametrize("rows_per_pass", [2, 6, 256])
def test_batched_and_one_at_a_time_central_differences_agree(name, rows_per_pass):
    program = run(BATCHABLE[name])
    upstream = upstream_for(program)
    inputs = [Tensor(np.array(t.data), requires_grad=True) for t in program.inputs]
    for index, target in enumerate(inputs):
        runner = program.batched_function(index, inputs)
        assert runner is not None
        one_by_one = numerical_grad(program.function(), inputs, index, upstream)
        batched = batched_numerical_grad(runner, target, upstream, rows_per_pass=rows_per_pass)
        assert batched.shape == target.shape
        np.testing.assert_allclose(batched, one_by_one, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("name", list(UNBATCHABLE))
def test_paths_that_mix_re_runs_are_not_batched(name):
    program = run(UNBATCHABLE[name])
    assert program.batched_function(0) is None


def test_a_batched_pass_leaves_the_inputs_untouched_and_reproduces_the_output():
    program = run(BATCHABLE["broadcast row and column"])
    before = [np.array(t.data) for t in program.inputs]
    runner = program.batched_function(1)
    out = runner(np.stack([program.inputs[1].data] * 3))
    assert out.shape == (3,) and np.allclose(out, program.output.data)
    assert all(np.array_equal(a, t.data) for a, t in zip(before, program.inputs))


def test_an_input_that_does_not_reach_the_output_is_not_batched():
    program = run("a = 1.5\nb = 2.0\nc = a * 3\nb * b")
    assert program.batched_function(0) is None
    assert program.batched_function(1) is not None


def test_batching_counts_per_op_overhead_once_per_pass():
    program = run("x = randn(400)\ns = x.sum()\n" + "\n".join(["s = sin(cos(s))"] * 50))
    one_at_a_time = 2 * 400 * program.rerun_cost
    assert program.finite_difference_cost() < one_at_a_time / 50
