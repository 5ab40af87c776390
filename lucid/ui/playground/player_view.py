"""The backward stepper: the in-browser player, its caption, the node inspector, legend and exports.

The animation of the program (one layout, per-step changes, explanations) comes
from the process-wide cache and is handed to the player component once; stepping,
the slider, keys and autoplay then happen in the browser with no rerun. The
server's idea of the step (``<key>_step``) is where a shared link or a new
program starts, and what the browser reported with the last click on a node: the
node inspector and the exports use it. Steps are always steps of the backward trace.

A graph past the node cap is drawn collapsed (``lucid.viz.graph.collapse``) and played one
box at a time; a click on a box opens it, a click on an open group's header closes
it. The opened boxes are kept per session (``<key>_expanded``, a sorted tuple of group
keys, reset for a new program) and are part of the shared animation's key.
"""
from __future__ import annotations

import re
from collections.abc import Callable

import streamlit as st

from lucid import viz
from lucid.i18n import N_, _, format_integer, ngettext, text
from lucid.session import stepping as stepper
from lucid.session.analysis import Analysis, hierarchy_of, shared_animation
from lucid.session.options import DrawOptions
from lucid.ui.playground import graph_view, html_export
from lucid.ui.playground.clickable_graph import animation_player, program_key, take_click
from lucid.ui.playground.graph_view import export_buttons, show_legend, static_frame
from lucid.ui.playground.inspector_view import inspect_clicked, node_inspector
from lucid.ui.playground.keys import keys
from lucid.ui.projector.layout import TOP_BAR
from lucid.ui.runtime import folded
from lucid.viz.graph.style import BLUE, EDGE_STYLE, GREEN, GREY, ORANGE, PROGRESS_STYLE, RED, VERMILLION
from lucid.viz.player.animation import Animation
from lucid.viz.player.redact import held

COLOUR_WORDS = {VERMILLION: N_("orange-red"), ORANGE: N_("orange"), BLUE: N_("blue"), GREEN: N_("green"),
                GREY: N_("grey"), RED: N_("red")}
"""Words for the drawing's colours (``lucid.viz.graph.style``), so the caption names what the eye sees."""


def colour_word(colour: str) -> str:
    """The everyday name of one of the drawing's colours (its hex code if it has none)."""
    return _(COLOUR_WORDS.get(colour.upper(), COLOUR_WORDS.get(colour, colour)))


def caption_text(analysis: Analysis) -> str:
    """Counts, and what the highlight colours mean, in the colours the drawing really uses."""
    n = analysis.n_steps
    node = colour_word(PROGRESS_STYLE["current"]["color"])
    edge = colour_word(EDGE_STYLE["flowing"]["color"])
    return " · ".join([
        ngettext("{n} tensor", "{n} tensors", analysis.n_tensors).format(n=analysis.n_tensors),
        ngettext("{n} op", "{n} ops", analysis.n_ops).format(n=analysis.n_ops),
        ngettext("step 0 is the seed, then {n} gradient step", "step 0 is the seed, then {n} gradient steps",
                 max(n - 1, 0)).format(n=max(n - 1, 0)),
        _("thick {colour} border: the node receiving gradient now; thick {edge} arrow: the edge it flows along")
        .format(colour=node, edge=edge)])


_BOX_ID = re.compile(r"^g[0-9]+$")


def collapsed_caption(anim: Animation, analysis: Analysis) -> str:
    """What a collapsed drawing shows, and how to open and close its boxes."""
    info = anim.collapsed or {}
    text = _("Drawn collapsed: {drawn} boxes and nodes for {tensors} tensors · click a box to open it, click an "
             "open group's ▾ header to close it").format(drawn=info.get("drawn", 0),
                                                       tensors=format_integer(analysis.n_tensors))
    if anim.trace_steps:
        text += " · " + _("{n} steps for {total} gradient steps: a step is the gradient working through a closed "
                          "box and leaving it").format(n=anim.n_steps, total=format_integer(analysis.n_steps))
    closed = info.get("closed_for_budget") or []
    if closed:
        text += " · " + ngettext("{n} group was closed again to keep the layout quick",
                                 "{n} groups were closed again to keep the layout quick", len(closed)).format(
            n=len(closed))
    return text


def expanded_groups(key: str, analysis: Analysis) -> tuple[str, ...]:
    """The boxes this session opened in this program's collapsed drawing (none for a program just run)."""
    shown_key, expanded_key = keys(key).expanded_for, keys(key).expanded
    if st.session_state.get(shown_key) != (analysis.source, analysis.seed):
        st.session_state[shown_key] = (analysis.source, analysis.seed)
        st.session_state[expanded_key] = ()
    return tuple(st.session_state.get(expanded_key, ()))


def toggle_box(key: str, analysis: Analysis, box_id: str) -> None:
    """Open a clicked box, or close a clicked open group's header (and every group inside it)."""
    expanded_key = keys(key).expanded
    now = st.session_state.get(expanded_key, ())
    st.session_state[expanded_key] = tuple(sorted(viz.toggle(hierarchy_of(analysis), now, box_id)))


def _close_all(key: str) -> None:
    st.session_state[keys(key).expanded] = ()


OPEN_LEVEL_MAX_DRAWN = 200
""""Open one level" is offered while the drawing it leads to has at most this many boxes and nodes: past it the
animation takes many seconds to build, and single boxes opened by a click are the better way in."""


def one_level_deeper(analysis: Analysis, expanded: tuple[str, ...], box_ids: list[str]) -> tuple[str, ...]:
    """The opened boxes after opening every box in ``box_ids`` one level (the boxes inside them stay closed)."""
    hierarchy = hierarchy_of(analysis)
    opened = frozenset(hierarchy.resolve(set(expanded)))
    for box_id in box_ids:
        group = hierarchy.by_id(box_id)
        if group is not None and group.key not in opened:
            opened = viz.toggle(hierarchy, opened, box_id)
    return tuple(sorted(opened))


def _set_expanded(key: str, expanded: tuple[str, ...]) -> None:
    st.session_state[keys(key).expanded] = expanded


def backward_stepper(key: str, analysis: Analysis, options: DrawOptions, *, seconds: float, classroom: bool,
                     share_url: bool, zoom: str | float = "screen", resume: bool = False,
                     lesson: dict | None = None, on_lesson: Callable[[str], None] | None = None,
                     room: dict | None = None, on_step: Callable[[object], None] | None = None,
                     held_from: int | None = None, held_note: str | None = None,
                     marks: list[list[str]] | None = None) -> None:
    """The player for ``analysis`` and what goes with it (session keys prefixed with ``key``).

    ``resume``: the page was entered again through the menu, whose address names no step; the player
    starts at the step the browser tab last showed (the server hears of steps only on a click).
    ``lesson`` and ``on_lesson``: the place in a lesson and what crosses a link boundary (``animation_player``).
    ``room`` and ``on_step``: class mode (``lucid.ui.live_class.room_view``), handed to ``animation_player``.
    ``held_from``: a student while the class predicts that step (``lucid.ui.live_class.room_hold``): the player gets the
    animation cut before it, the step (a click's too) stays before it, and the exports wait for the reveal.
    ``held_note``: what the folded exports say instead (the practice's hold is not the teacher's to lift).
    ``marks``: ``[svg id, "pass" | "fail", words]`` per node to mark on the graph (the detective's checks).
    """
    step_key = keys(key).step
    n = analysis.n_steps
    program_id = program_key(analysis.seed, analysis.source)
    expanded = expanded_groups(key, analysis)
    shown = n if held_from is None else min(n, max(int(held_from), 1))  # the steps this page may show
    click = take_click(keys(key).player, program_id=program_id, n_steps=n)
    if click is not None:  # a node clicked in the player: before anything reads the step or the boxes
        st.session_state[step_key] = stepper.clamp(click.step, shown)
        if share_url:  # the server's copy of the URL follows, so a later rewrite keeps this step
            st.query_params["step"] = str(st.session_state[step_key])
        if _BOX_ID.match(click.node):  # a box of a collapsed drawing: open it (or close an open group)
            toggle_box(key, analysis, click.node)
            expanded = expanded_groups(key, analysis)
        inspect_clicked(key, analysis, click.node)
    step = st.session_state[step_key] = stepper.clamp(st.session_state.get(step_key, 0), shown)

    collapsed = False
    with st.container(key=keys(key).graph):
        if graph_view.has_dot():
            try:
                anim = shared_animation(analysis, options, expanded)
                if held_from is not None:
                    anim = held(anim, held_from)  # a small copy per question: the shared one stays whole
            except viz.GraphTooLarge as err:
                st.warning(_("**Too large to draw.** {error}").format(error=text(err)), icon=":material/warning:")
                return
            except (viz.GraphvizNotInstalled, viz.RenderError) as err:
                st.warning(_("**Could not draw the graph.** {error}").format(error=text(err)),
                           icon=":material/warning:")
                return
            collapsed = anim.collapsed is not None
            if collapsed:
                if anim.trace_steps:  # the picture shows the end of the box step that holds this step
                    step = st.session_state[step_key] = anim.trace_step(anim.step_for_trace(step))
                _collapsed_bar(key, anim, analysis, expanded)
            animation_player(anim, key=keys(key).player, step=step, program_id=program_id,
                             seconds=seconds, classroom=classroom, zoom=zoom, beside=analysis.trace is not None,
                             follow_first=step > 0, share_url=share_url, top=TOP_BAR,
                             speeds=stepper.SPEEDS, speed=st.session_state.get(keys(key).speed),
                             on_speed=lambda label: st.session_state.__setitem__(keys(key).speed, label),
                             resume=resume, lesson=lesson, on_lesson=on_lesson,
                             inspector_key=keys(key).inspector, room=room, on_step=on_step,
                             browser_holds=click.anim if click is not None else None, marks=marks)
        else:
            try:
                static_frame(analysis, step if n else None, options)
            except viz.GraphTooLarge as err:
                st.warning(_("**Too large to draw.** {error}").format(error=text(err)), icon=":material/warning:")
                return
            if analysis.trace is not None:
                _server_explanation(key, analysis, shown)
        if not collapsed:
            st.caption(caption_text(analysis))
    if analysis.trace is None:
        st.info(text(analysis.problem) if analysis.problem else _("There is no backward pass to show."))

    current = None
    if analysis.trace is not None:
        current = analysis.index_of(analysis.trace.steps[step].parent)
    node_inspector(key, analysis, step if n else None, current, expanded)
    # Folded, the Legend and Export draw nothing inside (lucid.ui.runtime.folded): opening one runs the page again.
    with st.expander(_("Legend"), icon=":material/palette:", key=keys(key).legend_open, on_change="rerun") as box:
        if box.open:
            show_legend()
    with st.expander(_("Export"), icon=":material/download:", key=keys(key).export_open, on_change="rerun") as box:
        if not box.open:
            folded.keep(keys(key).export_step, keys(key).gif_slide)
        elif shown < n:  # any step, and the whole pass as a GIF: after the reveal
            st.caption(held_note or _("Exports are back once your teacher reveals the answer."))
        else:
            export_buttons(key, analysis, step, options, expanded if collapsed else None)
            if graph_view.has_dot():
                html_export.html_button(key, analysis, options, expanded, step=step, upto=held_from)


def _collapsed_bar(key: str, anim: Animation, analysis: Analysis, expanded: tuple[str, ...]) -> None:
    """Above a collapsed drawing: how to open and close boxes, and a button that closes them all."""
    info = anim.collapsed or {}
    text, more, fewer = st.columns([3, 1.4, 1.4], vertical_alignment="center")  # buttons never clipped
    text.caption(collapsed_caption(anim, analysis))
    deeper = one_level_deeper(analysis, expanded, list(info.get("box_ids") or []))
    try:
        drawn = viz.large_view(analysis.program.output, analysis.trace, deeper).node_count if deeper != expanded else 0
    except viz.GraphTooLarge:
        drawn = viz.MAX_DRAWN + 1
    too_many = drawn > OPEN_LEVEL_MAX_DRAWN
    more.button(_("Open one level"), key=keys(key).open_level, icon=":material/unfold_more:",
                disabled=deeper == expanded or too_many, on_click=_set_expanded, args=(key, deeper),
                width="stretch",
                help=(_("Opening every box would draw {n} boxes and nodes, too many to animate quickly: click the "
                        "boxes you want to open.").format(n=format_integer(drawn)) if too_many else
                      _("Open every box drawn now; the boxes inside them stay closed.")))
    fewer.button(_("Close all boxes"), key=keys(key).close_all, icon=":material/unfold_less:",
                 disabled=not expanded, on_click=_close_all, args=(key,), width="stretch",
                 help=_("Draw every box closed again, as when the program first ran."))


def _server_explanation(key: str, analysis: Analysis, n: int) -> None:
    """Without ``dot`` (no player): a step slider and the explanation, rendered by the server."""
    if n > 1:
        st.slider(_("Step"), 0, n - 1, key=keys(key).step, format=_("step %d"))
    explanation = viz.explain(analysis.trace, st.session_state[keys(key).step])
    with st.container(border=True, key=keys(key).explanation):
        st.markdown(f"**{explanation.title_markdown}**")
        st.markdown(explanation.markdown)
