"""Explanations in the student's own names: never a registry name mapped onto a program name, never circular.

Programs below use the names ``a``, ``b``, ``out``, ``x``, ``y`` in every role (inputs of
+, -, *, /, **, @, unary ops; the output; intermediates; rebinding ``a = b * a``; ``x*x``).
For every step of every program:

- no text maps one name to another ("a is b", "here out is out");
- every ∂n/∂p and every ``grad z`` names tensors of the program, with n ≠ p;
- the chain rule ``grad p += …`` never has ``grad p`` on its right side;
- the local rule is written for the right tensors (``∂node/∂parent``), and for scalars
  the substituted formula, evaluated, gives the trace's local derivative;
- the arithmetic line's numbers are the trace's: upstream × local = contribution.
"""
from __future__ import annotations

import ast
import math
import operator
import re

import numpy as np
import pytest

from lucid import Tensor
from lucid.autograd import backward_trace
from lucid.expr import run
from lucid.viz import explain, format_number, to_dot
from lucid.viz.graph.naming import display_names

PROGRAMS = {
    "b-minus-a": "a = 2.0\nb = -3.0\nout = b - a\n",
    "a-minus-b": "a = 2.0\nb = -3.0\nout = a - b\n",
    "default-example": "a = 1.3\nb = -0.7\nc = 0.45\nout = tanh(a*b + c**2) * sigmoid(a - c) + log(b*b + 1)\n",
    "rebinding": "a = 2.0\nb = -3.0\na = b * a\nb = a - b\nout = -b + a / b\n",
    "x-times-x": "x = 3.0\ny = x * x\n",
    "division-both-ways": "x = 1.5\ny = -0.8\nout = x / y + y / x\n",
    "powers-both-ways": "a = 1.7\nb = 0.6\nout = a ** b + b ** a\n",
    "names-as-intermediates": "x = 0.4\nout = 1.2\na = x * out\nb = a - out\ny = b / a\n",
    "unary-ops": ("a = 0.7\nb = -a\n"
                  "y = exp(b) + sqrt(a) + sin(a) * cos(b) + tanh(b) + sigmoid(a) + softplus(b) + abs(b)\n"),
    "relu-and-max": "x = -0.5\ny = 1.5\nout = relu(x) + relu(y) + maximum(x, y) * minimum(y, x)\n",
    "matmul-a-b": "a = [[1.0, -2.0], [0.5, 3.0]]\nb = [[0.2, 0.4, -1.0], [1.5, -0.3, 0.7]]\nout = sum(b.T @ a.T)\n",
    "matmul-out-named-y": "x = [0.5, -1.0]\ny = [[2.0, 1.0], [-1.0, 0.5]]\nout = sum((x @ y) * (y @ x))\n",
    "broadcast-a-b": "a = [[1.0, 2.0], [3.0, -4.0]]\nb = [0.5, -1.5]\nout = sum((a + b) * (b - a))\n",
    "reductions": "x = [[1.0, -2.0, 3.0], [0.5, 1.5, -1.0]]\ny = mean(x, axis=0)\nout = sum(y * y) + x.max()\n",
}

NAME_MAPPING = re.compile(r"\(here\b|\bin the formula\b")  # the old "(here out is c, a is a, b is b)"
# a name ends at "[": a tensor step's headline indexes one entry (grad W[0,1], ∂h/∂t4[2,1])
DERIVATIVE = re.compile(r"∂([^\s/()·,;:\[]+)/∂([^\s/()·,;:=\[]+)")
GRAD = re.compile(r"(?<![.\w])grad ([^\s()·,;:=+\[]+)")
SUBSCRIPT_INDEX = re.compile(r"[ᵢⱼₖ]+$")


def traces():
    for key, source in PROGRAMS.items():
        program = run(source, seed=1)
        yield key, backward_trace(program.output)


def every_step():
    for key, trace in traces():
        for step in range(len(trace.steps)):
            yield pytest.param(trace, step, id=f"{key}-{step}")


@pytest.mark.parametrize("trace, step", every_step())
def test_no_name_is_mapped_onto_another_and_nothing_is_circular(trace, step):
    e = explain(trace, step)
    names = set(display_names(trace.order, trace.root))
    for text in (e.text, e.title):
        for n1 in names:
            for n2 in names:
                assert not re.search(rf"(?<![\w₀-₉]){re.escape(n1)} is {re.escape(n2)}(?![\w₀-₉])", text), \
                    (n1, n2, text)
        assert not NAME_MAPPING.search(text), text
        assert "∂L" not in text and "∂out/∂out" not in text
        for top, bottom in DERIVATIVE.findall(text):
            bottom = SUBSCRIPT_INDEX.sub("", bottom)
            assert top in names and bottom in names, (top, bottom, text)
            assert top != bottom, text
        for z in GRAD.findall(text):
            assert SUBSCRIPT_INDEX.sub("", z.rstrip(".")) in names, (z, text)
    if step == 0:
        return
    s = trace.steps[step]
    lhs, _, rhs = e.equation.partition(" += ")
    assert lhs == f"grad {e.parent}"
    assert lhs not in GRAD.sub(lambda m: f"grad {m.group(1)}", rhs).split(" · ") and \
        f"grad {e.parent} " not in rhs + " ", e.equation
    if s.local is not None:
        assert rhs == f"grad {e.node} · ∂{e.node}/∂{e.parent}"
        assert e.formula.startswith(f"∂{e.node}/∂{e.parent}")


_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
        ast.Pow: operator.pow, ast.USub: operator.neg, ast.UAdd: operator.pos}
_FUNCS = {"ln": math.log, "sin": math.sin, "cos": math.cos, "tanh": math.tanh, "sqrt": math.sqrt,
          "σ": lambda v: 1 / (1 + math.exp(-v)), "sigma": lambda v: 1 / (1 + math.exp(-v))}


def evaluate(formula: str) -> float:
    """The value of a substituted numeric formula (``1/(2√2.000)``, ``0.7006·(1 − 0.7006)``): arithmetic only."""
    text = (formula.replace("·", "*").replace("−", "-").replace("^", "**").replace("²", "**2")
            .replace("σ", "sigma"))
    text = re.sub(r"√(\d[\d.]*|\([^()]*\))", r"sqrt(\1)", text)
    tree = ast.parse(text, mode="eval")

    def walk(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return float(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](walk(node.operand))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS:
            return _FUNCS[node.func.id](*[walk(a) for a in node.args])
        raise ValueError(f"not plain arithmetic: {ast.dump(node)}")

    return walk(tree)


LOCAL_LINE = re.compile(r"^Local derivative \(the rule of [^)]*\): (.*)$", re.M)


def check_local_rule(trace, step) -> int:
    """Check a scalar step's local rule line; return how many numeric forms were evaluated."""
    s = trace.steps[step]
    if step == 0 or s.local is None or np.size(s.local) != 1 or np.size(s.upstream) != 1:
        return 0
    e = explain(trace, step)
    match = LOCAL_LINE.search(e.text)
    assert match, e.text
    parts = match.group(1).split(" = ")
    assert parts[0] == f"∂{e.node}/∂{e.parent}"
    local = float(np.asarray(s.local).reshape(-1)[0])
    assert parts[-1].strip("()") == format_number(local)
    if any(word in match.group(1) for word in (" if ", " where ", "sign(")):
        return 0  # a case rule: its condition is in words
    evaluated = 0
    for part in parts[1:-1]:
        try:
            value = evaluate(part)
        except (ValueError, SyntaxError, TypeError):
            continue  # a symbolic part (names, not numbers)
        # the numbers shown are rounded to 4 significant digits, so the value holds to about 1e-3
        assert value == pytest.approx(local, rel=3e-3, abs=3e-3), (part, local, e.text)
        evaluated += 1
    return evaluated


@pytest.mark.parametrize("trace, step", every_step())
def test_scalar_local_rules_evaluate_to_the_traced_local_derivative(trace, step):
    check_local_rule(trace, step)


def test_substituted_numeric_rules_are_actually_checked():
    checked = sum(check_local_rule(trace, step) for _, trace in traces() for step in range(len(trace.steps)))
    assert checked >= 20


@pytest.mark.parametrize("trace, step", every_step())
def test_the_arithmetic_line_is_upstream_times_local_then_the_total(trace, step):
    s = trace.steps[step]
    e = explain(trace, step)
    assert e.text.startswith(e.arithmetic + "\n\n")
    if step == 0 or s.local is None or np.size(s.contribution_raw) != 1:
        return
    up, local, product = (float(np.asarray(a).reshape(-1)[0]) for a in (s.upstream, s.local, s.contribution_raw))
    numbers = re.findall(r"\(?(-?[\d.]+(?:e-?\d+)?)\)?", e.arithmetic.replace("−", "-").split(" = ", 1)[1])
    assert [float(v) for v in numbers[:3]] == pytest.approx([up, local, up * local], rel=6e-4)
    assert product == pytest.approx(up * local, rel=1e-12)
    total = float(np.asarray(s.accumulated).reshape(-1)[0])
    assert e.arithmetic.endswith(format_number(total))


def test_b_minus_a_reads_correctly_for_a_student_who_named_things_a_b_out():
    program = run(PROGRAMS["b-minus-a"])
    trace = backward_trace(program.output)
    into_b, into_a = explain(trace, 1), explain(trace, 2)
    assert into_b.parent == "b" and into_a.parent == "a"
    assert into_b.formula == "∂out/∂b = 1" and into_a.formula == "∂out/∂a = −1"
    assert "out = b − a, b is its left operand" in into_b.text
    assert into_a.arithmetic == "grad out · ∂out/∂a = 1.000 · (−1.000) = −1.000  ⇒  grad a = −1.000"


def test_the_default_example_substitutes_names_and_numbers():
    program = run(PROGRAMS["default-example"])
    trace = backward_trace(program.output)
    texts = [explain(trace, s).text for s in range(len(trace.steps))]
    log_step = next(t for t in texts if "through log" in t)
    assert "Local derivative (the rule of log): ∂t14/∂t13 = 1/t13 = 1/1.490 = 0.6711" in log_step
    assert "t13 (= b*b + 1)" in log_step  # an unnamed node says what it stands for
    tanh_step = next(t for t in texts if "through tanh" in t)
    assert "∂t7/∂t6 = 1 − tanh²(t6) = 1 − t7² = 1 − (−0.6091)² = 0.6290" in tanh_step
    assert "t6 (= a*b + c**2)" in tanh_step
    assert not any(" is b" in t or " is a," in t for t in texts)


def test_rebound_names_get_subscripts_in_the_graph_and_the_explanation():
    program = run(PROGRAMS["rebinding"])
    trace = backward_trace(program.output)
    assert display_names(trace.order, trace.root) == ["b₁", "a₁", "a₂", "b₂", "t4", "t5", "out"]
    source = to_dot(trace.root, trace, 1).source
    for label in ("a₁", "a₂", "b₁", "b₂"):
        assert f"<B>{label}</B>" in source
    seed = explain(trace, 0).text
    assert "a₁ and a₂ (both a)" in seed and "b₁ and b₂ (both b)" in seed
    step = explain(trace, len(trace.steps) - 1)
    assert step.equation == "grad a₁ += grad a₂ · ∂a₂/∂a₁" and step.formula == "∂a₂/∂a₁ = b₁"


def test_unary_minus_and_subtraction_are_drawn_and_explained_differently():
    program = run("a = 2.0\nb = 0.5\nout = -a - b\n")
    trace = backward_trace(program.output)
    source = to_dot(trace.root, trace).source
    assert ">neg>" in source.replace("<neg>", ">neg>") and "label=<−>" in source
    texts = [explain(trace, s).text for s in range(1, len(trace.steps))]
    neg = next(t for t in texts if "through neg" in t)
    sub = next(t for t in texts if "through −" in t)
    assert "neg is unary minus" in neg and "− is subtraction, two inputs" in sub


def test_non_commutative_edges_are_marked_by_position_not_by_registry_names():
    program = run(PROGRAMS["b-minus-a"])
    source = to_dot(program.output).source
    assert "headlabel=<<FONT POINT-SIZE=\"9\" COLOR=\"#555555\">1st</FONT>>" in source
    assert ">a</FONT>" not in source and ">b</FONT>" not in source


def test_html_escapes_user_names_and_has_no_script():
    x = Tensor(2.0, requires_grad=True, name="<script>alert('x')</script>")
    y = Tensor(-1.5, requires_grad=True, name='a&b"c')
    out = x * y
    out.name = "<b onmouseover=alert(1)>"
    trace = backward_trace(out)
    for step in range(len(trace.steps)):
        h = explain(trace, step).html
        assert h.startswith('<div class="lgl-explain"><div class="lgl-arith">') and h.endswith("</div>")
        assert "<script" not in h and "onmouseover=" not in h.replace("onmouseover=alert(1)&gt;", "")
        assert "<b " not in h and "a&b" not in h and 'b"c' not in h
    h = explain(trace, 1).html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in h
    assert "a&amp;b&quot;c" in h
    assert "&lt;b onmouseover=alert(1)&gt;" in h


def test_html_draws_small_tensors_as_heatmaps_with_numbers_and_sign_classes():
    program = run("x = [[-1.5, 0.0], [0.3, 2.0]]\ny = relu(x)\nout = sum(y * y)\n")
    trace = backward_trace(program.output)
    e = explain(trace, len(trace.steps) - 1)  # the gradient through relu into x
    assert "Here the local derivative is a mask: 1 where x > 0 (the gradient passes)" in e.text
    assert '<table class="lgl-heat">' in e.html
    cells = re.findall(r'<td class="lgl-(\w+)" style="background:(#[0-9A-F]{6});color:#111111">([^<]*)</td>',
                       e.html)
    mask = [c for c in cells[4:8]]  # upstream first, then the local derivative (the mask)
    assert [(kind, text) for kind, _, text in mask] == [("zero", "0"), ("zero", "0"), ("pos", "1.000"),
                                                        ("pos", "1.000")]
    big = run("x = randn(9, 9)\nout = sum(x * x)\n")
    e = explain(backward_trace(big.output), 1)
    assert '<pre class="lgl-values">shape 9×9: min' in e.html and "lgl-heat" not in e.html
