"""The inputs table: autodiff next to finite differences, within a work budget."""
import numpy as np

from lucid.session.inputs_table import FD_WORK_LIMIT, input_rows


def test_each_input_shows_its_gradient_and_the_finite_difference_one():
    rows = input_rows("a = 1.3\nb = -0.7\nout = a * b + b ** 3")
    assert [r.name for r in rows] == ["a", "b"]
    a, b = rows
    np.testing.assert_allclose(a.gradient, -0.7)
    np.testing.assert_allclose(b.gradient, 1.3 + 3 * 0.49)
    np.testing.assert_allclose(b.numerical, b.gradient, rtol=1e-8)
    assert b.max_rel_error < 1e-8


def test_finite_differences_are_skipped_when_the_reruns_would_be_too_much_work():
    source = "x = randn(300)\nC = const(randn(400, 400))\nout = (C @ (const(ones(400)) * x.sum())).sum()"
    from lucid.expr import run

    assert 2 * 300 * run(source).work > FD_WORK_LIMIT
    (row,) = input_rows(source)
    assert row.numerical is None and row.max_rel_error is None
    assert row.gradient.shape == (300,) and np.all(row.gradient == row.gradient[0])
