"""Finite differences count what a re-run really costs, batch re-runs where exact, stop at a deadline or when asked.

The program from the cost issue: 4,000 inputs summed, then 999 small ops. It passes every limit of the
language, and counting elements called its check cheap; each of its 8,000 re-runs costs ~1,000 ops of
Python overhead, over a minute of CPU in all. Its path is element-wise after a whole sum, so its re-runs
now run in a few dozen batched passes; the same chain behind a matrix product cannot be batched and is
refused up front, with a reason.
"""
import numpy as np
import pytest

from lucid import Tensor
from lucid.autograd.gradcheck import GradcheckCancelled, GradcheckTimeLimit, gradcheck
from lucid.expr import run
from lucid.expr.limits import OP_OVERHEAD_ELEMENTS
from lucid.lessons.gradient_check import check_program, eps_sweep
from lucid.session.inputs_table import input_rows


def nested(depth: int) -> str:
    text = "s"
    for k in range(depth):
        text = f"{('sin', 'cos')[k % 2]}({text})"
    return text


def long_chain_program(inputs: int = 4000, first: str = "s = x.sum()") -> str:
    """The issue's program: ``x = randn(4000)``, ``s = x.sum()``, 16 lines nested 60 deep, one 37 deep."""
    lines = [f"x = randn({inputs})", first]
    lines += [f"s = {nested(60)}" for _ in range(16)]
    lines.append(f"s = {nested(37)}")
    return "\n".join(lines)


class CallCounter:
    """A ``should_stop`` that never stops but counts how often the loop asked (one ask per pair of re-runs)."""

    def __init__(self, fail_after: int | None = None) -> None:
        self.calls = 0
        self.fail_after = fail_after

    def __call__(self) -> bool:
        self.calls += 1
        if self.fail_after is not None and self.calls > self.fail_after:
            raise AssertionError("the check started re-running a program it should have refused")
        return False


def test_the_issue_program_is_the_one_described():
    source = long_chain_program()
    program = run(source)
    assert len(source) == 5114
    assert program.graph_nodes == 999
    assert sum(leaf.size for leaf in program.inputs) == 4000


def test_rerun_cost_counts_a_fixed_overhead_per_op():
    program = run(long_chain_program())
    assert program.rerun_cost == program.work + OP_OVERHEAD_ELEMENTS * 999


UNBATCHABLE = "s = x @ const(ones({n}))"  # the same number, but a matrix product mixes stacked re-runs


def test_gradient_check_refuses_the_long_chain_it_cannot_batch_before_re_running_it():
    program = run(long_chain_program(first=UNBATCHABLE.format(n=4000)))
    assert program.batched_function(0) is None
    never = CallCounter(fail_after=0)
    with pytest.raises(ValueError, match=r"1,000 operations and values\) twice for each of its 4,000 input numbers "
                                         r"would take too long"):
        check_program(program, should_stop=never)
    assert never.calls == 0


def test_gradient_check_finishes_the_issue_program_in_batched_passes():
    program = run(long_chain_program())
    polls = CallCounter(fail_after=200)  # one poll per pass: 8,000 polls would mean one re-run at a time
    # no time limit: what is counted here is passes; the limit has its own tests, and a busy machine reaches it
    result = check_program(program, should_stop=polls, time_limit=None)
    (x,) = result.variables
    assert x.numerical.shape == (4000,) and result.ok
    assert polls.calls == -(-8000 // program.batch_rows)
    assert np.all(x.analytic == x.analytic[0])  # every x_i enters through the sum alike


def test_the_inputs_table_skips_finite_differences_of_a_long_chain_and_says_why():
    rows = input_rows(long_chain_program(inputs=300, first=UNBATCHABLE.format(n=300)),
                      should_stop=CallCounter(fail_after=0))
    assert [r.numerical for r in rows] == [None]
    assert "1,000 operations" in rows[0].skipped
    assert rows[0].gradient.shape == (300,)
    assert np.allclose(rows[0].gradient, rows[0].gradient[0])  # d out / d x_i is the same for every i


def test_a_check_that_the_session_abandons_stops_at_the_next_re_run():
    program = run("x = randn(50)\ntanh(x) @ x")  # one re-run at a time: a matrix product is on the path
    asked = []

    def stop_after_three() -> bool:
        asked.append(1)
        return len(asked) > 3

    with pytest.raises(GradcheckCancelled):
        check_program(program, should_stop=stop_after_three)
    assert len(asked) == 4  # three pairs of re-runs, then it stopped


def test_a_batched_check_that_the_session_abandons_stops_at_the_next_pass():
    program = run(long_chain_program())
    polls = []
    with pytest.raises(GradcheckCancelled):
        check_program(program, should_stop=lambda: polls.append(1) or len(polls) > 3)
    assert len(polls) == 4


def test_an_abandoned_eps_sweep_stops_too():
    program = run("a = 1.3\nb = -0.7\nout = tanh(a * b)")
    with pytest.raises(GradcheckCancelled):
        eps_sweep(program, should_stop=lambda: True)


def test_a_check_past_its_time_limit_stops_with_a_message():
    program = run("x = randn(50)\n(tanh(x) * x).sum()")
    with pytest.raises(GradcheckTimeLimit, match="stopped at their time limit"):
        check_program(program, time_limit=0.0)
    with pytest.raises(ValueError, match="too slow for a shared server"):  # the page shows any ValueError in words
        check_program(program, time_limit=0.0)


def test_the_inputs_table_shows_finite_differences_past_the_time_limit_as_skipped():
    (row,) = input_rows("x = randn(50)\n(tanh(x) * x).sum()", time_limit=0.0)
    assert row.numerical is None and "stopped after 0 s" in row.skipped
    x = np.random.default_rng(0).standard_normal(50)  # the program's own draw, seed 0
    assert np.allclose(row.gradient, np.tanh(x) + x * (1 - np.tanh(x) ** 2))


def test_a_check_that_fits_still_agrees_with_autodiff():
    result = check_program(run("x = randn(3, 4)\nw = randn(4)\n(tanh(x) @ w).sum()"), should_stop=CallCounter())
    assert result.ok and result.max_rel_error < 1e-6


def test_gradcheck_polls_once_per_pair_of_re_runs():
    counter = CallCounter()
    x = Tensor(np.array([0.3, -1.2, 2.0]), requires_grad=True)
    report = gradcheck(lambda t: (t * t).sum(), [x], should_stop=counter)
    assert report.ok and counter.calls == 3


def test_an_input_within_eps_of_the_domain_edge_is_explained_not_raised():
    with pytest.raises(ValueError, match=r"Nudging an input by ±1e-06 makes the program fail \(line 2: numeric "
                                         r"problem in log\(\)"):
        check_program(run("x = 1e-7\nlog(x)"))
    (row,) = input_rows("x = 1e-7\nlog(x)")
    assert row.numerical is None and "nudging an input by ±1e-06" in row.skipped
    assert row.gradient == pytest.approx(1e7)


def test_a_re_run_that_fails_leaves_the_input_as_it_was():
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)

    def fails_when_nudged_down(t):
        if t.data[1] < 2.0:
            raise ArithmeticError("outside the domain")
        return (t * t).sum()

    with pytest.raises(ArithmeticError):
        gradcheck(fails_when_nudged_down, [x])
    assert x.data.tolist() == [1.0, 2.0]
