"""Every op's registered rules, rewritten in a program's names, keep none of the registry's generic names.

Built from the registry's own gradcheck samples, so a new op is covered the moment it is
declared. The inputs are called ``P0``, ``P1``, … and the result ``R``: after substitution no
standalone ``a``, ``b``, ``p``, ``y``, ``z``, ``t``, ``cond``, ``out``, ``N``, ``ā`` or ``∂L`` may remain
(cross_entropy says "targets" for its integer targets, which are a parameter, not an input).
"""
import re

import numpy as np
import pytest

import lucid
from lucid import Tensor
from lucid.viz.explanation.formulas import forward_rule, local_rule
from lucid.viz.graph.naming import expression_of

GENERIC = re.compile(r"(?<![A-Za-z])(a|b|p|y|z|t|cond|out|N)(?![A-Za-z])|ā|∂L|∂out")
DIFFERENTIABLE = sorted(name for name, spec in lucid.REGISTRY.items() if spec.samples is not None)


def _node(name: str):
    """The result tensor of the op's first sample, inputs named P0, P1, …"""
    sample = lucid.REGISTRY[name].samples(np.random.default_rng(3))[0]
    args, k = [], 0
    for arg in sample.args:
        if isinstance(arg, list):
            items = []
            for item in arg:
                items.append(Tensor(item, requires_grad=True, name=f"P{k}"))
                k += 1
            args.append(items)
        elif isinstance(arg, np.ndarray) and arg.dtype.kind == "f":
            args.append(Tensor(arg, requires_grad=True, name=f"P{k}"))
            k += 1
        else:
            args.append(arg)
    node = getattr(lucid, name)(*args, **sample.kwargs)
    node.name = "R"
    return node


def _name(t: Tensor) -> str:
    return t.name or "const"


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_registered_rules_are_written_in_the_programs_names(name):
    node = _node(name)
    rules = [local_rule(node, slot, _name) for slot in range(len(node._prev))]
    assert any(r is not None for r in rules), f"{name}: no rule could be written in the program's names"
    for slot, rule in enumerate(rules):
        if rule is None:
            continue
        lhs, rhs, numeric = rule
        assert lhs in (f"∂R/∂{_name(node._prev[slot])}", f"grad {_name(node._prev[slot])} +=") or \
            re.fullmatch(rf"∂R/∂{_name(node._prev[slot])}[ᵢⱼ]+", lhs), lhs
        for text in (rhs, numeric):
            assert not GENERIC.search(text), f"{name} slot {slot}: {text!r}"
    forward = forward_rule(node, _name) or f"R = {expression_of(node, lambda t: (_name(t), True), depth=1)}"
    assert forward.startswith("R") and not GENERIC.search(forward), forward


def test_substitution_is_simultaneous_so_swapped_names_stay_right():
    a = Tensor(2.0, requires_grad=True, name="b")  # the registry's a is the student's b
    b = Tensor(5.0, requires_grad=True, name="a")  # and the registry's b is the student's a
    out = a / b
    out.name = "out"
    assert forward_rule(out, _name) == "out = b / a"
    assert local_rule(out, 0, _name) == ("∂out/∂b", "1/a", "1/5.000")
    assert local_rule(out, 1, _name) == ("∂out/∂a", "−b/a² = −out/a", "−0.4000/5.000")  # −(b/a)/a: no overflow


def test_powers_and_functions_stay_readable_with_long_names():
    base = Tensor(1.5, requires_grad=True, name="base")
    power = Tensor(-2.0, requires_grad=True, name="power")
    out = base ** power
    out.name = "res"
    assert local_rule(out, 0, _name) == ("∂res/∂base", "power·base^(power−1)  (0 where power = 0)",
                                         "(−2.000)·1.500^((−2.000)−1)")
    assert local_rule(out, 1, _name) == ("∂res/∂power", "base^power·ln(base)  (0 where base = 0 and power ≥ 0)",
                                         "1.500^(−2.000)·ln(1.500)")
    y = lucid.sigmoid(base)
    y.name = "prob"
    assert local_rule(y, 0, _name)[1] == "σ(base)(1 − σ(base)) = prob·(1 − prob)"
