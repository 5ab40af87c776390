"""A typed answer is read as the number the student meant, in their locale, or refused with what to type."""
import pytest

from lucid.i18n import english, use_language
from lucid.live_class.answer_text import SANE_LIMIT, AnswerRejected, parse_answer

MAX = 32


def refusal(text, locale=None) -> str:
    with pytest.raises(AnswerRejected) as caught:
        parse_answer(text, MAX, locale=locale)
    return english(caught.value.args[0])


@pytest.mark.parametrize("text, value", [
    ("-0.25", -0.25), ("1.5e-3", 0.0015), ("1E+3", 1000.0), ("+5", 5.0), (".5", 0.5), ("  7  ", 7.0),
    ("−0.25", -0.25),           # U+2212 minus sign
    ("–2", -2.0),               # the en dash a word processor puts for a minus
    ("－0.25", -0.25),          # full-width hyphen-minus
    ("－０．２５", -0.25),       # all full-width, as a Korean or Japanese input method types it
    ("＋１２", 12.0), ("１，５", 1.5), ("１ｅ３", 1000.0),
    ("- 5", -5.0),
    ("1 000", 1000.0), ("1\u00a0000", 1000.0), ("1\u2009000", 1000.0), ("1\u202f000\u202f000", 1_000_000.0),
    ("1\u3000000", 1000.0),
    ("1,5", 1.5), ("-0,25", -0.25), ("0,125", 0.125), ("1234,567", 1234.567), ("1,50", 1.5),
    ("1,000.5", 1000.5), ("1.000,5", 1000.5), ("1,000,000", 1_000_000.0), ("1.000.000", 1_000_000.0),
    ("1 000,5", 1000.5), ("12,345,678.25", 12_345_678.25),
    ("1.000", 1.0),             # one period is the decimal point the graph itself shows
    ("1e-400", 0.0),
])
def test_numbers_are_read_as_meant(text, value):
    assert parse_answer(text, MAX) == value


@pytest.mark.parametrize("text, locale, value", [
    ("1,000", "en", 1000.0), ("1,000", "ko", 1000.0), ("12,345", "ko-KR", 12345.0), ("-1,000", "en_US", -1000.0),
    ("1,000", "de", 1.0), ("1,000", "fr", 1.0), ("12,345", "de_DE", 12.345),
    ("1.000", "de", 1000.0), ("1.000", "en", 1.0), ("1.000", "fr", 1.0),
    ("1\u202f000,5", "fr", 1000.5), ("1'000", "de_CH", 1000.0),
    ("1,5", "en", 1.5),         # one or two digits after the comma: only a decimal comma reads that way
    ("1,000.5", "de", 1000.5),  # comma and period together say which is which, in any locale
])
def test_a_comma_or_period_before_three_digits_is_read_in_the_readers_locale(text, locale, value):
    assert parse_answer(text, MAX, locale=locale) == value


@pytest.mark.parametrize("locale", [None, "", "xx-unknown"])
def test_with_no_locale_1000_with_a_comma_is_refused_as_ambiguous(locale):
    assert refusal("1,000", locale) == ("“1,000” could have a thousands separator or a decimal comma: type 1000 "
                                        "for the whole number, or 1.000 with a decimal point.")
    assert "type 12345 for the whole number, or 12.345" in refusal("12,345", locale)


@pytest.mark.parametrize("text", ["1e400", "-1e400", "-1.7976e308", "1.7976931348623157e308", "1e16",
                                  "1,000,000,000,000,001", "inf", "-Infinity", "nan", "ＮａＮ"])
def test_values_no_class_is_asked_about_are_refused_not_graded(text):
    assert refusal(text) == (f"“{text}” is not an answer here: type a finite number between -1e15 and 1e15.")


def test_the_sane_limit_itself_is_an_answer():
    assert SANE_LIMIT == 1e15
    assert parse_answer("1e15", MAX) == 1e15 and parse_answer("-1 000 000 000 000 000", MAX) == -1e15


@pytest.mark.parametrize("text", ["1,00,000", "1 0", "1.000 5", "1,000.000.5", "1,,0", "1,000 000", "12,34,567"])
def test_separators_must_group_digits_by_three_before_the_decimal_mark(text):
    assert refusal(text) == f"“{text}”: digit groups go before the decimal mark, three digits each (1,000,000.5)."


@pytest.mark.parametrize("text", ["abc", "10²", "1_000", "0x10", "½", "١٢", "2*3", "1e", "--1", "1e5.5", "."])
def test_what_is_not_a_number_says_how_to_type_one(text):
    assert refusal(text) == f"“{text}” is not a number: type digits, e.g. -0.25 or 1.5e-3."


@pytest.mark.parametrize("text", [None, 3, "", "   ", "\u3000"])
def test_nothing_typed_asks_for_a_number(text):
    assert refusal(text) == "Type a number."


def test_the_length_bound_comes_before_anything_else():
    assert refusal("1" * (MAX + 1)) == f"An answer is at most {MAX} characters."
    assert refusal(" " * (MAX + 1)) == f"An answer is at most {MAX} characters."
    assert refusal("1,000" + " " * MAX) == f"An answer is at most {MAX} characters."


def test_the_rooms_answers_keep_their_meaning():
    """What ``rooms.parse_answer`` accepted and refused (tests/live_class/test_rooms.py) reads the same."""
    assert [parse_answer(t, MAX) for t in ("3", "6.0", "−6", "6")] == [3.0, 6.0, -6.0, 6.0]
    for text, part in [("", "Type a number"), ("abc", "not a number"), ("1" * 40, "at most 32"), ("nan", "finite"),
                       ("inf", "finite"), (None, "Type a number")]:
        assert part in refusal(text)


def test_refusals_read_in_korean():
    with pytest.raises(AnswerRejected) as caught:
        parse_answer("1,000", MAX)
    with use_language("ko"):
        text = str(caught.value.args[0])
    assert "1000" in text and "1.000" in text and "could have" not in text
