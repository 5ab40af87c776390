"""The rules of a room, written once over any ``RoomStore``: who may do what, and every bound.

A room holds the teacher's program, view options and step, the question asked (if any) and the
answers to each question. Only a caller holding the teacher's token (``codes``) may change it. Students are
issued by the server (``issue_student``: an id signed with the server's secret, one per browser session, bounded
per address); only such an id may join (the room counts students connected now) and answer the open question
(bounded in length, range and rate). A room is over when the teacher ends it, when the teacher has been away for
``teacher_idle_seconds`` (students do not keep it alive), or when no student joined within ``empty_seconds``;
an over room keeps its questions and answers for the teacher's exit ticket for ``ended_keep_seconds``. A
teacher session holds at most one open room, one address at most ``rooms_per_address``, and when the server is
full the room whose teacher is longest away gives way, never one whose teacher is present.

Peer instruction (``lucid.live_class.peer``): a question may be typed or multiple choice (its choices the right
value and the diagnosed mistakes, fixed when asked), may carry a countdown (answers after it are refused here, on
the server), and may be asked again after discussion (*Ask again*: round 2 is a question of its own, linked to
round 1 by ``first``, so each round keeps its own answers and the exit ticket compares them).

Every change to the record bumps its ``version``: students' pages compare versions to know the room
moved without reading anything else.
"""
from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lucid.i18n import L_
from lucid.live_class import exercises, peer
from lucid.live_class.answer_text import AnswerRejected, parse_answer
from lucid.live_class.codes import (
    address_key,
    clean_code,
    new_code,
    new_student_id,
    new_token,
    student_id_valid,
    token_hash,
    token_matches,
)
from lucid.live_class.limits import RoomLimits
from lucid.live_class.store import RoomStore
from lucid.viz.numbers import format_number

__all__ = ["AnswerRejected", "NotTeacher", "RoomGone", "RoomView", "Rooms", "RoomsFull", "parse_answer"]


class RoomsFull(RuntimeError):
    """No room can be opened now: the server holds as many as its limit allows."""


class RoomGone(LookupError):
    """The room ended, expired, or never existed."""


class NotTeacher(PermissionError):
    """The caller does not hold this room's teacher token."""


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
    exercise: dict[str, Any] | None = None
    """The exercise the teacher sent (``lucid.live_class.exercises``): its id, kind and, for a detective case, the
    sealed case (unreadable without the server's secret); None when there is none."""


class Rooms:
    """Rooms over ``store`` with ``limits``; ``clock`` (seconds) is injectable so tests can move time."""

    def __init__(self, store: RoomStore, limits: RoomLimits | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.limits = limits or RoomLimits()
        self.clock = clock

    @property
    def _ttl(self) -> float:
        return self.limits.idle_seconds + 600.0

    # -- the teacher -------------------------------------------------------------------------------
    def open(self, source: str, seed: int = 0, view: dict[str, Any] | None = None, step: int = 0, *,
             owner: str | None = None, address: str | None = None) -> tuple[str, str]:
        """A new room showing ``source`` at ``step``: returns (code, teacher token). Raises ``RoomsFull``.

        ``owner`` (the teacher's browser session) ends that session's previous room first: a session holds one
        open room. ``address`` (the client's) bounds how many rooms one address holds at once.
        """
        if len(source) > self.limits.source_chars:
            raise ValueError(L_("The program is too long for a class."))
        now = self.clock()
        live = self._sweep(now)
        addr = address_key(address)
        for code, record in list(live.items()):
            if owner is not None and record.get("owner") == owner:
                self._retire(code, record)
                del live[code]
        if sum(1 for r in live.values() if r.get("addr") == addr) >= self.limits.rooms_per_address:
            raise RoomsFull(L_("This address already runs {n} classes: end one of them first.",
                               n=self.limits.rooms_per_address))
        token = new_token()
        record = {"token": token_hash(token), "created": now, "version": 1, "source": source, "seed": int(seed),
                  "view": dict(view or {}), "step": int(step), "question": None, "questions": [],
                  "owner": owner, "addr": addr}
        for _ in range(20):
            code = new_code()
            outcome = self.store.add_room(code, record, now, self.limits.max_rooms, self._ttl)
            if outcome == "ok":
                return code, token
            if outcome == "full" and not self._give_way(now):
                raise RoomsFull(L_("This server already runs {n} classes; try again later.", n=self.limits.max_rooms))
        raise RoomsFull(L_("No free class code was found; try again."))

    def _over(self, code: str, active: float, record: dict | None, now: float) -> bool:
        """Whether a live room is over: its teacher away too long, or no student came in time."""
        if record is None or now - active > self.limits.teacher_idle_seconds:
            return True
        return now - float(record.get("created", now)) > self.limits.empty_seconds and self.store.size(code, 0) == 0

    def _retire(self, code: str, record: dict | None) -> None:
        questions = [q["id"] for q in (record or {}).get("questions", [])]
        questions += [_reports_key(x["id"]) for x in (record or {}).get("exercises", [])]
        self.store.retire(code, self.limits.ended_keep_seconds, questions)

    def _sweep(self, now: float) -> dict[str, dict]:
        """Retire every room that is over; returns the live ones' records."""
        live = {}
        for code, active in self.store.index().items():
            record = self.store.load(code)
            if self._over(code, active, record, now):
                self._retire(code, record)
            elif record is not None:
                live[code] = record
        return live

    def _give_way(self, now: float) -> bool:
        """The server is full: the room whose teacher is longest away ends, unless every teacher is present."""
        index = self.store.index()
        if not index:
            return False
        code, active = min(index.items(), key=lambda item: item[1])
        if now - active <= self.limits.present_seconds:
            return False
        self._retire(code, self.store.load(code))
        return True

    def is_teacher(self, code: object, token: object) -> bool:
        code = clean_code(code)
        record = self._live(code) if code else None
        return record is not None and token_matches(token, record.get("token", ""))

    def teacher_of_ended(self, code: object, token: object) -> bool:
        """Whether ``token`` is the teacher of a room that is over but still keeps its exit ticket."""
        clean = clean_code(code)
        record = self.store.load(clean) if clean else None
        return (record is not None and self._live(clean) is None
                and token_matches(token, record.get("token", "")))

    def _teacher_record(self, code: object, token: object, *, live: bool = True) -> tuple[str, dict]:
        clean = clean_code(code)
        if clean is None:
            raise RoomGone(L_("This class has ended."))
        record = self._live(clean) if live else self.store.load(clean)
        if record is None:
            raise RoomGone(L_("This class has ended."))
        if not token_matches(token, record.get("token", "")):
            raise NotTeacher(L_("Only the teacher can do this."))
        return clean, record

    def _write(self, code: str, record: dict) -> None:
        record["version"] = int(record.get("version", 0)) + 1
        self.store.save(code, record, self._ttl)
        self.store.touch(code, self.clock())

    def teacher_seen(self, code: str, token: str) -> None:
        """The teacher's page is open (it says so once a minute): the room stays, and the teacher is present."""
        code, _record = self._teacher_record(code, token)
        self.store.touch(code, self.clock())

    def set_step(self, code: str, token: str, step: int) -> int:
        """The teacher's step; returns the room's new version (unchanged when the step is)."""
        code, record = self._teacher_record(code, token)
        step = max(0, int(step))
        if record["step"] != step:
            record["step"] = step
            self._write(code, record)
        else:
            self.store.touch(code, self.clock())
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
            record["exercise"] = None  # an exercise is on the program it was sent with
            record["step"] = int(step)
        record.update(source=source, seed=int(seed), view=dict(view))
        self._write(code, record)

    def ask(self, code: str, token: str, question: dict[str, Any], *, show_rule: bool, kind: str = "typed",
            seconds: int | None = None) -> str:
        """Open ``question`` (built by ``lucid.live_class.grading.question_at``) to the class; returns its id.

        ``kind``: "typed" (students type a number) or "choice" (they pick one of ``peer.choices``); ``seconds``: a
        countdown (``peer.COUNTDOWN_SECONDS``), None for none. Raises ``AnswerRejected`` for a bad kind or
        countdown, a step with nothing to choose between, or too many questions.
        """
        code, record = self._teacher_record(code, token)
        kind, seconds = peer.kind(kind), peer.countdown(seconds)
        self._room_for_a_question(record)
        qid = secrets.token_hex(6)
        now = self.clock()
        asked = {**question, "id": qid, "show_rule": bool(show_rule), "revealed": False, "asked": now, "round": 1,
                 "kind": kind}
        if kind == "choice":
            asked["choices"] = peer.choices(question, qid)
        self._set_countdown(asked, seconds, now)
        record["question"] = asked  # the class predicts this step: it is shown at the reveal
        record["questions"].append(asked)
        self._write(code, record)
        return qid

    def _room_for_a_question(self, record: dict) -> None:
        if len(record["questions"]) >= self.limits.max_questions:
            raise AnswerRejected(L_("A class asks at most {n} questions.", n=self.limits.max_questions))

    @staticmethod
    def _set_countdown(question: dict[str, Any], seconds: int | None, now: float) -> None:
        question.pop("deadline", None)
        question.pop("seconds", None)
        if seconds:
            question.update(deadline=now + seconds, seconds=seconds)

    def ask_again(self, code: str, token: str, seconds: int | None = None) -> str:
        """The open question again, after the class discussed it (peer instruction's second vote); returns the
        new round's id. Round 1 takes no more answers and keeps its own; the choices keep their order.

        Only before *Reveal* (the answer shown, a vote measures nothing) and at most ``peer.MAX_ROUNDS`` rounds.
        """
        code, record = self._teacher_record(code, token)
        seconds = peer.countdown(seconds)
        question = record.get("question")
        if question is None:
            raise AnswerRejected(L_("No question is open right now."))
        if question.get("revealed"):
            raise AnswerRejected(L_("The answer was revealed: ask a new question rather than again."))
        done = int(question.get("round", 1))
        if done >= peer.MAX_ROUNDS:
            raise AnswerRejected(L_("A question is asked at most {n} times.", n=peer.MAX_ROUNDS))
        self._room_for_a_question(record)
        now = self.clock()
        again = {**question, "id": secrets.token_hex(6), "round": done + 1, "first": question.get("first",
                                                                                                  question["id"]),
                 "asked": now}
        self._set_countdown(again, seconds, now)
        for q in record["questions"]:
            if q["id"] == question["id"]:
                q["closed"] = True
        record["question"] = again
        record["questions"].append(again)
        self._write(code, record)
        return str(again["id"])

    def reveal(self, code: str, token: str) -> None:
        """Show the open question's step, answer and class result to everyone; answers close."""
        code, record = self._teacher_record(code, token)
        question = record.get("question")
        if question is None or question.get("revealed"):
            return
        question["revealed"] = True
        record["step"] = int(question.get("step", record["step"]))
        for q in record["questions"]:
            if q["id"] in (question["id"], question.get("first")):  # every round of the question
                q["revealed"] = True
        self._write(code, record)

    def close_question(self, code: str, token: str) -> None:
        """Back to following: the question (answered or not) leaves the students' screens."""
        code, record = self._teacher_record(code, token)
        if record.get("question") is not None:
            record["question"] = None
            self._write(code, record)

    def send_exercise(self, code: str, token: str, kind: str, case: str | None = None) -> str:
        """Send the class an exercise on the room's program (``exercises.KINDS``); returns its id. A detective
        exercise carries the teacher's sealed ``case`` (``lucid.practice.detective_link``). The one before it
        stops. Raises ``AnswerRejected`` for a bad kind or case, or too many exercises."""
        code, record = self._teacher_record(code, token)
        kind = exercises.kind(kind)
        if kind == "detective" and not (isinstance(case, str) and 0 < len(case) <= 64):
            raise AnswerRejected(L_("Make a detective link for this program first."))
        sent = record.setdefault("exercises", [])
        if len(sent) >= exercises.MAX_EXERCISES:
            raise AnswerRejected(L_("A class gets at most {n} exercises.", n=exercises.MAX_EXERCISES))
        exercise = {"id": secrets.token_hex(6), "kind": kind, "case": case if kind == "detective" else None,
                    "source": record["source"], "seed": record["seed"], "sent": self.clock()}
        sent.append(exercise)
        record["exercise"] = {k: exercise[k] for k in ("id", "kind", "case")}
        self._write(code, record)
        return str(exercise["id"])

    def stop_exercise(self, code: str, token: str) -> None:
        """The exercise leaves the students' screens; its reports stay for the panel and the exit ticket."""
        code, record = self._teacher_record(code, token)
        if record.get("exercise") is not None:
            record["exercise"] = None
            self._write(code, record)

    def exercise_reports(self, code: str, token: str, exercise_id: str) -> list[dict[str, Any]]:
        """Every student's last report on one exercise (with their ``student`` id). Teacher only."""
        code, _record = self._teacher_record(code, token, live=False)
        return [{**r, "student": sid} for sid, r in self.store.answers(code, _reports_key(exercise_id)).items()]

    def exercise_history(self, code: str, token: str) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
        """Every exercise sent, with its reports (for the exit ticket), during the class and for a day after."""
        code, record = self._teacher_record(code, token, live=False)
        return [(x, [{**r, "student": sid} for sid, r in self.store.answers(code, _reports_key(x["id"])).items()])
                for x in record.get("exercises", [])]

    def end(self, code: str, token: str) -> None:
        """The class is over: nobody joins or answers; its exit ticket stays with the teacher for a day."""
        code, record = self._teacher_record(code, token)
        record["ended"] = self.clock()
        self._write(code, record)
        self._retire(code, record)

    def history(self, code: str, token: str) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
        """Every question asked (each round of it), with its answers (for the exit ticket), during the class and
        for a day after. Each answer carries the ``student`` id, so rounds can be compared per student. Teacher
        only."""
        code, record = self._teacher_record(code, token, live=False)
        return [(q, [{**a, "student": sid} for sid, a in self.store.answers(code, q["id"]).items()])
                for q in record["questions"]]

    def answers_by_student(self, code: str, token: str, question_id: str) -> dict[str, float]:
        """Each student's answer to one round (student id -> value), to compare rounds per student. Teacher only."""
        code, _record = self._teacher_record(code, token, live=False)
        return {sid: float(a["value"]) for sid, a in self.store.answers(code, str(question_id)).items()}

    NICKNAME_LOOKBACK = 5
    """Questions (rounds) whose answers name the students for the not-yet-answered list: a nickname typed a few
    questions ago still names them, and a refresh of the teacher's panel reads at most this many answer sets."""

    def unanswered(self, code: str, token: str) -> peer.Unanswered:
        """Who, of the students connected now, has not answered the open round (by the nickname they typed last in
        this class, if any). Teacher only."""
        code, record = self._teacher_record(code, token)
        question = record.get("question")
        if question is None or question.get("revealed"):
            return peer.Unanswered()
        present = self.store.members(code, self._present_since(), self.limits.max_students)
        nicknames: dict[str, str] = {}
        for earlier in record["questions"][-self.NICKNAME_LOOKBACK:]:  # oldest first: the latest nickname wins
            for sid, a in self.store.answers(code, earlier["id"]).items():
                if isinstance(a.get("nickname"), str) and a["nickname"]:
                    nicknames[sid] = a["nickname"]
        return peer.unanswered(present, self.store.answers(code, question["id"]), nicknames)

    # -- everyone ----------------------------------------------------------------------------------
    def _live(self, code: str | None) -> dict | None:
        if code is None:
            return None
        active = self.store.last_active(code)
        if active is None:
            return None
        record = self.store.load(code)
        if self._over(code, active, record, self.clock()):
            self._retire(code, record)
            return None
        return record

    def status(self, code: object) -> str:
        """"live", "ended" (over, its record kept for the teacher) or "unknown" (never was, or long gone)."""
        clean = clean_code(code)
        if clean is None:
            return "unknown"
        if self._live(clean) is not None:
            return "live"
        return "ended" if self.store.load(clean) is not None else "unknown"

    def _present_since(self) -> float:
        return self.clock() - self.limits.present_seconds

    def view(self, code: object) -> RoomView | None:
        """The room as a student sees it (never the token), or None when it is over."""
        clean = clean_code(code)
        record = self._live(clean) if clean else None
        if record is None or clean is None:
            return None
        return RoomView(clean, int(record["version"]), record["source"], int(record["seed"]), dict(record["view"]),
                        int(record["step"]), record.get("question"), self.store.size(clean, self._present_since()),
                        list(record.get("questions", [])), record.get("exercise"))

    def issue_student(self, code: object, address: str | None = None) -> str | None:
        """A new student id for room ``code`` (signed), or None when the room is over or this address has been
        issued more ids for it than a whole class behind one address needs."""
        clean = clean_code(code)
        if clean is None or self._live(clean) is None:
            return None
        window = int(self.clock() // self.limits.issue_window_seconds)
        issued = self.store.hit("issue", f"{clean}:{address_key(address)}", window,
                                self.limits.issue_window_seconds + 60)
        if issued > self.limits.students_per_address:
            return None
        return new_student_id(clean, self.store.secret())

    def is_student(self, code: object, student: object) -> bool:
        """Whether ``student`` is an id this server issued for room ``code``."""
        clean = clean_code(code)
        return clean is not None and student_id_valid(student, clean, self.store.secret())

    def join(self, code: object, student: object) -> bool:
        """Count ``student`` as connected now (again after a reload: the same id). False: over, full, or an id
        the server did not issue."""
        clean = clean_code(code)
        if clean is None or not self.is_student(clean, student) or self._live(clean) is None:
            return False
        return self.store.join(clean, str(student), self.clock(), self._present_since(), self.limits.max_students,
                               self._ttl)

    def leave(self, code: object, student: object) -> None:
        """``student`` leaves the room's count (their tab turned out to be the teacher's)."""
        clean = clean_code(code)
        if clean is not None and isinstance(student, str):
            self.store.leave(clean, student)

    def _student_room(self, code: object, student: object) -> tuple[str, dict]:
        """The live room ``student`` acts in, counted as connected now; ``RoomGone`` or ``AnswerRejected`` (full,
        or an id the server did not issue)."""
        clean = clean_code(code)
        record = self._live(clean) if clean else None
        if record is None or clean is None:
            raise RoomGone(L_("This class has ended."))
        if not self.join(clean, student):
            raise AnswerRejected(L_("This class is full."))
        return clean, record

    def answer(self, code: object, student: object, text: object, nickname: object = "", *,
               locale: str | None = None, question_id: object = None, choice: object = None) -> float:
        """Take ``student``'s answer to the open question (a new one replaces theirs); returns the number.

        ``locale`` reads an ambiguous ``1,000`` as the student's language writes numbers. ``question_id``: the
        round the student's page showed (an answer to a round that has since closed is refused, never counted in
        the next). A multiple-choice question takes ``choice`` (the index of a choice), graded like its number.
        Raises ``AnswerRejected`` (no open question, revealed already, another round now, the countdown over, not
        a number or not a choice, out of range, too long, too many submits this minute, not in the room) or
        ``RoomGone``.
        """
        clean, record = self._student_room(code, student)
        sid = str(student)
        question = record.get("question")
        if question is None:
            raise AnswerRejected(L_("No question is open right now."))
        if question.get("revealed"):
            raise AnswerRejected(L_("The answer was revealed: this question is closed."))
        if question_id is not None and question_id != question["id"]:
            raise AnswerRejected(L_("The question on the screen has changed: answer it again."))
        now = self.clock()
        deadline = question.get("deadline")
        if isinstance(deadline, int | float) and now > deadline + peer.GRACE_SECONDS:
            raise AnswerRejected(L_("Time is up: answers closed when the countdown ended."))
        if self.store.hit("answer", f"{clean}:{sid}", int(now // 60), 120) > self.limits.answers_per_minute:
            raise AnswerRejected(L_("Too many answers this minute: wait a little and submit again."))
        extra: dict[str, Any] = {}
        if question.get("kind") == "choice":
            offered = question.get("choices") or []
            if isinstance(choice, bool) or not isinstance(choice, int) or not 0 <= choice < len(offered):
                raise AnswerRejected(L_("Pick one of the choices."))
            value = float(offered[choice])
            text, extra = f"{peer.letter(choice)}: {format_number(value)}", {"choice": choice}
        elif choice is not None:
            raise AnswerRejected(L_("This question takes a typed number, not a choice."))
        else:
            value = parse_answer(text, self.limits.answer_chars, locale=locale)
        nick = nickname.strip()[: self.limits.nickname_chars] if isinstance(nickname, str) else ""
        self.store.put_answer(clean, question["id"], sid, {"value": value, "text": str(text).strip(),
                                                            "nickname": nick, "at": now, **extra}, self._ttl)
        return value

    def report(self, code: object, student: object, exercise_id: object, progress: object,
               nickname: object = "") -> None:
        """Take ``student``'s progress on the exercise their page shows (``exercises.clean_report``: bounded,
        unknown keys dropped; a new report replaces theirs). Raises ``AnswerRejected`` (no such exercise now, too
        many reports this minute, not in the room) or ``RoomGone``."""
        clean, record = self._student_room(code, student)
        exercise = record.get("exercise")
        if exercise is None or exercise_id != exercise["id"]:
            raise AnswerRejected(L_("The teacher stopped this exercise."))
        sid, now = str(student), self.clock()
        if self.store.hit("report", f"{clean}:{sid}", int(now // 60), 120) > 4 * self.limits.answers_per_minute:
            raise AnswerRejected(L_("Too many reports this minute: wait a little."))
        nick = nickname.strip()[: self.limits.nickname_chars] if isinstance(nickname, str) else ""
        self.store.put_answer(clean, _reports_key(exercise["id"]), sid,
                              {**exercises.clean_report(progress), "nickname": nick, "at": now}, self._ttl)

    def answers(self, code: object, question_id: str) -> list[dict[str, Any]]:
        clean = clean_code(code)
        if clean is None or not isinstance(question_id, str):
            return []
        return list(self.store.answers(clean, question_id).values())

    def answer_tally(self, code: object, question_id: object) -> dict[str, Any] | None:
        """What the teacher's panel counts of round ``question_id``: ``{"q": its id, "answered": how many students
        answered it, "students": how many are connected now}``; None for a room that is not live or a round that is
        not the open one. Numbers only: no answer, no student, nothing of the right answer."""
        clean = clean_code(code)
        record = self._live(clean) if clean else None
        question = record.get("question") if record is not None else None
        if clean is None or question is None or question.get("id") != question_id:
            return None
        return {"q": question["id"], "answered": len(self.store.answers(clean, question["id"])),
                "students": self.store.size(clean, self._present_since())}

    def my_answer(self, code: object, question_id: str, student: object) -> dict[str, Any] | None:
        clean = clean_code(code)
        if clean is None or not isinstance(student, str) or not isinstance(question_id, str):
            return None
        return self.store.answers(clean, question_id).get(student)


def _reports_key(exercise_id: object) -> str:
    """Where the store keeps an exercise's reports: beside the questions' answers, under a key no question has."""
    return f"x-{exercise_id}"
