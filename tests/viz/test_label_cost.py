"""Graph labels format only the numbers they show (issue: 7-10 s per frame for a 1000×1000 input).

Counted, not timed: every number the viz shows goes through ``numbers.format_number``;
a frame of a graph with 1000×1000 arrays must format a bounded handful of numbers,
never one per element.
"""
import numpy as np
import pytest

from lucid import viz
from lucid.autograd import backward_trace
from lucid.expr import run
from lucid.viz import numbers
from lucid.viz.graph.labels import number_columns

BIG = [
    "x = rand(1000, 1000)\ns = x.sum(axis=0)\nm = x.mean(axis=1)\nout = sum(s) + sum(m) + x.max()\n",
    "a = rand(1000, 1)\nb = rand(1, 1000)\nc = a*b\nd = c*c\nout = d.mean()\n",
]


@pytest.fixture
def format_calls(monkeypatch):
    calls = []
    real = numbers.format_number

    def counting(x):
        calls.append(1)
        return real(x)

    monkeypatch.setattr(numbers, "format_number", counting)
    return calls


@pytest.mark.parametrize("source", BIG)
def test_a_frame_with_million_element_arrays_formats_only_what_it_shows(source, format_calls):
    program = run(source, seed=1)
    trace = backward_trace(program.output)
    for step in (0, 1, len(trace.steps) - 1):
        format_calls.clear()
        viz.to_dot(trace.root, trace, step)
        # a handful of nodes, each showing a value and a few gradients as min/mean/max: tens of numbers
        assert 0 < len(format_calls) < 500, len(format_calls)
        assert len(format_calls) < trace.root.size + 500
    format_calls.clear()
    viz.explain(trace, len(trace.steps) - 1)
    assert len(format_calls) < 200


def test_column_width_of_a_big_array_comes_from_its_summary(format_calls):
    a = np.linspace(-1234.5, 0.001, 1_000_000)
    width = number_columns([a])
    assert len(format_calls) == 3  # min, mean, max
    assert width == max(len(numbers.format_number(v)) for v in (a.min(), a.mean(), a.max()))


def test_summary_numbers_ignore_nan_and_inf_without_formatting_elements(format_calls):
    a = np.arange(100.0).reshape(10, 10)
    a[0, 0], a[1, 1] = np.nan, np.inf  # finite: 1..99 without 11, mean 4939 / 98
    text = numbers.format_array(a)
    assert text == "shape 10×10: min 1.000  mean 50.40  max 99.00  1 nan  1 inf"
    assert len(format_calls) == 3
