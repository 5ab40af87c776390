"""Every derivative formula the registry shows evaluates to the numbers the engine computes.

The op reference and the step explanations show each op's rules as text (``∂out/∂a = b·aᵇ⁻¹  (0 where
b = 0)``). Here each rule is read by the notation's evaluator (``lucid/_func/notation.py``: a parser of
that text, no ``eval``) on the registry's own samples, and every right-hand side is held to the
engine: a local derivative ``∂out/∂x`` to the local derivatives the backward pass multiplies by, a
whole-gradient rule ``∂L/∂x`` to the gradient the backward pass gives for a random upstream gradient.
Parametrized from the registry, so a new op's text is checked the moment it is declared; the only
rules not read are the ones written in words (listed below, and no more).
"""
import math
import re

import numpy as np
import pytest

import lucid
from lucid._backend.core import match_shape
from lucid._func import notation as nt
from lucid._func.reduce import single_axis
from lucid.autograd import grad
from tests.engine.test_ops_gradcheck import DIFFERENTIABLE, _call, _prepare

#: The ops whose rules are written in words (shape ops; max/min over an axis): shown, translated, not computed.
IN_WORDS = {"broadcast_to", "concatenate", "getitem", "max", "min", "reshape", "squeeze", "stack", "swapaxes",
            "transpose", "unsqueeze"}
_WRT = re.compile(r"^∂(?:out|L)/∂([A-Za-z]+)")


def _reduced_axes(op, inputs, out):
    """The axes the op's Σ, softmax and ā run over, and its count N (none for an op that reduces nothing)."""
    if op.name in ("softmax", "log_softmax"):
        return single_axis(op.params["axis"], out.ndim), 1
    if op.kind != "reduction" and op.name not in ("sum", "mean"):
        return (), 1
    shape = np.broadcast_shapes(*(x.shape for x in inputs))
    axes = op.reduced(inputs)[0] if hasattr(op, "reduced") else tuple(range(len(shape)))
    return axes, math.prod(shape[i] for i in axes)


def _environment(op, spec, inputs, out, upstream):
    axes, n = _reduced_axes(op, inputs, out)
    env = {"out": out.data, "N": float(n), "e": np.e, "∂L/∂out": upstream}
    env.update({k: v for k, v in op.params.items() if k in nt.VALUES and v is not None})
    for text, x in zip(spec.derivatives, inputs):
        m = _WRT.match(text) or re.match(r"^([A-Za-z]+):", text)
        env[m.group(1)] = x.data
    env["ā"] = np.mean(inputs[0].data, axis=axes, keepdims=True)
    if op.name == "cross_entropy":  # its rule is written over rows (N, C) with integer targets t
        rows = inputs[0].data if inputs[0].ndim == 2 else inputs[0].data[None, :]
        env.update(z=rows, t=op.params["targets"][:, None], j=np.arange(rows.shape[1])[None, :], N=float(len(rows)))
        axes = (1,)
    return env, axes


def _cases():
    for name in DIFFERENTIABLE:
        for i, sample in enumerate(lucid.REGISTRY[name].samples(np.random.default_rng(5))):
            yield pytest.param(name, sample, i, id=f"{name}-{i}")


@pytest.mark.parametrize("name,sample,index", list(_cases()))
def test_each_derivative_formula_gives_the_engines_numbers(name, sample, index):
    spec = lucid.REGISTRY[name]
    inputs, template = _prepare(sample.args)
    fn = _call(getattr(lucid, name), template, sample.kwargs)
    out = fn(*inputs)
    op, prev = out._op, out._prev
    rng = np.random.default_rng(9)
    upstream = rng.uniform(0.5, 1.5, out.shape) * rng.choice([-1.0, 1.0], out.shape)
    env, axes = _environment(op, spec, prev, out, upstream)
    shown = op.local_derivatives()
    engine_grads = grad(out, inputs, upstream)
    read = skipped = unread = 0
    for slot, (x, rule) in enumerate(zip(prev, spec.derivatives)):
        if " = " not in rule or not x.requires_grad:
            continue
        lhs, rights = nt.sides(rule)
        if lhs.startswith("∂L/"):
            if index:  # whole-gradient rules are written for the first sample's shapes (matrices, not vectors)
                skipped += 1
                continue
            expected = engine_grads[[id(t) for t in inputs].index(id(x))].data
        elif shown is not None:
            expected = shown[slot]
        else:  # a reduction without a trace of its locals (cross_entropy): the rule's own values
            expected = op.local(slot, prev, out).data
        for right in rights:
            try:
                value = nt.evaluate(right, env, axes)
            except nt.NotAFormula:
                assert name in IN_WORDS, f"{name}: cannot read {right!r}"
                unread += 1
                continue
            if lhs.startswith("∂L/"):
                value = match_shape(np.asarray(value), x.shape)[0]
            if name == "cross_entropy":
                value = np.reshape(value, x.shape)
            np.testing.assert_allclose(np.broadcast_to(value, np.shape(expected)), expected, rtol=1e-10, atol=1e-12,
                                       err_msg=f"{name}: {lhs} = {right}")
            read += 1
    if name in IN_WORDS:
        assert read == 0 and (unread > 0 or index), f"{name}: written in words, yet {read} formula(s) read"
    else:
        assert read + skipped > 0, f"{name}: no formula read"


def test_the_evaluator_reads_conditions_asides_and_powers():
    env = {"a": np.array([0.0, 2.0, -1.0]), "b": np.array([0.0, 3.0, 2.0])}
    np.testing.assert_array_equal(nt.evaluate("b·aᵇ⁻¹  (0 where b = 0)", env), [0.0, 12.0, -2.0])
    np.testing.assert_array_equal(nt.evaluate("1 if a > b else 0  (½ if a = b)", env), [0.5, 0.0, 0.0])
    with pytest.raises(nt.NotAFormula):
        nt.evaluate("1 if a > b (½ if a = b)", env)  # no value where a < b: the text was incomplete
    with pytest.raises(nt.NotAFormula):
        nt.evaluate("∂L/∂out summed over the copied axes", {"∂L/∂out": 1.0})


def test_prose_is_what_falls_outside_the_one_notation_table():
    assert not nt.has_prose("∂out/∂a = σ(a)(1 − σ(a)) = out(1 − out)")
    assert nt.has_prose("∂out/∂a = 1 if a > 0 else 0")
    from lucid.lessons import op_reference
    assert op_reference.has_prose is nt.has_prose and op_reference.NOTATION is nt.NOTATION
