"""The exit ticket: one CSV row per question asked, for the teacher to keep after class.

No names: a student appears only by the nickname they chose to type, if any.
"""
from __future__ import annotations

import csv
import io
from typing import Any

from lucid.classroom.grading import class_result
from lucid.viz.numbers import format_number

COLUMNS = ["question", "step", "asked", "correct answer", "answers", "correct", "correct rate",
           "distribution", "most common wrong answer", "diagnosis", "nicknames"]


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
    writer.writerow(COLUMNS)
    for number, (question, answers) in enumerate(history, start=1):
        values = [float(a["value"]) for a in answers]
        result = class_result(values, question)
        named = safe_cell("; ".join(f"{a['nickname']}: {a.get('text', '')}" for a in answers if a.get("nickname")))
        writer.writerow([number, question["step"], question["label"], _num(question["expected"]), result.answered,
                         result.correct, f"{result.correct_rate:.0%}",
                         "; ".join(f"{_num(v)} ×{c}" for v, c, _ in result.counts),
                         "" if result.wrong is None else _num(result.wrong), result.diagnosis or "", named])
    return out.getvalue()
