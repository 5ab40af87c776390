"""The stepper's settings on the server: a step kept inside a pass, and the autoplay speeds a link names.

Step 0 is the seed gradient at the output; the last step is ``n_steps - 1``. Stepping itself (moves that
clamp at both ends, Play from the last step rewinding to the seed, playing stopping at the end) happens in
the browser: its rules are ``lucid/viz/player/logic.mjs``, tested under Node (``tests/js``).
"""
from __future__ import annotations

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


def seconds_per_step(speed: str) -> float:
    """Interval for a speed label (an old link's word too); unknown labels play at the default speed."""
    return SPEEDS.get(OLD_SPEEDS.get(speed, speed), SPEEDS[DEFAULT_SPEED])
