"""The exit ticket: one CSV row per question asked, for the teacher to keep after class.

No names: a student appears only by the nickname they chose to type, if any.
"""
from __future__ import annotations

import csv
import io
from typing import Any

from lucid.classroom.grading import class_result
from lucid.i18n import DEFAULT_LANGUAGE, pgettext, use_language
from lucid.viz.numbers import format_number


def headers() -> list[str]:
    """The header row, in the language of the teacher who downloads it; the cells stay machine-readable (numbers
    as numbers, a diagnosis as its key in ``lucid.classroom.grading.DIAGNOSES``) in every language, except the
    last column: the diagnosis in the teacher's words (a Korean teacher reads 누적(+=)을 빠뜨림, not ``forgot +=``).
    It is the last so a script reading the columns by position finds the others where they always were."""
    return [pgettext("exit ticket", "question"), pgettext("exit ticket", "step"), pgettext("exit ticket", "asked"),
            pgettext("exit ticket", "correct answer"), pgettext("exit ticket", "answers"),
            pgettext("exit ticket", "correct"), pgettext("exit ticket", "correct rate"),
            pgettext("exit ticket", "distribution"), pgettext("exit ticket", "most common wrong answer"),
            pgettext("exit ticket", "diagnosis"), pgettext("exit ticket", "nicknames"),
            pgettext("exit ticket", "diagnosis (in words)")]


def diagnosis_words(key: str | None) -> str:
    """A diagnosis key (``forgot +=``) as a short phrase in the reader's language; the key itself in English."""
    words = {"forgot +=": pgettext("exit ticket diagnosis", "forgot +="),
             "forgot to sum": pgettext("exit ticket diagnosis", "forgot to sum"),
             "value, not gradient": pgettext("exit ticket diagnosis", "value, not gradient"),
             "sign": pgettext("exit ticket diagnosis", "sign")}
    return "" if key is None else words.get(key, key)


with use_language(DEFAULT_LANGUAGE):  # the columns in English: a script reading any exit ticket relies on their order
    COLUMNS = headers()


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(text: str) -> str:
    """Typed text as a spreadsheet shows it, never runs it: a leading ``=``, ``+``, ``-``, ``@`` (a formula in
    Excel or LibreOffice: CSV injection) is quoted with an apostrophe, unless the text is just a number."""
    if text.startswith(_FORMULA_START):
        try:
            float(text)
        except ValueError:
            return "'" + text
    return text


def _num(v: float) -> str:
    return format_number(v).replace("\u2212", "-")


def exit_ticket(history: list[tuple[dict[str, Any], list[dict[str, Any]]]]) -> str:
    """CSV text of ``Rooms.history``: per question its step, correct rate and answer distribution."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(headers())
    for number, (question, answers) in enumerate(history, start=1):
        values = [float(a["value"]) for a in answers]
        result = class_result(values, question)
        named = safe_cell("; ".join(f"{a['nickname']}: {a.get('text', '')}" for a in answers if a.get("nickname")))
        writer.writerow([number, question["step"], question["label"], _num(question["expected"]), result.answered,
                         result.correct, f"{result.correct_rate:.0%}",
                         "; ".join(f"{_num(v)} ×{c}" for v, c, _ in result.counts),
                         "" if result.wrong is None else _num(result.wrong), result.diagnosis or "", named,
                         diagnosis_words(result.diagnosis)])
    return out.getvalue()
