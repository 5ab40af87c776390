"""Exercises a teacher sends a live class: each student works at their own pace and reports their progress.

Two kinds, the practice features of the Playground on the room's program:

- ``predict``: predict every gradient (``lucid.practice.predict``); progress is the steps done of all, and each
  wrong answer's diagnosis (``grading.DIAGNOSES`` keys) and the node it was asked at;
- ``detective``: the gradient detective (``lucid.practice.detective``) with the sealed case the teacher made;
  progress is the checks used, whether it is solved, and each wrong accusation's mistake and node.

A report is a student's whole progress so far (a new one replaces theirs), so a lost or repeated report never
counts twice. Every report is hostile until cleaned: ``clean_report`` keeps known keys only, bounds every count,
every label and every table, and drops anything else. The teacher's panel and the exit ticket read
``summarize`` of the reports.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from lucid.i18n import L_
from lucid.live_class.answer_text import AnswerRejected

KINDS = ("predict", "detective")
MAX_COUNT = 10_000
"""Any count in a report (steps, checks, mistakes of one kind) is at most this."""
MAX_KEYS = 24
"""A report names at most this many mistakes, and this many nodes."""
MAX_LABEL = 48
"""A node's label or a mistake's key in a report is at most this many characters."""
MAX_EXERCISES = 20
"""A class sends at most this many exercises."""


def kind(value: object) -> str:
    if value not in KINDS:
        raise AnswerRejected(L_("An exercise is one of: predict every gradient, or the gradient detective."))
    return str(value)


def _count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        return 0
    return max(0, min(int(value), MAX_COUNT))


def _table(value: object) -> dict[str, int]:
    if not isinstance(value, dict):
        return {}
    out: dict[str, int] = {}
    for k, v in list(value.items())[:MAX_KEYS]:
        if isinstance(k, str) and k and _count(v):
            out[k[:MAX_LABEL]] = _count(v)
    return out


def clean_report(raw: object) -> dict[str, Any]:
    """A student's report with known keys only, every number and label bounded (anything else is dropped)."""
    if not isinstance(raw, dict):
        raw = {}
    done, total = _count(raw.get("done")), _count(raw.get("total"))
    return {"done": min(done, total) if total else done, "total": total, "finished": raw.get("finished") is True,
            "checks": _count(raw.get("checks")), "mistakes": _table(raw.get("mistakes")),
            "nodes": _table(raw.get("nodes"))}


@dataclass(frozen=True)
class ExerciseSummary:
    """What a class did with one exercise: how many reported, finished, the mistakes and where they were made."""

    students: int = 0
    finished: int = 0
    mistakes: Counter = field(default_factory=Counter)
    nodes: Counter = field(default_factory=Counter)
    checks: tuple[int, ...] = ()

    @property
    def most_common_mistake(self) -> str | None:
        return self.mistakes.most_common(1)[0][0] if self.mistakes else None

    @property
    def finished_rate(self) -> float:
        return self.finished / self.students if self.students else 0.0


def predict_report(session: Any, trace: Any) -> dict[str, Any]:
    """A ``PredictSession``'s progress as a report: steps done of all, its mistakes and where it made them."""
    score = session.score()
    return clean_report({"done": score.done, "total": score.questions, "finished": score.finished,
                         "mistakes": session.mistakes(), "nodes": session.wrong_at(trace)})


def detective_report(case: Any, label_of: Any) -> dict[str, Any]:
    """A ``DetectiveCase``'s progress as a report: checks used, solved or not, the mistakes named wrongly and the
    nodes wrongly accused (``label_of(index)`` names a node)."""
    mistakes: Counter = Counter()
    nodes: Counter = Counter()
    for a in case.accusations:
        if not a.solved:
            if not a.right_mistake:
                mistakes[a.slug] += 1
            if not a.right_node:
                nodes[label_of(a.index)] += 1
    return clean_report({"done": int(case.solved), "total": 1, "finished": case.solved,
                         "checks": case.checks_used, "mistakes": dict(mistakes), "nodes": dict(nodes)})


def summarize(reports: Iterable[dict[str, Any]]) -> ExerciseSummary:
    mistakes: Counter = Counter()
    nodes: Counter = Counter()
    students = finished = 0
    checks = []
    for raw in reports:
        report = clean_report(raw)
        students += 1
        finished += report["finished"]
        mistakes.update(report["mistakes"])
        nodes.update(report["nodes"])
        if report["finished"] and report["checks"]:
            checks.append(report["checks"])
    return ExerciseSummary(students, finished, mistakes, nodes, tuple(sorted(checks)))
