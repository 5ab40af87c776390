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


def test_the_playground_s_table_is_arrow_s_own_from_the_rows_without_pandas():
    import subprocess
    import sys

    import pyarrow as pa

    from lucid.session.inputs_table import input_rows
    from lucid.ui.playground import inputs_view

    rows = input_rows("a = 1.5\nb = randn(2, 3)\nout = (a * b).sum()\n", 0)
    table = inputs_view._table(rows)
    by_row = pa.Table.from_pylist([dict(zip(table.column_names, values))
                                   for values in zip(*(table.column(n).to_pylist() for n in table.column_names))])
    assert table.equals(by_row) and table.schema == by_row.schema and table.num_rows == len(rows) == 2
    assert table.column(0).to_pylist() == ["a", "b"] and table.column(5).to_pylist()[0] != ""
    unicode = inputs_view._strings(["—", "", "é∂"])
    assert unicode.equals(pa.array(["—", "", "é∂"], type=pa.string()))
    script = ("import sys; from lucid.session.inputs_table import input_rows; "
              "from lucid.ui.playground import inputs_view; "
              "inputs_view._table(input_rows('a = 1.5\\nc = a * a\\n', 0)); print('pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=300)
    assert out.stdout.strip() == "False"  # a fresh server's first Playground visit imports no pandas
