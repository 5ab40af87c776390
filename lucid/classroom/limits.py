"""The bounds of class mode: how many rooms, how many students, how long and how often an answer."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RoomLimits:
    """Every number that bounds what rooms may cost a server (memory, Redis keys, script runs).

    ``idle_seconds``: a room nobody acted in for this long is gone (the teacher forgot *End class*).
    ``answers_per_minute``: a student's submits (a changed answer counts) in any minute, so a script
    cannot flood the teacher's histogram or the store.
    """

    max_rooms: int = 200
    max_students: int = 400
    idle_seconds: float = 3 * 3600.0
    answer_chars: int = 32
    nickname_chars: int = 24
    answers_per_minute: int = 12
    max_questions: int = 200
    source_chars: int = 10_000
