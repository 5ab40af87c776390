"""Questions from the backward trace, grading against the engine's exact value, and the likely mistake.

Pure functions over a ``lucid.autograd.Trace`` and plain numbers: the room stores a question as a dict
(JSON), so grading and diagnosis need neither the program nor Streamlit.

The question at step k of the trace is the gradient the step's input holds *after* the step: what
``grad p += contribution`` leaves in it. For an array the class is asked for one element (the first).
An answer is right within ``RELATIVE_TOLERANCE`` of the exact value: 3 significant digits, which is
what the class is told. The most common wrong answers are recognised by their numbers:

- ``forgot +=``: the step's own contribution, when an earlier path had already added to the total;
- ``forgot to sum``: one entry of the contribution before the broadcast axes were summed away;
- ``value, not gradient``: the forward value of the tensor;
- ``sign``: the right number with the wrong sign.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from lucid.autograd import Trace
from lucid.i18n import DEFAULT_LANGUAGE, LANGUAGES, N_, _, current_language, use_language
from lucid.live_class.texts import stored
from lucid.viz.explanation.formulas import local_rule
from lucid.viz.graph.naming import display_names
from lucid.viz.numbers import format_number, shape_text

RELATIVE_TOLERANCE = 5e-3
"""Half a unit of the third significant digit: 0.1966 answered as 0.197 or 0.196 is right, 0.19 is not."""
ABSOLUTE_TOLERANCE = 1e-9
TOLERANCE_TEXT = N_("3 significant digits (within 0.5 %)")
"""How answers are graded, as the class is told (a message id: each reader sees it in their language)."""
MAX_CANDIDATES = 64
"""At most this many un-summed entries are kept per question (a batch of a million rows would otherwise put a
million numbers in the room's record): a student who forgot the sum typed one of the first rows' numbers, or
the diagnosis is simply not offered."""

DIAGNOSES: dict[str, str] = {
    "forgot +=": N_("Forgot `+=`: this is the step's own contribution, but an earlier path had already added to "
                    "the gradient; the total is the sum of both."),
    "forgot to sum": N_("Forgot to sum over the broadcast axis: one row's contribution, but the input was copied "
                        "along that axis, so every copy's gradient adds up."),
    "value, not gradient": N_("Used the tensor's value instead of its gradient."),
    "sign": N_("The sign is flipped: right size, wrong sign."),
}
"""Each diagnosis as the teacher and the students read it: English message ids, shown through ``diagnosis_text``.
The keys are what the room and the exit ticket keep (machine-readable, the same in every language)."""


def diagnosis_text(key: str | None) -> str | None:
    """The diagnosis ``key`` in the reader's language (None for no or an unknown diagnosis)."""
    return _(DIAGNOSES[key]) if key in DIAGNOSES else None


def is_correct(answer: float, expected: float) -> bool:
    return abs(answer - expected) <= RELATIVE_TOLERANCE * abs(expected) + ABSOLUTE_TOLERANCE


def _element_text(element: tuple[int, ...]) -> str:
    return f"[{', '.join(str(i) for i in element)}]" if element else ""


def _raw_entries(raw: np.ndarray, shape: tuple[int, ...], element: tuple[int, ...]) -> list[float]:
    """The entries of an un-summed contribution ``raw`` that were summed into ``element`` of ``shape``."""
    lead = raw.ndim - len(shape)
    index: list[Any] = [slice(None)] * lead
    for axis, size in enumerate(shape):
        index.append(slice(None) if size == 1 and raw.shape[lead + axis] != 1 else element[axis])
    return [float(v) for v in np.asarray(raw[tuple(index)]).ravel()[:MAX_CANDIDATES]]


def question_at(trace: Trace, step: int, element: tuple[int, ...] | None = None) -> dict[str, Any]:
    """The question of step ``step``: "grad x = ?" with the exact answer and the numbers of common mistakes.

    ``element``: which entry of an array is asked (the first when None, as the class is asked); the
    self-paced practice (``lucid.practice.predict``) asks other entries through the same grading."""
    s = trace.steps[step]
    names = display_names(trace.order, trace.root)
    by_id = {id(t): names[k] for k, t in enumerate(trace.order)}

    def name(t: Any) -> str:
        return by_id.get(id(t), "?")

    shape = tuple(s.accumulated.shape)
    element = tuple(0 for _ in shape) if element is None else tuple(int(i) for i in element)
    expected = float(np.asarray(s.accumulated)[element])
    candidates: list[tuple[str, list[float]]] = []
    before = step > 0 and not np.array_equal(s.contribution, s.accumulated)
    if before:
        candidates.append(("forgot +=", [float(np.asarray(s.contribution)[element])]))
    if s.broadcast:
        candidates.append(("forgot to sum", _raw_entries(np.asarray(s.contribution_raw), shape, element)))
    candidates.append(("value, not gradient", [float(np.asarray(s.parent.data)[element])]))
    candidates.append(("sign", [-expected]))
    rule = upstream = None
    rules: dict[str, str] = {}
    if s.node is not None:
        rule = _rule_line(local_rule(s.node, s.slot, name))
        up = np.asarray(s.upstream)
        upstream = (f"grad {name(s.node)} = {format_number(float(up.ravel()[0]))}" if up.size == 1
                    else stored(N_("grad {name}: an array of shape {shape}"), name=name(s.node),
                                shape=shape_text(up.shape)))
        rules = _translated_rules(s.node, s.slot, name, rule)
    label = f"grad {name(s.parent)}{_element_text(element)}"
    return {"step": int(step), "label": label, "name": name(s.parent), "element": list(element),
            "shape": list(shape), "expected": expected, "expected_text": format_number(expected),
            "upstream": upstream, "rule": rule, **({"rules": rules} if rules else {}),
            "candidates": [[k, v] for k, v in candidates], "tolerance": TOLERANCE_TEXT}


def _translated_rules(node: Any, slot: int, name: Any, english: str | None) -> dict[str, str]:
    """A rule written in words (``∂L/∂out summed over the copied axes``) in every other language the app
    offers, for the question's record: students read it in their own language, and the room keeps no node."""
    out: dict[str, str] = {}
    for language in LANGUAGES:
        if language == DEFAULT_LANGUAGE:
            continue
        with use_language(language):
            found = local_rule(node, slot, name, translated=True)
        text = _rule_line(found)
        if text is not None and text != english:
            out[language] = text
    return out


def _rule_line(found: tuple[str, str, str] | None) -> str | None:
    """A rule as the question shows it: ``∂y/∂x = x = 3.000`` (the numbers once, when they differ)."""
    if found is None:
        return None
    lhs, symbolic, numeric = found
    return f"{lhs} = {symbolic}" + ("" if symbolic.endswith(numeric) else f" = {numeric}")


def rule_text(question: dict[str, Any]) -> str | None:
    """The question's rule in the reader's language (the registry's text when it has no translation)."""
    rules = question.get("rules")
    translated = rules.get(current_language()) if isinstance(rules, dict) else None
    return translated if isinstance(translated, str) else question.get("rule")


def diagnose(answer: float, question: dict[str, Any]) -> str | None:
    """The mistake a wrong ``answer`` most likely is (a key of ``DIAGNOSES``), or None (right, or unknown)."""
    expected = float(question["expected"])
    if is_correct(answer, expected):
        return None
    for key, values in question.get("candidates", []):
        for v in values:
            if not is_correct(v, expected) and is_correct(answer, float(v)):
                return key
    return None


def rounded(value: float) -> float:
    """An answer as the histogram groups it: 3 significant digits."""
    return float(f"{value:.3g}")


@dataclass(frozen=True)
class ClassResult:
    """How a class answered one question."""

    answered: int
    correct: int
    counts: list[tuple[float, int, bool]]  # (answer to 3 significant digits, how many, right?) most common first
    wrong: float | None  # the most common wrong answer
    wrong_count: int
    diagnosis: str | None  # its key in DIAGNOSES

    @property
    def correct_rate(self) -> float:
        return self.correct / self.answered if self.answered else 0.0


def class_result(values: list[float], question: dict[str, Any]) -> ClassResult:
    expected = float(question["expected"])
    right = [is_correct(v, expected) for v in values]
    counts = Counter(rounded(v) for v in values)
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    wrong_counts = Counter(rounded(v) for v, ok in zip(values, right, strict=True) if not ok)
    wrong, wrong_count, diagnosis = None, 0, None
    if wrong_counts:
        wrong, wrong_count = sorted(wrong_counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        sample = next(v for v, ok in zip(values, right, strict=True) if not ok and rounded(v) == wrong)
        diagnosis = diagnose(sample, question)
    return ClassResult(len(values), sum(right), [(v, c, is_correct(v, expected)) for v, c in ordered], wrong,
                       wrong_count, diagnosis)
