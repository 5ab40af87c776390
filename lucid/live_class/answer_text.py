"""A student's typed answer read as the number they meant, or refused with what to type instead.

Students type numbers the way their keyboard and school taught them: ``−0.25`` with a typographic minus,
``－０．２５`` from a Korean or Japanese input method in full-width mode, ``1 000`` with a (thin, no-break)
space between digit groups, ``1,5`` with a decimal comma, ``1,000.5`` or ``1.000,5`` with grouping. A
wrong reading is worse than a refusal: it counts a right answer as wrong in front of the class. So:

- one ``,`` or ``.`` that could be either a decimal mark or a thousands separator (``1,000``: one to three
  digits, not starting with 0, then exactly three) is read in the reader's ``locale`` (Babel's CLDR
  symbols: ``en``/``ko`` group with a comma, ``de``/``fr`` write a decimal comma); with no locale a comma
  is refused as ambiguous and a period is the decimal point the graph itself shows;
- separators elsewhere must group by threes (``1,000,000``), one kind only, before the decimal mark;
- a value that is not finite or beyond ``SANE_LIMIT`` is refused, never graded (``-1.7976e308`` is a
  probe, not a wrong answer to count in the histogram);
- the length bound is checked before anything else looks at the text.

Nothing is evaluated: the text is matched against a pattern and handed to ``float`` as plain digits.
"""
from __future__ import annotations

import math
import re

from lucid.i18n import L_

__all__ = ["SANE_LIMIT", "AnswerRejected", "parse_answer"]

SANE_LIMIT = 1e15
"""Largest magnitude an answer may have. No value or gradient a class is asked about comes near it (the
expression language's programs hold small numbers), and anything larger is a probe or a typo: refused with
a message, not counted as a wrong answer."""

MINUS_SIGNS = "\u2212\u2013\ufe63\uff0d"
"""Read as ``-``: the minus sign (U+2212), the en dash word processors put for it, small and full-width
hyphen-minus."""
SPACES = " \u00a0\u2007\u2009\u202f\u3000"
"""Read as a digit-group space: space, no-break, figure, thin, narrow no-break and ideographic spaces."""

_FULLWIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}
"""Full-width ASCII (U+FF01–U+FF5E) to ASCII: what NFKC does for these, without its other mappings
(NFKC also turns ``10²`` into ``102``)."""
_NUMBER = re.compile(r"(?P<sign>[+-]?) ?(?P<body>[0-9., ]*[0-9][0-9., ]*|[0-9., ]*\.[0-9]+)(?P<exp>[eE][+-]?[0-9]+)?")

_NOT_FINITE = re.compile(r"[+-]? ?(?:inf|infinity|nan)", re.IGNORECASE)


class AnswerRejected(ValueError):
    """An answer that is not taken, with the reason a student can act on."""


def _symbols(locale: str | None) -> tuple[str, str] | None:
    """The locale's (decimal mark, group mark), or None for no locale or one Babel does not know."""
    if not locale:
        return None
    try:
        from babel import Locale, UnknownLocaleError
        from babel.numbers import get_decimal_symbol, get_group_symbol
    except ImportError:  # pragma: no cover - the app's requirements install Babel
        return None
    try:
        parsed = Locale.parse(str(locale).replace("-", "_"))
    except (UnknownLocaleError, ValueError, TypeError):
        return None
    return get_decimal_symbol(parsed), get_group_symbol(parsed)


def _normal(text: str, symbols: tuple[str, str] | None) -> str:
    """Full-width forms as ASCII, every minus as ``-``, every space kind (and the locale's own group sign
    when it is not ``,`` or ``.``, e.g. Swiss ``'``) as one space, spaces after the sign dropped."""
    text = text.translate(_FULLWIDTH)
    group = symbols[1] if symbols and symbols[1] not in ",." else ""
    for char in MINUS_SIGNS:
        text = text.replace(char, "-")
    for char in SPACES + group:
        text = text.replace(char, " ")
    return re.sub(" +", " ", text.strip())


def _grouped(part: str, mark: str) -> bool:
    """Whether ``part`` is digits grouped by threes with ``mark`` (``1,000,000``)."""
    return re.fullmatch(rf"[0-9]{{1,3}}(?:{re.escape(mark)}[0-9]{{3}})+", part) is not None


def _decimal_mark(body: str, symbols: tuple[str, str] | None, shown: str) -> str | None:
    """Which of ``,``/``.`` in ``body`` is the decimal mark (None: all its marks group digits).

    The last of them is the decimal mark when it occurs once. When it is the only mark and could also group
    (``1,000``), the locale decides; with no locale (or a locale using neither sign) a period is the decimal
    point and a comma is refused as ambiguous.
    """
    marks = [c for c in body if c in ",."]
    if not marks or marks.count(marks[-1]) > 1:
        return None
    last = marks[-1]
    whole, _, fraction = body.rpartition(last)
    could_group = len(marks) == 1 and " " not in body and re.fullmatch(r"[1-9][0-9]{0,2}", whole) and (
        len(fraction) == 3)
    if not could_group:
        return last
    decimal, group = symbols if symbols is not None else (".", "")
    if decimal == last:
        return last
    if group == last:
        return None
    if last == ".":
        return "."
    raise AnswerRejected(L_("“{text}” could have a thousands separator or a decimal comma: type {whole} for the "
                            "whole number, or {point} with a decimal point.",
                            text=shown, whole=whole + fraction, point=f"{whole}.{fraction}"))


def _plain(body: str, symbols: tuple[str, str] | None, shown: str) -> str:
    """``body`` as ASCII digits with at most one ``.``, its grouping checked and removed."""
    decimal = _decimal_mark(body, symbols, shown)
    whole, fraction = body.rsplit(decimal, 1) if decimal else (body, "")
    group_marks = {c for c in whole if c in ",. "}
    misplaced = fraction.strip("0123456789") or len(group_marks) > 1
    if misplaced or (group_marks and not _grouped(whole, group_marks.pop())):
        raise AnswerRejected(L_("“{text}”: digit groups go before the decimal mark, three digits each (1,000,000.5).",
                                text=shown))
    digits = "".join(c for c in whole if c.isdigit())
    return f"{digits}.{fraction}" if decimal else digits


def parse_answer(text: object, max_chars: int, *, locale: str | None = None) -> float:
    """The number ``text`` means (``-0.25``, ``－０．２５``, ``1 000``, ``1,5``, ``1,000.5``, ``1.5e-3``).

    ``locale`` (``"en"``, ``"ko"``, ``"de"``, ``"fr-CH"`` …: the reader's) settles ``1,000``; raises
    ``AnswerRejected`` with the reason a student can act on.
    """
    if not isinstance(text, str):
        raise AnswerRejected(L_("Type a number."))
    if len(text) > max_chars:
        raise AnswerRejected(L_("An answer is at most {n} characters.", n=max_chars))
    shown = text.strip()
    if not shown:
        raise AnswerRejected(L_("Type a number."))
    symbols = _symbols(locale)
    normal = _normal(text, symbols)
    if _NOT_FINITE.fullmatch(normal):
        raise _out_of_range(shown)
    match = _NUMBER.fullmatch(normal)
    if match is None:
        raise AnswerRejected(L_("“{text}” is not a number: type digits, e.g. -0.25 or 1.5e-3.", text=shown))
    value = float(match["sign"] + _plain(match["body"].strip(), symbols, shown) + (match["exp"] or ""))
    if not math.isfinite(value) or abs(value) > SANE_LIMIT:
        raise _out_of_range(shown)
    return value


def _out_of_range(shown: str) -> AnswerRejected:
    return AnswerRejected(L_("“{text}” is not an answer here: type a finite number between -1e15 and 1e15.",
                             text=shown))
