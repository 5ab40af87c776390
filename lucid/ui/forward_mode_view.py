"""The Playground's forward-mode panel: pick an input number, step its tangent forward node by node.

Reverse mode (the player above) sends one output's gradient back to every input; this panel
pushes one input's direction forward to every node, with the same kind of explanation (the
arithmetic line first), and says how many passes each mode needs for the program's whole Jacobian.
The numbers come from ``lucid.autograd.forward_trace``; the words from ``lucid.viz.forward_explain``.
"""
from __future__ import annotations

import re

import numpy as np
import streamlit as st

from lucid.autograd.forward import choose_mode
from lucid.autograd.forward_trace import forward_trace
from lucid.lessons.forward_reverse import MAX_ENTRIES, compare_modes
from lucid.ui.analysis import Analysis
from lucid.viz.errors import GraphTooLarge
from lucid.viz.forward_dot import forward_dot
from lucid.viz.forward_explain import ForwardExplainer, dotted
from lucid.viz.numbers import format_array

_MARKDOWN = re.compile(r"([\\`*_{}\[\]<>()#+!|$~])")
MAX_CHOICES = 200  # input numbers offered one by one (a bigger input is offered by its first numbers)
ALL_INPUTS = "every input number at once (each moves by 1)"


def _plain(text: str) -> str:
    """Text shown through st.markdown without any of it read as markup (names may hold ``_``)."""
    return _MARKDOWN.sub(r"\\\1", text)


def _input_choices(analysis: Analysis) -> list[tuple[str, int, int]]:
    """(label, input index, flat element index) for each input number a direction can move."""
    explainer_names = {}
    for name, tensor in analysis.program.variables.items():
        explainer_names.setdefault(id(tensor), name)
    choices = []
    for i, leaf in enumerate(analysis.program.inputs):
        name = explainer_names.get(id(leaf), leaf.name or f"input {i + 1}")
        for j in range(min(leaf.size, MAX_CHOICES - len(choices))):
            index = np.unravel_index(j, leaf.shape) if leaf.shape else ()
            where = "" if not leaf.shape else "[" + ", ".join(str(int(k)) for k in index) + "]"
            choices.append((f"{name}{where}", i, j))
    return choices


def forward_mode_panel(key: str, analysis: Analysis) -> None:
    """A folded panel under the player: forward mode on this program, one step at a time."""
    program = analysis.program
    if not program.inputs or not program.output.requires_grad:
        return
    with st.expander("Forward mode: push one input's tangent forward", icon=":material/east:"):
        n_in = sum(t.size for t in program.inputs)
        n_out = program.output.size
        st.caption(f"For all its derivatives this program needs {n_in} forward pass{'es' * (n_in != 1)} or "
                   f"{n_out} backward pass{'es' * (n_out != 1)}. " + _plain(choose_mode(n_in, n_out)[1].capitalize())
                   + ".")
        choices = _input_choices(analysis)
        options = [c[0] for c in choices] + ([ALL_INPUTS] if n_in > 1 else [])
        label = st.selectbox("Move this input number by 1 (the others stay put)", options,
                             key=f"{key}_forward_input")
        if label == ALL_INPUTS:  # a direction over several inputs: the sum of all the Jacobian's columns
            seeds = {leaf: np.ones(leaf.shape) for leaf in program.inputs}
        else:
            _, i, j = next(c for c in choices if c[0] == label)
            leaf = program.inputs[i]
            seed = np.zeros(leaf.size)
            seed[j] = 1.0
            seeds = {leaf: seed.reshape(leaf.shape)}
        trace = forward_trace(program.output, seeds)
        explainer = ForwardExplainer(trace)
        steps = len(trace.steps)
        if steps == 0:
            st.info("The output does not depend on this input: its tangent is 0.")
            return
        step = st.slider("Forward step", 0, steps, steps, key=f"{key}_forward_step_{label}")
        try:  # drawn by the browser's Graphviz: no layout work on the server
            st.graphviz_chart(forward_dot(trace, step, direction="TB"), width="content")
        except GraphTooLarge:
            st.caption("The graph is too large to draw here; the steps below still show every tangent.")
        text = explainer.seed_text() if step == 0 else explainer.step_text(step)
        st.markdown(f"**{_plain(text.title)}**")
        st.code(text.arithmetic, language=None, wrap_lines=True)
        for line in text.lines:
            st.markdown(_plain(line))
        rows = [{"node": explainer.name(t), "tangent": dotted(explainer.name(t)),
                 "value": format_array(trace.tangent_of(t, step), shape=False).replace("\n", " ")}
                for t in trace.order if trace.tangent_of(t, step) is not None]
        st.dataframe(rows, hide_index=True, width="stretch")
        if step == steps:
            st.caption(_plain(f"{dotted(explainer.name(trace.root))} is the directional derivative of the output "
                              f"along this direction: one column of the Jacobian from one forward pass."))
        _both_modes(key, analysis, n_in, n_out)


def _both_modes(key: str, analysis: Analysis, n_in: int, n_out: int) -> None:
    """Side by side: the whole Jacobian by n forward passes and by m backward passes (small programs only)."""
    if n_in * n_out > MAX_ENTRIES:
        return
    if not st.toggle("Build the whole Jacobian both ways", key=f"{key}_forward_both"):
        return
    try:
        comparison = compare_modes(analysis.program)
    except ValueError as err:
        st.info(str(err))
        return
    left, right = st.columns(2)
    for column, result, word in ((left, comparison.forward, "forward"), (right, comparison.reverse, "backward")):
        with column:
            st.markdown(f"**{result.mode} mode: {result.passes} {word} pass{'es' * (result.passes != 1)}**")
            st.code(format_array(result.matrix.reshape(n_out, n_in), shape=False), language=None)
    st.caption(("The two Jacobians agree. " if comparison.agree else "The two Jacobians differ! ")
               + f"Rows: the {n_out} output number{'s' * (n_out != 1)}; columns: the {n_in} input "
               f"number{'s' * (n_in != 1)}, in the order the inputs were made.")
