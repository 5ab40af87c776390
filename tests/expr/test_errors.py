"""Every kind of mistake gives an ExprError with the message, line and column a person needs."""
from __future__ import annotations

import pickle

import pytest

from lucid.expr import ExprError, Limits, run

# (source, message, line, col, kind)
ERRORS = [
    # ----- syntax -----------------------------------------------------------------------
    ("x = 1\ny = x +", "unexpected end of line: expected a value (a number, a name, a call or '(')", 2, 8, "syntax"),
    ("x = (1 + 2", "'(' was never closed", 1, 5, "syntax"),
    ("x = 1 + 2)", "unmatched ')'", 1, 10, "syntax"),
    ("x = [1, 2)", "')' does not match '['", 1, 10, "syntax"),
    ("x = 2 < 3 < 4", "chained comparisons (a < b < c) are not supported", 1, 11, "syntax"),
    ("1 = x", "can only assign to a plain name, like x = ...", 1, 3, "syntax"),
    ("x = y = 1", "chained assignment (a = b = ...) is not supported", 1, 7, "syntax"),
    ("x = 1; y = 2", "';' is not allowed: write one statement per line", 1, 6, "syntax"),
    ("a, b = 1, 2", "unexpected ',': tuples and unpacking are not supported", 1, 2, "syntax"),
    ("x = 1\nx\ny = 2", "only the last line may be a bare expression; give this value a name, like y = ...", 2, 1,
     "syntax"),
    ("", "the program is empty: write an expression, like tanh(0.5)", 1, 1, "syntax"),
    ("  \n# nothing\n", "the program is empty: write an expression, like tanh(0.5)", 1, 1, "syntax"),
    ("True = 1", "cannot assign to True", 1, 1, "syntax"),
    ("x = 0x1F", "invalid number '0x1F': write plain decimal numbers such as 3, 0.5 or 1e-3", 1, 5, "syntax"),
    ("x = 1.2.3", "invalid number '1.2.3': write plain decimal numbers such as 3, 0.5 or 1e-3", 1, 5, "syntax"),
    ("x = 'a'", "strings are not allowed", 1, 5, "syntax"),
    ("x = 1 // 2", "floor division '//' is not supported; use '/'", 1, 7, "syntax"),
    ("x = 1\nx += 1", "augmented assignment '+=' is not supported; write name = name + ...", 2, 3, "syntax"),
    ("y = (x := 1)", "the walrus operator ':=' is not allowed; assign on its own line with '='", 1, 8, "syntax"),
    ("f = lambda: 1", "lambda is not allowed", 1, 5, "syntax"),
    ("import os", "imports are not allowed", 1, 1, "syntax"),
    ("x = [1, 2]\nx[0] = 5", "can only assign to a plain name, like x = ...", 2, 6, "syntax"),
    ("exp(1)(2)", "only named functions can be called, like tanh(x)", 1, 7, "syntax"),
    ("x = 1\nsum(*x)", "argument unpacking with '*' or '**' is not allowed", 2, 5, "syntax"),
    ("...", "'...' is only allowed inside an index, like x[..., 0]", 1, 1, "syntax"),
    ("x = randn(3)\nx[]", "empty index: write x[0], x[:, 1] or x[[0, 2]]", 2, 2, "syntax"),
    # ----- characters ---------------------------------------------------------------------
    ("\uff58 = 1", "character '\uff58' (U+FF58 FULLWIDTH LATIN SMALL LETTER X) is a variant of 'x': type 'x' "
     "instead (names are compared after Unicode NFKC normalisation, so both would be one name)", 1, 1, "character"),
    ("x = 1\ny = x\x00", "character (U+0000) is not allowed: only ordinary spaces, tabs and new lines may separate "
     "code", 2, 6, "character"),
    ("x = 1 # caf\u00e9\u202e", "character (U+202E RIGHT-TO-LEFT OVERRIDE) is not allowed: it changes the order in "
     "which text is displayed, so the program would not read as it runs", 1, 13, "character"),
    # ----- names --------------------------------------------------------------------------
    ("tanhh(1)", "unknown function 'tanhh'; did you mean 'tanh'?", 1, 1, "name"),
    ("x = 1\ny = xx + 1", "name 'xx' is not defined; did you mean 'x'?", 2, 5, "name"),
    ("x = 3\nx = qqq", "name 'qqq' is not defined", 2, 5, "name"),
    ("x = 1\nx.summ()", "unknown method '.summ()'; did you mean '.sum()'?", 2, 3, "name"),
    ("x = randn(2)\nx.shape", "unknown attribute '.shape' (the only attribute is .T); did you mean '.reshape()'?",
     2, 3, "name"),
    ("x = 1\nx.T()", "'.T' is not a method: write x.T without parentheses", 2, 3, "name"),
    ("x = randn(2)\nx.sum", "'.sum' is a method: call it, like x.sum()", 2, 3, "name"),
    ("x = tanh", "'tanh' is a function: call it, like tanh(x)", 1, 5, "name"),
    ("exp = 3", "'exp' is the name of a function; choose another name for the variable", 1, 1, "name"),
    ("x = 1\nx(2)", "'x' is a variable, not a function", 2, 1, "name"),
    ("x = 1\nx.__class__", "names starting with '_' are not allowed ('__class__')", 2, 3, "name"),
    # ----- shapes -------------------------------------------------------------------------
    ("x = randn(3, 4)\ny = randn(2)\nz = x + y",
     "cannot add shapes (3, 4) and (2,): sizes 2 and 4 do not match (sizes must be equal or 1)", 3, 7, "shape"),
    ("randn(3, 4) * randn(2, 1, 4) - randn(5)",
     "cannot subtract shapes (2, 3, 4) and (5,): sizes 4 and 5 do not match (sizes must be equal or 1)", 1, 30,
     "shape"),
    ("randn(3, 4) @ randn(3, 2)", "cannot matmul shapes (3, 4) and (3, 2): inner sizes 4 and 3 differ", 1, 13, "shape"),
    ("randn(2) @ 3", "cannot matmul shapes (2,) and (): '@' needs at least 1-D operands; use '*' for scalars", 1, 10,
     "shape"),
    ("x = randn(3)\nx.sum(axis=1)", "sum: axis 1 is out of range for shape (3,) (1 dimension)", 2, 3, "shape"),
    ("x = randn(6)\nx.reshape(4, 2)", "cannot reshape shape (6,) (6 elements) into (4, 2) (8 elements)", 2, 3,
     "shape"),
    ("x = randn(3)\nx[3]", "bad index for shape (3,): index 3 is out of bounds for axis 0 with size 3", 2, 2, "shape"),
    ("x = randn(2, 3)\nx.transpose(0, 0)",
     "transpose: axes (0, 0) are not a permutation of the axes of shape (2, 3)", 2, 3, "shape"),
    ("squeeze(randn(2, 3), 0)", "squeeze: axis 0 of shape (2, 3) has size 2, not 1", 1, 1, "shape"),
    ("concatenate([randn(2), randn(2, 1)])", "cannot concatenate shapes (2,) and (2, 1) along axis 0", 1, 1, "shape"),
    ("stack([randn(2), randn(3)])", "cannot stack shapes (2,) and (3,): they must be equal", 1, 1, "shape"),
    ("softmax(1.5, axis=1)", "softmax: axis 1 is out of range for shape () (0 dimensions) "
     "(a 0-d tensor accepts axis=None, 0 or -1)", 1, 1, "shape"),
    ("cross_entropy(randn(3, 4), [0, 1])",
     "cross_entropy got 3 row(s) of logits (3, 4) but 2 target(s) of shape (2,)", 1, 1, "shape"),
    ("[[1, 2], [3]]", "the rows of a list literal must have the same shape: (2,) and (1,)", 1, 10, "shape"),
    ("x = randn(3)\nx[2:1]", "indexing [...] would make an empty tensor of shape (0,); empty tensors are not supported",
     2, 2, "shape"),
    # ----- arguments ----------------------------------------------------------------------
    ("tanh(1, 2)", "tanh() takes 1 argument (x) but 2 were given", 1, 9, "argument"),
    ("tanh()", "tanh() is missing its argument 'x' (usage: tanh(x))", 1, 1, "argument"),
    ("sum(axes=0)", "sum() has no option 'axes'; did you mean 'axis'? (options: axis, keepdims)", 1, 5, "argument"),
    ("randn(3).sum(ax=0)", ".sum() has no option 'ax'; did you mean 'axis'? (options: axis, keepdims)", 1, 14,
     "argument"),
    ("sum(x=1)", "sum(): pass 'x' by position, not as a keyword", 1, 5, "argument"),
    ("sum(randn(2), axis=0, 1)", "positional argument after a keyword argument", 1, 23, "argument"),
    ("sum(randn(2), axis=0, axis=1)", "keyword argument 'axis' is given twice", 1, 23, "argument"),
    ("sum(randn(2), keepdims=1)", "sum() keepdims must be True or False", 1, 24, "argument"),
    ("max(randn(2), randn(2))", "max() axis must be an integer literal like 0, a tuple like (0, 1), or None; for the "
     "elementwise maximum of two tensors use maximum(a, b)", 1, 15, "argument"),
    ("randn(2.5)", "randn() shape must be a whole number, not 2.5", 1, 7, "argument"),
    ("zeros(2 * 3)", "zeros() shape must be whole-number literals, like 3 or (2, 3)", 1, 9, "argument"),
    ("randn(-1)", "randn: sizes must not be negative, not (-1,)", 1, 1, "argument"),
    ("arange(0, 1, 0)", "arange: step must not be 0", 1, 1, "argument"),
    ("x = randn(3)\ny = 0\nx[y]", "indices must be literals: x[0], x[1:3], x[:, 0] or x[[0, 2]]; computed or tensor "
     "indices are not supported", 3, 3, "argument"),
    ("x = randn(3)\nx[::0]", "a slice step cannot be zero", 2, 5, "argument"),
    ("x = randn(3)\nx[1.5]", "an index must be a whole number, not 1.5", 2, 3, "argument"),
    ("[]", "empty lists are not allowed", 1, 1, "argument"),
    ("[randn(2), 1]", "list literals may contain only numbers (to combine tensors use stack([a, b]))", 1, 2,
     "argument"),
    ("x = (1, 2)", "tuples like (2, 3) are only allowed as shape or axis arguments", 1, 5, "argument"),
    ("x = True", "True can only be an option value, like keepdims=True or axis=None", 1, 5, "argument"),
    ("x = randn(2) > 0\nx + 1", "'+': comparison results (True/False) can only be used as the condition of "
     "where(...), like where(x > 0, x, 0)", 2, 3, "argument"),
    ("cross_entropy(randn(3, 4), [0, 1, 4])", "cross_entropy targets must be class indices in 0..3", 1, 1,
     "argument"),
    ("x = [0, 1]\ncross_entropy(randn(2, 2), x)", "cross_entropy(): targets must be constant class indices; write "
     "them inline, like cross_entropy(z, [0, 2]), or wrap them in const(...)", 2, 28, "argument"),
    ("x = 1e400", "the number 1e400 is too large for float64", 1, 5, "argument"),
    # ----- numeric problems during evaluation -----------------------------------------------
    ("x = 1\nlog(x - 1)", "numeric problem in log(): log of 0 is minus infinity", 2, 1, "numeric"),
    ("x = -1\ny = 2 * log(x)", "numeric problem in log(): the result is not a number (NaN) (log of a negative "
     "number?)", 2, 9, "numeric"),
    ("sqrt(-4)", "numeric problem in sqrt(): the result is not a number (NaN) (square root of a negative number?)", 1,
     1, "numeric"),
    ("[1, 0] / [0, 0]", "numeric problem in '/': division by zero", 1, 8, "numeric"),
    ("x = [1, -1]\nx ** 0.5", "numeric problem in '**': the result is not a number (NaN) (a negative number to a "
     "fractional power, or 0 to a negative power?)", 2, 3, "numeric"),
    ("exp(800)", "numeric problem in exp(): the result is too large for float64 (overflow)", 1, 1, "numeric"),
    ("x = 1e300\nx.pow(2)", "numeric problem in .pow(): the result is too large for float64 (overflow)", 2, 3,
     "numeric"),
    # ----- limits ---------------------------------------------------------------------------
    ("9**9**9", "the exponent 387420489 is too large (the limit is 1000)", 1, 2, "limit"),
    ("2**5000", "the exponent 5000 is too large (the limit is 1000)", 1, 2, "limit"),
    ("randn(100000, 1) + randn(1, 100000)", "'+' would make a tensor of shape (100000, 100000) with "
     "10,000,000,000 elements (the limit is 1,000,000)", 1, 18, "limit"),
    ("randn(100000, 100000)", "randn() would make a tensor of shape (100000, 100000) with 10,000,000,000 elements "
     "(the limit is 1,000,000)", 1, 1, "limit"),
    ("x = randn(1000, 1000)\ny = x @ x", "'@': the matrix products would need more than 50,000,000 multiply-adds", 2,
     7, "limit"),
    ("(" * 70 + "1" + ")" * 70, "the expression is nested too deeply (more than 64 levels)", 1, 65, "limit"),
]


@pytest.mark.parametrize(("source", "message", "line", "col", "kind"), ERRORS,
                         ids=[f"{i}-{e[4]}" for i, e in enumerate(ERRORS)])
def test_error_message_and_position(source, message, line, col, kind):
    with pytest.raises(ExprError) as info:
        run(source)
    err = info.value
    assert (err.message, err.line, err.col, err.kind) == (message, line, col, kind)


def test_str_shows_message_position_line_and_a_caret_under_the_spot():
    with pytest.raises(ExprError) as info:
        run("x = 1.5\ny = 1 + tanhh(x)")
    assert str(info.value) == ("unknown function 'tanhh'; did you mean 'tanh'? (line 2, column 9)\n"
                               "y = 1 + tanhh(x)\n"
                               "        ^^^^^")
    assert info.value.caret_text() == "y = 1 + tanhh(x)\n        ^^^^^"


def test_caret_follows_tabs_in_the_line():
    with pytest.raises(ExprError) as info:
        run("x = 1\n\ty =\tx.foo")
    assert (info.value.line, info.value.col) == (2, 8)
    assert info.value.caret_text() == "\ty =\tx.foo\n\t   \t  ^^^"


def test_caret_line_replaces_characters_that_cannot_be_shown():
    with pytest.raises(ExprError) as info:
        run("x = 1 +\x00 2")
    assert info.value.caret_text() == "x = 1 +\ufffd 2\n       ^"


def test_long_lines_are_cut_to_a_window_around_the_spot():
    source = "x = [" + ", ".join(["1"] * 40) + ", qq, " + ", ".join(["1"] * 40) + "]"
    with pytest.raises(ExprError) as info:
        run(source)
    text, caret = info.value.caret_text().split("\n")
    assert text.startswith("...") and text.endswith("...")
    assert len(text) <= 80
    assert text[caret.index("^"):caret.index("^") + 2] == "qq"


def test_error_fields_survive_pickling():
    with pytest.raises(ExprError) as info:
        run("x = 1\nx +")
    copy = pickle.loads(pickle.dumps(info.value))
    assert (copy.message, copy.line, copy.col, copy.kind) == (info.value.message, 2, 4, "syntax")


@pytest.mark.parametrize(("source", "seed"), [(b"x = 1", 0), (None, 0), ("x = 1", -1), ("x = 1", 1.5)])
def test_bad_arguments_to_run_are_expr_errors_too(source, seed):
    with pytest.raises(ExprError) as info:
        run(source, seed=seed)
    assert info.value.kind == "argument"


@pytest.mark.parametrize(("limits", "source", "message"), [
    (Limits(max_source_chars=10), "x = 1 + 2 + 3", "the program is too long: 13 characters (the limit is 10)"),
    (Limits(max_lines=2), "x = 1\ny = 2\nz = 3", "the program has too many lines: 3 (the limit is 2)"),
    (Limits(max_syntax_nodes=5), "x = [1, 2, 3, 4, 5, 6]", "the program is too large: more than 5 syntax elements"),
    (Limits(max_depth=3), "x = tanh(tanh(tanh(1)))", "the expression is nested too deeply (more than 3 levels)"),
    (Limits(max_tensor_elements=10), "zeros(3, 4)", "zeros() would make a tensor of shape (3, 4) with 12 elements "
     "(the limit is 10)"),
    (Limits(max_total_elements=10), "x = zeros(3, 3)\ny = x * 2", "the program's tensors would hold more than 10 "
     "elements in total"),
    (Limits(max_graph_nodes=3), "x = 1\ny = x * 2 + 1", "the graph would have more than 3 nodes"),
    (Limits(max_matmul_work=10), "ones(2, 3) @ ones(3, 2)", "'@': the matrix products would need more than 10 "
     "multiply-adds"),
    (Limits(max_exponent=3), "x = 2\nx ** 4", "the exponent 4 is too large (the limit is 3)"),
    (Limits(max_exponent=3), "x = 2\ny = 4\nx ** y", "the exponent 4 is too large (the limit is 3)"),
    (Limits(max_exponent=3), "x = 2\nx ** (2 * 2)", "the exponent 4 is too large (the limit is 3)"),
])
def test_each_limit_is_enforced_with_a_message(limits, source, message):
    with pytest.raises(ExprError) as info:
        run(source, limits=limits)
    assert info.value.message == message
    assert info.value.kind == "limit"


def test_programs_within_the_limits_run():
    # x: 9, the constant 2: 1, x * 2: 9 plus the 9 + 1 gradient elements sent back to its inputs
    program = run("x = zeros(3, 3)\ny = x * 2", limits=Limits(max_total_elements=29))
    assert program.output.shape == (3, 3)


def test_overlong_names_are_refused_at_the_name():
    with pytest.raises(ExprError) as info:
        run("x = 1\ny = " + "a" * 65)
    assert (info.value.message, info.value.line, info.value.col) == ("names can be at most 64 characters long", 2, 5)
    assert run("a" * 64 + " = 2.0").variables["a" * 64].item() == 2.0


def test_a_comparison_cannot_be_the_output_but_can_be_named_for_where():
    with pytest.raises(ExprError) as info:
        run("x = [1.0, -1.0]\nx > 0")
    assert info.value.message == ("the output is a comparison (True/False values), which has no gradient; use it as "
                                  "the condition of where(...)")
    assert (info.value.line, info.value.col) == (2, 1)
    program = run("x = [1.0, -1.0]\nm = x > 0\nwhere(m, x, 0)")
    assert program.output.data.tolist() == [1.0, 0.0]
