"""The Playground's lesson (Streamlit side): start one from a plan, step across its links, show where it is.

The lesson lives in the URL (``lesson=`` and ``at=``, see ``lucid.ui.lesson``), so a lesson is itself a link.
Moving to another link puts that link's program in the editor and asks for a run; the step it opens at
is applied once that program is on screen (``after_program_shown``). Moves come from the player (Next
after the last step, Prev at step 0: a checked ``lesson_move``) or from the buttons in the Lesson panel.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from lucid.i18n import _, format_integer
from lucid.ui import browser_gate, lesson
from lucid.ui.analysis import Analysis

EXAMPLE_PLAN = '''title = "Backprop, step by step"

[[link]]
title = "The chain rule"
code = """
x = 2.0
y = x * x
"""

[[link]]
title = "A value used twice"
code = """
a = 3.0
b = a * a + a
"""
'''


def current(key: str) -> tuple[lesson.Lesson, int] | None:
    """The lesson the URL carries and the link on screen (decoded once per distinct ``lesson=`` value)."""
    packed = st.query_params.get(lesson.LESSON_KEY)
    if not packed:
        return None
    memo_key = f"{key}_lesson_decoded"
    memo = st.session_state.get(memo_key)
    if not (isinstance(memo, tuple) and memo[0] == packed):
        memo = (packed, lesson.unpack_lesson(packed))
        st.session_state[memo_key] = memo
    plan = memo[1]
    if plan is None:
        return None
    return plan, lesson.position_in(plan, st.query_params.get(lesson.AT_KEY, "0"))


def _open(key: str, plan: lesson.Lesson, move: lesson.Move) -> None:
    """Put link ``move.at``'s program in the editor, ask for a run, and remember the step to open it at."""
    link = plan.links[move.at]
    st.session_state[f"{key}_source"] = link.source
    st.session_state[f"{key}_run_requested"] = True
    st.session_state[f"{key}_lesson_entry"] = (link.source, move.step)
    st.query_params[lesson.AT_KEY] = str(move.at)


def move(key: str, direction: str) -> None:
    """Cross to the next or previous link of the lesson on screen (callback: before the editor is drawn)."""
    found = current(key)
    if found is None:
        return
    plan, at = found
    step = lesson.next_link(plan, at) if direction == "next" else lesson.previous_link(plan, at)
    if step is not None:
        _open(key, plan, step)


def player_lesson(key: str) -> dict[str, Any] | None:
    """What the player's bar needs to know about the lesson on screen (None: no lesson)."""
    found = current(key)
    if found is None:
        return None
    plan, at = found
    return {"at": at, "where": lesson.where(plan, at), "has_prev": at > 0, "has_next": at + 1 < len(plan),
            "title": " · ".join(t for t in (plan.title, plan.links[at].title) if t)}


def after_program_shown(key: str, analysis: Analysis) -> None:
    """Once a lesson's link is on screen, open it at its step (its own start step, or the last one)."""
    entry = st.session_state.pop(f"{key}_lesson_entry", None)
    if not (isinstance(entry, tuple) and entry[0] == analysis.source):
        return
    step = lesson.entry_step(entry[1], analysis.n_steps)
    st.session_state[f"{key}_step"] = step
    st.query_params["step"] = str(step)


def _start(key: str) -> None:
    """The Start button: read the plan (pasted or uploaded), put the lesson in the URL, open its first link."""
    upload = st.session_state.get(f"{key}_lesson_file")
    text = st.session_state.get(f"{key}_lesson_plan", "")
    if upload is not None:
        raw = upload.getvalue()
        if len(raw) > lesson.MAX_PLAN_CHARS:
            st.session_state[f"{key}_lesson_error"] = _("the file is larger than {n} bytes").format(
                n=format_integer(lesson.MAX_PLAN_CHARS))
            return
        text = raw.decode("utf-8", errors="replace")
    try:
        plan = lesson.parse_plan(str(text))
    except lesson.LessonError as err:
        st.session_state[f"{key}_lesson_error"] = str(err)
        return
    st.session_state[f"{key}_lesson_error"] = None
    st.query_params[lesson.LESSON_KEY] = lesson.pack_lesson(plan)
    first = plan.links[0]
    _open(key, plan, lesson.Move(0, first.step if first.step is not None else 0))


def _end(key: str) -> None:
    for name in (lesson.LESSON_KEY, lesson.AT_KEY):
        if name in st.query_params:
            del st.query_params[name]


def lesson_panel(key: str) -> None:
    """The Lesson panel under the graph: where the lesson is and its buttons, and the plan to start one."""
    found = current(key)
    label = _("Lesson {where}").format(where=lesson.where(*found)) if found else _("Lesson")
    with st.expander(label, icon=":material/school:", expanded=False):
        if found is not None:
            plan, at = found
            title = plan.links[at].title or plan.links[at].source.splitlines()[0][:60]
            st.markdown(_("**{title}** · link {where}: {link}").format(title=plan.title or _("Lesson"),
                                                                       where=lesson.where(plan, at), link=title))
            prev_col, next_col, end_col = st.columns(3)
            prev_col.button(_("Previous link"), key=f"{key}_lesson_prev", icon=":material/skip_previous:",
                            disabled=at == 0, on_click=move, args=(key, "prev"), width="stretch",
                            help=_("The previous link, at its last step (← at step 0 does the same)."))
            next_col.button(_("Next link"), key=f"{key}_lesson_next", icon=":material/skip_next:",
                            disabled=at + 1 >= len(plan), on_click=move, args=(key, "next"), width="stretch",
                            help=_("The next link, at its first step (→ after the last step does the same)."))
            end_col.button(_("End lesson"), key=f"{key}_lesson_end", icon=":material/close:", on_click=_end,
                           args=(key,), width="stretch", help=_("Leave the lesson; the program on screen stays."))
        st.caption(_("A lesson is an ordered list of Playground links: write the plan once (TOML with [[link]] "
                     "tables holding a `code` or a shared `url`, an optional `step` and `title`; or one link per "
                     "line), start it, and the clicker's → after a program's last step opens the next link. "
                     "The lesson travels in this page's link."))
        st.text_area(_("Lesson plan"), key=f"{key}_lesson_plan", height=180, placeholder=EXAMPLE_PLAN,
                     max_chars=browser_gate.MAX_TEXT_CHARS)  # what the page takes from a browser; upload for more
        st.file_uploader(_("…or upload a plan"), type=["toml", "txt"], key=f"{key}_lesson_file",
                         max_upload_size=1)
        st.button(_("Start lesson"), key=f"{key}_lesson_start", icon=":material/school:", on_click=_start,
                  args=(key,), type="primary")
        error = st.session_state.get(f"{key}_lesson_error")
        if error:
            st.error(_("**The lesson plan cannot be used:** {error}").format(error=error), icon=":material/error:")
