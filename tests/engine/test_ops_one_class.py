"""Adding an op is one class: its public function, Tensor method, language entry, op reference row and
every derivative rule come from that class alone.

The op here (softsign, x/(1 + |x|)) is declared inside a fixture, as a person would add one to
``lucid/_func/unary.py``: a forward and its local derivative written once in lucid ops, nothing else.
The fixture takes it out of the registry and every binding afterwards, so no other test sees it.
"""
import numpy as np
import pytest

import lucid
from lucid import Tensor
from lucid._backend.core import REGISTRY, Sample, operation, unary_func_op
from lucid._func import _bindings
from lucid._func import _rules as R
from lucid._func._bindings import UNARY
from lucid._tensor.tensor import tensor_from_array
from lucid.autograd import gradcheck, jvp
from lucid.expr import FUNCTIONS, METHODS, run
from lucid.lessons.op_reference import check_op, reference_rows

X = np.array([0.5, -2.0, 3.0, -0.25])


@pytest.fixture
def softsign():
    class softsign(operation):
        name, symbol, group, kind = "softsign", "softsign", "activation", "elementwise"
        formula, derivatives = "out = a/(1 + |a|)", ("∂out/∂a = 1/(1 + |a|)²",)
        summary, language, method = "x/(1 + |x|)", UNARY, True
        samples = staticmethod(lambda rng: [Sample((rng.uniform(-3, 3, (3, 2)),))])

        @unary_func_op()
        def forward(self, a):
            out = a.data / (1.0 + np.abs(a.data))
            return tensor_from_array(out), R.chain_from_rule(self, (a,), out)

        def local(self, i, inputs, out):
            return 1.0 / (1.0 + lucid.abs(inputs[0])) ** 2

    try:
        yield softsign
    finally:
        _bindings.unregister("softsign")


def test_a_new_op_class_is_a_public_function_a_method_and_in_dir(softsign):
    assert lucid.softsign is lucid._func.softsign
    assert "softsign" in lucid.__all__ and "softsign" in dir(lucid)
    np.testing.assert_allclose(lucid.softsign(X).data, [1 / 3, -2 / 3, 0.75, -0.2], rtol=1e-15)
    np.testing.assert_allclose(Tensor(X).softsign().data, lucid.softsign(X).data, rtol=0)
    assert lucid.softsign.__doc__ == "x/(1 + |x|)"


def test_a_new_op_class_is_in_the_language(softsign):
    assert FUNCTIONS["softsign"].signature() == "softsign(x)" and "softsign" in METHODS
    assert FUNCTIONS["softsign"].group == "elementwise"
    program = run("x = [0.5, -2.0, 3.0, -0.25]\ng = grad(sum(softsign(x)), x)\ny = softsign(x) + x.softsign()")
    np.testing.assert_allclose(program.output.data, 2 * X / (1 + np.abs(X)), rtol=1e-15)
    np.testing.assert_allclose(program.variables["g"].data, 1 / (1 + np.abs(X)) ** 2, rtol=1e-15)


def test_a_new_op_class_is_in_the_op_reference_and_passes_gradcheck(softsign):
    (row,) = [r for r in reference_rows() if r["op"] == "softsign"]
    assert row == {"op": "softsign", "symbol": "softsign", "group": "activation", "forward": "out = a/(1 + |a|)",
                   "derivatives": "∂out/∂a = 1/(1 + |a|)²"}
    assert check_op("softsign").ok
    x = Tensor(X, requires_grad=True)
    assert gradcheck(lucid.softsign, [x]).ok


def test_a_new_op_class_gets_its_forward_mode_and_recorded_rules_from_its_local_derivative(softsign):
    _, tangent = jvp(lucid.softsign, X, np.array([1.0, -2.0, 0.5, 3.0]))
    np.testing.assert_allclose(tangent.data, np.array([1.0, -2.0, 0.5, 3.0]) / (1 + np.abs(X)) ** 2, rtol=1e-15)
    x = Tensor(X, requires_grad=True)
    (g,) = lucid.autograd.grad(lucid.softsign(x), [x], np.array([2.0, -1.0, 1.0, 0.5]), create_graph=True)
    assert g.requires_grad  # a graph of lucid ops: differentiable again
    np.testing.assert_allclose(g.data, np.array([2.0, -1.0, 1.0, 0.5]) / (1 + np.abs(X)) ** 2, rtol=1e-15)


def test_unregistering_the_op_takes_every_binding_away(softsign):
    _bindings.unregister("softsign")
    assert "softsign" not in REGISTRY and not hasattr(lucid, "softsign") and "softsign" not in lucid.__all__
    assert not hasattr(Tensor, "softsign") and "softsign" not in FUNCTIONS and "softsign" not in METHODS
    _bindings.unregister("softsign")  # a second time (the fixture's): nothing left to do
