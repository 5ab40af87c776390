"""The inputs table (Streamlit side): autodiff next to finite differences, so the class sees it is right."""
from __future__ import annotations

import array

import pyarrow as pa
import streamlit as st

from lucid import viz
from lucid.autograd.gradcheck import GradcheckCancelled
from lucid.i18n import _, current_language, text
from lucid.session.analysis import Analysis
from lucid.session.inputs_table import input_rows
from lucid.session.memo import SharedCache, WaitCancelled
from lucid.ui.runtime.cancel import session_should_stop
from lucid.viz.numbers import shape_text


def _cell(arr) -> str:
    """One line of the graph's number format; the shape has its own column, so summaries drop it."""
    return viz.format_array(arr, shape=False).replace("\n", " ")


_TABLES: SharedCache = SharedCache(max_entries=128)
"""The table, per program and language, for every session: its numbers are formatted once, and it is kept as the
Arrow table Streamlit sends (a list of rows went through pandas and then Arrow again on every run of every
session)."""


def _table(rows) -> pa.Table:
    columns = {
        _("input"): [r.name for r in rows],
        _("shape"): [shape_text(r.shape) for r in rows],
        _("value"): [_cell(r.value) for r in rows],
        _("gradient (autodiff)"): [_cell(r.gradient) for r in rows],
        _("gradient (finite diff.)"): [_("skipped") if r.numerical is None else _cell(r.numerical) for r in rows],
        _("max rel. error"): ["—" if r.max_rel_error is None else f"{r.max_rel_error:.1e}" for r in rows],
    }
    return pa.Table.from_arrays([_strings(values) for values in columns.values()], names=list(columns))


def _strings(values: list[str]) -> pa.StringArray:
    """A column of text, made from its bytes: the table ``pa.Table.from_pylist`` makes of the same rows (the same
    schema and the same bytes sent), without pandas. ``pa.array`` and ``from_pylist`` import pandas on first use,
    and the Playground shows nothing else that needs it: 0.3 s of CPU on the first visit of a fresh server, while
    a class opening the link waited (the lesson pages' warm-up imports it later, in the background)."""
    data = [v.encode("utf-8") for v in values]
    offsets = array.array("i", [0])
    for chunk in data:
        offsets.append(offsets[-1] + len(chunk))
    return pa.StringArray.from_buffers(len(data), pa.py_buffer(offsets.tobytes()), pa.py_buffer(b"".join(data)))


def inputs_table(analysis: Analysis, memo: SharedCache) -> None:
    """One row per input: name, shape, value, gradient, finite-difference gradient, max relative error.

    ``memo`` is shared by every session: the finite differences stop early only when every session
    waiting for this table wants to stop (a click here while classmates wait does not cancel theirs).
    """
    st.subheader(_("Inputs: autodiff vs finite differences"))
    should_stop = session_should_stop()  # a click or a closed tab ends this session's wait at once
    try:
        rows = memo.get_cancellable(("inputs", analysis.source, analysis.seed),
                                    lambda everyone_left: input_rows(analysis.source, analysis.seed,
                                                                     should_stop=everyone_left),
                                    should_stop=should_stop)
    except (GradcheckCancelled, WaitCancelled):
        st.stop()  # the session is rerunning or gone: the next run draws the table
    if not rows:
        st.caption(_("No input of this program requires a gradient."))
        return
    table = _TABLES.get((analysis.source, analysis.seed, current_language()), lambda: _table(rows))
    st.dataframe(table, hide_index=True, width="stretch")
    skipped = next((r.skipped for r in rows if r.numerical is None), None)
    if skipped:
        st.caption(text(skipped))
    else:
        st.caption(_("Finite differences: central, ε = 1e-6, float64. Errors around 1e-8 or smaller mean "
                     "the backward pass agrees with the numerical slope."))
