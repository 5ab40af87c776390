"""Pitfalls page: three classic autodiff bugs, each live next to the right version.

Thin over ``lucid.lessons.pitfalls`` (where the buggy code lives, as demo code). The sorts are shared by every
session (``lucid.ui.lesson_pages.lesson_cache``); while the server's warm-up still prepares the page's defaults
(``lucid.ui.runtime.warmup``), each section's text and controls are drawn at once and its experiment fills in.
"""
import streamlit as st

from lucid.i18n import _, format_integer
from lucid.lessons.pitfalls import (
    CHAIN_LENGTHS,
    first_failing_chain_length,
    quadratic_descent,
    square_gradients,
)
from lucid.ui.lesson_pages import lesson_cache
from lucid.ui.lesson_pages.large_graph_view import graph_image
from lucid.ui.playground.playground_link import open_in_playground, square_program
from lucid.ui.projector import lesson_pages as page_classroom
from lucid.ui.runtime import warmup
from lucid.ui.runtime.entry import ensure_navigation
from lucid.viz import to_dot

ensure_navigation()
page_classroom.apply_page_style()  # Classroom mode: 20 px type (charts: see page_classroom.chart)
waiting = warmup.pending("pitfalls")  # the server has just started and is preparing this page's defaults


st.title(_("Three classic pitfalls"))
st.write(_("Each experiment runs live: the wrong version on the left, the right one on the right. "
           "The wrong code lives in the lesson's demo code; lucid's engine does it right."))

# ----- (a) ---------------------------------------------------------------------
st.header(_("1 · Assigning a gradient instead of accumulating it"))
st.write(_("In `y = x*x` the node `x` feeds the product **twice**, so two gradients arrive at `x` "
           "and both must be added: dy/dx = x + x = 2x. A backward rule that writes `grad = …` keeps only "
           "the last one."))
x_value = st.columns(4)[0].number_input("x", value=lesson_cache.PITFALL_X, step=0.5, key="pitfall_x")
square = square_gradients(x_value)
left, right = st.columns(2)
with left:
    st.subheader(_("Wrong: `=`"))
    st.code("parent.grad = upstream * local   # " + _("last path wins"), language="python")
    lost = f"{square.assigned - square.accumulated:g}"
    st.metric("dy/dx", f"{square.assigned:g}", delta=_("{difference}: half is lost").format(difference=lost),
              delta_color="normal" if square.assigned < square.accumulated else "inverse")
with right:
    st.subheader(_("Right: `+=`"))
    st.code("parent.grad += upstream * local  # " + _("every path adds"), language="python")
    st.metric("dy/dx", f"{square.accumulated:g}")
st.caption(_("y = {y}; lucid's own backward gives dy/dx = {grad} = 2·x.").format(y=f"{square.y:g}",
                                                                                 grad=f"{square.engine:g}"))
st.write(_("lucid's graph of `y = x*x` after its backward pass: two edges from `x` into `×`, one gradient "
           "of {grad} along each, added up at `x`.").format(grad=f"{square.assigned:g}"))
# laid out by dot on the server: the browser then needs no Graphviz of its own (seconds of a first load)
if waiting and x_value == lesson_cache.PITFALL_X:
    warmup.fill_in_later("pitfalls")
else:
    graph_image(to_dot(square.graph_root, square.trace), _(
        "Graph of y = x*x after its backward pass: two edges from x into ×, a gradient of {grad} along each, "
        "added up at x.").format(grad=f"{square.assigned:g}"))
st.code(square.headline, language=None)  # the last step: the second part added to the first
open_in_playground(square_program(x_value), key="pitfall_open")  # step through it one gradient at a time

# ----- (b) ---------------------------------------------------------------------
st.header(_("2 · Forgetting to zero the gradients between steps"))
st.write(_("Minimise `(w - 1)**2` by gradient descent. Gradients accumulate into leaves (that is what "
           "makes pitfall 1 right), so a training loop must reset them before each `backward`. Without the "
           "reset, every step also re-applies all earlier gradients and `w` overshoots."))
c1, c2, c3 = st.columns(3)
lr = c1.number_input(_("learning rate"), value=0.3, min_value=0.01, max_value=1.0, step=0.05, key="pitfall_lr")
steps = c2.number_input(_("steps"), value=6, min_value=1, max_value=50, step=1, key="pitfall_steps")
w0 = c3.number_input(_("start w₀"), value=0.0, step=0.5, key="pitfall_w0")
with_reset = quadratic_descent(int(steps), lr, w0, reset=True)
without_reset = quadratic_descent(int(steps), lr, w0, reset=False)
STEP, WITH, WITHOUT = _("step"), _("w with zero_grad"), _("w without zero_grad")
st.code("for step in range(steps):\n    loss = (w - 1) ** 2\n    w.zero_grad()      # ← " + _("the line people forget")
        + "\n    loss.backward()    # " + _("adds to w.grad") + "\n    w.data -= lr * w.grad", language="python")
if waiting:  # the table and the chart need pandas and Altair, which the warm-up is still loading
    warmup.fill_in_later("pitfalls")
else:
    import altair as alt
    import pandas as pd

    table = pd.DataFrame({STEP: range(1, int(steps) + 1), WITH: with_reset, WITHOUT: without_reset})
    left, right = st.columns([2, 3])
    with left:
        st.dataframe(table.style.format({WITH: "{:.3f}", WITHOUT: "{:.3f}"}),
                     hide_index=True, key="pitfall_table")
    with right:
        long = table.rename(columns={STEP: "step"}).melt("step", var_name="loop", value_name="w")
        lines = alt.Chart(long).mark_line(point=True).encode(
            x=alt.X("step:Q", title=STEP, axis=alt.Axis(tickMinStep=1)), y=alt.Y("w:Q"),
            color=alt.Color("loop:N", title=_("loop"), scale=alt.Scale(range=["#2b6cb0", "#c53030"]),
                            legend=alt.Legend(orient="bottom")),
            tooltip=[alt.Tooltip("step:Q", title=STEP), alt.Tooltip("loop:N", title=_("loop")),
                     alt.Tooltip("w:Q", format=".3f")])
        target = alt.Chart(pd.DataFrame({"w": [1.0]})).mark_rule(strokeDash=[5, 4], color="gray").encode(y="w:Q")
        st.altair_chart(page_classroom.chart((lines + target).properties(height=300)), width="stretch")
st.markdown(_("**with reset:**") + " `" + " ".join(f"{w:.3f}" for w in with_reset) + "`  \n"
            + _("**without:**") + " `" + " ".join(f"{w:.3f}" for w in without_reset) + "`")

# ----- (c) ---------------------------------------------------------------------
st.header(_("3 · A recursive topological sort on a deep graph"))
st.write(_("Sorting the graph recursively uses one Python frame per level. A chain of N additions "
           "`x + 1 + 1 + …` is N levels deep, so past Python's recursion limit the sort dies. lucid sorts "
           "with an explicit stack."))
n = st.select_slider(_("N additions in the chain"), options=CHAIN_LENGTHS, value=first_failing_chain_length(),
                     key="pitfall_n")
if waiting and n == first_failing_chain_length():
    warmup.fill_in_later("pitfalls")
    st.stop()
recursive = lesson_cache.recursive_sort(n)
iterative = lesson_cache.lucid_backward(n)
left, right = st.columns(2)
with left:
    st.subheader(_("Recursive sort"))
    if recursive.ok:
        st.success(_("N = {n}: {message} (depth {depth})").format(
            n=format_integer(n), message=recursive.message, depth=format_integer(recursive.depth_reached)))
    else:
        st.error(_("N = {n}: {message}").format(n=format_integer(n), message=recursive.message))
        st.write(_("It got {depth} levels deep; Python's recursion limit is {limit} frames, and the frames "
                   "already in use by the caller count too.").format(
            depth=format_integer(recursive.depth_reached), limit=format_integer(recursive.recursion_limit)))
with right:
    st.subheader(_("lucid's iterative backward"))
    if iterative.ok:
        st.success(_("N = {n}: {message}").format(n=format_integer(n), message=iterative.message))
    else:
        st.error(_("N = {n}: {message}").format(n=format_integer(n), message=iterative.message))
    st.write(_("Depth {depth}; no recursion, so no limit but memory. Slide N to {largest} to see it still "
               "finish.").format(depth=format_integer(iterative.depth_reached), largest=format_integer(100_000)))
