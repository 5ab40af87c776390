"""Exercises in a live class: the teacher sends one, each student works at their own pace, the panel shows progress.

The page stays thin: ``lucid.live_class`` keeps the exercise and the reports (``Rooms.send_exercise``,
``Rooms.report``, ``exercises.summarize``); the practice itself is the Playground's own (``predict_view`` and
``detective_view``). This feature:

- for the **teacher**: a folded *Class exercise* panel under the player sends *Predict every gradient* or the
  *Gradient detective* case made in the detective panel (on the room's program), then shows who reported, who
  finished, the most common mistake and where students went wrong, refreshed every few seconds; *Stop* ends it;
- for a **student**: a banner offers the exercise the room has; *Start* opens the practice (or the case) on the
  room's program; after every run that changed their progress, the page reports it (the room keeps the last one).

The exercise goes into the exit ticket as a row of its own (``lucid.live_class.ticket.exercise_row``).
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from lucid.i18n import N_, _, text
from lucid.live_class import AnswerRejected, NotTeacher, RoomGone, StoreUnavailable
from lucid.live_class.exercises import detective_report, predict_report, summarize
from lucid.live_class.grading import diagnosis_text
from lucid.practice.detective import DetectiveCase
from lucid.practice.faults import fault_by_slug
from lucid.session.inspector import node_choices
from lucid.ui.live_class import room_service, room_view
from lucid.ui.playground import predict_view
from lucid.ui.playground.detective_view import LINK_KEY
from lucid.ui.playground.keys import keys
from lucid.ui.playground.lifecycle import Feature, Page
from lucid.ui.runtime import folded

REFRESH = 3.0
"""Seconds between refreshes of the teacher's progress view (one session, one read of the reports)."""

KIND_WORDS = {"predict": N_("Predict every gradient"), "detective": N_("Gradient detective")}


def kind_text(kind: str) -> str:
    return _(KIND_WORDS.get(kind, kind))


def mistake_text(key: str) -> str:
    """A mistake in the reader's words: the class mode's diagnosis, or a detective fault's title."""
    fault = fault_by_slug(key)
    if fault is not None:
        return text(fault.title)
    return diagnosis_text(key) or key


# -- the teacher ---------------------------------------------------------------------------------------------
def _case_made(key: str, source: str, seed: int) -> str | None:
    """The sealed case of the detective link the teacher made for this program (the detective panel), if any."""
    made = st.session_state.get(keys(key).detective_link)
    if made and made[:2] == (source, seed):
        return made[2].get(LINK_KEY)
    return None


def _send(key: str, seat: Any, source: str, seed: int) -> None:
    kind = st.session_state.get(keys(key).exercise_kind, "predict")
    try:
        room_service.rooms().send_exercise(seat.code, seat.token or "", kind, _case_made(key, source, seed))
        room_service.publish(seat.code)  # the feed names the exercise: every student's page runs again for it
        st.session_state[keys(key).exercise_error] = None
    except (AnswerRejected, NotTeacher, RoomGone) as err:
        st.session_state[keys(key).exercise_error] = err.args[0] if err.args else str(err)


def _stop(seat: Any) -> None:
    try:
        room_service.rooms().stop_exercise(seat.code, seat.token or "")
        room_service.publish(seat.code)
    except (NotTeacher, RoomGone):
        pass


def progress_lines(reports: list[dict[str, Any]]) -> list[str]:
    """What the teacher reads of the reports: counts, the most common mistake, where students went wrong."""
    summary = summarize(reports)
    lines = [_("{n} students working · {finished} finished").format(n=summary.students, finished=summary.finished)]
    if summary.checks:
        lines.append(_("Checks used by those who solved it: {checks}").format(
            checks=", ".join(str(c) for c in summary.checks)))
    if summary.most_common_mistake:
        lines.append(_("Most common mistake: {mistake} ({n}×)").format(
            mistake=mistake_text(summary.most_common_mistake), n=summary.mistakes[summary.most_common_mistake]))
    if summary.nodes:
        lines.append(_("Where students went wrong: {nodes}").format(
            nodes=", ".join(f"`{node}` ×{n}" for node, n in summary.nodes.most_common(6))))
    return lines


def _progress(key: str, seat: Any, exercise: dict[str, Any]) -> None:
    try:
        reports = room_service.rooms().exercise_reports(seat.code, seat.token or "", exercise["id"])
    except (NotTeacher, RoomGone, StoreUnavailable):
        return
    st.markdown(_("**Exercise sent:** {kind}").format(kind=kind_text(exercise["kind"])))
    for line in progress_lines(reports):
        st.markdown(line)
    named = [r for r in reports if r.get("nickname")]
    if named:
        st.dataframe([{_("nickname"): r["nickname"], _("progress"): f"{r.get('done', 0)}/{r.get('total', 0)}",
                       _("finished"): "✓" if r.get("finished") else ""} for r in named],
                     hide_index=True, width="stretch")


def teacher_panel(key: str, seat: Any, page: Page) -> None:
    view = room_service.rooms().view(seat.code)
    if view is None or page.analysis is None:
        return
    with st.expander(_("Class exercise"), icon=":material/assignment:", key=keys(key).exercise_open,
                     on_change="rerun") as box:
        if not box.open:
            folded.keep(keys(key).exercise_kind)
            return
        error = st.session_state.pop(keys(key).exercise_error, None)
        if error:
            st.error(text(error))
        if view.exercise is not None:
            st.fragment(run_every=REFRESH)(_progress)(key, seat, view.exercise)
            st.button(_("Stop the exercise"), key=keys(key).exercise_stop, on_click=_stop, args=(seat,))
            return
        st.caption(_("Every student works through it at their own pace on the class's program; their progress "
                     "comes back here and goes into the exit ticket."))
        st.radio(_("Exercise"), list(KIND_WORDS), format_func=kind_text, key=keys(key).exercise_kind,
                 horizontal=True)
        if st.session_state.get(keys(key).exercise_kind) == "detective" and _case_made(
                key, view.source, view.seed) is None:
            st.caption(_("Make a detective link in *Gradient detective: break one rule* first: the class gets "
                         "that case."))
        st.button(_("Send to the class"), key=keys(key).exercise_send, type="primary", on_click=_send,
                  args=(key, seat, view.source, view.seed))


# -- the student ---------------------------------------------------------------------------------------------
def _start(key: str, exercise: dict[str, Any]) -> None:
    st.session_state[keys(key).exercise_started] = exercise["id"]
    st.session_state[keys(key).exercise_reported] = None
    if exercise["kind"] == "predict":
        st.session_state[keys(key).practice_open] = True
    else:
        st.session_state[keys(key).detective_class_case] = exercise.get("case")


def _report(key: str, seat: Any, exercise: dict[str, Any], page: Page) -> None:
    if exercise["kind"] == "predict":
        session = predict_view.current(key, page.analysis)
        if session is None or page.analysis is None or page.analysis.trace is None:
            return
        report = predict_report(session, page.analysis.trace)
    else:
        case = st.session_state.get(keys(key).detective)
        if not isinstance(case, DetectiveCase) or page.analysis is None:
            return
        labels = node_choices(page.analysis)
        report = detective_report(case, lambda i: labels[i])
    if report == st.session_state.get(keys(key).exercise_reported):
        return
    try:
        room_service.rooms().report(seat.code, seat.student, exercise["id"], report,
                                    nickname=st.session_state.get(keys(key).nickname_kept, ""))
        st.session_state[keys(key).exercise_reported] = report
    except (AnswerRejected, RoomGone, StoreUnavailable):
        pass  # the next run that changes the progress reports it again


class ClassExercise(Feature):
    """The class's exercise as a Playground feature; it runs before the practice and the detective features."""

    def __init__(self, live_class: Any) -> None:
        self.live = live_class
        self.exercise: dict[str, Any] | None = None

    def _student(self) -> bool:
        seat = self.live.seat
        return room_view.is_student(seat) and seat.student is not None

    def on_program(self, page: Page) -> None:
        self.exercise = None
        if not self._student() or page.analysis is None:
            return
        try:
            view = room_service.rooms().view(self.live.seat.code)
        except StoreUnavailable:
            return
        self.exercise = view.exercise if view is not None else None
        started = st.session_state.get(keys(page.key).exercise_started)
        if self.exercise is None or started != self.exercise["id"]:
            st.session_state[keys(page.key).detective_class_case] = None
            return
        if self.exercise["kind"] == "predict" and predict_view.current(page.key, page.analysis) is None:
            predict_view.start(page.key, page.analysis)

    def panel(self, page: Page) -> None:
        if self.exercise is None:
            return
        started = st.session_state.get(keys(page.key).exercise_started) == self.exercise["id"]
        kind = kind_text(self.exercise["kind"])
        if started:
            st.caption(_("Class exercise: {kind} · your progress goes to your teacher.").format(kind=kind))
            return
        left, right = st.columns([4, 1.4], vertical_alignment="center")
        left.info(_("Your teacher sent an exercise: **{kind}**. Work through it at your own pace; your progress "
                    "goes to your teacher.").format(kind=kind), icon=":material/assignment:")
        right.button(_("Start the exercise"), key=keys(page.key).exercise_start, type="primary", width="stretch",
                     on_click=_start, args=(page.key, self.exercise))

    def below_player(self, page: Page) -> None:
        seat = self.live.seat
        if seat is not None and seat.teacher:
            teacher_panel(page.key, seat, page)

    def after_page(self, page: Page) -> None:
        if self.exercise is not None and self._student() and st.session_state.get(
                keys(page.key).exercise_started) == self.exercise["id"]:
            _report(page.key, self.live.seat, self.exercise, page)
