"""The Playground's lesson (Streamlit side): start one from a plan, step across its links, show where it is.

The lesson lives in the URL (``lesson=`` and ``at=``, see ``lucid.session.lesson_plan``), so a lesson is itself a link.
Moving to another link opens it the way the link itself would open: its program, step and view words go
into the URL and the view widgets' state is dropped, so ``lucid.ui.playground.view_link.enter`` sets the program
and every view widget from the URL on the next run, as when a page is entered. The drawing is the link's
and the room's setup (Classroom mode, graph size, speed, language) the lecturer's unless the link names
it (``lesson.opened_view``). A link opened at its last step gets that step once its program is on screen
(``after_program_shown``). Moves come from the player (Next after the last step, Prev at step 0: a
checked ``lesson_move``) or from the buttons in the Lesson panel.

So that crossing to the next link does not wait for its program and drawing, ``prefetch_next`` builds
both into the process-wide caches (``lucid.session.analysis``) on a background thread once the page drew.
"""
from __future__ import annotations

import os
import threading
from typing import Any

import streamlit as st

from lucid import gallery, i18n
from lucid.i18n import _, format_integer
from lucid.session import lesson_plan as lesson
from lucid.session import share
from lucid.session.analysis import Analysis, shared_analysis, shared_animation
from lucid.session.options import DIRECTIONS, LARGE_MODES, PRESETS, DrawOptions
from lucid.ui.playground import view_link
from lucid.ui.playground.keys import keys
from lucid.ui.runtime import browser_gate, language

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
    memo_key = keys(key).lesson_decoded
    memo = st.session_state.get(memo_key)
    if not (isinstance(memo, tuple) and memo[0] == packed):
        memo = (packed, lesson.unpack_lesson(packed))
        st.session_state[memo_key] = memo
    plan = memo[1]
    if plan is None:
        return None
    return plan, lesson.position_in(plan, st.query_params.get(lesson.AT_KEY, "0"))


def _open(key: str, plan: lesson.Lesson, move: lesson.Move) -> None:
    """Open link ``move.at`` as the link itself would open (a callback: before any widget is drawn).

    Its program, start step and view words go into the URL, and the view widgets' state and the editor's
    text are dropped, so the next run enters the page from that URL (``view_link.enter``). The step a
    move names (``LAST`` included) is applied once the program is on screen (``after_program_shown``).
    """
    link = plan.links[move.at]
    for name, value in lesson.opened_view(link).items():
        if name == lesson.LANGUAGE_KEY:
            language.set_language(value)
        elif name == "classroom":  # said either way: "0" turns Classroom mode off (absent would keep it)
            st.query_params[name] = value
        elif value is None or value == share.VIEW_DEFAULTS[name]:
            if name in st.query_params:
                del st.query_params[name]
        else:
            st.query_params[name] = value
    program = share.encode(link.source, None if move.step == lesson.LAST else move.step)
    for name in (share.PLAIN_KEY, share.PACKED_KEY, share.STEP_KEY, "example"):
        if name not in program and name in st.query_params:
            del st.query_params[name]
    st.query_params.update(program)
    for suffix in view_link.VIEW_SUFFIXES:
        st.session_state.pop(keys(key).of(suffix), None)
    st.session_state[keys(key).lesson_entry] = (link.source, move.step)
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
            "title": " · ".join(t for t in (plan.title, plan.links[at].title) if t),
            "heading": heading(plan.links[at])}


def heading(link: lesson.LessonLink) -> str:
    """What the player's bar shows beside *Lesson 2 / 5* as the link opens: its title, else a gallery
    example's own title (in the page's language), else nothing (the bar stays as it was)."""
    if link.title:
        return link.title
    example = gallery.find_source(link.source)
    return _(example.title) if example is not None else ""


def link_options(link: lesson.LessonLink) -> DrawOptions:
    """The drawing options the Playground's widgets take when ``link`` opens (its drawing words, else defaults)."""
    widgets = view_link.widget_values(share.decode_view(link.words()))
    return DrawOptions(DIRECTIONS[widgets["direction"]], bool(widgets["values"]), bool(widgets["grads"]),
                       bool(widgets["shapes"]), bool(widgets["constants"]), LARGE_MODES[widgets["large"]],
                       PRESETS[widgets["preset"]])


PREFETCH_ENV = "LUCID_LESSON_PREFETCH"
"""Set to ``0`` to switch the next link's prefetch off (the crossing bench compares both)."""
_PREFETCHING = threading.BoundedSemaphore(1)
"""One prefetch at a time in the whole process: a hundred lessons on screen warm one link at a time."""


def prefetch_next(key: str) -> bool:
    """Build the next link's program and animation into the shared caches, on a background thread.

    Called once the page drew, so the link on screen never waits for it. Bounded: at most one prefetch
    runs in the process (a page that finds one running leaves it; the next rerun tries again), and it takes
    the caches' own build slots, like any session. Failures are left for the page to show when the link
    opens. Returns whether a prefetch started.
    """
    found = current(key)
    if found is None or os.environ.get(PREFETCH_ENV, "1") == "0":
        return False
    plan, at = found
    if at + 1 >= len(plan):
        return False
    link = plan.links[at + 1]
    wanted = link.words().get(lesson.LANGUAGE_KEY, i18n.current_language())
    if not _PREFETCHING.acquire(blocking=False):
        return False
    thread = threading.Thread(target=_warm, args=(link.source, link_options(link), wanted), daemon=True,
                              name="lucid-lesson-prefetch")
    try:
        thread.start()
    except RuntimeError:  # no thread to be had: the crossing just computes as before
        _PREFETCHING.release()
        return False
    return True


def _warm(source: str, options: DrawOptions, wanted: str) -> None:
    try:
        with i18n.use_language(wanted):  # an animation holds its explanations written in the page's language
            shared_animation(shared_analysis(source), options)
    except Exception:  # noqa: BLE001 - a bad or too large program: the page says so when the link opens
        pass
    finally:
        _PREFETCHING.release()


def after_program_shown(key: str, analysis: Analysis) -> None:
    """Once a lesson's link is on screen, open it at its step (its own start step, or the last one)."""
    entry = st.session_state.pop(keys(key).lesson_entry, None)
    if not (isinstance(entry, tuple) and entry[0] == analysis.source):
        return
    step = lesson.entry_step(entry[1], analysis.n_steps)
    st.session_state[keys(key).step] = step
    st.query_params["step"] = str(step)


def _start(key: str) -> None:
    """The Start button: read the plan (pasted or uploaded), put the lesson in the URL, open its first link."""
    upload = st.session_state.get(keys(key).lesson_file)
    text = st.session_state.get(keys(key).lesson_plan, "")
    if upload is not None:
        raw = upload.getvalue()
        if len(raw) > lesson.MAX_PLAN_CHARS:
            st.session_state[keys(key).lesson_error] = _("the file is larger than {n} bytes").format(
                n=format_integer(lesson.MAX_PLAN_CHARS))
            return
        text = raw.decode("utf-8", errors="replace")
    try:
        plan = lesson.parse_plan(str(text))
    except lesson.LessonError as err:
        st.session_state[keys(key).lesson_error] = str(err)
        return
    st.session_state[keys(key).lesson_error] = None
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
            prev_col.button(_("Previous link"), key=keys(key).lesson_prev, icon=":material/skip_previous:",
                            disabled=at == 0, on_click=move, args=(key, "prev"), width="stretch",
                            help=_("The previous link, at its last step (← at step 0 does the same)."))
            next_col.button(_("Next link"), key=keys(key).lesson_next, icon=":material/skip_next:",
                            disabled=at + 1 >= len(plan), on_click=move, args=(key, "next"), width="stretch",
                            help=_("The next link, at its first step (→ after the last step does the same)."))
            end_col.button(_("End lesson"), key=keys(key).lesson_end, icon=":material/close:", on_click=_end,
                           args=(key,), width="stretch", help=_("Leave the lesson; the program on screen stays."))
        st.caption(_("A lesson is an ordered list of Playground links: write the plan once (TOML with [[link]] "
                     "tables holding a `code`, a shared `url` or a gallery `example`, an optional `step` and "
                     "`title`, and any view word of a link: `style`, `dir`, `hide`, `large`, `zoom`, "
                     "`classroom`, `speed`, `lang`; or one link per line), start it, and the clicker's → after "
                     "a program's last step opens the next link with its view. The lesson travels in this "
                     "page's link."))
        st.text_area(_("Lesson plan"), key=keys(key).lesson_plan, height=180, placeholder=EXAMPLE_PLAN,
                     max_chars=browser_gate.MAX_TEXT_CHARS)  # what the page takes from a browser; upload for more
        st.file_uploader(_("…or upload a plan"), type=["toml", "txt"], key=keys(key).lesson_file,
                         max_upload_size=1)
        st.button(_("Start lesson"), key=keys(key).lesson_start, icon=":material/school:", on_click=_start,
                  args=(key,), type="primary")
        error = st.session_state.get(keys(key).lesson_error)
        if error:
            st.error(_("**The lesson plan cannot be used:** {error}").format(error=error), icon=":material/error:")
