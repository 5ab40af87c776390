"""Peer instruction's parts, as plain rules: a second round, a countdown, multiple choice, who has not answered.

Mazur's peer instruction asks a question, lets the class discuss, asks the same question again and compares the
two votes: how many moved to the right answer is what the discussion did. ``lucid.live_class.rooms`` keeps the
rounds (each round is a question of its own, with its own answers, linked to the first by ``first``); this module
holds what is computed from them, with no store and no Streamlit, so the room, the panel and the exit ticket all
count alike.

Every number here is bounded: ``MAX_ROUNDS`` rounds per question, a countdown of ``COUNTDOWN_SECONDS``, at most
``MAX_CHOICES`` choices, at most ``NAMES_SHOWN`` nicknames in the not-yet-answered list.
"""
from __future__ import annotations

import math
import random
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from lucid.i18n import L_
from lucid.live_class.answer_text import AnswerRejected
from lucid.live_class.grading import is_correct, rounded

MAX_ROUNDS = 2
"""Rounds per question: the vote and the vote after discussion (a third vote teaches little and costs minutes)."""
COUNTDOWN_SECONDS = (10, 300)
"""The shortest and the longest countdown a teacher may set (no countdown: the teacher reveals when ready)."""
GRACE_SECONDS = 1.0
"""An answer submitted as the countdown reaches 0 is still on its way: it is taken this long after the deadline."""
MAX_CHOICES = 6
"""The right value and the diagnosed mistakes (four kinds today) fit; a longer list is unreadable on a phone."""
NAMES_SHOWN = 20
"""Nicknames listed as not answered; the rest are counted."""
KINDS = ("typed", "choice")
"""How students answer: type a number, or pick one of the choices."""
TICKET_KINDS = {"typed": "typed", "choice": "multiple choice"}
"""The exit ticket's cell for each kind (machine-readable like a diagnosis key: the same in every language)."""


def countdown(seconds: object) -> int | None:
    """The countdown a teacher asked for, in whole seconds (None or 0: no countdown). Raises ``AnswerRejected``."""
    if seconds is None or seconds == 0:
        return None
    low, high = COUNTDOWN_SECONDS
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not math.isfinite(seconds) or not (
            low <= seconds <= high):
        raise AnswerRejected(L_("A countdown lasts {low} to {high} seconds.", low=low, high=high))
    return int(seconds)


def kind(value: object) -> str:
    if value not in KINDS:
        raise AnswerRejected(L_("A question is typed or multiple choice."))
    return str(value)


def choices(question: dict[str, Any], qid: str) -> list[float]:
    """The choices of a multiple-choice ``question``: the right value and each diagnosed mistake's value that
    differs from it (and from each other) to 3 significant digits, in an order fixed by the question's id, so every
    student sees the same list (and "B" means the same on every phone). Raises ``AnswerRejected`` when no mistake
    gives another number (then there is nothing to choose between)."""
    expected = float(question["expected"])
    picked, seen = [expected], {rounded(expected)}
    for _key, values in question.get("candidates", []):
        for v in values:
            v = float(v)
            if math.isfinite(v) and not is_correct(v, expected) and rounded(v) not in seen:
                picked.append(v)
                seen.add(rounded(v))
                break
        if len(picked) >= MAX_CHOICES:
            break
    if len(picked) < 2:
        raise AnswerRejected(L_("At this step every common mistake gives the right number: ask it typed."))
    random.Random(qid).shuffle(picked)
    return picked


def letter(index: int) -> str:
    """A choice's name: A, B, C …"""
    return chr(ord("A") + index)


@dataclass(frozen=True)
class Changes:
    """What the discussion did between two rounds, per student who answered both."""

    both: int  # answered in both rounds
    to_right: int  # wrong in round 1, right in round 2
    to_wrong: int  # right in round 1, wrong in round 2


def changes(first: dict[str, float], second: dict[str, float], expected: float) -> Changes:
    """Compare each student's two answers (student id -> value in each round)."""
    both = [s for s in second if s in first]
    to_right = sum(1 for s in both if not is_correct(first[s], expected) and is_correct(second[s], expected))
    to_wrong = sum(1 for s in both if is_correct(first[s], expected) and not is_correct(second[s], expected))
    return Changes(len(both), to_right, to_wrong)


@dataclass(frozen=True)
class Unanswered:
    """Students connected now who have not answered the open round: some by nickname, the others counted."""

    count: int = 0
    names: list[str] = field(default_factory=list)  # at most NAMES_SHOWN, sorted, as typed (escape to show)
    unnamed: int = 0  # no nickname known, or beyond NAMES_SHOWN


def unanswered(present: Iterable[str], answered: Iterable[str], nicknames: dict[str, str]) -> Unanswered:
    """Who of ``present`` is not in ``answered``; a nickname from ``nicknames`` (the student's latest one in this
    class) names them, and the list is cut at ``NAMES_SHOWN``."""
    done = set(answered)
    missing = [s for s in dict.fromkeys(present) if s not in done]
    named = sorted((nicknames[s] for s in missing if nicknames.get(s)), key=str.casefold)
    names = named[:NAMES_SHOWN]
    return Unanswered(len(missing), names, len(missing) - len(names))


_MARKDOWN = set("\\`*_{}[]()#+-.!|<>~=$:&\"'")


def plain_markdown(text: str) -> str:
    """Student-typed text safe to put in Markdown: every control and format character (new lines, bidi overrides)
    dropped, every ASCII punctuation sign backslash-escaped (no link, image, emphasis or HTML can come of it)."""
    kept = "".join(" " if c in "\n\r\t" else c for c in text if c in "\n\r\t"
                   or not unicodedata.category(c).startswith("C"))
    return "".join("\\" + c if c in _MARKDOWN else c for c in kept).strip()
