"""The "Forward:" line of concatenate and stack names every input, in order, in both languages.

The registry writes ``out = [a₁, a₂, …] joined along axis`` (counting from 1) while the slots' generic
names count from 0, so ``concatenate([a, b, c])`` once read ``p = [b, c, …] joined along axis`` (issue 29).
"""
from __future__ import annotations

import pytest

from lucid.autograd import backward_trace
from lucid.expr import run
from lucid.i18n import use_language
from lucid.viz import explain

THREE = "a = [1.0]\nb = [2.0]\nc = [3.0]\np = {call}\nout = sum(p * p)\n"


def _forward_lines(source: str, lang: str) -> set[str]:
    trace = backward_trace(run(source).output)
    prefix = "Forward: p =" if lang == "en" else "순전파(forward): p ="
    with use_language(lang):
        texts = [explain(trace, k).text for k in range(1, len(trace.steps))]
    return {line for text in texts for line in text.splitlines() if line.startswith(prefix)}


@pytest.mark.parametrize(("lang", "expected"), [
    ("en", "Forward: p = [a, b, c] joined along axis 0"),
    ("ko", "순전파(forward): p = axis 0 방향으로 이어 붙인 [a, b, c]"),
])
def test_concatenate_of_three_names_all_three_in_order(lang, expected):
    assert _forward_lines(THREE.format(call="concatenate([a, b, c])"), lang) == {expected}


def test_concatenate_says_which_axis_and_keeps_the_order_given():
    source = "a = [[1.0]]\nb = [[2.0]]\nc = [[3.0]]\np = concatenate([c, a, b], axis=1)\nout = sum(p * p)\n"
    assert _forward_lines(source, "en") == {"Forward: p = [c, a, b] joined along axis 1"}


@pytest.mark.parametrize(("lang", "expected"), [
    ("en", "Forward: p = stack([a, b, c], axis=0)"),
    ("ko", "순전파(forward): p = 새 축을 따라 쌓은 [a, b, c]"),
])
def test_stack_of_three_names_all_three_in_order(lang, expected):
    assert _forward_lines(THREE.format(call="stack([a, b, c])"), lang) == {expected}


def test_stack_of_two_in_korean_names_both():
    source = "a = [1.0]\nb = [2.0]\np = stack([a, b], axis=1)\nout = sum(p * p)\n"
    assert _forward_lines(source, "ko") == {"순전파(forward): p = 새 축을 따라 쌓은 [a, b]"}


def test_each_inputs_own_step_still_names_its_own_slice():
    trace = backward_trace(run(THREE.format(call="concatenate([a, b, c])")).output)
    chains = [line for k in range(1, len(trace.steps)) for line in explain(trace, k).text.splitlines()
              if line.startswith("Chain rule: grad ") and "slice" in line]
    assert [line.split("  (")[0] for line in chains] == [
        "Chain rule: grad a += the slice of grad p where a sits",
        "Chain rule: grad b += the slice of grad p where b sits",
        "Chain rule: grad c += the slice of grad p where c sits",
    ]
