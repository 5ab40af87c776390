"""Names are always names: an unnamed input that requires grad is called by its graph label in every line.

The README's notebook snippet makes its inputs without ``.name``; the graph draws them as ``t0``,
``t1``, ``t3``. Every line of a step (the headline, the forward formula, the chain rule and the local
derivative) must call them that, never by their value ("∂t2/∂5 = 1", "∂out/∂(-4) = t2" were written
before). Only an unnamed *constant* (no gradient, no label a student could look up) is written as the
number the program wrote.
"""
from __future__ import annotations

import re

import pytest

from lucid import Tensor
from lucid.autograd import backward_trace
from lucid.i18n import set_language
from lucid.viz import explain

DERIVATIVE = re.compile(r"∂([^\s/()·,;:\[]+)/∂([^\s/()·,;:=\[]+)")


@pytest.fixture
def readme_trace():
    """The README's snippet, character for character (its section "In a notebook")."""
    x, y, z = Tensor(-2.0, requires_grad=True), Tensor(5.0, requires_grad=True), Tensor(-4.0, requires_grad=True)
    f = (x + y) * z
    f.backward()
    return backward_trace(f)


@pytest.fixture
def korean():
    set_language("ko")
    yield
    set_language("en")


def _local_line(text: str, start: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(start))


def test_readme_snippet_local_derivatives_name_the_inputs_by_their_labels(readme_trace):
    lines = [_local_line(explain(readme_trace, k).text, "Local derivative") for k in range(1, 5)]
    assert lines == [
        "Local derivative (the rule of ×): ∂out/∂t2 = t3 = −4.000",
        "Local derivative (the rule of ×): ∂out/∂t3 = t2 = 3.000",
        "Local derivative (the rule of +): ∂t2/∂t0 = 1 = 1.000",
        "Local derivative (the rule of +): ∂t2/∂t1 = 1 = 1.000",
    ]


def test_readme_snippet_forward_lines_and_expressions_use_labels_not_values(readme_trace):
    text = explain(readme_trace, 4).text
    assert "Forward: t2 = t0 + t1" in text
    assert "from t2 (= t0 + t1) back through +" in text
    assert "Forward: out = t2 · t3" in explain(readme_trace, 1).text


def test_every_derivative_of_a_step_names_the_same_tensors_as_its_chain_rule(readme_trace):
    for k in range(1, 5):
        e = explain(readme_trace, k)
        pairs = set(DERIVATIVE.findall(e.text))
        assert pairs == {(e.node, e.parent)}, (k, pairs)
        assert not any(re.fullmatch(r"\(?[-−]?[\d.]+\)?", name) for pair in pairs for name in pair)


def test_readme_snippet_in_korean_names_the_inputs_by_their_labels(readme_trace, korean):
    text = explain(readme_trace, 4).text
    assert "국소 미분(local derivative, +의 규칙): ∂t2/∂t1 = 1 = 1.000" in text
    assert "순전파(forward): t2 = t0 + t1" in text
    assert "국소 미분(local derivative, ×의 규칙): ∂out/∂t3 = t2 = 3.000" in explain(readme_trace, 2).text


def test_an_unnamed_constant_is_still_written_as_its_value():
    x = Tensor(-2.0, requires_grad=True)
    out = x * Tensor(3.0) + Tensor(-4.0)
    trace = backward_trace(out)
    texts = [explain(trace, k).text for k in range(1, len(trace.steps))]
    mul = next(t for t in texts if "the rule of ×" in t)
    assert "Local derivative (the rule of ×): ∂t2/∂t0 = 3 = 3.000" in mul
    assert "Forward: t2 = t0 · 3" in mul
    add = next(t for t in texts if "the rule of +" in t)
    assert "Forward: out = t2 + (-4)" in add
    assert "from out (= t0*3 + (-4))" not in add  # the output is named, never expanded
    assert "into its input t2 (= t0*3)" in add
