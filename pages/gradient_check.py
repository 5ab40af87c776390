"""Gradient check page: autodiff against central finite differences for any program.

Thin over ``lucid.lessons.gradient_check``; the editor and gallery are the
Playground's (``lucid.ui.playground.editor.program_editor``). Altair and pandas are imported where the results are
drawn: while the server's warm-up is still importing them (``lucid.ui.runtime.warmup``), the page is drawn without
waiting and the results fill in.
"""
from __future__ import annotations

import numpy as np
import streamlit as st

from lucid.autograd.gradcheck import GradcheckCancelled
from lucid.i18n import _, ngettext
from lucid.lessons.gradient_check import as_grid, check_program, eps_sweep, sweep_affordable
from lucid.ui.playground.editor import program_editor, session_memo
from lucid.ui.playground.playground_link import use_playground_program
from lucid.ui.projector import lesson_pages as page_classroom
from lucid.ui.runtime import warmup
from lucid.ui.runtime.cancel import session_should_stop
from lucid.ui.runtime.entry import ensure_navigation

ensure_navigation()
page_classroom.apply_page_style()  # Classroom mode: 20 px type (charts: see page_classroom.chart)

EPS_CHOICES = [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10]


def error_heatmap(values: np.ndarray, title: str):
    """Per-element relative error as coloured cells (log scale); the value is printed when cells are big enough."""
    import altair as alt
    import pandas as pd

    grid = as_grid(values)
    n_rows, n_cols = grid.shape
    rows, cols = np.indices(grid.shape)
    frame = pd.DataFrame({"row": rows.ravel(), "col": cols.ravel(), "error": grid.ravel(),
                          "log10": np.log10(np.maximum(grid.ravel(), 1e-16)),
                          "text": [f"{v:.1e}" for v in grid.ravel()]})
    step_x = max(12, min(70, 700 // n_cols))
    step_y = max(10, min(32, 480 // n_rows))
    base = alt.Chart(frame).encode(x=alt.X("col:O", title=_("column")), y=alt.Y("row:O", title=_("row")))
    cells = base.mark_rect().encode(
        color=alt.Color("log10:Q", title=_("log₁₀ rel. error"),
                        scale=alt.Scale(domain=[-16, 0], scheme="yelloworangered")),
        tooltip=[alt.Tooltip("row:O", title=_("row")), alt.Tooltip("col:O", title=_("column")),
                 alt.Tooltip("error:Q", title=_("relative error"), format=".2e")])
    chart = cells + base.mark_text(fontSize=11).encode(text="text:N") if step_x >= 56 and step_y >= 20 else cells
    return chart.properties(title=title, width=alt.Step(step_x), height=alt.Step(step_y))


AUTODIFF, NUMERICAL, RELATIVE = _("autodiff"), _("numerical"), _("relative error")


def tensor_table(check):
    import pandas as pd

    flat = [check.analytic.reshape(-1), check.numerical.reshape(-1), check.rel_error.reshape(-1)]
    index = [str(ix) for ix in np.ndindex(check.analytic.shape)]
    return pd.DataFrame({_("element"): index, AUTODIFF: flat[0], NUMERICAL: flat[1], RELATIVE: flat[2]})


st.title(_("Gradient check"))
st.write(_("Does backward compute the right thing? Nudge each input number by ±eps, re-run the program, and "
           "compare the slope (central differences) with the gradient autodiff produced. Relative error is "
           "|autodiff − numerical| / max(|autodiff|, |numerical|, 0.001) (absolute for tiny "
           "gradients, so a true zero is not reported as 100% off): around 1e-10 means they agree to about ten "
           "digits."))

use_playground_program("gc")
program = program_editor("gc")
if program is None:
    st.info(_("Run a program to check its gradients."))
    st.stop()

eps = st.select_slider(_("eps (finite-difference step)"), options=EPS_CHOICES, value=1e-6,
                       format_func=lambda v: f"{v:.0e}", key="gc_eps")
checks = session_memo("gc", "checks", capacity=8)  # reruns (widgets, eps back and forth) reuse a check
should_stop = session_should_stop()  # a click or a closed tab ends a long check at once


def show_check() -> None:
    """The check at this eps: the verdict, then a table (scalars) or an error map (tensors) per input."""
    import pandas as pd

    try:
        with st.spinner(_("Re-running the program twice for every input number…")):
            result = checks.get(("check", program.source, eps),
                                lambda: check_program(program, eps, should_stop=should_stop))
    except GradcheckCancelled:
        st.stop()  # the session is rerunning or gone: nothing to show
    except ValueError as err:
        st.warning(str(err))
        st.stop()

    out = program.output
    if out.ndim == 0:
        st.write(_("Output = `{value}`. It is a scalar, so each gradient is the plain derivative "
                   "d(out)/d(input).").format(value=f"{out.item():.9f}"))
    else:
        st.write(_("The output has shape `{shape}`, so it is reduced to L = Σ out · w with a random upstream "
                   "gradient w (never all ones, which would hide shape mistakes), and both sides differentiate "
                   "L.").format(shape=out.shape))

    count = len(result.variables)
    verdict = (ngettext("The input agrees: worst relative error {error}.",
                        "All {n} inputs agree: worst relative error {error}.", count).format(
                   n=count, error=f"{result.max_rel_error:.2e}")
               if result.ok else _("Some inputs disagree with central differences; see below."))
    if result.ok:
        st.success(verdict, icon=":material/check_circle:")
    else:
        st.error(verdict, icon=":material/error:")

    scalars = [v for v in result.variables if v.is_scalar]
    tensors = [v for v in result.variables if not v.is_scalar]
    if scalars:
        st.subheader(_("Scalar inputs"))
        table = pd.DataFrame({_("variable"): [v.name for v in scalars],
                              AUTODIFF: [f"{float(v.analytic):.9f}" for v in scalars],
                              NUMERICAL: [f"{float(v.numerical):.9f}" for v in scalars],
                              RELATIVE: [f"{v.max_rel_error:.2e}" for v in scalars],
                              _("agrees"): ["✓" if v.ok else "✗" for v in scalars]})
        st.dataframe(table, hide_index=True, key="gc_scalars")
    if tensors:
        st.subheader(_("Tensor inputs"))
        st.write(_("One map per input: each cell is one element's relative error (darker is worse)."))
        for v in tensors:
            st.markdown(_("**{name}** · shape `{shape}` · worst relative error `{error}` · {verdict}").format(
                name=v.name, shape=v.analytic.shape, error=f"{v.max_rel_error:.2e}",
                verdict=_("agrees ✓") if v.ok else _("disagrees ✗")))
            title = _("relative error of ∂L/∂{name}").format(name=v.name)
            st.altair_chart(page_classroom.chart(error_heatmap(v.rel_error, title)), width="content")
            with st.expander(_("numbers for {name}").format(name=v.name)):
                st.dataframe(tensor_table(v), hide_index=True,
                             column_config={AUTODIFF: st.column_config.NumberColumn(format="%.9f"),
                                            NUMERICAL: st.column_config.NumberColumn(format="%.9f"),
                                            RELATIVE: st.column_config.NumberColumn(format="%.2e")})


def show_sweep() -> None:
    """The worst relative error of this program for each eps (skipped when the sweep would cost too much)."""
    import altair as alt
    import pandas as pd

    try:
        points = (checks.get(("sweep", program.source), lambda: eps_sweep(program, should_stop=should_stop))
                  if sweep_affordable(program) else None)
    except GradcheckCancelled:
        st.stop()
    except ValueError as err:
        st.warning(str(err))
        points = []
    if points:
        sweep = pd.DataFrame(points, columns=["eps", "worst"])
        worst = _("worst relative error")
        chart = alt.Chart(sweep).mark_line(point=True).encode(
            x=alt.X("eps:Q", scale=alt.Scale(type="log", reverse=True), axis=alt.Axis(format=".0e")),
            y=alt.Y("worst:Q", title=worst, scale=alt.Scale(type="log"), axis=alt.Axis(format=".0e")),
            tooltip=[alt.Tooltip("eps:Q", format=".0e"), alt.Tooltip("worst:Q", title=worst, format=".2e")])
        rule = alt.Chart(pd.DataFrame({"eps": [eps]})).mark_rule(color="#c53030", strokeDash=[4, 4]).encode(x="eps:Q")
        st.altair_chart(page_classroom.chart((chart + rule).properties(height=280)), width="stretch")
    elif points is None:
        st.caption(_("(The sweep repeats the whole check for {steps} step sizes, so it is skipped for programs with "
                     "more than {most} input numbers or much arithmetic.)").format(steps=12, most=300))


waiting = warmup.pending("gradient_check")  # the server has just started: draw the page, fill in the results
if waiting:
    warmup.fill_in_later("gradient_check")
else:
    show_check()
st.subheader(_("Choosing eps"))
st.write(_("Too large a step measures the slope of a chord, not the tangent (error ∝ eps²); too small a step "
           "drowns in floating-point rounding (error ∝ 1/eps). The worst relative error of this program for each "
           "eps:"))
if waiting:
    warmup.fill_in_later("gradient_check")
else:
    show_sweep()
