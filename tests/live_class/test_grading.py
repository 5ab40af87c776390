"""Grading against the engine's exact gradient, and the diagnosis of the most common wrong answer.

Real gallery programs: x*x (a node used twice: the second step's total is 6, its contribution 3) and a
bias broadcast over a batch (grad b is the sum of the rows' gradients).
"""
from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from lucid.gallery import by_slug
from lucid.live_class.grading import DIAGNOSES, MAX_CANDIDATES, class_result, diagnose, is_correct, question_at
from lucid.live_class.ticket import exit_ticket, safe_cell
from lucid.session.analysis import analyze


@pytest.fixture(scope="module")
def used_twice():
    return analyze(by_slug("used-twice").source).trace


@pytest.fixture(scope="module")
def bias():
    return analyze(by_slug("bias-broadcast").source, seed=0).trace


def test_three_significant_digits_are_right_and_two_are_not():
    assert is_correct(0.197, 0.19661193) and is_correct(0.196, 0.19661193)
    assert not is_correct(0.19, 0.19661193) and not is_correct(0.2, 0.19661193)
    assert is_correct(0.0, 0.0) and not is_correct(0.001, 0.0)
    assert is_correct(-6.0, -6.0) and not is_correct(6.0, -6.0)


def test_x_times_x_asks_for_the_accumulated_total(used_twice):
    q = question_at(used_twice, 2)
    assert (q["label"], q["expected"], q["shape"]) == ("grad x", 6.0, [])
    assert q["rule"] == "∂y/∂x = x = 3.000" and q["upstream"] == "grad y = 1.000"
    assert question_at(used_twice, 1)["expected"] == 3.0  # the first path alone
    assert question_at(used_twice, 0)["label"] == "grad y" and question_at(used_twice, 0)["expected"] == 1.0


def test_the_partial_contribution_is_diagnosed_as_forgetting_plus_equals(used_twice):
    q = question_at(used_twice, 2)
    assert diagnose(3.0, q) == "forgot +="  # also x's value: += is the likelier mistake and is named first
    assert diagnose(-6.0, q) == "sign"
    assert diagnose(6.0, q) is None and diagnose(7.5, q) is None


def test_value_instead_of_gradient(used_twice):
    q = question_at(used_twice, 0)  # grad y = 1, y's value is 9
    assert diagnose(9.0, q) == "value, not gradient"


def test_one_rows_contribution_is_diagnosed_as_forgetting_the_broadcast_sum(bias):
    step = next(s.index for s in bias.steps if s.parent.name == "b")
    s = bias.steps[step]
    q = question_at(bias, step)
    assert q["label"] == "grad b[0]" and q["shape"] == [3]
    rows = np.asarray(s.contribution_raw)[:, 0]
    assert q["expected"] == pytest.approx(rows.sum(), rel=1e-12)
    assert q["expected"] == pytest.approx(float(s.accumulated[0]), rel=1e-12)
    for row in rows:
        assert diagnose(float(f"{row:.3g}"), q) == "forgot to sum"
    assert diagnose(float(f"{rows.sum():.3g}"), q) is None
    assert diagnose(0.1, q) == "value, not gradient"  # b[0] = 0.1


def test_the_class_result_counts_right_answers_and_names_the_common_mistake(used_twice):
    q = question_at(used_twice, 2)
    result = class_result([6.0, 6.001, 3.0, 3.0, 3.0, -6.0, 12.0], q)
    assert (result.answered, result.correct) == (7, 2)
    assert result.correct_rate == pytest.approx(2 / 7)
    assert result.counts[0] == (3.0, 3, False)
    assert (6.0, 2, True) in result.counts
    assert (result.wrong, result.wrong_count, result.diagnosis) == (3.0, 3, "forgot +=")
    assert result.diagnosis in DIAGNOSES
    assert class_result([], q).wrong is None and class_result([], q).correct_rate == 0.0


def test_the_exit_ticket_has_one_row_per_question_with_rate_and_distribution(used_twice):
    q = {**question_at(used_twice, 2), "id": "q1"}
    answers = [{"value": 6.0, "text": "6", "nickname": "Ada"}, {"value": 3.0, "text": "3", "nickname": ""},
               {"value": 3.0, "text": "3.0", "nickname": ""}]
    rows = list(csv.DictReader(io.StringIO(exit_ticket([(q, answers)]))))
    assert len(rows) == 1
    row = rows[0]
    assert (row["step"], row["asked"], row["correct answer"]) == ("2", "grad x", "6.000")
    assert (row["answers"], row["correct"], row["correct rate"]) == ("3", "1", "33%")
    assert row["distribution"] == "3.000 ×2; 6.000 ×1"
    assert (row["most common wrong answer"], row["diagnosis"], row["nicknames"]) == ("3.000", "forgot +=", "Ada: 6")


def test_a_question_keeps_a_bounded_number_of_broadcast_candidates():
    trace = analyze("X = randn(500, 3)\nb = [0.1, -0.2, 0.3]\nloss = sum(X + b)\n").trace
    step = next(s.index for s in trace.steps if s.parent.name == "b")
    q = question_at(trace, step)
    assert q["expected"] == 500.0
    (values,) = [v for k, v in q["candidates"] if k == "forgot to sum"]
    assert len(values) == MAX_CANDIDATES and values[0] == 1.0
    assert diagnose(1.0, q) == "forgot to sum"


def test_a_nickname_that_is_a_spreadsheet_formula_is_not_run_when_the_ticket_is_opened(used_twice):
    q = {**question_at(used_twice, 2), "id": "q1"}
    answers = [{"value": 6.0, "text": "6", "nickname": '=HYPERLINK("http://x","y")'}]
    row = next(csv.DictReader(io.StringIO(exit_ticket([(q, answers)]))))
    assert row["nicknames"].startswith("'=HYPERLINK")
    assert safe_cell("-4") == "-4" and safe_cell("@SUM(A1)") == "'@SUM(A1)" and safe_cell("Ada") == "Ada"
