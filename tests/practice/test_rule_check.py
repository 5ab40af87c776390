"""The rule check: right rules pass; each wrong rule is caught at the right input and element, with its hint."""
import numpy as np
import pytest

from lucid.expr import run
from lucid.i18n import use_language
from lucid.practice.rule_check import check_definition, check_program, describe, hint_text, skipped_text, summary


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def verdict(source: str):
    (v,) = check_program(run(source))
    return v


def failure(source: str, param: str = "x"):
    v = verdict(source)
    (f,) = [f for f in v.failures if f.param == param]
    return f


SWISH = "def swish(x) = x * sigmoid(x)\nd swish / d x = {rule}\nw = 0.5\na = 1.5\nb = -0.3\ny = swish(w * a + b)"


# ----- right rules pass ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("source", [
    SWISH.format(rule="sigmoid(x) * (1 + x * (1 - sigmoid(x)))"),
    SWISH.format(rule="out / x + out * (1 - sigmoid(x))"),  # the same derivative written with the output
    "def sp(x) = log(1 + exp(x))\nd sp / d x = sigmoid(x)\nx = [0.1, -2.0, 3.0]\ny = sp(x)",
    "def sp(x) = log(1 + exp(x))\nd sp / d x = 1 - exp(-out)\nx = [0.1, -2.0]\ny = sp(x)",
    "def f(a, b) = a * b + a\nd f / d a = b + 1\nd f / d b = a\na = [1.0, 2.0]\nb = [[0.5], [-1.0]]\ny = f(a, b)",
    "def t(x) = tanh(x)\nd t / d x = 1 - out ** 2\nx = 0.3\ny = t(x)",
], ids=["swish", "swish with out", "softplus", "softplus with out", "two inputs broadcasting", "tanh"])
def test_a_right_rule_passes_at_the_programs_values_and_at_every_probe(source):
    v = verdict(source)
    assert v.ok and v.failures == ()
    assert v.points >= 5  # the program's own call and the probes (signed, positive, two broadcasting)
    assert v.elements >= 19 and v.skipped == 0
    assert str(summary(v)).endswith("at the program's values and at random points).")


def test_an_unused_definition_is_still_checked_at_the_probes():
    sq, bad = check_program(run("def sq(x) = x * x\nd sq / d x = 2 * x\ndef bad(x) = x * x\nd bad / d x = x\n"
                                "x = 0.5\ny = sq(x)"))
    assert (sq.op, sq.ok) == ("sq", True)
    assert (bad.op, bad.ok) == ("bad", False) and bad.failures[0].where == "probe"
    assert bad.failures[0].hint == "factor"


# ----- each wrong rule, where it fails and why ------------------------------------------------------------------

def test_a_missing_factor_is_caught_at_x_with_the_numbers_and_the_constant_ratio():
    f = failure("def sq(x) = x ** 2\nd sq / d x = x\nx = 1.5\ny = sq(x)")
    assert (f.op, f.param, f.kind, f.where, f.element) == ("sq", "x", "wrong", "program", ())
    assert f.at == {"x": 1.5, "out": 2.25}
    assert f.expected == pytest.approx(3.0, rel=1e-8) and f.given == 1.5
    assert (f.hint, f.factor) == ("factor", pytest.approx(0.5))
    assert str(describe(f)) == ("d sq / d x is wrong at the program's values (x = 1.5): expected 3 (central "
                                "differences of the formula), your rule gives 1.5")
    assert str(hint_text(f)) == ("Hint: Your rule is 0.5 times the right value everywhere: a constant factor is "
                                 "missing or extra.")


def test_a_swish_rule_missing_the_x_is_caught_at_the_value_the_program_gave_swish():
    f = failure(SWISH.format(rule="sigmoid(x) * (1 + (1 - sigmoid(x)))"))
    assert f.where == "program" and f.at["x"] == pytest.approx(0.45)
    s = sigmoid(0.45)
    assert f.expected == pytest.approx(s * (1 + 0.45 * (1 - s)), rel=1e-8)
    assert f.given == pytest.approx(s * (2 - s), rel=1e-14)
    assert f.hint is None  # no constant ratio, no sign, no swap: nothing to name


def test_a_flipped_sign_is_named():
    f = failure("def f(x) = 1 - x ** 3\nd f / d x = 3 * x ** 2\nx = 0.7\ny = f(x)")
    assert f.hint == "sign" and f.given == pytest.approx(-f.expected, rel=1e-8)
    assert "opposite sign" in str(hint_text(f))


def test_tanh_prime_written_with_the_input_instead_of_the_output_is_named():
    f = failure("def t(x) = tanh(x)\nd t / d x = 1 - x ** 2\nx = 0.3\ny = t(x)")
    assert f.hint == "input_for_output" and f.given == pytest.approx(0.91)
    assert f.expected == pytest.approx(1 - np.tanh(0.3) ** 2, rel=1e-8)
    assert "with out (the op's result) where you wrote x" in str(hint_text(f))


def test_sigmoid_prime_written_with_the_input_instead_of_the_output_is_named_too():
    f = failure("def s(x) = 1 / (1 + exp(-x))\nd s / d x = x * (1 - x)\nx = 0.8\ny = s(x)")
    assert f.hint == "input_for_output"


def test_the_output_used_where_the_input_belongs_is_named():
    f = failure("def sq(x) = x * x\nd sq / d x = 2 * out\nx = 1.5\ny = sq(x)")
    assert f.hint == "output_for_input" and f.given == pytest.approx(4.5)


def test_a_two_input_op_is_caught_at_the_right_input_and_the_other_passes():
    v = verdict("def f(a, b) = a * b + a\nd f / d a = b + 1\nd f / d b = b\na = 2.0\nb = 3.0\ny = f(a, b)")
    (f,) = v.failures
    assert f.param == "b" and f.at == {"a": 2.0, "b": 3.0, "out": 8.0}
    assert f.expected == pytest.approx(2.0) and f.given == 3.0
    assert str(summary(v)).startswith("f: the rule d f / d b disagrees")


def test_the_rule_of_the_other_parameter_is_named():
    v = verdict("def f(a, b) = a * b + a\nd f / d a = b + 1\nd f / d b = b + 1\na = 2.0\nb = 3.0\ny = f(a, b)")
    (f,) = v.failures
    assert (f.param, f.hint, f.other) == ("b", "other_param", "a")
    assert str(hint_text(f)) == "Hint: Your rule is the derivative with respect to a, not b."


def test_the_failing_element_of_a_tensor_input_is_the_one_reported():
    f = failure("def f(x) = abs(x) * x\nd f / d x = 2 * x\nx = [0.5, 2.0, -1.5, 3.0]\ny = f(x)")
    assert f.where == "program" and f.element == (2,) and f.at["x"] == -1.5  # right for x > 0, wrong below
    assert f.expected == pytest.approx(3.0, rel=1e-8) and f.given == -3.0
    assert "element [2]" in str(describe(f))


def test_a_rule_right_only_without_broadcasting_is_caught_at_a_broadcasting_probe_in_the_inputs_shape():
    # b * 2 is right when b = 2 everywhere (the program), wrong elsewhere: found at a probe
    v = verdict("def f(a, b) = a * b\nd f / d a = 2\nd f / d b = a\na = [1.0, -1.0]\nb = 2.0\ny = f(a, b)")
    (f,) = v.failures
    assert f.param == "a" and f.where == "probe"
    assert f.expected == pytest.approx(f.at["b"], rel=1e-8) and f.given == 2.0


def test_the_engines_backward_step_with_broadcasting_is_checked_against_central_differences(monkeypatch):
    """If the step that sums a broadcast gradient back were wrong, the check would say so in the input's shape."""
    from lucid.practice import rule_check

    program = run("def f(a, b) = a * b\nd f / d a = b\nd f / d b = a\na = 1.0\nb = 2.0\ny = f(a, b)")
    (definition,) = program.definitions.values()
    assert check_definition(definition).ok

    def reshaping(grad, shape):  # the original sketch's bug: reshape instead of summing over broadcast axes
        g = np.asarray(grad)
        return (g.reshape(-1)[: int(np.prod(shape))].reshape(shape), ()) if g.shape != shape else (g, ())

    monkeypatch.setattr(rule_check, "match_shape", reshaping)
    v = check_definition(definition)
    assert not v.ok and {f.kind for f in v.failures} == {"gradient"}
    f = v.failures[0]
    assert f.where == "probe" and len(f.element) == len(f.shapes[f.param])


def test_a_rule_that_is_not_finite_where_the_formula_has_a_derivative_is_reported_not_raised():
    f = failure("def sq(x) = x * x\nd sq / d x = 2 * x + 0 / (x - 0.5)\nx = 0.5\ny = sq(x)")
    assert f.kind == "nonfinite" and np.isnan(f.given) and f.expected == pytest.approx(1.0)
    assert f.hint is None
    assert "your rule gives NaN, but the formula has the derivative 1 there" in str(describe(f))


def test_an_infinite_rule_is_reported_beside_the_formulas_derivative():
    f = failure("def f(x) = x * x\nd f / d x = 2 * x + 1 / (x - x)\nx = 0.25\ny = f(x)")
    assert f.kind == "nonfinite" and not np.isfinite(f.given) and f.expected == pytest.approx(0.5)


def test_a_kink_or_an_undefined_point_of_the_formula_is_skipped_and_counted_not_failed():
    v = verdict("def f(x) = abs(x)\nd f / d x = where(x > 0, 1, -1)\nx = 0.0\ny = f(x)")
    assert v.ok and v.skipped == 1
    assert str(skipped_text(v)).startswith("1 element was not checked")
    v = verdict("def f(x) = sqrt(x)\nd f / d x = 0.5 / out\nx = 4.0\ny = f(x)")
    assert v.ok and v.skipped > 0  # the negative probes: sqrt is undefined there


def test_the_verdict_reads_in_korean():
    f = failure("def sq(x) = x ** 2\nd sq / d x = x\nx = 1.5\ny = sq(x)")
    with use_language("ko"):
        assert str(describe(f)) == ("d sq / d x이(가) 프로그램의 값에서 틀립니다(x = 1.5): 기대값 3(식의 중심 차분), "
                                    "규칙의 값 1.5")
        assert str(hint_text(f)).startswith("힌트: 규칙이 모든 곳에서 맞는 값의 0.5배입니다")


def test_a_check_past_its_work_budget_leaves_points_out_and_never_calls_an_unchecked_rule_right(monkeypatch):
    from lucid.practice import rule_check

    program = run("def sq(x) = x * x\nd sq / d x = 2 * x\nx = 1.5\ny = sq(x)")
    monkeypatch.setattr(rule_check, "CHECK_BUDGET", 1)
    (definition,) = program.definitions.values()
    v = rule_check.check_definition(definition, [program.output])
    assert (v.points, v.left_out, v.ok) == (0, 5, False)
    assert str(summary(v)) == "sq: its rules were not checked: the formula is too costly to check on a shared server."
    assert str(rule_check.left_out_text(v)).startswith("5 points were not checked")


def test_with_broadcasting_the_element_is_named_as_the_results_and_every_inputs_value_is_given():
    v = verdict("def f(a, b) = a * b + a\nd f / d a = b\nd f / d b = a\nW = [[0.5, -1.0], [2.0, 0.3]]\n"
                "c = [1.5, -0.5]\ny = f(W, c)")
    (f,) = v.failures
    assert f.param == "a" and f.element == (0, 0) and f.shapes == {"a": (2, 2), "b": (2,)}
    assert str(describe(f)) == ("d f / d a is wrong at the program's values, element [0, 0] of the op's result "
                                "(a = 0.5, b = 1.5): expected 2.5 (central differences of the formula), your rule "
                                "gives 1.5")
