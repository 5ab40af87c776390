"""The op reference's live gradcheck: every differentiable op passes, comparisons say so."""
import numpy as np
import pytest

import lucid
from lucid._backend.core import Sample, operation, unary_func_op
from lucid._tensor.tensor import Tensor
from lucid.lessons.op_reference import check_all, check_samples, op_function, reference_rows, sample_inputs

NO_GRADIENT = {"eq", "ne", "lt", "le", "gt", "ge"}


def test_every_registered_op_is_checked_and_every_differentiable_one_passes():
    results = check_all()
    assert set(results) == set(lucid.REGISTRY)
    for name, check in results.items():
        if name in NO_GRADIENT:
            assert check.ok is None and check.status == "— no gradient"
        else:
            assert check.ok, f"{name}: {check.error or check.max_rel_error}"
            assert check.inputs_checked >= check.samples >= 1
            assert check.max_abs_error < 1e-6
            assert check.status == "✓ passes"


def test_sample_inputs_turn_float_arrays_into_inputs_and_pass_the_rest():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    cond = np.array([[True, False], [False, True]])
    inputs, bind = sample_inputs(Sample((cond, a, np.array([10.0, 20.0]))))
    assert len(inputs) == 2 and all(t.requires_grad for t in inputs)
    out = bind(lucid.where)(*inputs)
    np.testing.assert_array_equal(out.data, [[1.0, 20.0], [10.0, 4.0]])


def test_sample_inputs_unpack_lists_of_arrays():
    inputs, bind = sample_inputs(Sample(([np.ones(2) * 1.5, np.arange(3.0)],), {"axis": 0}))
    assert len(inputs) == 2
    np.testing.assert_array_equal(bind(lucid.concatenate)(*inputs).data, [1.5, 1.5, 0.0, 1.0, 2.0])


class _double_counted_square(operation):
    """x² whose backward says 4x instead of 2x (no ``name``: never enters the registry)."""

    @unary_func_op()
    def forward(self, a):
        return Tensor(a.data ** 2), lambda g: (4 * a.data * g,)


def test_samples_with_a_wrong_backward_are_reported_as_failing():
    check = check_samples("double-counted square", lambda x: _double_counted_square()(x),
                          [Sample((np.array([0.5, -1.5, 2.0]),))])
    assert check.ok is False and check.status == "✗ FAILS"
    assert check.inputs_checked == 1
    assert check.max_rel_error == pytest.approx(0.5)  # 4x against 2x: |4x - 2x| / |4x|


def test_an_op_that_crashes_is_failing_with_its_error():
    def crash(x):
        raise ArithmeticError("no way")

    check = check_samples("crash", crash, [Sample((np.array([1.0]),))])
    assert check.ok is False
    assert check.error == "ArithmeticError: no way"


def test_op_function_only_knows_registry_names():
    assert op_function("mul") is lucid.mul
    with pytest.raises(KeyError):
        op_function("__import__")


def test_reference_rows_carry_the_registry_text_grouped():
    rows = reference_rows()
    assert len(rows) == len(lucid.REGISTRY)
    mul = next(r for r in rows if r["op"] == "mul")
    assert mul == {"op": "mul", "symbol": "×", "group": "arithmetic", "forward": "out = a · b",
                   "derivatives": "∂out/∂a = b\n∂out/∂b = a"}
    groups = [r["group"] for r in rows]
    assert groups == sorted(groups)
