"""The language accepts what students write in their own script, and refuses what would look alike.

Names follow Python's Unicode rules (PEP 3131), comments hold any visible text, the operators the app
prints (× · − ÷) can be pasted back; invisible, text-reordering and look-alike characters are refused
with the character's U+ code and name and the column it is in.
"""
from __future__ import annotations

import numpy as np
import pytest

from lucid.autograd import backward_trace
from lucid.expr import ExprError, run
from lucid.viz import explain, to_dot

# (program, the names it defines in order, its output value)
ACCEPTED = [
    ("가중치 = 2.0\n편향 = 0.5\n입력 = 1.5\n출력 = tanh(가중치 * 입력 + 편향)",
     ["가중치", "편향", "입력", "출력"], np.tanh(3.5)),
    ("x = 3.0  # 한국어 주석, 😀 and ∂L/∂x are fine in comments\ny = x * x", ["x", "y"], 9.0),
    ("W1_가중치 = 2.0\nb_편향 = 1.0\nW1_가중치 * b_편향", ["W1_가중치", "b_편향"], 2.0),
    ("α = 0.1\nβ = 0.9\nα + β", ["α", "β"], 1.0),
    ("вес = 2.0\nвес * 3", ["вес"], 6.0),
    ("重み = 4.0\n重み / 2", ["重み"], 2.0),
    ("café = 1.5\ncafé * 2", ["café"], 3.0),
    ("x = 6.0\ny = x × 2 − 1 ÷ 4 · x", ["x", "y"], 10.5),
    ("x = 2.0\nx⋅x", ["x"], 4.0),
    ("x = 2.0\n−x", ["x"], -2.0),
    ("y = −3.0e2  # the app prints −3.000 × 10²; e-notation with a true minus reads back", ["y"], -300.0),
    ("x = 1.0 # \u3000 ideographic and\u00a0no-break spaces in a comment", ["x"], 1.0),
    # a syllable typed as its jamo (NFD) is the same name as the composed syllable (NFC)
    ("\u1100\u1161 = 2.0\n가 * 가", ["가"], 4.0),
]


@pytest.mark.parametrize(("source", "names", "value"), ACCEPTED, ids=[s.split("\n")[0] for s, _, _ in ACCEPTED])
def test_accepted_program(source, names, value):
    program = run(source)
    assert list(program.variables) == names
    assert float(program.output.data) == pytest.approx(value)


# (program, message, line, column, kind, caret text)
REFUSED = [
    ("bаd = 1",
     "name 'bаd' mixes Latin letters with the Cyrillic 'а' (U+0430 CYRILLIC SMALL LETTER A): letters of different "
     "scripts can look identical, so write each name in one script", 1, 2, "character", "bаd = 1\n ^"),
    ("а = 1",
     "name 'а' looks like the Latin name 'a' but is written in Cyrillic letters, such as 'а' (U+0430 CYRILLIC SMALL "
     "LETTER A): type it in Latin letters", 1, 1, "character", "а = 1\n^"),
    ("x = 1\nxα = 2",
     "name 'xα' mixes Latin letters with the Greek 'α' (U+03B1 GREEK SMALL LETTER ALPHA): letters of different "
     "scripts can look identical, so write each name in one script", 2, 2, "character", "xα = 2\n ^"),
    ("가중치\u200b = 1",
     "character (U+200B ZERO WIDTH SPACE) is not allowed: it is invisible, so two programs that look the same "
     "could differ; delete it", 1, 4, "character", "가중치\ufffd = 1\n      ^"),
    ("x = 1 # 주석 \u202e )x(hnat",
     "character (U+202E RIGHT-TO-LEFT OVERRIDE) is not allowed: it changes the order in which text is displayed, "
     "so the program would not read as it runs", 1, 12, "character", "x = 1 # 주석 \ufffd )x(hnat\n             ^"),
    ("x = 1 # \u2066isolate",
     "character (U+2066 LEFT-TO-RIGHT ISOLATE) is not allowed: it changes the order in which text is displayed, "
     "so the program would not read as it runs", 1, 9, "character", "x = 1 # \ufffdisolate\n        ^"),
    ("\u3164 = 1",
     "character (U+3164 HANGUL FILLER) is not allowed: it is invisible, so two programs that look the same could "
     "differ; delete it", 1, 1, "character", "\ufffd = 1\n^"),
    ("x = 1 # ❤\ufe0f",
     "character (U+FE0F VARIATION SELECTOR-16) is not allowed: it is invisible, so two programs that look the same "
     "could differ; delete it", 1, 10, "character", "x = 1 # ❤\ufffd\n         ^"),
    ("\uff58 = 1",
     "character 'ｘ' (U+FF58 FULLWIDTH LATIN SMALL LETTER X) is a variant of 'x': type 'x' instead (names are "
     "compared after Unicode NFKC normalisation, so both would be one name)", 1, 1, "character", "ｘ = 1\n^^"),
    ("µ = 1",
     "character 'µ' (U+00B5 MICRO SIGN) is a variant of 'μ': type 'μ' instead (names are compared after Unicode "
     "NFKC normalisation, so both would be one name)", 1, 1, "character", "µ = 1\n^"),
    ("x٣ = 1", "digit '٣' (U+0663 ARABIC-INDIC DIGIT THREE) is not allowed in names: use the digits 0-9",
     1, 2, "character", "x٣ = 1\n ^"),
    ("x =\u00a01", "character (U+00A0 NO-BREAK SPACE) is only allowed in comments: use an ordinary space",
     1, 4, "character", "x =\ufffd1\n   ^"),
    ("x = 1 – 2", "character '–' (U+2013 EN DASH) is not allowed: type '-' instead", 1, 7, "character",
     "x = 1 – 2\n      ^"),
    ("출력 = tanh（1）", "character '（' (U+FF08 FULLWIDTH LEFT PARENTHESIS) is not allowed: type '(' instead",
     1, 10, "character", "출력 = tanh（1）\n           ^^"),
    ("x = 1 √ 2", "character '√' (U+221A SQUARE ROOT) is only allowed in comments and names", 1, 7, "character",
     "x = 1 √ 2\n      ^"),
    ("가중치 = 2.0\n편향 = 2.2 × 10⁻³",
     "'2.2 × 10⁻³' is how the app prints a number; in a program write 2.2e-3", 2, 6, "syntax",
     "편향 = 2.2 × 10⁻³\n       ^^^^^^^^^^"),
    ("y = −3.000 × 10¹²", "'3.000 × 10¹²' is how the app prints a number; in a program write 3.000e12", 1, 6,
     "syntax", "y = −3.000 × 10¹²\n     ^^^^^^^^^^^^"),
    ("ﬁt = 1", "character 'ﬁ' (U+FB01 LATIN SMALL LIGATURE FI) is a variant of 'fi': type 'fi' instead (names are "
     "compared after Unicode NFKC normalisation, so both would be one name)", 1, 1, "character", "ﬁt = 1\n^"),
    ("y = 10⁻⁸", "'10⁻⁸' is how the app prints a power of ten; in a program write 1e-8", 1, 5, "syntax",
     "y = 10⁻⁸\n    ^^^^"),
    ("x = 2\ny = x²", "superscript '²' (U+00B2 SUPERSCRIPT TWO) is not supported: for powers write **, like x**2",
     2, 6, "syntax", "y = x²\n     ^"),
    ("2가중치 = 1", "invalid number '2가중치': write plain decimal numbers such as 3, 0.5 or 1e-3", 1, 1, "syntax",
     "2가중치 = 1\n^^^^^^^"),
    ("가중치 = 2.0\n출력 = 가중치 * 입력", "name '입력' is not defined", 2, 12, "name",
     "출력 = 가중치 * 입력\n                ^^^^"),
    ("_가 = 1", "names starting with '_' are not allowed ('_가')", 1, 1, "name", "_가 = 1\n^^^"),
]


@pytest.mark.parametrize(("source", "message", "line", "col", "kind", "caret"), REFUSED,
                         ids=[f"{i}" for i in range(len(REFUSED))])
def test_refused_program(source, message, line, col, kind, caret):
    with pytest.raises(ExprError) as info:
        run(source)
    err = info.value
    assert (err.message, err.line, err.col, err.kind) == (message, line, col, kind)
    assert err.caret_text() == caret


def test_a_hangul_syllable_is_two_columns_in_the_caret_line():
    with pytest.raises(ExprError) as info:
        run("가중치 = 2.0\n출력 = 가중치 * 입력 + 편향")
    text, caret = info.value.caret_text().split("\n")
    assert "?" not in text
    # 출력 = 가중치 * : 2 + 1 + 1 + 1 + 3 Hangul (6 columns) + 3 = 16 columns before 입력
    assert caret == " " * 16 + "^^^^"


def test_long_hangul_lines_are_cut_by_columns_around_the_spot():
    source = "가 = 1.0\nx = stack([" + ", ".join(["가"] * 40) + ", 나, " + ", ".join(["가"] * 40) + "])"
    with pytest.raises(ExprError) as info:
        run(source)
    text, caret = info.value.caret_text().split("\n")
    assert text.startswith("...") and text.endswith("...")
    columns = sum(2 if "가" <= ch <= "힣" else 1 for ch in text)
    assert columns <= 80
    at = caret.index("^")
    shown_before = sum(2 if "가" <= ch <= "힣" else 1 for ch in text[:text.index("나")])
    assert at == shown_before and caret.endswith("^^")


def test_names_that_differ_only_invisibly_are_one_name():
    composed, decomposed = "가", "\u1100\u1161"
    program = run(f"{composed} = 3.0\n{decomposed} * 2")
    assert list(program.variables) == [composed]
    assert float(program.output.data) == 6.0


KOREAN_MLP = """\
입력 = const(randn(6, 3))
가중치1 = randn(3, 4)
편향1 = zeros(4)
은닉 = tanh(입력 @ 가중치1 + 편향1)
가중치2 = randn(4, 1)
편향2 = zeros(1)
출력 = 은닉 @ 가중치2 + 편향2
정답 = const(randn(6, 1))
손실 = mean((출력 − 정답) ** 2)
"""
ASCII_MLP = """\
x = const(randn(6, 3))
W1 = randn(3, 4)
b1 = zeros(4)
h = tanh(x @ W1 + b1)
W2 = randn(4, 1)
b2 = zeros(1)
y = h @ W2 + b2
t = const(randn(6, 1))
loss = mean((y - t) ** 2)
"""


def test_a_korean_named_mlp_has_the_gradients_of_the_same_program_in_ascii_names():
    korean, ascii_ = run(KOREAN_MLP, seed=7), run(ASCII_MLP, seed=7)
    korean.output.backward()
    ascii_.output.backward()
    pairs = {"가중치1": "W1", "편향1": "b1", "가중치2": "W2", "편향2": "b2"}
    for ko, en in pairs.items():
        assert korean.variables[ko].grad is not None
        np.testing.assert_array_equal(korean.variables[ko].grad, ascii_.variables[en].grad)
    np.testing.assert_array_equal(korean.output.data, ascii_.output.data)


def test_korean_names_are_drawn_and_explained_as_typed():
    program = run("가중치 = 2.0\n편향 = 0.5\n입력 = 1.5\n출력 = tanh(가중치 * 입력 + 편향)")
    trace = backward_trace(program.output)
    dot = to_dot(program.output, trace, len(trace.steps) - 1).source
    for name in ("가중치", "편향", "입력", "출력"):
        assert name in dot
    text = " ".join(str(explain(trace, s)) for s in range(len(trace.steps)))
    assert "가중치" in text and "출력" in text
