"""The expression language: what programs mean, as a specification.

Expected numbers are computed independently with NumPy/math from the same
inputs, never copied from a run.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import lucid
from lucid import REGISTRY
from lucid.autograd import gradcheck
from lucid.expr import ATTRIBUTES, BINARY_OPERATORS, FUNCTIONS, METHODS, ExprError, Program, run


def value(source: str, **kw) -> np.ndarray:
    return run(source, **kw).output.data


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# ----- the two examples of the issue -----------------------------------------------------
def test_scalar_example_computes_the_formula_and_names_its_leaves():
    program = run("a = 1.3\nb = -0.7\nc = 0.45\nout = tanh(a*b + c**2) * sigmoid(a - c) + log(b*b + 1)")
    a, b, c = 1.3, -0.7, 0.45
    expected = math.tanh(a * b + c ** 2) * sigmoid(a - c) + math.log(b * b + 1)
    assert program.output.item() == pytest.approx(expected, rel=1e-12)
    assert list(program.variables) == ["a", "b", "c", "out"]
    assert [t.name for t in program.inputs] == ["a", "b", "c"]
    assert program.output.name == "out"
    assert program.variables["b"].item() == -0.7


def test_scalar_example_backward_matches_hand_derivatives():
    program = run("a = 1.3\nb = -0.7\nout = a * b + b ** 2")
    program.output.backward()
    a, b = program.variables["a"], program.variables["b"]
    assert a.grad == pytest.approx(-0.7)
    assert b.grad == pytest.approx(1.3 + 2 * -0.7)


def test_layer_example_matches_numpy_with_the_seeded_draws():
    program = run("x = randn(4, 3)\nW = randn(3, 2)\nb = zeros(2)\nloss = ((relu(x @ W + b) - 1) ** 2).mean()",
                  seed=7)
    rng = np.random.default_rng(7)
    x, W = rng.standard_normal((4, 3)), rng.standard_normal((3, 2))
    expected = np.mean((np.maximum(x @ W, 0) - 1) ** 2)
    assert program.output.item() == pytest.approx(expected, rel=1e-12)
    np.testing.assert_array_equal(program.variables["x"].data, x)
    assert [t.name for t in program.inputs] == ["x", "W", "b"]
    assert type(program.output._op).name == "mean"


# ----- values and the leaf rule -------------------------------------------------------------
def test_assigned_number_list_and_constructor_are_leaves_that_require_grad():
    program = run("a = 1.5\nW = [[1, 2], [3, 4]]\nx = randn(3, 2)\nout = a * W.sum() + x.sum()")
    for name in ("a", "W", "x"):
        tensor = program.variables[name]
        assert tensor.requires_grad and tensor.is_leaf
    np.testing.assert_array_equal(program.variables["W"].data, [[1.0, 2.0], [3.0, 4.0]])
    assert program.variables["x"].shape == (3, 2)


def test_bare_numbers_inside_expressions_are_constants():
    program = run("x = 3.0\ny = x * 2 + x ** 2")
    assert program.output.item() == 3.0 * 2 + 9.0
    assert program.inputs == [program.variables["x"]]
    mul = program.output._prev[0]
    assert mul._prev[0] is program.variables["x"]
    assert not mul._prev[1].requires_grad and mul._prev[1].item() == 2.0


def test_list_literals_and_constructors_inside_expressions_are_unnamed_leaves():
    program = run("x = 2.0\ny = x * [1, 2] + ones(2)")
    assert [t.name for t in program.inputs] == ["x", None, None]
    np.testing.assert_array_equal(program.inputs[1].data, [1.0, 2.0])
    np.testing.assert_array_equal(program.output.data, [3.0, 5.0])


def test_const_makes_literals_and_constructors_constant():
    program = run("w = const([0.5, -1.5])\nz = const(randn(2))\nx = 2.0\nout = (x * w + z).sum()")
    assert program.inputs == [program.variables["x"]]
    assert not program.variables["w"].requires_grad
    assert not program.variables["z"].requires_grad


def test_const_of_a_computed_value_is_a_detached_copy():
    program = run("x = 3.0\ny = x * const(x)")
    program.output.backward()
    assert program.output.item() == 9.0
    assert program.variables["x"].grad == pytest.approx(3.0)  # only the left factor carries gradient


def test_negative_number_literals_fold_but_negated_powers_do_not():
    assert run("b = -0.7").inputs[0].item() == -0.7
    assert run("b = -0.7").output.is_leaf
    assert value("-2**2") == -4.0
    assert value("(-2)**2") == 4.0


def test_named_values_get_the_variable_name_and_a_rebinding_keeps_the_first():
    program = run("x = [1.0, 2.0]\ny = x\nz = y * 3")
    assert program.variables["y"] is program.variables["x"]
    assert program.variables["x"].name == "x"
    assert program.variables["z"].name == "z"
    assert list(program.variables) == ["x", "y", "z"]


def test_reassigning_a_name_points_it_at_the_new_value_in_its_first_position():
    program = run("x = 2.0\ny = 1.0\nx = x * 5")
    assert list(program.variables) == ["x", "y"]
    assert program.variables["x"].item() == 10.0
    assert program.variables["x"].name == "x"
    assert program.inputs[0].item() == 2.0 and program.inputs[0].name == "x"


def test_the_last_line_is_the_output_whether_assignment_or_expression():
    assert run("x = 2.0\ny = x + 1").output.item() == 3.0
    assert run("x = 2.0\nx * 4").output.item() == 8.0
    assert run("x = 2.0\nx * 4").output.name is None


def test_comments_blank_lines_and_indentation_are_ignored():
    program = run("# a comment\n\nx = 1.5  # trailing comment\n\n   y = x + 1\n")
    assert program.output.item() == 2.5


def test_brackets_may_span_lines():
    assert value("x = [[1, 2],\n     [3, 4]]\n(x\n + 1).sum()") == 14.0


def test_windows_line_endings_are_accepted():
    assert value("x = 2.0\r\ny = x * 3\r\n") == 6.0


# ----- precedence -----------------------------------------------------------------------------
@pytest.mark.parametrize(("source", "expected"), [
    ("-3**2", -9.0),
    ("2**3**2", 512.0),
    ("2**-1", 0.5),
    ("-2**-2", -0.25),
    ("10 - 4 - 3", 3.0),
    ("48 / 4 / 2", 6.0),
    ("2 + 3 * 4", 14.0),
    ("(2 + 3) * 4", 20.0),
    ("2 * 3 ** 2", 18.0),
    ("-(2 + 3) * 2", -10.0),
    ("--3", 3.0),
    ("+3 - -2", 5.0),
    ("1.5e1 + .5", 15.5),
])
def test_operator_precedence_follows_python(source, expected):
    assert value(source) == expected


def test_unary_minus_of_a_power_of_a_variable_is_a_negation_of_the_power():
    program = run("x = 3.0\n-x**2")
    assert program.output.item() == -9.0
    assert type(program.output._op).name == "neg"
    assert type(program.output._prev[0]._op).name == "pow"


def test_matmul_binds_like_multiplication_and_tighter_than_addition():
    program = run("A = [[1, 2], [3, 4]]\nv = [1, -1]\nA @ v + 1")
    np.testing.assert_array_equal(program.output.data, np.array([[1, 2], [3, 4]]) @ [1, -1] + 1)
    assert type(program.output._op).name == "add"


def test_comparison_binds_loosest_and_feeds_where():
    program = run("x = [1.0, -2.0, 3.0]\nwhere(x * 2 > 1 + 1, x, 0.1 * x)")
    x = np.array([1.0, -2.0, 3.0])
    np.testing.assert_allclose(program.output.data, np.where(x * 2 > 1 + 1, x, 0.1 * x))


# ----- operators, functions, methods, indexing go through the engine -----------------------------
@pytest.mark.parametrize(("op", "name"), [("+", "add"), ("-", "sub"), ("*", "mul"), ("/", "div"), ("**", "pow")])
def test_each_operator_builds_the_engine_op(op, name):
    program = run(f"a = [1.5, 2.0]\nb = [0.5, 4.0]\na {op} b")
    a, b = np.array([1.5, 2.0]), np.array([0.5, 4.0])
    expected = {"+": a + b, "-": a - b, "*": a * b, "/": a / b, "**": a ** b}[op]
    np.testing.assert_allclose(program.output.data, expected)
    assert type(program.output._op).name == name
    assert program.output._prev == [program.variables["a"], program.variables["b"]]


def test_using_a_value_twice_keeps_both_edges():
    program = run("x = 3.0\nx * x")
    assert program.output._prev == [program.variables["x"], program.variables["x"]]


@pytest.mark.parametrize(("source", "expected"), [
    ("exp(x)", np.exp([0.5, -1.0, 2.0])),
    ("log(x * x)", np.log(np.square([0.5, -1.0, 2.0]))),
    ("tanh(x)", np.tanh([0.5, -1.0, 2.0])),
    ("sigmoid(x)", sigmoid(np.array([0.5, -1.0, 2.0]))),
    ("relu(x)", [0.5, 0.0, 2.0]),
    ("abs(x)", [0.5, 1.0, 2.0]),
    ("leaky_relu(x, slope=0.25)", [0.5, -0.25, 2.0]),
    ("clip(x, -0.5, 1)", [0.5, -0.5, 1.0]),
    ("maximum(x, 0.75)", [0.75, 0.75, 2.0]),
    ("softmax(x)", np.exp([0.5, -1.0, 2.0]) / np.exp([0.5, -1.0, 2.0]).sum()),
    ("x.exp()", np.exp([0.5, -1.0, 2.0])),
    ("x.relu()", [0.5, 0.0, 2.0]),
    ("x.pow(2)", [0.25, 1.0, 4.0]),
    ("x.clip(low=0)", [0.5, 0.0, 2.0]),
])
def test_elementwise_functions_and_methods(source, expected):
    np.testing.assert_allclose(value(f"x = [0.5, -1.0, 2.0]\n{source}"), expected, rtol=1e-12)


M = np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])


@pytest.mark.parametrize(("source", "expected"), [
    ("M.sum()", M.sum()),
    ("M.sum(axis=0)", M.sum(axis=0)),
    ("M.sum(1, True)", M.sum(axis=1, keepdims=True)),
    ("sum(M, axis=(0, 1))", M.sum()),
    ("M.mean(axis=-1)", M.mean(axis=-1)),
    ("M.max(axis=0)", M.max(axis=0)),
    ("min(M, axis=1, keepdims=True)", M.min(axis=1, keepdims=True)),
    ("M.var(axis=1)", M.var(axis=1)),
    ("M.logsumexp(axis=1)", np.log(np.exp(M).sum(axis=1))),
    ("M.T", M.T),
    ("M.transpose()", M.T),
    ("M.transpose(1, 0)", M.T),
    ("M.reshape(3, 2)", M.reshape(3, 2)),
    ("M.reshape((-1,))", M.reshape(-1)),
    ("reshape(M, 1, -1)", M.reshape(1, -1)),
    ("M.swapaxes(0, 1)", M.T),
])
def test_reductions_and_shape_methods(source, expected):
    np.testing.assert_allclose(value(f"M = [[1, -2, 3], [4, 5, -6]]\n{source}"), expected, rtol=1e-12)


@pytest.mark.parametrize(("source", "shape"), [
    ("M.unsqueeze(0)", (1, 2, 3)),
    ("expand_dims(M, -1)", (2, 3, 1)),
    ("M.unsqueeze(0).squeeze()", (2, 3)),
    ("squeeze(M[None], 0)", (2, 3)),
    ("broadcast_to(M[0], (4, 3))", (4, 3)),
    ("M.broadcast_to(2, 2, 3)", (2, 2, 3)),
    ("concatenate([M, M], axis=0)", (4, 3)),
    ("stack([M, M, M], axis=1)", (2, 3, 3)),
    ("M @ M.T", (2, 2)),
    ("matmul(M.T, M)", (3, 3)),
    ("M[0] @ M.T", (2,)),
])
def test_shape_ops_give_the_shapes_numpy_gives(source, shape):
    assert value(f"M = [[1, -2, 3], [4, 5, -6]]\n{source}").shape == shape


@pytest.mark.parametrize(("index", "expected"), [
    ("0", M[0]),
    ("-1", M[-1]),
    (":, 1", M[:, 1]),
    ("1, 2", M[1, 2]),
    ("[0, 0]", M[[0, 0]]),
    ("[1, 0], [2, 2]", M[[1, 0], [2, 2]]),
    (":, ::-1", M[:, ::-1]),
    ("0, 1:", M[0, 1:]),
    ("..., 0", M[..., 0]),
    ("None, 1", M[None, 1]),
])
def test_indexing_with_literals(index, expected):
    np.testing.assert_array_equal(value(f"M = [[1, -2, 3], [4, 5, -6]]\nM[{index}]"), expected)


def test_repeated_index_accumulates_gradient_through_the_engine():
    program = run("x = [1.0, 2.0, 3.0]\ny = x[[0, 0, 2]] * [2.0, 3.0, 5.0]\ny.sum()")
    program.output.backward()
    np.testing.assert_array_equal(program.variables["x"].grad, [5.0, 0.0, 5.0])
    assert type(program.variables["y"]._prev[0]._op).name == "getitem"


def test_losses():
    pred, target = np.array([0.5, 1.5, -1.0]), np.array([1.0, 1.0, 0.0])
    assert value("mse_loss([0.5, 1.5, -1.0], [1, 1, 0])") == pytest.approx(np.mean((pred - target) ** 2))
    p = sigmoid(pred)
    bce = -np.mean(target * np.log(p) + (1 - target) * np.log(1 - p))
    assert value("binary_cross_entropy(sigmoid([0.5, 1.5, -1.0]), const([1, 1, 0]))") == pytest.approx(bce)
    z = np.array([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]])
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    ce = -np.mean([logp[0, 0], logp[1, 1]])
    program = run("z = [[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]]\ncross_entropy(z, [0, 1])")
    assert program.output.item() == pytest.approx(ce)
    assert [t.name for t in program.inputs] == ["z"]  # inline targets are class indices, not a leaf


def test_constructors_are_deterministic_per_seed():
    source = "a = randn(2, 3)\nb = rand(4)\na.sum() + b.sum()"
    first, again, other = run(source, seed=3), run(source, seed=3), run(source, seed=4)
    np.testing.assert_array_equal(first.variables["a"].data, again.variables["a"].data)
    assert first.output.item() == again.output.item()
    assert first.output.item() != other.output.item()
    rng = np.random.default_rng(3)
    np.testing.assert_array_equal(first.variables["a"].data, rng.standard_normal((2, 3)))
    np.testing.assert_array_equal(first.variables["b"].data, rng.random(4))


@pytest.mark.parametrize(("source", "expected"), [
    ("zeros(2, 3)", np.zeros((2, 3))),
    ("ones((2,))", np.ones(2)),
    ("full((2, 2), -1.5)", np.full((2, 2), -1.5)),
    ("arange(4)", np.arange(4.0)),
    ("arange(1, 2, 0.25)", np.arange(1, 2, 0.25)),
    ("linspace(0, 1, 5)", np.linspace(0, 1, 5)),
    ("linspace(-1, 1, num=3)", np.array([-1.0, 0.0, 1.0])),
    ("eye(3)", np.eye(3)),
    ("eye(2, 3)", np.eye(2, 3)),
])
def test_deterministic_constructors(source, expected):
    np.testing.assert_allclose(value(source), expected)


# ----- Program.function ------------------------------------------------------------------------
def test_function_recomputes_the_output_from_substituted_inputs():
    program = run("a = 1.3\nW = [[1, 2], [3, 4]]\nout = (tanh(W * a) @ const([0.5, -0.25])).sum() + a ** 2")
    f = program.function()
    np.testing.assert_array_equal(f(*program.inputs).data, program.output.data)
    new_a, new_w = lucid.Tensor(0.2, requires_grad=True), lucid.Tensor([[1.0, 0.0], [2.0, -1.0]], requires_grad=True)
    expected = (np.tanh(np.array([[1.0, 0.0], [2.0, -1.0]]) * 0.2) @ [0.5, -0.25]).sum() + 0.04
    assert f(new_a, new_w).item() == pytest.approx(expected, rel=1e-12)
    assert f(new_a, new_w).item() == f(new_a, new_w).item()


def test_function_keeps_random_draws_and_constants_of_the_first_run():
    program = run("x = 2.0\nout = (x * const(randn(3)) + randn(3)).sum()", seed=11)
    f = program.function()
    assert f(*program.inputs).item() == program.output.item()


def test_function_names_its_own_tensors_but_leaves_the_callers_alone():
    program = run("a = 1.5\nb = a * 2\nout = b + 1")
    mine = lucid.Tensor(0.5, requires_grad=True)
    out = program.function()(mine)
    assert mine.name is None
    assert out.name == "out" and out._prev[0].name == "b"
    assert out.item() == 2.0


def test_function_reports_numeric_trouble_at_new_inputs_as_expr_error():
    program = run("x = 2.0\nlog(x)")
    with pytest.raises(ExprError) as info:
        program.function()(lucid.Tensor(-1.0, requires_grad=True))
    assert info.value.kind == "numeric" and (info.value.line, info.value.col) == (2, 1)


def test_function_rejects_the_wrong_number_of_inputs():
    program = run("a = 1.0\nb = 2.0\na * b")
    with pytest.raises(TypeError):
        program.function()(program.inputs[0])


@pytest.mark.parametrize("source", [
    "a = 1.3\nb = -0.7\nc = 0.45\nout = tanh(a*b + c**2) * sigmoid(a - c) + log(b*b + 1)",
    "x = randn(4, 3)\nW = randn(3, 2)\nb = zeros(2)\nloss = ((tanh(x @ W + b) - 1) ** 2).mean()",
    "x = randn(3, 4)\ny = softmax(x, axis=0) * [1, 2, 3, 4]\ny.var(axis=1).sum()",
    "z = randn(4, 3)\ncross_entropy(z, [0, 2, 1, 2])",
    "x = rand(5) + 0.5\n(x[[0, 0, 3]] / x[1:4]).sum() + sqrt(x).mean()",
    "W = randn(2, 3)\nv = randn(3)\nmaximum(W @ v, W.sum(axis=1) * 0.5).logsumexp()",
    "x = randn(2, 3, 4)\n(x.transpose(-1, 0, 1) * arange(24).reshape(4, 2, 3)).sum()",
])
def test_gradcheck_passes_on_programs(source):
    program = run(source, seed=5)
    report = gradcheck(program.function(), program.inputs)
    assert report.ok, [(r.name, r.max_abs_error) for r in report.inputs]
    assert len(report.inputs) == len(program.inputs)


def test_run_builds_the_graph_even_inside_no_grad():
    with lucid.no_grad():
        program = run("x = 2.0\nx * 3")
    assert program.output._op is not None and program.output.requires_grad


def test_programs_are_independent_of_each_other():
    first = run("x = 1.0\nx * 2")
    second = run("x = 1.0\nx * 2")
    assert first.inputs[0] is not second.inputs[0]
    first.output.backward()
    assert second.inputs[0].grad is None


def test_program_keeps_its_source():
    source = "x = 1.0\nx + 1"
    assert run(source).source == source
    assert isinstance(run(source), Program)


# ----- the tables -------------------------------------------------------------------------------
def test_every_registered_engine_op_is_reachable_from_the_language():
    reachable = {spec.op for spec in FUNCTIONS.values() if spec.op} | {"getitem"}
    assert set(REGISTRY) <= reachable, sorted(set(REGISTRY) - reachable)


def test_every_op_entry_names_the_public_engine_function_it_calls():
    for name, spec in FUNCTIONS.items():
        if spec.is_constructor or name == "const":
            assert spec.engine is None
        elif name == "grad":  # not an op: the recorded backward pass (lucid.autograd.grad, create_graph=True)
            assert spec.engine is lucid.autograd.grad
        else:
            assert spec.engine is lucid.__dict__[spec.op], name


def test_operators_methods_and_attributes_map_to_table_entries():
    assert set(BINARY_OPERATORS.values()) <= set(FUNCTIONS)
    assert all(METHODS[name] is FUNCTIONS[name] for name in METHODS)
    assert ATTRIBUTES["T"] is FUNCTIONS["transpose"]


def test_function_table_documents_signatures_and_keywords():
    assert FUNCTIONS["sum"].signature() == "sum(x, axis=None, keepdims=False)"
    assert FUNCTIONS["sum"].keywords == ("axis", "keepdims")
    assert FUNCTIONS["randn"].signature() == "randn(*shape)"
    assert FUNCTIONS["tanh"].keywords == ()
    assert FUNCTIONS["randn"].is_constructor and not FUNCTIONS["tanh"].is_constructor
    assert all(spec.summary for spec in FUNCTIONS.values())


def test_expr_error_is_an_exception_with_position():
    with pytest.raises(ExprError) as info:
        run("x = 1\ny = x +")
    assert isinstance(info.value, Exception)
    assert (info.value.line, info.value.col) == (2, 8)


def test_concurrent_runs_in_threads_do_not_interfere():
    """Streamlit runs each session in its own thread: numeric error settings and seeds stay per run."""
    from concurrent.futures import ThreadPoolExecutor

    sources = ["x = randn(50, 50)\n(x @ x.T).sum()", "x = -1\nlog(x)", "x = [1.0, 2.0]\nexp(x).sum()"]

    def attempt(i: int) -> float | str:
        try:
            return run(sources[i % 3], seed=i % 2).output.item()
        except ExprError as err:
            return err.kind

    expected = [attempt(i) for i in range(6)]
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(attempt, range(60)))
    assert results == expected * 10
    assert expected[1] == "numeric" and expected[2] == pytest.approx(np.exp(1.0) + np.exp(2.0))


def test_a_literal_in_the_condition_of_where_is_a_constant_not_a_leaf():
    program = run("a = [1.5, 2.5]\nwhere([1, 0] > 0, a, -a)")
    assert program.inputs == [program.variables["a"]]
    np.testing.assert_array_equal(program.output.data, [1.5, -2.5])


# Every table entry, called from the language, against NumPy on the same numbers.
P = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
Q = np.array([[1.0, 2.0, -0.5], [0.5, -1.5, 3.0]])
PROGRAM_PREFIX = "P = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]\nQ = [[1.0, 2.0, -0.5], [0.5, -1.5, 3.0]]\n"
EVERY_FUNCTION = {
    "exp": ("exp(P)", np.exp(P)), "log": ("log(abs(P))", np.log(np.abs(P))),
    "sqrt": ("sqrt(abs(P))", np.sqrt(np.abs(P))),
    "abs": ("abs(P)", np.abs(P)), "sin": ("sin(P)", np.sin(P)), "cos": ("cos(P)", np.cos(P)),
    "tanh": ("tanh(P)", np.tanh(P)), "sigmoid": ("sigmoid(P)", sigmoid(P)), "relu": ("relu(P)", np.maximum(P, 0)),
    "softplus": ("softplus(P)", np.log1p(np.exp(P))), "neg": ("neg(P)", -P),
    "leaky_relu": ("leaky_relu(P, 0.5)", np.where(P > 0, P, 0.5 * P)), "clip": ("clip(P, high=1)", np.minimum(P, 1)),
    "add": ("add(P, Q)", P + Q), "sub": ("sub(P, Q)", P - Q), "mul": ("mul(P, Q)", P * Q),
    "div": ("div(P, Q)", P / Q), "pow": ("pow(abs(P), Q)", np.abs(P) ** Q),
    "maximum": ("maximum(P, Q)", np.maximum(P, Q)), "minimum": ("minimum(P, Q)", np.minimum(P, Q)),
    "eq": ("where(eq(P, 0.25), 1, 0)", (P == 0.25) * 1.0), "ne": ("where(ne(P, 0.25), 1, 0)", (P != 0.25) * 1.0),
    "lt": ("where(lt(P, Q), P, Q)", np.where(P < Q, P, Q)), "le": ("where(le(P, Q), P, Q)", np.where(P <= Q, P, Q)),
    "gt": ("where(gt(P, Q), P, Q)", np.where(P > Q, P, Q)), "ge": ("where(ge(P, Q), P, Q)", np.where(P >= Q, P, Q)),
    "where": ("where(P > 0, P, Q)", np.where(P > 0, P, Q)), "matmul": ("matmul(P, Q.T)", P @ Q.T),
    "sum": ("sum(P, 0)", P.sum(axis=0)), "mean": ("mean(P, axis=1)", P.mean(axis=1)), "max": ("max(P)", P.max()),
    "min": ("min(P, 1, True)", P.min(axis=1, keepdims=True)), "var": ("var(P)", P.var()),
    "logsumexp": ("logsumexp(P, axis=0)", np.log(np.exp(P).sum(axis=0))),
    "softmax": ("softmax(P, axis=0)", np.exp(P) / np.exp(P).sum(axis=0)),
    "log_softmax": ("log_softmax(P)", P - np.log(np.exp(P).sum(axis=1, keepdims=True))),
    "mse_loss": ("mse_loss(P, Q)", np.mean((P - Q) ** 2)),
    "binary_cross_entropy": ("binary_cross_entropy(sigmoid(P), const([[1, 0, 1], [0, 0, 1]]))",
                             -np.mean(np.array([[1, 0, 1], [0, 0, 1]]) * np.log(sigmoid(P))
                                      + (1 - np.array([[1, 0, 1], [0, 0, 1]])) * np.log(1 - sigmoid(P)))),
    "binary_cross_entropy_with_logits": (
        "binary_cross_entropy_with_logits(P, const([[1, 0, 1], [0, 0, 1]]))",
        -np.mean(np.array([[1, 0, 1], [0, 0, 1]]) * np.log(sigmoid(P))
                 + (1 - np.array([[1, 0, 1], [0, 0, 1]])) * np.log(1 - sigmoid(P)))),
    "cross_entropy": ("cross_entropy(P, [2, 0])",
                      -np.mean((P - np.log(np.exp(P).sum(axis=1, keepdims=True)))[[0, 1], [2, 0]])),
    "reshape": ("reshape(P, 3, 2)", P.reshape(3, 2)), "transpose": ("transpose(P)", P.T),
    "swapaxes": ("swapaxes(P, 0, 1)", P.T), "squeeze": ("squeeze(P[None])", P),
    "unsqueeze": ("unsqueeze(P, 1)", P[:, None]), "expand_dims": ("expand_dims(P, 0)", P[None]),
    "broadcast_to": ("broadcast_to(P[0], (2, 3))", np.broadcast_to(P[0], (2, 3))),
    "concatenate": ("concatenate([P, Q], axis=1)", np.concatenate([P, Q], axis=1)),
    "stack": ("stack([P, Q])", np.stack([P, Q])), "const": ("const(P) * Q", P * Q),
    "randn": ("randn(2, 3)", np.random.default_rng(0).standard_normal((2, 3))),
    "rand": ("rand(2)", np.random.default_rng(0).random(2)), "zeros": ("zeros(2)", np.zeros(2)),
    "ones": ("ones(1, 2)", np.ones((1, 2))), "full": ("full(2, 7)", np.full(2, 7.0)),
    "arange": ("arange(2, 5)", np.arange(2.0, 5.0)), "linspace": ("linspace(0, 2, 3)", np.linspace(0, 2, 3)),
    "eye": ("eye(2)", np.eye(2)),
    "grad": ("grad(sum(P * P * Q), P)", 2 * P * Q),
}


def test_the_every_function_table_covers_the_whole_language():
    assert set(EVERY_FUNCTION) == set(FUNCTIONS)


@pytest.mark.parametrize("name", sorted(EVERY_FUNCTION))
def test_every_function_computes_what_numpy_computes(name):
    source, expected = EVERY_FUNCTION[name]
    program = run(PROGRAM_PREFIX + source)
    np.testing.assert_allclose(program.output.data, expected, rtol=1e-12, atol=1e-15)
