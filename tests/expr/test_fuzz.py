"""Fuzzing: whatever the text, run() gives a Program or an ExprError (never our own bug).

Two generators: arbitrary text (any Unicode, control characters included) and
"token soup" that is mostly grammar-shaped, so the fuzzer gets past the
tokenizer and exercises the parser, the checker and the evaluator.
"""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lucid import Tensor
from lucid.expr import FUNCTIONS, METHODS, ExprError, Program, run

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def outcome(source: str) -> Program | ExprError:
    try:
        return run(source)
    except ExprError as err:
        return err


def assert_well_formed(result: Program | ExprError, source: str) -> None:
    if isinstance(result, ExprError):
        assert result.kind != "internal", f"{source!r}: {result.message}"
        assert result.line >= 1 and result.col >= 1
        assert isinstance(str(result), str) and result.message in str(result)
        assert "^" in result.caret_text()
    else:
        assert isinstance(result.output, Tensor)
        assert np.all(np.isfinite(result.output.data.astype(np.float64)))
        assert all(t.requires_grad and t.is_leaf for t in result.inputs)


@FUZZ
@given(st.text(max_size=200))
def test_arbitrary_text_gives_a_program_or_an_expr_error(source):
    assert_well_formed(outcome(source), source)


@FUZZ
@given(st.text(alphabet=st.characters(min_codepoint=9, max_codepoint=126), max_size=120))
def test_arbitrary_ascii_gives_a_program_or_an_expr_error(source):
    assert_well_formed(outcome(source), source)


NAMES = ["x", "y", "W", "b"]
TOKENS = (
    NAMES + list(FUNCTIONS) + [f".{m}" for m in METHODS] + [".T"]
    + ["0", "1", "2", "3", "-1", "0.5", "1e3", "1e308", "3.", ".5", "True", "False", "None"]
    + ["+", "-", "*", "/", "**", "@", "<", ">=", "==", "=", ",", ":", "...", "(", ")", "[", "]", "(", ")", "[", "]"]
    + ["axis=", "keepdims=", "axis=0", "axis=-1", "keepdims=True", "slope=", "num=", "(2, 3)", "(0, 1)", "[0, 1]",
       "[[1, 2], [3, 4]]", "randn(2, 3)", "randn(3)", "randn(3, 2)", "\n", "\n", " ", "# c\n", "x = ", "y = "]
)


@st.composite
def token_soup(draw) -> str:
    prelude = draw(st.sampled_from(["", "x = randn(2, 3)\n", "x = [1.5, -2, 3]\nW = randn(3, 2)\n",
                                    "x = 1.3\ny = -0.7\n"]))
    tokens = draw(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=25))
    return prelude + " ".join(tokens)


@FUZZ
@given(token_soup())
def test_grammar_shaped_token_soup_gives_a_program_or_an_expr_error(source):
    assert_well_formed(outcome(source), source)


OPERAND = st.sampled_from(["x", "W", "1", "2.5", "-1", "[1, 2, 3]", "randn(3)", "randn(2, 3)", "ones(3, 1)",
                           "arange(3)", "eye(3)"])


@st.composite
def expressions(draw, depth: int = 3) -> str:
    if depth == 0 or draw(st.booleans()):
        return draw(OPERAND)
    kind = draw(st.sampled_from(["binary", "call", "method", "index", "paren"]))
    inner = draw(expressions(depth - 1))
    if kind == "binary":
        op = draw(st.sampled_from(["+", "-", "*", "/", "**", "@", "<"]))
        return f"{inner} {op} {draw(expressions(depth - 1))}"
    if kind == "call":
        name = draw(st.sampled_from(sorted(n for n, s in FUNCTIONS.items() if not s.is_constructor)))
        extra = draw(st.sampled_from(["", ", axis=0", ", 1", ", " + draw(OPERAND), ", keepdims=True"]))
        return f"{name}({inner}{extra})"
    if kind == "method":
        name = draw(st.sampled_from(sorted(METHODS)))
        args = draw(st.sampled_from(["", "0", "axis=-1", "3, 1", "-1", "(1, 0)", "x"]))
        return f"({inner}).{name}({args})"
    if kind == "index":
        return f"({inner})[{draw(st.sampled_from(['0', ':, 1', '[0, 0]', '..., -1', '1:', 'None']))}]"
    return f"({inner})"


@FUZZ
@given(expressions())
def test_well_typed_looking_expressions_give_a_program_or_an_expr_error(expression):
    source = f"x = randn(3)\nW = randn(3, 3)\nout = {expression}"
    result = outcome(source)
    assert_well_formed(result, source)
    if isinstance(result, Program):  # the re-runnable function reproduces the output exactly
        np.testing.assert_array_equal(result.function()(*result.inputs).data, result.output.data)


TRICKY = ("가중치편향입력출력ᄀ\u1161αβвесаеоxyzW1_ "
          "×·⋅−÷²⁻³¹⁰ （）＝ｘµ٣\u00a0\u3000\u200b\u200d\u202e\u2066\u3164\ufe0f\u0301😀#\n=+-*/()[],.0123456789")


@FUZZ
@given(st.text(max_size=200))
def test_the_tokenizer_raises_nothing_but_expr_error_on_any_unicode(source):
    from lucid.expr.limits import DEFAULT_LIMITS
    from lucid.expr.tokens import tokenize

    try:
        tokens = tokenize(source.replace("\r\n", "\n"), DEFAULT_LIMITS)
    except ExprError as err:
        assert err.kind in ("character", "syntax", "name", "limit"), err.message
        assert "^" in err.caret_text()
    else:
        assert tokens[-1].kind == "end"


@FUZZ
@given(st.text(alphabet=TRICKY, max_size=80))
def test_mixed_script_text_gives_a_program_or_an_error_whose_caret_shows_no_invisible_character(source):
    result = outcome(source)
    assert_well_formed(result, source)
    if isinstance(result, ExprError):
        text, caret = result.caret_text().split("\n")
        assert not any(ch in text for ch in "\u200b\u200d\u202e\u2066\u3164\ufe0f\u00a0")
        assert set(caret) <= {" ", "\t", "^"}
    else:
        for name in result.variables:
            assert name.isidentifier() and not name.startswith("_")
