"""Ops a program defines (``def f(x) = ...``) with the student's own rules (``d f / d x = ...``).

Parsing with positions, one node per call with the op's own name, forward from the formula and backward from
the rule (right or wrong), gradients of whole programs against float64 central differences with non-unit
inputs and upstream gradients, second derivatives through the rule, errors with line and column, limits.
"""
import numpy as np
import pytest

import lucid
from lucid.autograd import backward_trace, jvp
from lucid.expr import FUNCTIONS, ExprError, Limits, run
from lucid.expr import syntax as S
from lucid.expr.defined import defined_op
from lucid.expr.limits import DEFAULT_LIMITS
from lucid.expr.parser import parse
from lucid.expr.tokens import tokenize

SWISH = ("def swish(x) = x * sigmoid(x)\n"
         "d swish / d x = sigmoid(x) * (1 + x * (1 - sigmoid(x)))\n")


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def parsed(source: str) -> list:
    return parse(tokenize(source, DEFAULT_LIMITS), source, DEFAULT_LIMITS)


def central_gradients(program, upstream: np.ndarray, h: float = 1e-6) -> list[np.ndarray]:
    """∂(Σ upstream ⊙ output)/∂input for every input, by float64 central differences of a re-run."""
    f = program.function()
    grads = []
    for k, leaf in enumerate(program.inputs):
        g = np.zeros(leaf.shape)
        for idx in np.ndindex(*leaf.shape):
            moved = []
            for sign in (1, -1):
                args = [lucid.Tensor(t.data.copy()) for t in program.inputs]
                args[k].data[idx] += sign * h
                moved.append(float(np.sum(upstream * f(*args).data)))
            g[idx] = (moved[0] - moved[1]) / (2 * h)
        grads.append(g)
    return grads


# ----- parsing ----------------------------------------------------------------------------------------------

def test_a_definition_and_its_rule_parse_into_nodes_that_know_where_they_are():
    define, rule, assign = parsed(SWISH + "y = swish(0.5)")
    assert isinstance(define, S.Define) and define.name == "swish" and (define.line, define.col) == (1, 5)
    assert [(p.name, p.line, p.col) for p in define.params] == [("x", 1, 11)]
    assert isinstance(rule, S.Rule) and (rule.op, rule.param) == ("swish", "x")
    assert (rule.line, rule.col, rule.op_col, rule.param_col) == (2, 1, 3, 13)
    assert isinstance(assign, S.Assign)


def test_a_variable_called_d_still_works_in_ordinary_lines():
    program = run("d = 2.0\nx = d / d\ny = d * x")
    assert float(program.output.data) == 2.0


# ----- one node, forward from the formula, backward from the rule -----------------------------------------

def test_the_op_draws_as_one_node_with_its_own_name_and_the_formulas_value():
    program = run(SWISH + "w = 0.5\na = 1.5\nb = -0.3\ny = swish(w * a + b)")
    y = program.output
    assert isinstance(y._op, defined_op) and y._op.describe() == "swish" and len(y._prev) == 1
    assert float(y.data) == pytest.approx(0.45 * sigmoid(0.45), abs=1e-15)
    assert [type(t._op).__name__ for t in backward_trace(y).order if t._op is not None].count("defined_op") == 1


def test_backward_multiplies_the_upstream_gradient_by_the_students_rule_even_a_wrong_one():
    program = run("def sq(x) = x * x\nd sq / d x = 3 * x\nx = [1.5, -2.0]\ny = sq(x)")
    program.output.backward(np.array([2.0, -0.5]))
    np.testing.assert_allclose(program.variables["x"].grad, [2.0 * 3 * 1.5, -0.5 * 3 * -2.0])


def test_the_rule_may_use_out_the_ops_result():
    program = run("def t(x) = tanh(x)\nd t / d x = 1 - out ** 2\nx = [0.3, -1.1]\ny = t(x)")
    program.output.backward(np.array([1.5, 0.25]))
    np.testing.assert_allclose(program.variables["x"].grad, [1.5, 0.25] * (1 - np.tanh([0.3, -1.1]) ** 2),
                               rtol=1e-14)


def test_the_whole_programs_gradients_agree_with_central_differences_with_broadcasting_and_two_inputs():
    source = (SWISH + "def f(a, b) = a * b + a\nd f / d a = b + 1\nd f / d b = a\n"
              "W = [[0.5, -1.2, 0.3], [0.8, 0.1, -0.4]]\nc = [1.5, -0.5, 2.0]\nk = [[2.0], [-3.0]]\n"
              "y = f(swish(W * k), c) * 1.7")
    program = run(source)
    upstream = np.array([[0.7, -1.3, 2.1], [-0.4, 1.9, 0.6]])
    program.output.backward(upstream)
    expected = central_gradients(program, upstream)
    for leaf, want in zip(program.inputs, expected):
        np.testing.assert_allclose(leaf.grad, want, rtol=1e-7, atol=1e-9)
    assert program.variables["c"].grad.shape == (3,) and program.variables["k"].grad.shape == (2, 1)


def test_re_runs_of_a_defined_op_can_be_batched_and_agree_with_one_by_one():
    program = run(SWISH + "x = [0.2, -0.7, 1.4]\ny = (swish(x) * 2).sum()")
    runner = program.batched_function(0)
    assert runner is not None
    stacked = np.array([[0.2, -0.7, 1.4], [1.0, 2.0, 3.0]])
    one = [float(program.function()(lucid.Tensor(row)).data) for row in stacked]
    np.testing.assert_allclose(runner(stacked), one, rtol=1e-15)


def test_second_derivatives_go_through_the_rule_and_a_rule_may_call_its_own_op():
    source = ("def s(x) = 1 / (1 + exp(-x))\nd s / d x = s(x) * (1 - s(x))\n"
              "x = [0.3, -1.2]\ny = s(x)\nz = grad(grad(y, x), x)")
    z = run(source).output
    s = sigmoid(np.array([0.3, -1.2]))
    np.testing.assert_allclose(z.data, s * (1 - s) * (1 - 2 * s), rtol=1e-12)


def test_second_derivatives_follow_the_rule_as_written_not_the_formula():
    z = run("def cube(x) = x * x * x\nd cube / d x = 2 * x * x\nx = 0.7\nz = grad(grad(cube(x), x), x)").output
    assert float(z.data) == pytest.approx(4 * 0.7)  # d/dx of the student's 2x², not of the true 3x²


def test_forward_mode_uses_the_rule_too():
    program = run(SWISH + "x = [0.5, -1.0]\ny = swish(x)")
    _, tangent = jvp(program.function(), program.inputs[0], lucid.Tensor([1.0, 2.0]))
    x = np.array([0.5, -1.0])
    np.testing.assert_allclose(tangent.data, [1.0, 2.0] * sigmoid(x) * (1 + x * (1 - sigmoid(x))), rtol=1e-12)


def test_a_definition_belongs_to_its_program_only():
    run(SWISH + "y = swish(0.5)")
    assert "swish" not in FUNCTIONS and "swish" not in lucid.REGISTRY
    with pytest.raises(ExprError) as err:
        run("y = swish(0.5)")
    assert err.value.kind == "name" and "unknown function 'swish'" in err.value.message


def test_definitions_and_rules_may_stand_after_the_lines_that_use_them():
    program = run("x = 0.5\ny = cube(x)\ndef cube(x) = x ** 3\nd cube / d x = 3 * x ** 2")
    assert program.output is program.variables["y"] and float(program.output.data) == pytest.approx(0.125)


# ----- errors, at their spot ---------------------------------------------------------------------------------

ERRORS = {
    "recursion": ("def f(x) = f(x) + 1\nd f / d x = 1\ny = f(1.0)", "name", 1, 12, "uses itself"),
    "mutual recursion": ("def f(x) = g(x)\nd f / d x = 1\ndef g(x) = 2 * f(x)\nd g / d x = 1\ny = f(1.0)",
                         "name", 3, 16, "use each other (f → g → f)"),
    "name outside the definition": ("w = 2.0\ndef f(x) = w * x\nd f / d x = w\ny = f(1.0)", "name", 2, 12,
                                    "the formula of f can use only its parameters (x) and numbers; 'w'"),
    "rule uses a name that is not a parameter": ("def f(x) = x * x\nd f / d x = 2 * y\ny = f(1.0)", "name", 2, 17,
                                                 "the rule d f / d x can use only the parameters of f (x)"),
    "rule for a parameter that does not exist": ("def f(x) = x\nd f / d x = 1\nd f / d z = 0\ny = f(1.0)",
                                                 "name", 3, 9, "'f' has no parameter 'z' (its parameters: x)"),
    "missing rule": ("def f(a, b) = a * b\nd f / d a = b\ny = f(1.0, 2.0)", "name", 1, 5,
                     "missing rule for 'f': add a line d f / d b"),
    "rule for an op never defined": ("def f(x) = x\nd f / d x = 1\nd fo / d x = 1\ny = f(1.0)", "name", 3, 3,
                                     "a rule for 'fo', but no op of that name is defined; did you mean 'f'?"),
    "rule for a built-in op": ("d tanh / d x = 1\ny = tanh(1.0)", "name", 1, 3, "'tanh' is a built-in op"),
    "rule given twice": ("def f(x) = x\nd f / d x = 1\nd f / d x = 2\ny = f(1.0)", "name", 3, 1,
                         "d f / d x is given twice (first on line 2)"),
    "bad syntax in a definition": ("def f(x) = x *\nd f / d x = 1\ny = f(1.0)", "syntax", 1, 15,
                                   "unexpected end of line"),
    "no parentheses": ("def f x = x", "syntax", 1, 7, "expected '(' and the op's parameters"),
    "squashed rule": ("def f(x) = x\ndf / dx = 1\ny = f(1.0)", "syntax", 2, 1, "write a derivative rule with spaces"),
    "def in an expression": ("y = def", "syntax", 1, 5, "'def' can only start a line"),
    "unknown function in a formula": ("def f(x) = tanhh(x)\nd f / d x = 1\ny = f(1.0)", "name", 1, 12,
                                      "unknown function 'tanhh'; did you mean 'tanh'?"),
    "not elementwise": ("def f(x) = x.sum()\nd f / d x = 1\ny = f(1.0)", "argument", 1, 14,
                        ".sum() does not work element by element"),
    "matrix product": ("def f(x) = x @ x\nd f / d x = 1\ny = f([1.0])", "argument", 1, 14,
                       "'@' does not work element by element"),
    "list in a formula": ("def f(x) = x * [1.0, 2.0]\nd f / d x = 1\ny = f(1.0)", "argument", 1, 16, "not lists"),
    "shadowing a function": ("def exp(x) = x\nd exp / d x = 1\ny = exp(1.0)", "name", 1, 5, "already a function"),
    "assigning to the op's name": ("def f(x) = x\nd f / d x = 1\nf = 2.0", "name", 3, 1,
                                   "the name of an op this program defines"),
    "out as a parameter": ("def f(out) = out\nd f / d out = 1\ny = f(1.0)", "name", 1, 7, "'out' stands for"),
    "repeated parameter": ("def f(x, x) = x\nd f / d x = 1\ny = f(1.0, 2.0)", "name", 1, 10, "listed twice"),
    "wrong number of arguments": ("def f(x) = x\nd f / d x = 1\ny = f(1.0, 2.0)", "argument", 3, 12,
                                  "f() takes 1 argument (x) but 2 were given"),
    "only definitions": ("def f(x) = x\nd f / d x = 1", "syntax", 1, 5, "computes nothing"),
    "shapes that do not broadcast": ("def f(a, b) = a + b\nd f / d a = 1\nd f / d b = 1\ny = f([1.0, 2.0], [1.0, 2.0, "
                                     "3.0])", "shape", 4, 5, "cannot f shapes (2,) and (3,)"),
    "numeric trouble in the formula": ("def f(x) = log(x)\nd f / d x = 1 / x\nx = -1.0\ny = f(x)", "numeric", 1, 12,
                                       "numeric problem in log()"),
}


@pytest.mark.parametrize("case", list(ERRORS), ids=list(ERRORS))
def test_errors_say_what_and_where(case):
    source, kind, line, col, words = ERRORS[case]
    with pytest.raises(ExprError) as err:
        run(source)
    e = err.value
    assert (e.kind, e.line, e.col) == (kind, line, col), e.message
    assert words in e.message


# ----- limits: charged as if the formula were written out at every call ------------------------------------

def test_definitions_that_double_at_every_level_hit_the_node_limit_before_anything_runs():
    lines = ["def f0(x) = x * x", "d f0 / d x = 2 * x"]
    for k in range(1, 12):
        lines += [f"def f{k}(x) = f{k - 1}(f{k - 1}(x))", f"d f{k} / d x = 1"]
    lines += ["x = 0.5", "y = f11(x)"]
    with pytest.raises(ExprError) as err:
        run("\n".join(lines))
    assert err.value.kind == "limit" and "nodes" in err.value.message


def test_a_formulas_work_counts_against_the_programs_element_budget():
    source = SWISH + "x = zeros(300, 300)\ny = swish(x)"
    run(source)  # fine by default
    with pytest.raises(ExprError) as err:
        run(source, limits=Limits(max_total_elements=1_000_000))
    assert err.value.kind == "limit" and "elements" in err.value.message  # at the formula or rule that tips it


def test_definitions_count_against_the_syntax_limit_like_any_line():
    with pytest.raises(ExprError) as err:
        run(SWISH + "y = swish(0.5)", limits=Limits(max_syntax_nodes=10))
    assert err.value.kind == "limit"
