"""The backward stepper's rules, apart from any widget: where first/prev/next/last go, how Play ticks.

Step 0 is the seed gradient at the output; the last step is ``n_steps - 1``.
Pure functions over ints, tested without Streamlit. The browser player
(``clickable_graph``) follows the same rules in JavaScript: moves clamp at both
ends, Play from the last step rewinds to the seed, and playing stops at the end.
"""
from __future__ import annotations

from dataclasses import dataclass

SPEEDS: dict[str, float] = {"fast": 0.5, "normal": 1.0, "slow": 2.0, "slower": 3.0, "very slow": 4.0,
                             "slowest": 6.0}
"""Autoplay speed label -> seconds per step (the browser player's interval): from 0.5 s, quick enough to
replay a pass already explained, to 6 s, time to say each step aloud to a class. The labels are the link's
``speed=`` words."""

OLD_SPEEDS: dict[str, str] = {"very fast": "fast"}
"""Words older links carry for a speed no longer offered -> the speed they now play at (0.25 s per step
was too quick to read; such a link opens at the quickest speed kept)."""

DEFAULT_SPEED = "normal"


def clamp(step: int, n_steps: int) -> int:
    """``step`` kept inside ``0 .. n_steps-1`` (0 when there are no steps at all)."""
    return max(0, min(int(step), n_steps - 1)) if n_steps > 0 else 0


def first(step: int, n_steps: int) -> int:
    return 0


def previous(step: int, n_steps: int) -> int:
    return clamp(step - 1, n_steps)


def next_(step: int, n_steps: int) -> int:
    return clamp(step + 1, n_steps)


def last(step: int, n_steps: int) -> int:
    return clamp(n_steps - 1, n_steps)


MOVES = {"first": first, "previous": previous, "next": next_, "last": last}


@dataclass(frozen=True)
class Tick:
    """Result of one autoplay tick: the new step and whether playing goes on."""

    step: int
    playing: bool


def tick(step: int, n_steps: int) -> Tick:
    """One autoplay tick: advance one step; stop playing on reaching the last step."""
    new = next_(step, n_steps)
    return Tick(new, new < n_steps - 1)


def start(step: int, n_steps: int) -> Tick:
    """Pressing Play: from the last step it rewinds to the seed, otherwise it plays on from here."""
    if n_steps <= 1:
        return Tick(0, False)
    at_end = clamp(step, n_steps) >= n_steps - 1
    return Tick(0 if at_end else clamp(step, n_steps), True)


def seconds_per_step(speed: str) -> float:
    """Interval for a speed label (an old link's word too); unknown labels play at the default speed."""
    return SPEEDS.get(OLD_SPEEDS.get(speed, speed), SPEEDS[DEFAULT_SPEED])
