"""The program editor shared by the Playground and the Gradient check page.

Gallery picker, a text area, a Run button and errors shown as the
``ExprError`` message with the offending line and a caret (never a
traceback). The program runs when Run is pressed or when the committed text
changes (a text area commits on Ctrl+Enter). A bad program leaves the last
good one in place, so the graph on screen never disappears mid-lesson.

Session-state keys all start with the ``key`` argument, so two pages never clash.
"""
from __future__ import annotations

import html
from collections.abc import Callable
from typing import TypeVar

import streamlit as st

from lucid import gallery
from lucid.expr import ExprError, Program, run
from lucid.i18n import N_, _
from lucid.session import share
from lucid.session.memo import LRUMemo
from lucid.ui.playground import recording_view
from lucid.ui.playground.keys import keys

T = TypeVar("T")

CUSTOM = N_("(your own program)")


def session_memo(key: str, name: str = "memo", capacity: int = 32) -> LRUMemo:
    """A per-session LRU memo stored under ``<key>_<name>`` (created on first use)."""
    slot = keys(key).of(name)
    if slot not in st.session_state:
        st.session_state[slot] = LRUMemo(capacity)
    return st.session_state[slot]


def _load_example(key: str, picker_key: str) -> None:
    if picker_key != st.session_state.get(keys(key).picker_shown):
        return  # a stale picker's value, sent by a click that left the browser before the last rerun arrived
    title = st.session_state[picker_key]
    example = next((e for e in gallery.EXAMPLES if e.title == title), None)
    recorded = gallery.recording_by_title(title)
    if example is not None:
        st.session_state[keys(key).source] = example.source
        st.session_state[keys(key).run_requested] = True
    elif recorded is not None:  # a recorded PyTorch pass: played instead of the program, which stays as it is
        recording_view.load_example(key, recorded)
    elif recording_view.current(key) is not None:  # "(your own program)" while a recording plays: back to it
        recording_view.close(key)


def _request_run(key: str) -> None:
    st.session_state[keys(key).run_requested] = True


def initial_source(share_url: bool) -> tuple[str, int | None]:
    """The program to show on a session's first run: from the link when there is one, else the default."""
    if share_url:
        view = share.decode(st.query_params.to_dict())
        if view.source is not None:
            return view.source, view.step
        slug = st.query_params.get("example")
        if slug and gallery.by_slug(slug):
            return gallery.by_slug(slug).source, view.step
    return gallery.DEFAULT.source, None


_CELL = '<span style="display:inline-block;width:{w}ch;text-align:center">{text}</span>'
_CARET_BOX = ('<pre style="font-family:\'Source Code Pro\',monospace;font-size:0.875rem;line-height:1.6;'
              'background:rgb(247,247,246);border-radius:0.5rem;padding:1rem;margin:0;overflow-x:auto;'
              'tab-size:8">{body}</pre>')


def caret_html(err: ExprError) -> str:
    """The line and caret of ``err`` as HTML in which every non-ASCII character takes its exact columns.

    A browser draws a Hangul syllable from a fallback font whose width is not two monospace columns,
    so a plain-text caret line drifts; fixed-width cells keep the caret under the character it means.
    """
    cells, at, width, cut_before, cut_after = err.caret_cells()

    def cell(ch: str, w: int) -> str:
        text = html.escape(ch)
        return text if ch.isascii() or w == 0 else _CELL.format(w=w, text=text)

    line = "".join(cell(ch, w) for ch, w in cells)
    pad = "".join("\t" if ch == "\t" else " " if ch.isascii() else _CELL.format(w=w, text="")
                  for ch, w in cells[:at])
    carets = "^" * max(1, sum(w for _, w in cells[at:at + width]))
    before = "..." if cut_before else ""
    after = "..." if cut_after else ""
    return _CARET_BOX.format(body=f"{before}{line}{after}\n{' ' * len(before)}{pad}{carets}")


def show_error(err: ExprError) -> None:
    """An ``ExprError`` as a person can act on it: where, what, and the line with a caret."""
    where = _("Line {line}, column {col}:").format(line=err.line, col=err.col)
    st.error(f"**{where}** {err.message}", icon="⚠️")
    if err.source_line.isascii():
        st.code(err.caret_text(), language=None)
    else:  # wide characters: columns enforced in HTML (caret_html)
        st.html(caret_html(err))


def editor(key: str, evaluate: Callable[[str], T], *, share_url: bool = False,
           height: int = 160, keep_result: bool = True, recordings: bool = False) -> T | None:
    """Render picker + editor + Run; return ``evaluate(source)`` for the last good program (or None).

    ``recordings``: the gallery also offers the recorded PyTorch passes (``gallery.RECORDINGS``, the
    Playground's ``recording_view``); running a program then closes the recording on screen.
    ``evaluate`` must be deterministic. With ``keep_result`` the result is memoized per session by
    source text and kept in session state. Without it the session keeps only the last good source
    and calls ``evaluate`` on every run: for an ``evaluate`` backed by a process-wide cache, so a
    session never pins a large program in memory on its own.
    """
    k = keys(key)
    source_key, ran_key, good_key, err_key = k.source, k.ran, k.good, k.error
    if source_key not in st.session_state:
        text, step = initial_source(share_url)
        st.session_state[source_key] = text
        st.session_state[ran_key] = None
        st.session_state[keys(key).initial_step] = step

    current = st.session_state[source_key]
    if recordings and (st.session_state.get(keys(key).run_requested) or current != st.session_state[ran_key]):
        recording_view.close(key)  # a program is run (Run, Ctrl+Enter, a gallery program): it replaces the recording
    played = recording_view.current(key) if recordings else None
    match = gallery.find_source(current)
    shown = played.example.title if played is not None and played.example is not None else (
        match.title if match else CUSTOM)
    options = [CUSTOM, *(e.title for e in gallery.EXAMPLES), *(r.title for r in gallery.RECORDINGS if recordings)]
    # The picker is keyed by what it shows instead of being set from the script. Typing then clicking Run
    # sends two messages; the click can still carry the picker the browser showed before the first rerun
    # arrived. Streamlit keeps an old widget's callback, so _load_example only acts for the picker this
    # run shows: a stale value can never load an example over a program the user just typed.
    picker_key = f"{keys(key).example}:{shown}"
    st.session_state[keys(key).picker_shown] = picker_key
    left, right = st.columns([2, 3])
    with left:
        st.selectbox(_("Gallery"), options, index=options.index(shown), key=picker_key,
                     on_change=_load_example, args=(key, picker_key), format_func=_,
                     help=_("Ready-made programs; each one teaches one thing about backprop."))
        lesson = played.example.lesson if played is not None and played.example is not None else (
            match.lesson if match else None)
        if lesson:
            st.caption(f":material/lightbulb: {_(lesson)}")
        st.button(_("Run"), key=keys(key).run, type="primary", on_click=_request_run, args=(key,),
                  icon=":material/play_arrow:", help=_("Runs the program (Ctrl+Enter in the editor does too)."))
    with right:
        st.text_area(_("Program"), key=source_key, height=height,
                     help=_("One statement per line; the last line is the output. Ctrl+Enter runs it."))

    source = st.session_state[source_key]
    wanted = st.session_state.pop(keys(key).run_requested, False) or source != st.session_state[ran_key]
    if wanted:
        st.session_state[ran_key] = source
        try:
            if keep_result:
                memo = session_memo(key, "programs", capacity=2)  # a near-limit program holds ~200 MB
                result = memo.get(("eval", source), lambda: evaluate(source))
            else:
                result = evaluate(source)
        except ExprError as err:
            st.session_state[err_key] = err
        else:
            st.session_state[good_key] = result if keep_result else source
            st.session_state[err_key] = None
    err = st.session_state.get(err_key)
    if err is not None:
        show_error(err)
        if st.session_state.get(good_key) is not None:
            st.caption(_("Still showing the last program that ran."))
    good = st.session_state.get(good_key)
    if keep_result or good is None:
        return good
    return evaluate(good)


def program_editor(key: str) -> Program | None:
    """Gallery picker, editor, Run and errors; returns the last good ``Program`` (None before any).

    Stable signature for other pages (the Gradient check page uses it).
    """
    return editor(key, lambda source: run(source, seed=0))
