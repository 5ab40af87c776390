"""Broadcasting page: forward copies an input along axes, backward sums over exactly those axes.

Thin over ``lucid.lessons.broadcasting``; every number is computed live. While the server's warm-up still loads
pandas (``lucid.ui.runtime.warmup``), the page's text and controls are drawn at once and the arrays fill in.
"""
import numpy as np
import streamlit as st

from lucid.i18n import N_, _
from lucid.lessons.broadcasting import (
    OPS,
    alignment,
    broadcast_demo,
    format_shape,
    parse_shape,
    shape_cases,
    summed_axes_text,
)
from lucid.ui.playground.playground_link import broadcast_program, open_in_playground
from lucid.ui.projector import lesson_pages as page_classroom
from lucid.ui.runtime import warmup
from lucid.ui.runtime.entry import ensure_navigation
from lucid.viz import format_array

ensure_navigation()
page_classroom.apply_page_style()  # Classroom mode: 20 px type (charts: see page_classroom.chart)

PRESETS = {  # the picker's values are these English names (stable in the session); it shows them translated
    N_("column and row: (3, 1) with (4,)"): ("3, 1", "4"),
    N_("bias row: (3, 4) with (1, 4)"): ("3, 4", "1, 4"),
    N_("scalar: (2, 3) with ()"): ("2, 3", ""),
    N_("new and stretched axes: (2, 4, 3) with (4, 1)"): ("2, 4, 3", "4, 1"),
    N_("same shape: (2, 3) with (2, 3)"): ("2, 3", "2, 3"),
}


def apply_preset() -> None:
    preset = PRESETS.get(st.session_state.get("bc_preset"))
    if preset is None:  # a value the picker never offers (only a crafted message sends one): keep the shapes
        return
    shape_a, shape_b = preset
    st.session_state["bc_shape_a"] = shape_a
    st.session_state["bc_shape_b"] = shape_b


def show_array(label: str, values: np.ndarray) -> None:
    """An array in the Playground's number format (4 significant digits, one format per grid)."""
    st.markdown(_("**{label}** · shape `{shape}`").format(label=label, shape=format_shape(values.shape)))
    st.code(format_array(np.asarray(values), shape=False), language=None)


def array_text(values: np.ndarray) -> str:
    return format_array(np.asarray(values), shape=False).replace("\n", "")


st.title(_("Broadcasting, forward and backward"))
st.write(_("Forward, NumPy copies an input along **new leading axes** and along its **size-1 axes**. "
           "Backward, each copy received its own share of the upstream gradient, so the input's gradient is the "
           "**sum** over exactly those axes (a reshape would only look right when the upstream gradient is all "
           "ones)."))

st.session_state.setdefault("bc_shape_a", "3, 1")
st.session_state.setdefault("bc_shape_b", "4")
st.selectbox(_("Start from an example"), list(PRESETS), key="bc_preset", on_change=apply_preset, format_func=_)
c1, c2, c3 = st.columns([2, 2, 1])
text_a = c1.text_input(_("shape of a"), key="bc_shape_a", help=_("sizes separated by commas; empty for a scalar"))
text_b = c2.text_input(_("shape of b"), key="bc_shape_b", help=_("sizes separated by commas; empty for a scalar"))
op = c3.radio(_("op"), OPS, horizontal=True, key="bc_op")

try:
    shape_a, shape_b = parse_shape(text_a), parse_shape(text_b)
    rows = alignment(shape_a, shape_b)
    demo = broadcast_demo(shape_a, shape_b, op)
except ValueError as err:
    st.error(str(err))
    st.stop()
if warmup.pending("broadcasting"):  # the server has just started
    warmup.fill_in_later("broadcasting")
    st.stop()
import pandas as pd  # noqa: E402 - loaded by the warm-up meanwhile (the page's text needs none of it)

st.header(_("Forward"))
st.write(_("`a` {a} {op} `b` {b} → result {out}. Shapes are lined up from the right:").format(
    a=format_shape(shape_a), op=op, b=format_shape(shape_b), out=format_shape(demo.out.shape)))
HEADINGS = {"axis": _("axis"), "result": _("result"), "what happens": _("what happens")}
st.dataframe(pd.DataFrame(rows).rename(columns=HEADINGS), hide_index=True, key="bc_alignment")
cols = st.columns(3)
with cols[0]:
    show_array("a", demo.a)
with cols[1]:
    show_array("b", demo.b)
with cols[2]:
    show_array(f"a {op} b", demo.out)

st.header(_("Backward"))
st.write(_("The upstream gradient `grad out` (the gradient of the loss with respect to `out`, as the Playground "
           "writes it) has the result's shape (not all ones, so mistakes would show):"))
show_array("grad out", demo.upstream)
local = "∂out/∂a = 1, ∂out/∂b = 1" if op == "+" else _("∂out/∂a = b, ∂out/∂b = a (both broadcast)")
st.caption(_("Local derivatives: {local} (∂ is the local derivative of this one op). The raw gradient of each "
             "input is grad out · local, in the result's shape.").format(local=local))
for item in demo.inputs:
    st.subheader(_("gradient of {label} {shape}").format(label=item.label, shape=format_shape(item.shape)))
    st.write(summed_axes_text(item, demo.out.shape))
    left, right = st.columns(2)
    with left:
        show_array(_("raw: grad out · ∂out/∂{label}").format(label=item.label), item.raw)
    with right:
        axes = list(item.summed_axes) if item.summed_axes else _("none")
        show_array(_("grad {label}: summed over axes {axes}").format(label=item.label, axes=axes), item.grad)
    if item.agrees_with_engine:
        st.success(_("lucid's backward gives the same grad {label}.").format(label=item.label),
                   icon=":material/check_circle:")
    else:
        st.error(_("lucid's backward disagrees: {values}").format(values=array_text(item.engine_grad)))
open_in_playground(broadcast_program(demo.a, demo.b, op, demo.upstream), key="bc_open")

st.header(_("The cases of gradient-shape matching"))
st.write(_("Every gradient an op hands back is brought to its input's shape by one rule, `match_shape`. "
           "Its branches, each with a concrete gradient pushed through it right now:"))
cases = shape_cases()
for start in range(0, len(cases), 3):
    for column, case in zip(st.columns(3), cases[start:start + 3]):
        with column.container(border=True):
            st.markdown(f"**{case.case}**  \n{case.shown}")
            show_array(_("gradient in"), case.grad_in)
            axes = (_("sum over axes {axes}").format(axes=list(case.summed_axes)) if case.summed_axes
                    else _("no sum"))
            st.markdown(_("↓ {what}, to the input's shape `{shape}`").format(
                what=axes, shape=format_shape(case.input_shape)))
            show_array(_("gradient out"), case.grad_out)
            st.caption(case.rule)
