"""The exit ticket: one CSV row per round of each question asked, for the teacher to keep after class.

A question asked again after discussion (peer instruction) has a row per round, under the same question number,
and round 2's row says how many students changed to the right answer (and away from it). The columns added for
peer instruction (round, kind, changed) come last, so a script reading the earlier columns by position still works.
No names: a student appears only by the nickname they chose to type, if any.
"""
from __future__ import annotations

import csv
import io
from typing import Any

from lucid.i18n import DEFAULT_LANGUAGE, pgettext, text, use_language
from lucid.live_class.grading import class_result
from lucid.live_class.peer import TICKET_KINDS, changes
from lucid.viz.numbers import format_number


def headers() -> list[str]:
    """The header row, in the language of the teacher who downloads it; the cells stay machine-readable (numbers
    as numbers, a diagnosis as its key in ``lucid.live_class.grading.DIAGNOSES``) in every language, except the
    last column: the diagnosis in the teacher's words (a Korean teacher reads 누적(+=)을 빠뜨림, not ``forgot +=``).
    It is the last so a script reading the columns by position finds the others where they always were."""
    return [pgettext("exit ticket", "question"), pgettext("exit ticket", "step"), pgettext("exit ticket", "asked"),
            pgettext("exit ticket", "correct answer"), pgettext("exit ticket", "answers"),
            pgettext("exit ticket", "correct"), pgettext("exit ticket", "correct rate"),
            pgettext("exit ticket", "distribution"), pgettext("exit ticket", "most common wrong answer"),
            pgettext("exit ticket", "diagnosis"), pgettext("exit ticket", "nicknames"),
            pgettext("exit ticket", "diagnosis (in words)"),
            pgettext("exit ticket", "round"), pgettext("exit ticket", "kind"),
            pgettext("exit ticket", "changed to right"), pgettext("exit ticket", "changed from right")]


def diagnosis_words(key: str | None) -> str:
    """A diagnosis key (``forgot +=``) as a short phrase in the reader's language; the key itself in English."""
    words = {"forgot +=": pgettext("exit ticket diagnosis", "forgot +="),
             "forgot to sum": pgettext("exit ticket diagnosis", "forgot to sum"),
             "value, not gradient": pgettext("exit ticket diagnosis", "value, not gradient"),
             "sign": pgettext("exit ticket diagnosis", "sign")}
    if key is not None and key not in words:  # a gradient detective's mistake (an exercise's row)
        from lucid.practice.faults import fault_by_slug

        fault = fault_by_slug(key)
        if fault is not None:
            return text(fault.title)
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


def exit_ticket(history: list[tuple[dict[str, Any], list[dict[str, Any]]]],
                exercises: list[tuple[dict[str, Any], list[dict[str, Any]]]] = ()) -> str:
    """CSV text of ``Rooms.history``: per round of each question its step, correct rate and answer distribution;
    a later round's row compares each student's answer with their answer in round 1. Then one row per exercise
    sent (``Rooms.exercise_history``), after the questions, in the same columns (``exercise_row``)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(headers())
    numbers: dict[str, int] = {}
    by_student: dict[str, dict[str, float]] = {}
    for index, (question, answers) in enumerate(history):
        qid, first = str(question.get("id", f"#{index}")), question.get("first")
        number = numbers.get(first) if isinstance(first, str) else None
        if number is None:
            number = len(set(numbers.values())) + 1
        numbers[qid] = number
        values = [float(a["value"]) for a in answers]
        mine = {str(a["student"]): float(a["value"]) for a in answers if "student" in a}
        by_student[qid] = mine
        result = class_result(values, question)
        named = safe_cell("; ".join(f"{a['nickname']}: {a.get('text', '')}" for a in answers if a.get("nickname")))
        moved = ["", ""]
        if isinstance(first, str) and first in by_student:
            found = changes(by_student[first], mine, float(question["expected"]))
            moved = [str(found.to_right), str(found.to_wrong)]
        writer.writerow([number, question["step"], question["label"], _num(question["expected"]), result.answered,
                         result.correct, f"{result.correct_rate:.0%}",
                         "; ".join(f"{_num(v)} ×{c}" for v, c, _ in result.counts),
                         "" if result.wrong is None else _num(result.wrong), result.diagnosis or "", named,
                         diagnosis_words(result.diagnosis),
                         int(question.get("round", 1)), TICKET_KINDS.get(str(question.get("kind", "typed")), ""),
                         *moved])
    for index, (exercise, reports) in enumerate(exercises, start=1):
        writer.writerow(exercise_row(index, exercise, reports))
    return out.getvalue()


EXERCISE_KINDS = {"predict": "exercise: predict every gradient", "detective": "exercise: gradient detective"}
"""The exit ticket's kind cell of an exercise row (machine-readable, the same in every language)."""


def exercise_row(number: int, exercise: dict[str, Any], reports: list[dict[str, Any]]) -> list[Any]:
    """An exercise's row: the students who reported (answers), who finished (correct) and the rate, where they went
    wrong (distribution: node ×count), the most common mistake (a diagnosis or a detective fault's key), each
    nickname with its progress. Step, expected answer, round and the changes have no meaning here: left empty."""
    from lucid.live_class.exercises import clean_report, summarize

    summary = summarize(reports)
    progress = []
    for r in reports:
        if r.get("nickname"):
            c = clean_report(r)
            progress.append(f"{r['nickname']}: {c['done']}/{c['total']}" + (" ✓" if c["finished"] else ""))
    return [f"x{number}", "", "", "", summary.students, summary.finished, f"{summary.finished_rate:.0%}",
            "; ".join(f"{safe_cell(node)} ×{n}" for node, n in summary.nodes.most_common()), "",
            summary.most_common_mistake or "", safe_cell("; ".join(progress)),
            diagnosis_words(summary.most_common_mistake), "", EXERCISE_KINDS.get(str(exercise.get("kind")), ""),
            "", ""]
