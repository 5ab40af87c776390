"""The rules of a room, written once over any ``RoomStore``: who may do what, and every bound.

A room holds the teacher's program, view options and step, the question asked (if any) and the
answers to each question. Only a caller holding the teacher's token (``codes``) may change it; a
student may join (bounded), and answer the open question (bounded in length and rate). A room is gone
when the teacher ends it or after ``idle_seconds`` with nobody acting in it.

Every change to the record bumps its ``version``: students' pages compare versions to know the room
moved without reading anything else.
"""
from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lucid.classroom.codes import (
    clean_code,
    clean_student_id,
    new_code,
    new_student_id,
    new_token,
    token_hash,
    token_matches,
)
from lucid.classroom.limits import RoomLimits
from lucid.classroom.store import RoomStore
from lucid.i18n import L_

__all__ = ["AnswerRejected", "NotTeacher", "RoomGone", "RoomView", "Rooms", "RoomsFull", "new_student_id",
           "parse_answer"]


class RoomsFull(RuntimeError):
    """No room can be opened now: the server holds as many as its limit allows."""


class RoomGone(LookupError):
    """The room ended, expired, or never existed."""


class NotTeacher(PermissionError):
    """The caller does not hold this room's teacher token."""


class AnswerRejected(ValueError):
    """An answer that is not taken, with the reason a student can act on."""


@dataclass(frozen=True)
class RoomView:
    """What a page needs to show a room: the teacher's program, view, step, question and the room's size."""

    code: str
    version: int
    source: str
    seed: int
    view: dict[str, Any]
    step: int
    question: dict[str, Any] | None
    students: int
    questions: list[dict[str, Any]] = field(default_factory=list)


def parse_answer(text: object, max_chars: int) -> float:
    """A typed number (``-0.25``, ``1e-3``, ``−2`` with a typographic minus, ``1,5`` with a decimal comma)."""
    if not isinstance(text, str) or not text.strip():
        raise AnswerRejected(L_("Type a number."))
    if len(text) > max_chars:
        raise AnswerRejected(L_("An answer is at most {n} characters.", n=max_chars))
    cleaned = text.strip().replace("−", "-").replace(" ", "")
    if cleaned.count(",") == 1 and "." not in cleaned:
        cleaned = cleaned.replace(",", ".")
    try:
        value = float(cleaned)
    except ValueError:
        raise AnswerRejected(L_("“{text}” is not a number: type digits, e.g. -0.25 or 1.5e-3.",
                                 text=text.strip())) from None
    if not math.isfinite(value):
        raise AnswerRejected(L_("Type a finite number."))
    return value


class Rooms:
    """Rooms over ``store`` with ``limits``; ``clock`` (seconds) is injectable so tests can move time."""

    def __init__(self, store: RoomStore, limits: RoomLimits | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.limits = limits or RoomLimits()
        self.clock = clock

    @property
    def _ttl(self) -> float:
        return self.limits.idle_seconds + 60.0

    # -- the teacher -------------------------------------------------------------------------------
    def open(self, source: str, seed: int = 0, view: dict[str, Any] | None = None, step: int = 0) -> tuple[str, str]:
        """A new room showing ``source`` at ``step``: returns (code, teacher token). Raises ``RoomsFull``."""
        if len(source) > self.limits.source_chars:
            raise ValueError(L_("The program is too long for a class."))
        token = new_token()
        now = self.clock()
        record = {"token": token_hash(token), "created": now, "version": 1, "source": source, "seed": int(seed),
                  "view": dict(view or {}), "step": int(step), "question": None, "questions": []}
        for _ in range(20):
            code = new_code()
            outcome = self.store.add_room(code, record, now, now - self.limits.idle_seconds,
                                          self.limits.max_rooms, self._ttl)
            if outcome == "ok":
                return code, token
            if outcome == "full":
                raise RoomsFull(L_("This server already runs {n} classes; try again later.", n=self.limits.max_rooms))
        raise RoomsFull(L_("No free class code was found; try again."))

    def is_teacher(self, code: object, token: object) -> bool:
        code = clean_code(code)
        record = self._live(code) if code else None
        return record is not None and token_matches(token, record.get("token", ""))

    def _teacher_record(self, code: object, token: object) -> tuple[str, dict]:
        clean = clean_code(code)
        record = self._live(clean) if clean else None
        if record is None:
            raise RoomGone(L_("This class has ended."))
        if not token_matches(token, record.get("token", "")):
            raise NotTeacher(L_("Only the teacher can do this."))
        return clean, record

    def _write(self, code: str, record: dict) -> None:
        record["version"] = int(record.get("version", 0)) + 1
        self.store.save(code, record, self._ttl)
        self.store.touch(code, self.clock())

    def set_step(self, code: str, token: str, step: int) -> int:
        """The teacher's step; returns the room's new version (unchanged when the step is)."""
        code, record = self._teacher_record(code, token)
        step = max(0, int(step))
        if record["step"] != step:
            record["step"] = step
            self._write(code, record)
        return int(record["version"])

    def set_program(self, code: str, token: str, source: str, seed: int, view: dict[str, Any], step: int = 0) -> None:
        """The teacher ran another program or changed the view: the room follows; an open question closes."""
        if len(source) > self.limits.source_chars:
            raise ValueError(L_("The program is too long for a class."))
        code, record = self._teacher_record(code, token)
        if (record["source"], record["seed"], record["view"]) == (source, int(seed), dict(view)):
            return
        if record["source"] != source or record["seed"] != int(seed):
            record["question"] = None
            record["step"] = int(step)
        record.update(source=source, seed=int(seed), view=dict(view))
        self._write(code, record)

    def ask(self, code: str, token: str, question: dict[str, Any], *, show_rule: bool) -> str:
        """Open ``question`` (built by ``lucid.classroom.grading.question_at``) to the class; returns its id."""
        code, record = self._teacher_record(code, token)
        if len(record["questions"]) >= self.limits.max_questions:
            raise AnswerRejected(L_("A class asks at most {n} questions.", n=self.limits.max_questions))
        qid = secrets.token_hex(6)
        asked = {**question, "id": qid, "show_rule": bool(show_rule), "revealed": False, "asked": self.clock()}
        record["question"] = asked  # the class predicts this step: it is shown at the reveal
        record["questions"].append(asked)
        self._write(code, record)
        return qid

    def reveal(self, code: str, token: str) -> None:
        """Show the open question's step, answer and class result to everyone; answers close."""
        code, record = self._teacher_record(code, token)
        question = record.get("question")
        if question is None or question.get("revealed"):
            return
        question["revealed"] = True
        record["step"] = int(question.get("step", record["step"]))
        for q in record["questions"]:
            if q["id"] == question["id"]:
                q["revealed"] = True
        self._write(code, record)

    def close_question(self, code: str, token: str) -> None:
        """Back to following: the question (answered or not) leaves the students' screens."""
        code, record = self._teacher_record(code, token)
        if record.get("question") is not None:
            record["question"] = None
            self._write(code, record)

    def end(self, code: str, token: str) -> None:
        code, _ = self._teacher_record(code, token)
        self.store.delete(code)

    def history(self, code: str, token: str) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
        """Every question asked, with its answers (for the exit ticket). Teacher only."""
        code, record = self._teacher_record(code, token)
        return [(q, list(self.store.answers(code, q["id"]).values())) for q in record["questions"]]

    # -- everyone ----------------------------------------------------------------------------------
    def _live(self, code: str | None) -> dict | None:
        if code is None:
            return None
        active = self.store.last_active(code)
        if active is None or self.clock() - active > self.limits.idle_seconds:
            return None
        return self.store.load(code)

    def view(self, code: object) -> RoomView | None:
        """The room as a student sees it (never the token), or None when it is gone."""
        clean = clean_code(code)
        record = self._live(clean) if clean else None
        if record is None or clean is None:
            return None
        return RoomView(clean, int(record["version"]), record["source"], int(record["seed"]), dict(record["view"]),
                        int(record["step"]), record.get("question"), self.store.size(clean),
                        list(record.get("questions", [])))

    def join(self, code: object, student: object) -> bool:
        """Count ``student`` in the room (again after a reload: the same id). False: gone or full."""
        clean, sid = clean_code(code), clean_student_id(student)
        if clean is None or sid is None or self._live(clean) is None:
            return False
        joined = self.store.join(clean, sid, self.limits.max_students, self._ttl)
        if joined:
            self.store.touch(clean, self.clock())
        return joined

    def answer(self, code: object, student: object, text: object, nickname: object = "") -> float:
        """Take ``student``'s answer to the open question (a new one replaces theirs); returns the number.

        Raises ``AnswerRejected`` (no open question, revealed already, not a number, too long, too many
        submits this minute, not in the room) or ``RoomGone``.
        """
        clean, sid = clean_code(code), clean_student_id(student)
        record = self._live(clean) if clean else None
        if record is None or clean is None:
            raise RoomGone(L_("This class has ended."))
        if sid is None or not self.store.join(clean, sid, self.limits.max_students, self._ttl):
            raise AnswerRejected(L_("This class is full."))
        question = record.get("question")
        if question is None:
            raise AnswerRejected(L_("No question is open right now."))
        if question.get("revealed"):
            raise AnswerRejected(L_("The answer was revealed: this question is closed."))
        now = self.clock()
        if self.store.hit(clean, sid, int(now // 60)) > self.limits.answers_per_minute:
            raise AnswerRejected(L_("Too many answers this minute: wait a little and submit again."))
        value = parse_answer(text, self.limits.answer_chars)
        nick = nickname.strip()[: self.limits.nickname_chars] if isinstance(nickname, str) else ""
        self.store.put_answer(clean, question["id"], sid, {"value": value, "text": str(text).strip(),
                                                            "nickname": nick, "at": now}, self._ttl)
        self.store.touch(clean, now)
        return value

    def answers(self, code: object, question_id: str) -> list[dict[str, Any]]:
        clean = clean_code(code)
        if clean is None or not isinstance(question_id, str):
            return []
        return list(self.store.answers(clean, question_id).values())

    def my_answer(self, code: object, question_id: str, student: object) -> dict[str, Any] | None:
        clean, sid = clean_code(code), clean_student_id(student)
        if clean is None or sid is None:
            return None
        return self.store.answers(clean, question_id).get(sid)
