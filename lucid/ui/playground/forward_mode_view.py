"""The Playground's forward-mode panel: pick an input number, step its tangent forward node by node.

Reverse mode (the player above) sends one output's gradient back to every input; this panel
pushes one input's direction forward to every node, with the same kind of explanation (the
arithmetic line first), and says how many passes each mode needs for the program's whole Jacobian.
A presenter's clicker steps it too while it is open and was the last thing used (``lucid.ui.playground.forward_keys``).
The numbers come from ``lucid.autograd.forward_trace``; the words from ``lucid.viz.explanation.forward_explain``.
"""
from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass

import numpy as np
import streamlit as st

from lucid.autograd.forward_trace import forward_trace
from lucid.i18n import N_, _, current_language, ngettext
from lucid.lessons.forward_reverse import MAX_ENTRIES, passes_sentence
from lucid.session.analysis import Analysis
from lucid.session.jacobian_build import JACOBIANS, jacobian_key, shared_comparison
from lucid.session.memo import SharedCache, WaitCancelled
from lucid.ui.playground.forward_keys import forward_keys
from lucid.ui.playground.keys import keys
from lucid.ui.runtime import folded
from lucid.ui.runtime.cancel import session_should_stop
from lucid.viz.errors import GraphTooLarge
from lucid.viz.explanation.forward_explain import ForwardExplainer, dotted
from lucid.viz.graph.forward_dot import forward_dot
from lucid.viz.numbers import format_array

_MARKDOWN = re.compile(r"([\\`*_{}\[\]<>()#+!|$~])")
MAX_CHOICES = 200  # input numbers offered one by one (a bigger input is offered by its first numbers)
ALL_INPUTS = N_("every input number at once (each moves by 1)")  # the picker's value; shown through ``_``


def _plain(text: str) -> str:
    """Text shown through st.markdown without any of it read as markup (names may hold ``_``)."""
    return _MARKDOWN.sub(r"\\\1", text)


_CHOICES: SharedCache = SharedCache(max_entries=128)
_FRAMES: SharedCache = SharedCache(max_entries=512)
"""What the panel draws, made once per program, input, step and language for every session of the server: a
rerun (a node click above, a classmate on the same link) draws the panel, folded or open, from these."""


def _program(analysis: Analysis) -> tuple:
    return analysis.source, analysis.seed, current_language()


def _input_choices(analysis: Analysis) -> list[tuple[str, int, int]]:
    """(label, input index, flat element index) for each input number a direction can move."""
    return _CHOICES.get(_program(analysis), lambda: _make_input_choices(analysis))


def _make_input_choices(analysis: Analysis) -> list[tuple[str, int, int]]:
    explainer_names = {}
    for name, tensor in analysis.program.variables.items():
        explainer_names.setdefault(id(tensor), name)
    choices = []
    for i, leaf in enumerate(analysis.program.inputs):
        name = explainer_names.get(id(leaf), leaf.name or _("input {n}").format(n=i + 1))
        for j in range(min(leaf.size, MAX_CHOICES - len(choices))):
            index = np.unravel_index(j, leaf.shape) if leaf.shape else ()
            where = "" if not leaf.shape else "[" + ", ".join(str(int(k)) for k in index) + "]"
            choices.append((f"{name}{where}", i, j))
    return choices


def _keep_choices(key: str) -> None:
    """Keep the folded panel's input, steps and Jacobian toggle for when it opens again."""
    named = keys(key)
    folded.keep(named.forward_input, named.forward_both, prefixes=(named.forward_step(""),))


def forward_mode_panel(key: str, analysis: Analysis) -> None:
    """A folded panel under the player: forward mode on this program, one step at a time.

    While folded it costs a rerun nothing but its header: its content is made only when it is open.
    """
    program = analysis.program
    if not program.inputs or not program.output.requires_grad:
        return
    with st.expander(_("Forward mode: push one input's tangent forward"), icon=":material/east:",
                     key=keys(key).forward_open, on_change="rerun") as panel:
        if not panel.open:  # folded: nothing in it is made or sent; opening it runs the page again to draw it
            _keep_choices(key)
            return
        n_in = sum(t.size for t in program.inputs)
        n_out = program.output.size
        st.caption(_plain(passes_sentence(n_in, n_out)))
        choices = _input_choices(analysis)
        options = [c[0] for c in choices] + ([ALL_INPUTS] if n_in > 1 else [])
        label = st.selectbox(_("Move this input number by 1 (the others stay put)"), options,
                             key=keys(key).forward_input,
                             format_func=lambda option: _(ALL_INPUTS) if option == ALL_INPUTS else option)
        steps = _frame(analysis, choices, label, None).steps
        if steps == 0:
            st.info(_("The output does not depend on this input: its tangent is 0."))
            return
        slider_key = keys(key).forward_step(label)
        shown = st.session_state.get(slider_key, steps)
        if not isinstance(shown, int) or not 0 <= shown <= steps:  # kept from another program of the same input
            st.session_state.pop(slider_key, None)
            shown = steps
        forward_keys(key, slider_key=slider_key, step=shown, steps=steps)
        # the default only for a new slider: a step the keys set (in their callback) is the slider's value
        default = {} if slider_key in st.session_state else {"value": steps}
        step = st.slider(_("Forward step"), 0, steps, key=slider_key, **default)
        frame = _frame(analysis, choices, label, step)
        if frame.dot is not None:  # drawn by the browser's Graphviz: no layout work on the server
            st.graphviz_chart(frame.dot, width="content")
        else:
            st.caption(_("The graph is too large to draw here; the steps below still show every tangent."))
        st.markdown(f"**{_plain(frame.title)}**")
        st.code(frame.arithmetic, language=None, wrap_lines=True)
        for line in frame.lines:
            st.markdown(_plain(line))
        st.dataframe(list(frame.rows), hide_index=True, width="stretch")
        if step == steps:
            st.caption(_plain(_("{tangent} is the directional derivative of the output along this direction: one "
                                "column of the Jacobian from one forward pass.").format(tangent=frame.root)))
        _both_modes(key, analysis, n_in, n_out)


@dataclass(frozen=True)
class _Frame:
    """The panel at one step, as text: the DOT (None: too large to draw), the explanation and the table."""

    steps: int
    dot: str | None = None
    title: str = ""
    arithmetic: str = ""
    lines: tuple[str, ...] = ()
    rows: tuple[dict[str, str], ...] = ()
    root: str = ""


def _frame(analysis: Analysis, choices: list[tuple[str, int, int]], label: str, step: int | None) -> _Frame:
    """The panel for the direction ``label`` at ``step`` (None: only the step count), shared by every session."""
    return _FRAMES.get((*_program(analysis), label, step), lambda: _make_frame(analysis, choices, label, step))


def _make_frame(analysis: Analysis, choices: list[tuple[str, int, int]], label: str, step: int | None) -> _Frame:
    program = analysis.program
    if label == ALL_INPUTS:  # a direction over several inputs: the sum of all the Jacobian's columns
        seeds = {leaf: np.ones(leaf.shape) for leaf in program.inputs}
    else:
        _label, i, j = next(c for c in choices if c[0] == label)
        leaf = program.inputs[i]
        seed = np.zeros(leaf.size)
        seed[j] = 1.0
        seeds = {leaf: seed.reshape(leaf.shape)}
    trace = forward_trace(program.output, seeds)
    steps = len(trace.steps)
    if step is None:
        return _Frame(steps)
    explainer = ForwardExplainer(trace)
    try:
        dot: str | None = forward_dot(trace, step, direction="TB").source
    except GraphTooLarge:
        dot = None
    text = explainer.seed_text() if step == 0 else explainer.step_text(step)
    rows = tuple({_("node"): explainer.name(t), _("tangent"): dotted(explainer.name(t)),
                  _("value"): format_array(trace.tangent_of(t, step), shape=False).replace("\n", " ")}
                 for t in trace.order if trace.tangent_of(t, step) is not None)
    return _Frame(steps, dot, text.title, text.arithmetic, tuple(text.lines), rows, dotted(explainer.name(trace.root)))


def _both_modes(key: str, analysis: Analysis, n_in: int, n_out: int) -> None:
    """Side by side: the whole Jacobian by n forward passes and by m backward passes (small programs only).

    Built through ``shared_comparison``: refused before it runs when too costly, in a build slot, once per
    program for the whole server (a rerun of this tab, or the class on the same link, reads it back).
    """
    if n_in * n_out > MAX_ENTRIES:
        return
    if not st.toggle(_("Build the whole Jacobian both ways"), key=keys(key).forward_both):
        return
    built = jacobian_key(analysis) in JACOBIANS
    try:
        with contextlib.nullcontext() if built else st.spinner(_("Building the Jacobian both ways…")):
            comparison = shared_comparison(analysis, should_stop=session_should_stop())
    except WaitCancelled:
        st.stop()  # this tab is rerunning or gone: its next run asks again
        return
    except ValueError as err:  # JacobianTooCostly among them: the reason, in the reader's language
        st.info(str(err))
        return
    left, right = st.columns(2)
    headings = (ngettext("forward mode: {n} forward pass", "forward mode: {n} forward passes",
                         comparison.forward.passes),
                ngettext("reverse mode: {n} backward pass", "reverse mode: {n} backward passes",
                         comparison.reverse.passes))
    for column, result, heading in zip((left, right), (comparison.forward, comparison.reverse), headings):
        with column:
            st.markdown(f"**{heading.format(n=result.passes)}**")
            st.code(format_array(result.matrix.reshape(n_out, n_in), shape=False), language=None)
    agreement = _("The two Jacobians agree.") if comparison.agree else _("The two Jacobians differ!")
    st.caption(agreement + " " + _("Rows: the output numbers ({rows}); columns: the input numbers ({columns}), in "
                                   "the order the inputs were made.").format(rows=n_out, columns=n_in))
