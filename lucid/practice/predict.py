"""Predict every gradient, alone: the class mode's predict-then-reveal as a self-paced exercise on any program.

Before each backward step the student types the gradient the step leaves in its input (a scalar, or one
entry of a tensor). The questions, the grading and the diagnosis of a wrong answer are the class mode's own
(``lucid.live_class.grading``: ``question_at``, ``is_correct``, ``diagnose``) and answers are read as the
class reads them (``lucid.live_class.answer_text.parse_answer``: the reader's locale settles ``1,000``), so
a student practising alone is told exactly what the class would have been told.

Which entry of a tensor is asked is picked from the session's ``seed`` and the step (the same program and
seed ask the same entries, on any server). A right answer moves to the next step; so does a reveal, which
counts the step as revealed. The score counts steps right at the first try, tries, and reveals.

Plain state and numbers (no Streamlit): the page keeps a ``PredictSession`` in the session and hands it the
program's trace on each call; the trace is never copied.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lucid.autograd import Trace
from lucid.i18n import L_, Message
from lucid.live_class.answer_text import AnswerRejected, parse_answer
from lucid.live_class.grading import diagnose, diagnosis_text, is_correct, question_at
from lucid.viz.numbers import format_number

__all__ = ["MAX_CHARS", "Feedback", "PredictSession", "Score", "asked_element"]

MAX_CHARS = 32
"""An answer's length bound: the class's (``lucid.live_class.limits.Limits.answer_chars``)."""


def asked_element(shape: tuple[int, ...], seed: int, step: int) -> tuple[int, ...]:
    """The entry of a gradient of ``shape`` asked at ``step``: drawn from (seed, step), the same everywhere."""
    size = int(np.prod(shape)) if shape else 1
    if not shape or size <= 1:
        return tuple(0 for _ in shape)
    pick = int(np.random.default_rng([abs(int(seed)), int(step)]).integers(size))
    return tuple(int(i) for i in np.unravel_index(pick, shape))


@dataclass(frozen=True)
class Feedback:
    """What one answer (or a reveal) did: ``kind`` is ``right``, ``wrong``, ``rejected`` or ``revealed``.

    ``message`` is what the student reads (a lazy message: rendered in the reader's language); ``diagnosis``
    the class mode's key of the likely mistake (``grading.DIAGNOSES``), None when none is recognised."""

    kind: str
    message: Message | str
    diagnosis: str | None = None
    value: float | None = None


@dataclass(frozen=True)
class Score:
    """The score so far: of ``questions`` steps, ``done`` are finished, ``first_try`` were right at once,
    ``revealed`` were given up on; ``tries`` counts every graded answer (a refused text is not a try)."""

    questions: int
    done: int
    first_try: int
    right: int
    revealed: int
    tries: int

    @property
    def finished(self) -> bool:
        return self.done >= self.questions


@dataclass
class _Record:
    tries: int = 0
    right: bool = False
    revealed: bool = False
    diagnoses: list[str | None] = field(default_factory=list)


@dataclass
class PredictSession:
    """One student's run through a program's backward steps (step 0, the seed, is given; 1..n-1 are asked).

    ``source`` and ``seed`` name the program it belongs to (a page starts a new session for another one).
    """

    source: str
    seed: int
    n_steps: int
    position: int = 1
    records: dict[int, _Record] = field(default_factory=dict)
    _cache: dict[int, dict[str, Any]] = field(default_factory=dict, repr=False)

    @classmethod
    def start(cls, trace: Trace, source: str = "", seed: int = 0) -> PredictSession:
        return cls(source=source, seed=int(seed), n_steps=len(trace.steps))

    @property
    def finished(self) -> bool:
        return self.position >= self.n_steps

    @property
    def step(self) -> int | None:
        """The trace step asked now (None once every step is done)."""
        return None if self.finished else self.position

    def question(self, trace: Trace) -> dict[str, Any] | None:
        """The class mode's question for the step asked now, about the entry the seed picks (None when done)."""
        step = self.step
        if step is None:
            return None
        if step not in self._cache:
            shape = tuple(trace.steps[step].accumulated.shape)
            self._cache[step] = question_at(trace, step, asked_element(shape, self.seed, step))
        return self._cache[step]

    def answer(self, trace: Trace, text: object, *, locale: str | None = None) -> Feedback:
        """Grade ``text`` for the step asked now; never raises. A right answer moves to the next step."""
        question = self.question(trace)
        if question is None:
            return Feedback("rejected", L_("Every step is done: see your score below."))
        try:
            value = parse_answer(text, MAX_CHARS, locale=locale)
        except AnswerRejected as err:
            reason = err.args[0] if err.args else L_("Type a number.")
            return Feedback("rejected", reason if isinstance(reason, Message) else str(reason))
        if not math.isfinite(value):  # parse_answer refuses these already; kept so nothing odd is ever graded
            return Feedback("rejected", L_("Type a number."))
        record = self.records.setdefault(question["step"], _Record())
        record.tries += 1
        expected = float(question["expected"])
        if is_correct(value, expected):
            record.right = True
            self.position += 1
            return Feedback("right", L_("Right: {label} = {value}.", label=question["label"],
                                        value=question["expected_text"]), value=value)
        key = diagnose(value, question)
        record.diagnoses.append(key)
        return Feedback("wrong", L_("Not {value}: try again, or reveal the answer.", value=format_number(value)),
                        diagnosis=key, value=value)

    def reveal(self, trace: Trace) -> Feedback:
        """Show the answer of the step asked now and move on; the step counts as revealed."""
        question = self.question(trace)
        if question is None:
            return Feedback("rejected", L_("Every step is done: see your score below."))
        record = self.records.setdefault(question["step"], _Record())
        if not record.right:
            record.revealed = True
        self.position += 1
        return Feedback("revealed", L_("The answer: {label} = {value}.", label=question["label"],
                                       value=question["expected_text"]))

    def score(self) -> Score:
        questions = max(self.n_steps - 1, 0)
        records = self.records.values()
        return Score(questions=questions, done=max(min(self.position, self.n_steps) - 1, 0),
                     first_try=sum(1 for r in records if r.right and r.tries == 1),
                     right=sum(1 for r in records if r.right), revealed=sum(1 for r in records if r.revealed),
                     tries=sum(r.tries for r in records))

    def wrong_at(self, trace: Trace) -> dict[str, int]:
        """Wrong answers per asked gradient (its label, ``grad x``): where this student went wrong."""
        out: dict[str, int] = {}
        for step, record in sorted(self.records.items()):
            wrong = len(record.diagnoses)
            if wrong:
                if step not in self._cache:
                    shape = tuple(trace.steps[step].accumulated.shape)
                    self._cache[step] = question_at(trace, step, asked_element(shape, self.seed, step))
                label = str(self._cache[step]["label"])
                out[label] = out.get(label, 0) + wrong
        return out

    def mistakes(self) -> dict[str, int]:
        """How often each diagnosed mistake was made (the class mode's keys), most common first."""
        counts: dict[str, int] = {}
        for record in self.records.values():
            for key in record.diagnoses:
                if key is not None:
                    counts[key] = counts.get(key, 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def feedback_diagnosis(feedback: Feedback) -> str | None:
    """The diagnosis of a wrong answer in the reader's language (the class mode's text), or None."""
    return diagnosis_text(feedback.diagnosis)
