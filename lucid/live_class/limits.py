"""The bounds of class mode: how many rooms, how many students, how long a room lives and how often anyone acts.

Each number bounds what one browser session, one address or the whole server may cost: memory, store keys,
script runs. The per-address numbers are set above what a real class behind one shared address sends (a campus
NAT or one Wi-Fi puts 60-400 students, and several teachers, behind a single address), so they only stop a script.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RoomLimits:
    """Every number that bounds what rooms may cost a server.

    ``teacher_idle_seconds``: a room whose teacher neither acted nor had the page open (the teacher's page says
    it is there once a minute) for this long is over: the teacher closed the tab or forgot *End class*. Students
    joining or answering do not keep a room alive.
    ``empty_seconds``: a room no student ever joined is over this long after it opened.
    ``present_seconds``: the teacher counts as present, and a student as connected now, when seen this recently
    (their pages say so every ``heartbeat_seconds``).
    ``ended_keep_seconds``: after *End class* (or expiry) a room's questions and answers stay for the teacher's
    exit ticket this long; no student can join or answer.
    ``answers_per_minute``: one student's submits (a changed answer counts) in a minute.
    ``rooms_per_address``: classes open at once from one client address (several teachers behind one NAT).
    ``students_per_address``: student ids issued per room to one address in ``issue_window_seconds``: above a
    whole class behind one NAT (400), so only a script minting ids meets it.
    """

    max_rooms: int = 200
    max_students: int = 400
    teacher_idle_seconds: float = 15 * 60.0
    empty_seconds: float = 20 * 60.0
    present_seconds: float = 150.0
    heartbeat_seconds: float = 60.0
    ended_keep_seconds: float = 24 * 3600.0
    answer_chars: int = 32
    nickname_chars: int = 24
    answers_per_minute: int = 12
    max_questions: int = 200
    source_chars: int = 10_000
    rooms_per_address: int = 10
    students_per_address: int = 600
    issue_window_seconds: float = 600.0

    @property
    def idle_seconds(self) -> float:
        """The longest a room can last unattended: what a forgotten room's feed file is kept for."""
        return max(self.teacher_idle_seconds, self.empty_seconds)
