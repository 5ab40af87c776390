"""Class mode on the Playground: *Start a class*, the teacher's panel, and the student's banner and question.

The page calls these in order (``pages/playground.py``): ``seat`` (who this tab is in which room, from the
URL: ``room=`` the code, ``teach=`` the teacher's token, ``me=`` a student's id), ``before_enter``
(a student arriving takes the teacher's view), ``before_editor`` (a following student runs the
teacher's program), ``after_program`` (the teacher's program and view go to the room; a student's page
opens at the teacher's step), ``player_room`` (what the player needs to report or follow steps) and
``panel`` (the teacher's or the student's controls, drawn in a slot at the top of the page).

The step itself never reruns a student's page: the player polls the room's feed
(``lucid.live_class.feed``). Only a new program, a question or its reveal does.
"""
from __future__ import annotations

import functools
import io
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

from lucid.i18n import L_, Message, _, ngettext, text, use_language
from lucid.live_class import AnswerRejected, NotTeacher, RoomGone, RoomsFull, RoomView, StoreUnavailable, peer
from lucid.live_class.codes import clean_code
from lucid.live_class.feed import DRAWING_WORDS, drawing_key, exercise_key, program_key, question_key
from lucid.live_class.grading import (
    TOLERANCE_TEXT,
    class_result,
    diagnose,
    diagnosis_text,
    is_correct,
    question_at,
    rule_text,
)
from lucid.live_class.texts import question_context
from lucid.live_class.ticket import exit_ticket
from lucid.session import share
from lucid.session.analysis import Analysis
from lucid.session.browser_events import BadBrowserValue, whole_number
from lucid.session.script_slots import RUNS
from lucid.ui.live_class import answer_chart, room_feed, room_hold, room_push, room_service, session_presence
from lucid.ui.live_class.room_watch import answer_watch, room_watch
from lucid.ui.live_class.teacher_key import teacher_key, teacher_key_event
from lucid.ui.playground import view_link
from lucid.ui.playground.keys import keys
from lucid.ui.runtime import language, streamlit_internals
from lucid.ui.runtime.stylesheets import page_file, stylesheet
from lucid.viz.numbers import format_number

ROOM, TEACH, ME = "room", "teach", "me"
POLL_MS = 600
"""How often a student's browser reads the feed where the server cannot hold a read (``room_push``). Each read
costs the server about 2.5 ms of CPU (Streamlit's static route, measured): 0.6 s keeps a sitting class under 5 % of
a core per 10 students, and a step on screen within about 0.7 s."""
PUSH_TICK_MS = 200
"""Where the server holds reads until the feed changes: the most a page waits after one read before the next (the
held read itself answers the moment the teacher acts)."""
TEACHER_REFRESH = 1.0
"""Seconds between refreshes of the teacher's answer count while a question is open (one session)."""
COUNT_REFRESH = 2.0
"""Seconds between refreshes of the teacher's count of students connected now (one session, one small read)."""
COUNTDOWNS = (0, 15, 30, 45, 60, 90, 120, 180, 300)
"""The countdowns a teacher picks from (0: none), all within ``peer.COUNTDOWN_SECONDS``."""


@dataclass(frozen=True)
class Seat:
    """This tab in a room: its ``code``, ``role`` ("teacher", "student", or "ended": the teacher of a class that
    is over, who keeps its exit ticket for a day), the token or the student id (None: the server issued none)."""

    code: str
    role: str
    token: str | None = None
    student: str | None = None

    @property
    def teacher(self) -> bool:
        return self.role == "teacher"

    @property
    def ended(self) -> bool:
        return self.role == "ended"


def _session_id() -> str | None:
    """This browser session's id (a teacher session holds one open room)."""
    return streamlit_internals.session_id()


def _address() -> str | None:
    try:
        return st.context.ip_address
    except Exception:  # noqa: BLE001 - no request context (tests): every such client is one address
        return None


def _held_tokens(key: str) -> dict[str, str]:
    return st.session_state.setdefault(keys(key).teach_tokens, {})


def _token_from_tab(key: str, code: str, value: object) -> None:
    """The tab handed back the teacher's token it keeps (after a reload or a server restart)."""
    rooms = room_service.rooms()
    if isinstance(value, str) and (rooms.is_teacher(code, value) or rooms.teacher_of_ended(code, value)):
        _held_tokens(key)[code] = value
        student = st.session_state.get(keys(key).students, {}).pop(code, None)
        if student is not None:
            rooms.leave(code, student)  # the first run of the reload took the teacher for a student
            session_presence.unseated(_session_id())
        if ME in st.query_params:
            del st.query_params[ME]


def seat(key: str) -> Seat | None:
    """Who this tab is, from the URL and the session: the teacher (``teach=`` once, then the session and the tab's
    storage keep it: the secret leaves the address bar), or a student with an id the server issued to this
    session (kept in the URL's ``me=``, so a reload is the same student)."""
    code = clean_code(st.query_params.get(ROOM))
    if code is None:
        if st.query_params.get(ROOM):
            st.warning(_("That class code is not valid: a code is 6 letters and digits."), icon=":material/school:")
        return None
    rooms = room_service.rooms()
    held = _held_tokens(key)
    handed = teacher_key_event(key)
    if handed is not None and code not in held:
        _token_from_tab(key, code, handed)
    fresh = st.query_params.get(TEACH)
    if fresh is not None:
        if rooms.is_teacher(code, fresh) or rooms.teacher_of_ended(code, fresh):
            held[code] = fresh
        del st.query_params[TEACH]
    token = held.get(code)
    if token is not None and rooms.is_teacher(code, token):
        found = Seat(code, "teacher", token=token)
    elif token is not None and rooms.teacher_of_ended(code, token):
        found = Seat(code, "ended", token=token)
    else:
        students = st.session_state.setdefault(keys(key).students, {})
        student = students.get(code)
        if student is None:
            in_link = st.query_params.get(ME)
            student = in_link if rooms.is_student(code, in_link) else rooms.issue_student(code, _address())
            if student is not None:
                students[code] = student
        if student is not None and st.query_params.get(ME) != student:
            st.query_params[ME] = student
        found = Seat(code, "student", student=student)
    keep = fresh or st.session_state.pop(keys(key).new_token, None)
    st.session_state[keys(key).teacher_key_data] = (code, keep if found.role != "student" else None,
                                                   found.role == "student")
    st.session_state[keys(key).seat] = found
    return found


def _view(s: Seat) -> RoomView | None:
    return room_service.rooms().view(s.code)


def is_student(s: Seat | None) -> bool:
    return s is not None and s.role == "student"


def can_start(s: Seat | None) -> bool:
    """Whether this tab may start a class: outside one, or once the teacher's class has ended."""
    return s is None or s.ended


def following(key: str) -> bool:
    return bool(st.session_state.get(keys(key).follow, True))


def before_enter(key: str, s: Seat | None, entering: bool) -> None:
    """A student takes the teacher's drawing (direction, style, what nodes show): on entering the page, and
    whenever the teacher changes it while the student follows.

    The drawing goes into the URL, and the view widgets' state is dropped, so ``view_link.enter`` sets every
    view widget from the URL again (as when the page is entered); the student's own Classroom mode and graph
    size are in that URL too, so they stay.
    """
    if not is_student(s) or not (entering or following(key)):
        return
    view = _view(s)
    if view is None:
        return
    wanted = drawing_key(view.view)
    applied = st.session_state.get(keys(key).room_drawing)
    st.session_state[keys(key).room_drawing] = wanted
    if not entering and applied in (None, wanted):
        return
    for word in DRAWING_WORDS:
        if word in view.view and word in share.VIEW_DEFAULTS:
            st.query_params[word] = view.view[word]
        elif word in st.query_params:
            del st.query_params[word]
    if not entering:
        for suffix in view_link.VIEW_SUFFIXES:
            st.session_state.pop(keys(key).of(suffix), None)


def before_editor(key: str, s: Seat | None) -> None:
    """A following student runs the room's program (the editor then shows it and the page draws it)."""
    if not is_student(s) or not following(key):
        return
    view = _view(s)
    if view is not None and st.session_state.get(keys(key).good) != view.source:
        st.session_state[keys(key).source] = view.source
        st.session_state[keys(key).run_requested] = True
        st.session_state[keys(key).initial_step] = view.step


def after_program(key: str, s: Seat | None, analysis: Analysis) -> None:
    """Teacher: the room follows this program and view. Student: the page opens at the teacher's step."""
    st.session_state[keys(key).room_program] = (program_key(analysis.seed, analysis.source), analysis.n_steps)
    if s is None or s.ended:
        return
    if s.teacher:
        view_words = {k: v for k, v in st.query_params.to_dict().items() if k in share.VIEW_DEFAULTS}
        try:
            before = _view(s)
            if before is not None and before.source != analysis.source:
                # a reveal's jump belongs to the question of the program before: never to this one
                st.session_state.pop(keys(key).goto, None)
            room_service.rooms().set_program(s.code, s.token or "", analysis.source, analysis.seed, view_words,
                                             step=int(st.session_state.get(keys(key).step, 0)))
            if before is None or before.source != analysis.source or before.view != view_words:
                room_service.publish(s.code)
        except (RoomGone, NotTeacher, ValueError):
            pass
        return
    view = _view(s)
    if view is not None and following(key) and view.source == analysis.source:
        st.session_state[keys(key).step] = view.step


def _teacher_step(key: str, value: object) -> None:
    """The teacher's player showed another step: the room (and its feed) follows."""
    s = st.session_state.get(keys(key).seat)
    program, n_steps = st.session_state.get(keys(key).room_program, (None, 0))
    if not isinstance(s, Seat) or not s.teacher or not isinstance(value, dict) or value.get("program") != program:
        return
    try:
        step = whole_number(value.get("step"), low=0, high=max(n_steps - 1, 0), what="the step")
    except BadBrowserValue:
        return
    try:
        before = room_service.rooms().view(s.code)
        room_service.rooms().set_step(s.code, s.token or "", step)
    except (RoomGone, NotTeacher):
        return
    st.session_state[keys(key).step] = step
    if before is None or before.step != step:
        room_service.publish(s.code)


def player_room(key: str, s: Seat | None) -> tuple[dict[str, Any] | None, Any]:
    """The player's ``room`` data and its ``on_step`` callback for this tab (None, None outside a class)."""
    if s is None or s.ended:
        return None, None
    if s.teacher:
        return ({"role": "teacher", "goto": st.session_state.pop(keys(key).goto, None)},
                lambda value: _teacher_step(key, value))
    view = _view(s)
    hold = room_push.hold_ms()
    return {"role": "student", "feed": room_feed.feed_url(s.code), "follow": following(key),
            "poll_ms": PUSH_TICK_MS if hold else POLL_MS, "hold_ms": hold,
            "question": question_key(view.question if view else None),
            "drawing": drawing_key(view.view) if view else None, "exercise": exercise_key(view)}, None


def _reason(err: Exception) -> Message | str:
    """An error's message kept as it was raised (a ``Message``), so it is shown in the language of the run
    that shows it, not frozen in the one that caught it."""
    reason = err.args[0] if len(err.args) == 1 else str(err)
    return reason if isinstance(reason, Message) else str(reason)


# -- the teacher ---------------------------------------------------------------------------------------
def _start(key: str) -> None:
    source = st.session_state.get(keys(key).good)
    if not isinstance(source, str):
        return
    view_words = {k: v for k, v in st.query_params.to_dict().items() if k in share.VIEW_DEFAULTS}
    try:
        code, token = room_service.rooms().open(source, 0, view_words, int(st.session_state.get(keys(key).step, 0)),
                                                owner=_session_id(), address=_address())
    except (RoomsFull, ValueError) as err:
        st.session_state[keys(key).room_error] = _reason(err)
        return
    room_service.publish(code)
    _held_tokens(key)[code] = token
    st.session_state[keys(key).new_token] = token
    st.query_params[ROOM] = code
    _warm_charts()


def _warm_charts() -> None:
    """Import what the answers' histogram needs (pandas, Altair: seconds, once per process) while the class
    joins, so the first question's panel is not the one that waits for it."""
    import threading

    def load() -> None:
        import altair  # noqa: F401
        import pandas  # noqa: F401

    threading.Thread(target=load, name="lucid-warm-charts", daemon=True).start()


def start_class(key: str) -> None:
    """Outside a class: how class mode works, and *Start a class*."""
    with st.expander(_("Teach a live class"), icon=":material/school:"):
        st.markdown(_("Start a class and show the join link or QR code: every student who opens it follows your "
                      "steps live. *Ask the class* at any step: each student answers and you see how many did; "
                      "*Reveal* shows the answer, the histogram and the most common mistake."))
        if not room_feed.serving_on():
            st.warning(_("This server does not serve static files (`server.enableStaticServing`), so students "
                         "could not follow: see the README."), icon=":material/warning:")
        error = st.session_state.pop(keys(key).room_error, None)
        if error:
            st.error(text(error))
        st.button(_("Start a class"), key=keys(key).start_class, icon=":material/school:", type="primary",
                  on_click=_start, args=(key,))


def join_link(code: str) -> str:
    base = str(st.context.url or "").split("?")[0].rstrip("/")
    return f"{base}?{ROOM}={code}"


def qr_png(text: str) -> bytes:
    import segno

    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="png", scale=6, border=2)
    return out.getvalue()


def next_step(key: str, analysis: Analysis) -> int | None:
    """The step the class is asked to predict: the one after the step on the teacher's screen (None at the end)."""
    step = int(st.session_state.get(keys(key).step, 0)) + 1
    return step if analysis.trace is not None and step < analysis.n_steps else None


def _ask(key: str, s: Seat, analysis: Analysis) -> None:
    step = next_step(key, analysis)
    if step is None or analysis.trace is None:
        return
    try:
        room_service.rooms().ask(s.code, s.token or "", question_at(analysis.trace, step),
                                 show_rule=bool(st.session_state.get(keys(key).show_rule, True)),
                                 kind="choice" if st.session_state.get(keys(key).ask_choice) else "typed",
                                 seconds=_countdown(key))
    except (RoomGone, NotTeacher, AnswerRejected) as err:
        st.session_state[keys(key).room_error] = _reason(err)
        return
    st.session_state[keys(key).peek] = False  # a new question starts hidden from the projector
    room_service.publish(s.code)


def _countdown(key: str) -> int | None:
    chosen = st.session_state.get(keys(key).countdown, 0)
    return int(chosen) if chosen in COUNTDOWNS and chosen else None


def _ask_again(key: str, s: Seat) -> None:
    """Peer instruction's second vote: the same question after the class discussed it (the answer still hidden)."""
    try:
        room_service.rooms().ask_again(s.code, s.token or "", seconds=_countdown(key))
    except (RoomGone, NotTeacher, AnswerRejected) as err:
        st.session_state[keys(key).room_error] = _reason(err)
        return
    st.session_state[keys(key).peek] = False  # round 2 starts hidden from the projector too
    room_service.publish(s.code)


def _reveal(key: str, s: Seat) -> None:
    try:
        room_service.rooms().reveal(s.code, s.token or "")
    except (RoomGone, NotTeacher):
        return
    room_service.publish(s.code)
    view = _view(s)
    if view is not None and view.question is not None:  # the teacher's player shows the revealed step too
        st.session_state[keys(key).goto] = {"step": int(view.question["step"]), "id": view.question["id"]}
        st.session_state[keys(key).step] = int(view.question["step"])


def _close(key: str, s: Seat) -> None:
    try:
        room_service.rooms().close_question(s.code, s.token or "")
    except (RoomGone, NotTeacher):
        return
    room_service.publish(s.code)


def _ticket(s: Seat) -> str:
    try:
        rooms = room_service.rooms()
        return exit_ticket(rooms.history(s.code, s.token or ""), rooms.exercise_history(s.code, s.token or ""))
    except (RoomGone, NotTeacher):
        return ""


def _end(key: str, s: Seat) -> None:
    """The class is over; the teacher's tab keeps the room's link, where its exit ticket stays for a day."""
    try:
        room_service.rooms().end(s.code, s.token or "")
    except (RoomGone, NotTeacher):
        pass
    room_service.publish(s.code)


def _leave(key: str) -> None:
    """The teacher leaves an ended class's page (its link still holds the exit ticket for a day)."""
    for name in (ROOM, TEACH):
        if name in st.query_params:
            del st.query_params[name]


def _ended_panel(key: str, s: Seat) -> None:
    with st.container(border=True, key=keys(key).class_panel):
        note, ticket_col, leave_col = st.columns([3.4, 1.8, 1.2], vertical_alignment="center")
        note.markdown(_("Class **{code}** has ended. Its exit ticket stays here for a day.").format(code=s.code))
        ticket_col.download_button(_("Exit ticket"), _ticket(s), file_name=f"exit-ticket-{s.code}.csv",
                                   mime="text/csv", key=keys(key).ticket, icon=":material/download:",
                                   help=_("Every question asked, with its correct rate and the class's answers "
                                          "(CSV)."))
        leave_col.button(_("Close"), key=keys(key).leave_class, icon=":material/close:", on_click=_leave, args=(key,))


def _teacher_heartbeat(key: str, s: Seat) -> None:
    """The teacher's page is open: said once a minute, so the room stays while the teacher is there (and gives
    way, when the server is full, once the teacher is gone)."""
    try:
        room_service.rooms().teacher_seen(s.code, s.token or "")
    except (RoomGone, NotTeacher):
        pass


def _student_heartbeat(key: str, s: Seat) -> None:
    """The student's page is open: said once a minute, so the room counts the students connected now. A following
    page that shows another program than the room's (its player's word of the change was lost: a reload of the
    page at that moment, a dropped message) runs the whole page again, so it catches up within a minute."""
    if s.student is not None and room_service.rooms().join(s.code, s.student):
        session_presence.seated(_session_id(), s.code, s.student)
    view = _view(s)
    shown = st.session_state.get(keys(key).good)
    if view is not None and following(key) and shown is not None and shown != view.source:
        st.rerun(scope="app")


def _answers_shown(key: str, q: dict[str, Any]) -> bool:
    """Whether the panel may show the answers' distribution, colours and diagnosis: after *Reveal*, or before it
    when the teacher peeks (a toggle that is off by default and says it is not for the projector)."""
    return bool(q.get("revealed")) or bool(st.session_state.get(keys(key).peek, False))


def _rounds(s: Seat, q: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, float]]]:
    """Each round of the question ``q`` is (so far) with its answers by student: round 1 first."""
    rooms = room_service.rooms()
    view = _view(s)
    first = q.get("first")
    asked = view.questions if view is not None else []
    chain = [x for x in asked if isinstance(first, str) and x.get("id") == first] + [q]
    return [(x, rooms.answers_by_student(s.code, s.token or "", x["id"])) for x in chain]


def class_answers(key: str, q: dict[str, Any], values: list[float],
                  earlier: list[tuple[dict[str, Any], list[float]]] = ()) -> None:
    """The histogram (Altair, fixed bar widths, whole-number ticks), its counts in words, the most common
    mistake and, while peeking, the right answer: drawn in a popover, so it overlays the graph and never
    pushes it down. With ``earlier`` rounds (peer instruction) each round's histogram stands beside the last
    one's, on one count axis."""
    result = class_result(values, q)
    words = answer_chart.caption(q, values)
    if not q.get("revealed"):
        st.warning(_("Peeking: not for the projector. Right answer: {label} = {value}").format(
            label=q["label"], value=q["expected_text"]), icon=":material/visibility_lock:")
    if earlier:
        rounds = [(_("Round {n}").format(n=int(x.get("round", k + 1))), v) for k, (x, v) in enumerate(earlier)]
        rounds.append((_("Round {n}").format(n=int(q.get("round", len(rounds) + 1))), values))
        drawn = answer_chart.rounds_chart(q, rounds)
        words = " · ".join(f"{title}: {answer_chart.caption(q, v)}" for title, v in rounds)
    else:
        drawn = answer_chart.chart(q, values) if values else None
    if drawn is not None:
        st.altair_chart(drawn, width="content", height=answer_chart.HEIGHT_PX + 90 + (30 if earlier else 0),
                        alt=words, theme=None, key=keys(key).answers_chart)
    st.caption(words)
    if result.wrong is not None:
        why = diagnosis_text(result.diagnosis) or _("No common mistake matches it.")
        st.markdown(ngettext("Most common wrong answer: **{value}** ({n} student). {why}",
                             "Most common wrong answer: **{value}** ({n} students). {why}",
                             result.wrong_count).format(value=format_number(result.wrong), n=result.wrong_count,
                                                        why=why))




def _asked_line(q: dict[str, Any]) -> str:
    """The open question as the projector shows it: its round, step, label and whether the rule is shown."""
    line = (_("**Asked at step {step}: {label} = ?** · rule shown") if q.get("show_rule")
            else _("**Asked at step {step}: {label} = ?** · rule hidden")).format(step=q["step"], label=q["label"])
    if int(q.get("round", 1)) > 1:
        line = _("Round {n} · {question}").format(n=int(q["round"]), question=line)
    return line


def time_left(q: dict[str, Any]) -> float | None:
    """Seconds until the open round's countdown ends (0 once it has), or None without a countdown."""
    deadline = q.get("deadline")
    if not isinstance(deadline, int | float) or q.get("revealed"):
        return None
    return max(0.0, float(deadline) - room_service.rooms().clock())


def _countdown_words(left: float) -> str:
    if left <= 0:
        return _(":material/timer_off: time is up")
    return _(":material/timer: **{n} s** left").format(n=int(-(-left // 1)))


def _teacher_only(key: str, s: Seat, where: Any) -> None:
    """The teacher's own view of the open round, in one popover named by how many have not answered: who they are
    (by nickname) and *Peek at answers*. Nothing in it is on the projector until the teacher opens it."""
    missing = room_service.rooms().unanswered(s.code, s.token or "")
    label = (ngettext("{n} not answered", "{n} not answered", missing.count).format(n=missing.count)
             if missing.count else _("Everyone answered"))
    with where.popover(label, icon=":material/visibility_lock:", key=keys(key).unanswered,
                       help=_("Teacher only: who has not answered this round yet (students connected now, by the "
                              "nickname they typed last), and a peek at the answers.")):
        st.toggle(_("Peek at answers"), value=False, key=keys(key).peek,
                  help=_("Teacher only, not for the projector: shows the right answer, the histogram and "
                         "the most common mistake before the reveal."))
        if missing.names:
            st.markdown(_("Not answered yet: {names}").format(
                names=", ".join(peer.plain_markdown(name) for name in missing.names)))
        if missing.unnamed:
            st.caption(ngettext("and {n} without a nickname", "and {n} without a nickname",
                                missing.unnamed).format(n=missing.unnamed))


def _compared(rounds: list[tuple[dict[str, Any], dict[str, float]]]) -> str | None:
    """Round 1 against the last round after the reveal: the correct rates and how many changed to the right
    answer (what the discussion did), or None for a question asked once."""
    if len(rounds) < 2:
        return None
    (_q1, first), (q2, last) = rounds[0], rounds[-1]
    rate = [class_result(list(v.values()), q).correct_rate for q, v in (rounds[0], rounds[-1])]
    moved = peer.changes(first, last, float(q2["expected"]))
    return ngettext("round 1: {before} right · **{n}** changed to the right answer",
                    "round 1: {before} right · **{n}** changed to the right answer",
                    moved.to_right).format(before=f"{rate[0]:.0%}", n=moved.to_right)


def _teacher_question(key: str, s: Seat, analysis: Analysis) -> None:
    """The open question as the panel's one row: before *Reveal* only the question and how many of those present
    answered (the projector shows nothing that gives the answer away), the countdown, who has not answered (a
    popover) and *Ask again* (peer instruction); after it the answer, the rate, how round 2 compares with round 1
    and the class's answers (a popover over the page). Refreshed every second while answers come in, every two
    after."""
    if st.session_state.get(keys(key).goto) is not None and st.session_state.get(keys(key).goto_ran) is None:
        # Reveal ran in this fragment: the whole page runs again, so the player shows the revealed step.
        st.session_state[keys(key).goto_ran] = True
        st.rerun(scope="app")
    st.session_state.pop(keys(key).goto_ran, None)
    _favour_teacher()
    view = _view(s)
    if view is None or view.question is None:
        st.rerun(scope="app")  # the class ended or the question closed: the panel is drawn another way
    q = view.question
    seen = room_push.answers_seen(s.code)  # before the answers are read: one taken meanwhile wakes the watcher
    rounds = _rounds(s, q)
    values = list(rounds[-1][1].values())
    result = class_result(values, q)
    revealed = bool(q.get("revealed"))
    again = not revealed and int(q.get("round", 1)) < peer.MAX_ROUNDS
    compared = _compared(rounds) if revealed else None
    shares = (2, 3) if compared else (3, 2)  # after round 2's reveal the count says more than the answer
    # the question large enough for the back row, in one compact row under the class's controls
    st.html(stylesheet(__package__, "panel.css", key=key, asked=shares[0], count=shares[1]))
    shown = _answers_shown(key, q)
    # The row's parts, only those this state draws, in one flex row: every control as wide as its label (never cut
    # short), the question and the count share what is left and wrap there.
    parts: dict[str, Any] = {"asked": 3, "count": 2}
    if not revealed:
        parts["teacher"] = "content"
    if shown:
        parts["answers"] = "content"
    if again:
        parts["again"] = "content"
    parts.update(act="content", menu="content")
    row = st.container(horizontal=True, vertical_alignment="center", gap="small", wrap=False)
    cols = {name: row.container(width="stretch" if isinstance(share, int) else share, key=keys(key).row(name))
            for name, share in parts.items()}
    asked_col, count_col, act_col, menu_col = cols["asked"], cols["count"], cols["act"], cols["menu"]
    with asked_col, st.container(key=keys(key).class_asked):
        if revealed:
            st.markdown(_("Revealed: {label} = {value}").format(label=q["label"], value=q["expected_text"]))
        else:
            st.markdown(_asked_line(q))
    answered = _("**{answered} / {students}** answered").format(answered=result.answered, students=view.students)
    if revealed:
        answered += _(" · **{correct}** right ({rate})").format(correct=result.correct,
                                                               rate=f"{result.correct_rate:.0%}")
    if q.get("kind") == "choice" and not revealed:
        answered += _(" · multiple choice")
    left = time_left(q)
    if left is not None:
        answered += " · " + _countdown_words(left)
    if compared:  # a second line under the count: what the discussion did
        answered += "  \n" + compared
    count_col.markdown(answered)
    if not revealed:
        _teacher_only(key, s, cols["teacher"])
        if room_push.serving():  # the count follows each answer at once, not only on the panel's timer
            answer_watch(keys(key).answer_watch, room_feed.feed_url(s.code), seen,
                         teacher_key=room_push.teacher_key(s.code, s.token or ""), question=str(q["id"]),
                         answered=result.answered, count=f".st-key-{keys(key).row('count')}", words=_count_words())
    if shown:
        with cols["answers"].popover(_("Class answers"), icon=":material/bar_chart:", key=keys(key).answers,
                                     help=_("The histogram of the class's answers and the most common mistake.")):
            class_answers(key, q, values, [(x, list(v.values())) for x, v in rounds[:-1]])
    if again:
        cols["again"].button(_("Ask again"), key=keys(key).ask_again, icon=":material/replay:",
                             on_click=_ask_again, args=(key, s),
                             help=_("After the class discussed it: the same question once more (round 2), the answer "
                                    "still hidden. Round 1's answers are kept; the reveal compares both rounds."))
    if revealed:
        act_col.button(_("Back to following"), key=keys(key).close_question, icon=":material/close:",
                       on_click=_close, args=(key, s))
    else:
        act_col.button(_("Reveal"), key=keys(key).reveal, type="primary", icon=":material/visibility:",
                       on_click=_reveal, args=(key, s))
    with menu_col:
        _class_menu(key, s, analysis, view)


def _count_words() -> str | None:
    """The bold part of the teacher's "**3 / 20** answered" in this language, with its ``{answered}`` and
    ``{students}`` left in: what the answer watcher writes there as each answer comes (None: a translation
    without a bold part, which the panel's run alone then updates)."""
    found = re.search(r"\*\*([^*]+)\*\*", _("**{answered} / {students}** answered"))
    return found.group(1) if found and "{answered}" in found.group(1) else None


def _teacher_count(key: str, s: Seat) -> None:
    """The class's code and how many students are connected now: a tiny fragment of its own, refreshed every
    ``COUNT_REFRESH`` seconds (it only reads the count), so a join or a closed tab shows within two seconds."""
    view = _view(s)
    n = view.students if view is not None else 0
    st.markdown(ngettext("Class **{code}** · {n} student", "Class **{code}** · {n} students", n).format(
        code=s.code, n=n))


def _ask_button(key: str, s: Seat, analysis: Analysis, view: RoomView) -> None:
    open_now = view.question is not None and not view.question.get("revealed")
    asked = next_step(key, analysis)
    if asked is None:
        ask_help = _("The last step is on screen: there is no next gradient to predict.")
    elif open_now:
        ask_help = _("Every student predicts the gradient of the next step (step {step}); *Reveal* shows it. "
                     "Replaces the open question.").format(step=asked)
    else:
        ask_help = _("Every student predicts the gradient of the next step (step {step}); *Reveal* shows "
                     "it.").format(step=asked)
    st.button(_("Ask the class"), key=keys(key).ask, icon=":material/quiz:", disabled=asked is None,
              on_click=_ask, args=(key, s, analysis), help=ask_help)


def _rule_box(key: str) -> None:
    st.checkbox(_("Show the rule"), value=True, key=keys(key).show_rule,
                help=_("With the question, students see the upstream gradient and the local rule."))


def _question_options(key: str) -> None:
    """How the next question is answered: typed or multiple choice, and an optional countdown (also for *Ask
    again*)."""
    st.toggle(_("Multiple choice"), value=False, key=keys(key).ask_choice,
              help=_("Students pick one of a few numbers: the right one and the values of the common mistakes "
                     "(forgot +=, forgot the broadcast sum, the value for the gradient, the sign)."))
    st.selectbox(_("Countdown"), COUNTDOWNS, key=keys(key).countdown,
                 format_func=lambda n: _("{n} s").format(n=n) if n else _("No countdown"),
                 help=_("Answers close when it ends; students see the seconds left."))


def _join_box(s: Seat) -> None:
    link = join_link(s.code)
    st.markdown(_("Code **{code}**").format(code=s.code))
    st.code(link, language=None)
    st.image(qr_png(link), width=240, caption=_("Scan to join"),
             alt=_("QR code of the join link {link}").format(link=link))  # a screen reader says what it is


def _ticket_button(key: str, s: Seat) -> None:
    st.download_button(_("Exit ticket"), _ticket(s), file_name=f"exit-ticket-{s.code}.csv", mime="text/csv",
                       key=keys(key).ticket, icon=":material/download:",
                       help=_("Every question asked, with its correct rate and the class's answers (CSV)."))


def _end_button(key: str, s: Seat) -> None:
    st.button(_("End class"), key=keys(key).end, icon=":material/logout:", on_click=_end, args=(key, s))


def _class_menu(key: str, s: Seat, analysis: Analysis, view: RoomView) -> None:
    """While a question is open the class's other controls fold into one popover named by the class's code, so
    the panel stays one row above the graph."""
    with st.popover(s.code, icon=":material/school:", help=_("The class: join link, another question, exit ticket, "
                                                              "end.")):
        st.markdown(ngettext("Class **{code}** · {n} student", "Class **{code}** · {n} students",
                             view.students).format(code=s.code, n=view.students))
        _ask_button(key, s, analysis, view)
        _rule_box(key)
        _question_options(key)
        _ticket_button(key, s)
        _end_button(key, s)
        _join_box(s)


def _favour_teacher() -> None:
    """The class waits on the teacher's runs (a step, *Ask*, the answer count): they go before the students'."""
    session = _session_id()
    if session is not None:
        RUNS.favour(session)


def _teacher_panel(key: str, s: Seat, analysis: Analysis) -> None:
    _favour_teacher()
    view = _view(s)
    if view is None:
        st.warning(_("This class has ended (or was idle too long)."), icon=":material/school:")
        _ended_panel(key, s)
        return
    with st.container(border=True, key=keys(key).class_panel):
        error = st.session_state.pop(keys(key).room_error, None)
        if error:
            st.error(text(error))
        if view.question is not None:  # one row, drawn (and refreshed) by the question's fragment
            live = not view.question.get("revealed")
            st.fragment(run_every=TEACHER_REFRESH if live else COUNT_REFRESH)(_teacher_question)(key, s, analysis)
        else:  # one row: the projector keeps its height for the graph
            code_col, ask_col, rule_col, options_col, link_col, ticket_col, end_col = st.columns(
                [2.4, 1.7, 1.7, 1.4, 1.2, 1.6, 1.5], vertical_alignment="center")
            with code_col:
                st.fragment(run_every=COUNT_REFRESH)(_teacher_count)(key, s)
            with ask_col:
                _ask_button(key, s, analysis, view)
            with rule_col:
                _rule_box(key)
            with options_col.popover(_("Options"), icon=":material/tune:",
                                     help=_("Multiple choice and a countdown for the next question.")):
                _question_options(key)
            with link_col.popover(_("Join"), icon=":material/qr_code_2:"):
                _join_box(s)
            with ticket_col:
                _ticket_button(key, s)
            with end_col:
                _end_button(key, s)
        st.fragment(run_every=room_service.rooms().limits.heartbeat_seconds)(_teacher_heartbeat)(key, s)


# -- the student ---------------------------------------------------------------------------------------
def _submit(key: str, s: Seat, qid: str | None = None) -> None:
    """The student's answer to the round their page showed (``qid``: a round closed since is refused, never counted
    in the next), typed or picked."""
    typed = st.session_state.get(keys(key).answer, "")
    nickname = st.session_state.get(keys(key).nickname, "")
    st.session_state[keys(key).nickname_kept] = nickname  # the next question's form starts with it
    picked = st.session_state.get(keys(key).choice(qid)) if qid else None
    view = _view(s)
    shown_q = view.question if view is not None and view.question else None
    choice = isinstance(shown_q, dict) and shown_q.get("kind") == "choice"
    if qid is None and shown_q is not None:
        qid = shown_q["id"]
    try:
        value = room_service.rooms().answer(s.code, s.student, "" if choice else typed, nickname,
                                            locale=language.current(), question_id=qid,
                                            choice=picked if choice else None)
    except (AnswerRejected, RoomGone) as err:
        st.session_state[keys(key).answer_msg] = (qid, "error", _reason(err), _sent())
        return
    room_service.answered(s.code, lambda: room_service.rooms().answer_tally(s.code, qid))  # the teacher's count
    st.session_state[keys(key).answer_msg] = (qid, "ok", L_("Answer received: {value}. You may change it until "
                                                           "the reveal.", value=format_number(value)), _sent())


def _sent() -> int:
    """A number of its own for each answer sent: the student's live region says every receipt, a repeat too."""
    return time.monotonic_ns()


def _verdict(s: Seat, q: dict[str, Any]) -> str:
    """A revealed question's line for this student: the answer, theirs right or not (and why), the class's count."""
    rooms = room_service.rooms()
    mine = rooms.my_answer(s.code, q["id"], s.student)
    values = [float(a["value"]) for a in rooms.answers(s.code, q["id"])]
    result = class_result(values, q)
    verdict = ""
    if mine is not None:
        yours = format_number(float(mine["value"]))
        why = diagnosis_text(diagnose(float(mine["value"]), q))
        if is_correct(float(mine["value"]), float(q["expected"])):
            verdict = _(" · your answer {value}: right").format(value=yours)
        elif why:
            verdict = _(" · your answer {value}: not quite ({why})").format(value=yours, why=why)
        else:
            verdict = _(" · your answer {value}: not quite").format(value=yours)
    return _("**{label} = {value}**{verdict} · the class: {correct} of {answered} right").format(
        label=q["label"], value=q["expected_text"], verdict=verdict, correct=result.correct,
        answered=result.answered)


def announcement(q: dict[str, Any] | None, verdict: str | None, msg: tuple | None) -> dict[str, str] | None:
    """What the student's live region says after this run (``room_watch``), with a key that changes only when
    there is something new to say: the question opened (the key the player's early card uses too, so the two never
    both speak), an answer's receipt or refusal (``msg``: the session's ``answer_msg``), the verdict once revealed
    (``verdict``, drawn by ``_verdict``)."""
    if q is None:
        return None
    if verdict is not None:
        return {"key": f"verdict:{q['id']}", "text": verdict.replace("**", "")}
    if msg is not None and msg[0] == q["id"]:
        return {"key": f"answer:{q['id']}:{msg[3] if len(msg) > 3 else 0}", "text": text(msg[2])}
    return {"key": f"q:{question_key(q)}",
            "text": _("Question about step {step}: {label} = ? · type your answer in the answer field").format(
                step=q["step"], label=q["label"])}


def _student_panel(key: str, s: Seat) -> None:
    view = _view(s)
    if view is None:
        if room_service.rooms().status(s.code) == "ended":
            st.info(_("Class {code} has ended. Thank you for taking part!").format(code=s.code),
                    icon=":material/school:")
        else:
            st.info(_("No class has the code {code}: check it with your teacher.").format(code=s.code),
                    icon=":material/school:")
        return
    if s.student is None:
        st.warning(_("This class cannot take more students from your network right now: ask your teacher."),
                   icon=":material/school:")
        return
    if not room_service.rooms().join(s.code, s.student):
        st.warning(_("This class is full."), icon=":material/school:")
        return
    session_presence.seated(_session_id(), s.code, s.student)  # a closed tab leaves the count at once
    with st.container(border=True, key=keys(key).class_panel):
        left, right = st.columns([4, 1.4], vertical_alignment="center")
        # The player hides this line while the feed cannot be read and says "not connected" in its own bar
        # (``lucid.viz.player``): a page that lost the server must not read "following the teacher".
        left.container(key=keys(key).follow_status).markdown(
            (_("Class **{code}** · following the teacher") if following(key)
             else _("Class **{code}** · stepping on your own")).format(code=s.code))
        right.toggle(_("Follow teacher"), value=True, key=keys(key).follow,
                     help=_("Off: step on your own. On: jump back to the teacher's step."))
        st.fragment(_student_question)(key, s)
        st.fragment(run_every=room_service.rooms().limits.heartbeat_seconds)(_student_heartbeat)(key, s)


def _countdown_box(left: float) -> None:
    import html as html_text

    if left <= 0:
        st.warning(_("Time is up: answers are closed."), icon=":material/timer_off:")
        return
    # The seconds left, counted down in the student's browser (``countdown.html``; no script run per second: the
    # server sends the seconds left once, when the round's panel is drawn, and the browser counts from there).
    # Constant, trusted text: the only values put in are a number and our own translated words, escaped.
    body = page_file(__package__, "countdown.html", left=f"{left:.2f}",
                     up=html_text.escape(_("Time is up: answers are closed."), quote=True),
                     text=html_text.escape(_("{n} s left").format(n=int(-(-left // 1)))))
    st.html(body, unsafe_allow_javascript=True)


def _choice_words(q: dict[str, Any]) -> Callable[[int], str]:
    offered = q.get("choices") or []
    return lambda i: f"{peer.letter(i)} · {format_number(float(offered[i]))}"


def _student_question(key: str, s: Seat) -> None:
    """The question, the answer form and the reveal: a fragment, rerun alone when the question changes
    (``room_watch``) or a student submits, so neither reruns the whole page of every student."""
    view = _view(s)
    if view is None:
        st.info(_("This class has ended."), icon=":material/school:")
        return
    q = view.question
    verdict = _verdict(s, q) if q is not None and q.get("revealed") else None
    form = f".st-key-{keys(key).class_panel} [data-testid='stForm']" if q is not None and verdict is None else None
    said = announcement(q, verdict, st.session_state.get(keys(key).answer_msg))
    room_watch(keys(key).room_watch, question_key(q), said, form)
    _question_body(key, s, q, verdict)  # first, so the form (or the verdict) is on screen before the page runs again
    room_hold.rerun_if_changed(key, q)  # the player (outside this fragment) holds back another step now


def _question_body(key: str, s: Seat, q: dict[str, Any] | None, verdict: str | None = None) -> None:
    """The open question's form, or its ``verdict`` once revealed (nothing without a question)."""
    if q is None:
        return
    rooms = room_service.rooms()
    again = int(q.get("round", 1)) > 1
    st.markdown(_("#### Next step: {label} = ?").format(label=q["label"]))
    if context := question_context(q):  # the upstream gradient and where it flows: context on a phone too
        st.markdown(context)
    parts = [rule_text(q)]
    if q.get("show_rule") and any(parts):
        st.markdown(" · ".join(f"`{part}`" for part in parts if part))
    st.caption(_("Predict step {step} before it is shown · graded to {tolerance}").format(
        step=q["step"], tolerance=_(q.get("tolerance") or TOLERANCE_TEXT)))
    mine = rooms.my_answer(s.code, q["id"], s.student)
    earlier = rooms.my_answer(s.code, q["first"], s.student) if again and isinstance(q.get("first"), str) else None
    if q.get("revealed"):
        st.success(verdict if verdict is not None else _verdict(s, q))
        if earlier is not None:
            st.caption(_("Your answer in round 1: {value}").format(value=format_number(float(earlier["value"]))))
        return
    if again:
        st.info(_("Round {n}: discuss it with your neighbours, then answer again.").format(n=int(q["round"])),
                icon=":material/forum:")
        if earlier is not None:
            st.caption(_("Your answer in round 1: {value}").format(value=format_number(float(earlier["value"]))))
    left = time_left(q)
    if left is not None:
        _countdown_box(left)
    if keys(key).nickname not in st.session_state and st.session_state.get(keys(key).nickname_kept):
        st.session_state[keys(key).nickname] = st.session_state[keys(key).nickname_kept]
    with st.form(keys(key).answer_form, border=False):
        if q.get("kind") == "choice":
            offered = q.get("choices") or []
            st.radio(_("Your answer"), list(range(len(offered))), index=None, key=keys(key).choice(q['id']),
                     format_func=_choice_words(q), horizontal=True)
            n, b = st.columns([4, 1], vertical_alignment="bottom")
        else:
            a, n, b = st.columns([2, 2, 1], vertical_alignment="bottom")
            a.text_input(_("Your answer"), key=keys(key).answer, max_chars=32, placeholder=_("e.g. -0.25"))
        n.text_input(_("Nickname (optional)"), key=keys(key).nickname, max_chars=24)
        b.form_submit_button(_("Submit"), type="primary", on_click=_submit, args=(key, s, q["id"]))
    msg = st.session_state.get(keys(key).answer_msg)
    if msg is not None and msg[0] == q["id"]:
        (st.success if msg[1] == "ok" else st.error)(text(msg[2]))
    elif mine is not None:
        st.caption(_("Your answer: {value}").format(value=format_number(float(mine["value"]))))


def panel(key: str, s: Seat | None, analysis: Analysis | None) -> None:
    """The class controls for this tab (nothing outside a class)."""
    if s is None:
        return
    code, token, ask = st.session_state.get(keys(key).teacher_key_data, (s.code, None, False))
    teacher_key(key, code, token=token, ask=ask)  # here, in the class's slot: the page's elements keep their places
    if s.ended:
        _ended_panel(key, s)
    elif s.teacher:
        if analysis is not None:
            _teacher_panel(key, s, analysis)
    else:
        _student_panel(key, s)


def _in_session_language(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` in this session's language: a fragment's rerun and a widget's callback run without ``app.py``
    having set it for them (``lucid.ui.runtime.language.follow_link``), so they would otherwise speak English."""
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        with use_language(language.current()):
            return fn(*args, **kwargs)
    return call


def _guarded(fn: Callable[..., Any], default: Any = None) -> Callable[..., Any]:
    """``fn``, or a clear message and ``default`` when the room store cannot be reached (Redis down)."""
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except StoreUnavailable as err:
            if _first_store_error_of_this_run():
                st.error(_("{error}. The graph works as usual; the class resumes when it is back.").format(
                    error=text(_reason(err))), icon=":material/cloud_off:")
            return default
    return call


def _first_store_error_of_this_run() -> bool:
    """Whether no part of this page run has said yet that the store is out of reach (say it once, not per part).

    A script run's cursors are a new dict at every run (``ScriptRunContext.reset``): that very dict (kept, so its
    identity cannot be reused) marks the run."""
    marker = streamlit_internals.run_cursors()
    if marker is not None and st.session_state.get("_lucid_store_error_run") is marker:
        return False
    st.session_state["_lucid_store_error_run"] = marker
    return True


seat = _guarded(seat)
before_enter = _guarded(before_enter)
before_editor = _guarded(before_editor)
after_program = _guarded(after_program)
player_room = _guarded(player_room, (None, None))
panel = _guarded(panel)
_teacher_step = _in_session_language(_guarded(_teacher_step))
_start = _in_session_language(_guarded(_start))
_ask = _in_session_language(_guarded(_ask))
_reveal = _in_session_language(_guarded(_reveal))
_close = _in_session_language(_guarded(_close))
_end = _in_session_language(_guarded(_end))
_token_from_tab = _in_session_language(_guarded(_token_from_tab))
_teacher_heartbeat = _guarded(_teacher_heartbeat)
_student_heartbeat = _guarded(_student_heartbeat)
_submit = _in_session_language(_guarded(_submit))
_teacher_question = _in_session_language(_guarded(_teacher_question))
_teacher_count = _in_session_language(_guarded(_teacher_count))
_student_question = _in_session_language(_guarded(_student_question))
_ask_again = _in_session_language(_guarded(_ask_again))
