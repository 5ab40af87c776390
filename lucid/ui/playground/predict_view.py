"""Practice: predict every gradient, alone. A folded panel under the player; the player holds the asked step back.

The page stays thin: ``lucid.practice.predict`` asks, grades and diagnoses (with the class mode's grading); this
module keeps the session's ``PredictSession``, draws the question, the answer form, the feedback and the score,
and tells the page which step to hold back. While a practice runs, the player gets the animation cut before the
asked step (the class mode's hold, ``lucid.viz.player.redact.held``), and the inputs table, forward mode and the
exports wait, as they do for a student while the class predicts.

A link with ``practice=predict`` opens the panel and starts the practice on the link's program. Folded, the panel
draws nothing inside (``lucid.ui.runtime.folded``); the hold stays while the practice runs.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from lucid.i18n import L_, _, text
from lucid.live_class.grading import TOLERANCE_TEXT, diagnosis_text, rule_text
from lucid.practice.predict import MAX_CHARS, PredictSession
from lucid.session.analysis import Analysis
from lucid.ui.playground.keys import keys
from lucid.ui.playground.lifecycle import Feature, Page
from lucid.ui.runtime import folded, language

LINK_WORD = "predict"
"""The value of the link's ``practice=`` that starts this practice."""


def current(key: str, analysis: Analysis | None) -> PredictSession | None:
    """The practice running on ``analysis`` (a session of another program is dropped)."""
    session = st.session_state.get(keys(key).practice)
    if not isinstance(session, PredictSession):
        return None
    if analysis is None or analysis.trace is None or (session.source, session.seed) != (analysis.source,
                                                                                        analysis.seed):
        st.session_state[keys(key).practice] = None
        st.session_state[keys(key).practice_feedback] = None
        return None
    return session


def held_step(key: str, analysis: Analysis | None) -> int | None:
    """The step the player holds back while the practice runs (None: not practising, or every step done)."""
    session = current(key, analysis)
    return None if session is None else session.step


def start(key: str, analysis: Analysis) -> None:
    if analysis.trace is None:
        return
    st.session_state[keys(key).practice] = PredictSession.start(analysis.trace, analysis.source, analysis.seed)
    st.session_state[keys(key).practice_feedback] = None
    st.session_state[keys(key).practice_answer] = ""


def stop(key: str) -> None:
    st.session_state[keys(key).practice] = None
    st.session_state[keys(key).practice_feedback] = None


def _check(key: str, analysis: Analysis) -> None:
    """The form's Check: grade the typed answer; on a right one the player moves to the step just answered."""
    session = current(key, analysis)
    if session is None:
        return
    asked = session.step
    feedback = session.answer(analysis.trace, st.session_state.get(keys(key).practice_answer, ""),
                              locale=language.current())
    st.session_state[keys(key).practice_feedback] = feedback
    if feedback.kind == "right":
        st.session_state[keys(key).practice_answer] = ""
        st.session_state[keys(key).step] = asked


def _reveal(key: str, analysis: Analysis) -> None:
    session = current(key, analysis)
    if session is None:
        return
    asked = session.step
    st.session_state[keys(key).practice_feedback] = session.reveal(analysis.trace)
    st.session_state[keys(key).practice_answer] = ""
    if asked is not None:
        st.session_state[keys(key).step] = asked


def _feedback(key: str) -> None:
    feedback = st.session_state.get(keys(key).practice_feedback)
    if feedback is None:
        return
    message = text(feedback.message)
    if feedback.kind == "right":
        st.success(message, icon=":material/check_circle:")
    elif feedback.kind == "revealed":
        st.info(message, icon=":material/visibility:")
    elif feedback.kind == "wrong":
        why = diagnosis_text(feedback.diagnosis)
        st.error(message + (f"  \n{why}" if why else ""), icon=":material/error:")
    else:
        st.warning(message, icon=":material/warning:")


def _question(key: str, analysis: Analysis, session: PredictSession) -> None:
    q: dict[str, Any] = session.question(analysis.trace)
    score = session.score()
    st.caption(_("Question {k} of {n} · the player stops before step {step}").format(
        k=score.done + 1, n=score.questions, step=q["step"]))
    st.markdown(_("What does **`{label}`** hold after step {step}?").format(label=q["label"], step=q["step"]))
    hints = [line for line in (q.get("upstream"), rule_text(q)) if line]
    if hints and st.toggle(_("Show the rule"), key=keys(key).practice_hint):  # a hint: it nearly gives the answer
        st.caption(" · ".join(f"`{text(line)}`" for line in hints))
    with st.form(key=keys(key).practice_form, border=False, enter_to_submit=True):
        st.text_input(_("Your answer"), key=keys(key).practice_answer, max_chars=MAX_CHARS,
                      placeholder=_("e.g. -0.25"))
        st.form_submit_button(_("Check"), key=keys(key).practice_check, type="primary", width="stretch",
                              on_click=_check, args=(key, analysis))
    _feedback(key)
    st.button(_("Reveal the answer"), key=keys(key).practice_reveal, width="stretch", on_click=_reveal,
              args=(key, analysis))
    st.caption(_("Graded to {tolerance}.").format(tolerance=_(TOLERANCE_TEXT)))


def score_text(session: PredictSession) -> str:
    score = session.score()
    return text(L_("Score: {first} of {n} right at the first try · {right} right in all · {tries} tries · "
                   "{revealed} revealed", first=score.first_try, n=score.questions, right=score.right,
                   tries=score.tries, revealed=score.revealed))


def _score(key: str, analysis: Analysis, session: PredictSession) -> None:
    _feedback(key)
    st.success(_("Every gradient predicted."), icon=":material/emoji_events:")
    st.markdown(f"**{score_text(session)}**")
    mistakes = session.mistakes()
    if mistakes:
        st.markdown(_("Your mistakes:") + "\n" + "\n".join(
            f"- {diagnosis_text(k)} ({n}×)" for k, n in mistakes.items()))
    st.button(_("Start again"), key=keys(key).practice_start, width="stretch", on_click=start, args=(key, analysis))


def panel(key: str, analysis: Analysis) -> None:
    """The folded "Practice: predict every gradient" expander."""
    with st.expander(_("Practice: predict every gradient"), icon=":material/quiz:", key=keys(key).practice_open,
                     on_change="rerun") as box:
        if not box.open:
            folded.keep(keys(key).practice_answer, keys(key).practice_hint)
            return
        if analysis.trace is None or analysis.n_steps < 2:
            st.caption(_("This program has no backward step to predict."))
            return
        session = current(key, analysis)
        if session is None:
            st.caption(_("Before each backward step, type the gradient it leaves in its input (for a tensor, the "
                         "entry asked). A wrong answer gets the likely mistake; the player waits until you answer "
                         "or reveal."))
            st.button(_("Start practising"), key=keys(key).practice_start, type="primary", width="stretch",
                      on_click=start, args=(key, analysis))
            return
        if session.finished:
            _score(key, analysis, session)
        else:
            _question(key, analysis, session)
            st.caption(score_text(session))
        st.button(_("Stop practising"), key=keys(key).practice_stop, width="stretch", on_click=stop, args=(key,))


class Practice(Feature):
    """The practice as a Playground feature: it holds the asked step back and draws its panel under the player."""

    def __init__(self) -> None:
        self.linked = st.query_params.get("practice") == LINK_WORD

    def on_program(self, page: Page) -> None:
        if self.linked and page.entering and page.analysis is not None and current(page.key, page.analysis) is None:
            start(page.key, page.analysis)
            st.session_state[keys(page.key).practice_open] = True
        step = held_step(page.key, page.analysis)
        if step is not None:
            page.held_from = step if page.held_from is None else min(page.held_from, step)
            page.practising = True

    def player_options(self, page: Page) -> dict[str, Any]:
        if not page.practising:
            return {}
        return {"held_from": page.held_from, "held_note": _held_note(page), "marks": asked_marks(page)}

    def below_player(self, page: Page) -> None:
        if page.analysis is not None:
            panel(page.key, page.analysis)


def asked_marks(page: Page) -> list[list[str]]:
    """The node whose gradient is asked, marked on the graph (dotted), its name saying the entry asked."""
    session = current(page.key, page.analysis)
    q = None if session is None or page.analysis is None else session.question(page.analysis.trace)
    if q is None:
        return []
    index = page.analysis.index_of(page.analysis.trace.steps[q["step"]].parent)
    return [[f"t{index}", "ask", _("asked: {label}").format(label=q["label"])]]


def _held_note(page: Page) -> str:
    return _("Exports are back once you finish or stop the practice.")
