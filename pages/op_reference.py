"""Op reference page: generated from ``lucid.REGISTRY``, with a live gradcheck of every op.

Thin over ``lucid.lessons.op_reference`` (shared with its test). The gradcheck table is shared by every
session (``lucid.ui.lesson_pages.lesson_cache``); while the server's warm-up still prepares it
(``lucid.ui.runtime.warmup``), the page's text and controls are drawn at once and the table fills in.
"""
import streamlit as st

from lucid.i18n import _
from lucid.lessons.op_reference import translated_rows
from lucid.ui.lesson_pages import lesson_cache
from lucid.ui.projector import lesson_pages as page_classroom
from lucid.ui.runtime import warmup
from lucid.ui.runtime.entry import ensure_navigation

ensure_navigation()
page_classroom.apply_page_style()  # Classroom mode: 20 px type (charts: see page_classroom.chart)


st.title(_("Op reference"))
st.write(_("Every op of lucid, generated from the op registry: the symbol it is drawn with, its forward formula, "
           "its local derivatives, and a **live gradient check**: each op's sample inputs (broadcasting pairs, "
           "axis reductions, repeated indices) are run through `gradcheck`, which compares backward with float64 "
           "central differences under a random, non-ones upstream gradient."))

seed = int(st.columns(3)[0].number_input(
    _("random seed for the sample inputs"), min_value=0, max_value=10_000, value=lesson_cache.OPS_SEED, step=1,
    key="ops_seed", help=_("a new seed draws new random inputs and upstream gradients")))
rows = translated_rows()
groups = sorted({r["group"] for r in rows})  # English keys, kept in the session; shown translated
if seed == lesson_cache.OPS_SEED and warmup.pending("op_reference"):  # the server has just started
    warmup.fill_in_later("op_reference")
    st.multiselect(_("groups"), groups, default=groups, key="ops_groups", format_func=_)
    st.text_input(_("filter by name or symbol"), key="ops_filter")
    st.stop()
import pandas as pd  # noqa: E402 - loaded by the warm-up meanwhile (the page's text needs none of it)

checks = lesson_cache.gradcheck_table(seed)
for row in rows:
    status, samples, inputs, abs_err, rel_err, error = checks[row["op"]]
    row.update({"gradcheck": _(status), "samples": samples, "inputs checked": inputs,
                "max abs error": abs_err if samples else None, "max rel error": rel_err if samples else None,
                "error": error})

passing = sum(1 for r in rows if r["gradcheck"].startswith("✓"))
failing = sum(1 for r in rows if r["gradcheck"].startswith("✗"))
no_grad = sum(1 for r in rows if r["samples"] == 0)
m1, m2, m3, m4 = st.columns(4)
m1.metric(_("ops"), len(rows))
m2.metric(_("gradcheck passes"), passing)
m3.metric(_("gradcheck fails"), failing)
m4.metric(_("no gradient"), no_grad)
if failing:
    st.error(_("Some ops fail their gradient check: {ops}").format(
        ops=", ".join(r["op"] for r in rows if r["gradcheck"][0] == "✗")))
else:
    st.success(_("All {n} differentiable ops agree with central differences (seed {seed}).").format(
        n=passing, seed=seed), icon=":material/check_circle:")

chosen = st.multiselect(_("groups"), groups, default=groups, key="ops_groups", format_func=_)
needle = st.text_input(_("filter by name or symbol"), key="ops_filter").strip().lower()

columns = {  # the table's keys stay English (tests and code read them); the headings are translated
    "op": st.column_config.TextColumn(_("op"), width=110),
    "symbol": st.column_config.TextColumn(_("symbol"), width=70),
    "forward": st.column_config.TextColumn(_("forward"), width=260),
    "derivatives": st.column_config.TextColumn(_("derivatives"), width=380),
    "gradcheck": st.column_config.TextColumn(_("gradcheck"), width=110),
    "samples": st.column_config.NumberColumn(_("samples"), width=70, help=_("sample calls checked")),
    "max rel error": st.column_config.NumberColumn(_("max rel error"), format="%.1e", width=110,
                                                   help=_("worst element over all samples and inputs")),
    "error": st.column_config.TextColumn(_("error"), width=200),
}
shown = 0
for group in chosen:
    members = [r for r in rows if r["group"] == group
               and (not needle or needle in r["op"].lower() or needle in r["symbol"].lower())]
    if not members:
        continue
    shown += len(members)
    st.subheader(_(group))
    table = pd.DataFrame(members).drop(columns=["group", "inputs checked", "max abs error"])
    table["derivatives"] = table["derivatives"].str.replace("\n", "   ·   ")
    if not table["error"].any():
        table = table.drop(columns=["error"])
    st.dataframe(table, hide_index=True, column_config=columns, key=f"ops_table_{group}")
if not shown:
    st.info(_("No op matches that filter."))
