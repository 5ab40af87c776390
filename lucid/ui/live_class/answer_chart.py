"""The class's answers as a histogram a back row can read, and the same counts in words.

``st.bar_chart`` sized its bars to the column (about 8 px each beside the panel's controls) and let Vega pick
the count axis's ticks (0.5 steps, "0" and "1" printed over each other). Here every bar has a fixed width
(``BAR_PX``, in a band of ``STEP_PX``), the count axis has whole-number ticks only, and a right answer is told
apart by a mark and a word under its bar (✓ right), not by colour alone (WCAG 1.4.1): the colours repeat it.
``caption`` is the chart's text alternative (a screen reader, a grey-scale projector), and the chart's Vega-Lite
``description``, which Vega makes the ``aria-label`` of the drawn chart (Streamlit's ``alt`` sets the same).

``rows`` is plain data (no Streamlit, no Altair) so the tests can read what the chart will draw.
"""
from __future__ import annotations

from typing import Any

from lucid.i18n import _
from lucid.live_class.grading import class_result
from lucid.viz.numbers import format_number

RIGHT_COLOUR, WRONG_COLOUR = "#009E73", "#D55E00"
"""Bars of right and wrong answers: the drawing's green and vermillion (told apart by colour-blind eyes too)."""
BAR_PX, STEP_PX = 44, 72
"""A bar's width and the band it sits in (px): wide enough to read from the back of a room."""
HEIGHT_PX = 200
MAX_BARS = 12
"""The most common answers shown (along the number line); the caption says how many others there were."""


def rows(question: dict[str, Any], values: list[float]) -> list[dict[str, Any]]:
    """One row per bar, along the number line: its answer's text, how many gave it, and whether it is right."""
    result = class_result(values, question)
    bars = sorted(result.counts[:MAX_BARS])
    return [{"answer": format_number(v) + (" ✓" if ok else ""), "count": int(c), "right": bool(ok)}
            for v, c, ok in bars]


def caption(question: dict[str, Any], values: list[float]) -> str:
    """The counts in words, e.g. ``Answers: −4.000 ✓ right: 3 · 4.000: 1``."""
    shown = rows(question, values)
    if not shown:
        return _("No answers yet.")
    parts = [(_("{answer} right: {n}") if row["right"] else _("{answer}: {n}")).format(answer=row["answer"],
                                                                                       n=row["count"])
             for row in shown]
    text = _("Answers: {counts}").format(counts=" · ".join(parts))
    others = len(class_result(values, question).counts) - len(shown)
    if others > 0:
        text += " " + _("(and {n} other answers)").format(n=others)
    return text


def _panel(question: dict[str, Any], values: list[float], top: int, title: str | None = None) -> Any | None:
    """One histogram (bars and their counts), not yet configured: ``chart`` draws one, ``rounds_chart`` several
    side by side on one count axis from 0 to ``top``."""
    import altair as alt

    data = rows(question, values)
    if not data:
        return None
    answer, students, right_word, wrong_word = _("answer"), _("students"), _("right"), _("wrong")
    for row in data:
        row["kind"] = right_word if row["right"] else wrong_word
    base = alt.Chart(alt.Data(values=data)).encode(
        x=alt.X("answer:N", sort=None, title=answer, axis=alt.Axis(labelAngle=0, labelFontSize=16, titleFontSize=16)),
        y=alt.Y("count:Q", title=students, scale=alt.Scale(domain=[0, top]),
                axis=alt.Axis(tickMinStep=1, format="d", tickCount=min(top, 10), labelOverlap=False,
                              labelFontSize=16, titleFontSize=16)),
    )
    bars = base.mark_bar(size=BAR_PX).encode(
        color=alt.Color("kind:N", title=None, scale=alt.Scale(domain=[right_word, wrong_word],
                                                              range=[RIGHT_COLOUR, WRONG_COLOUR]),
                        legend=alt.Legend(orient="top", labelFontSize=16)),
        tooltip=[alt.Tooltip("answer:N", title=answer), alt.Tooltip("count:Q", title=students),
                 alt.Tooltip("kind:N", title=" ")])
    labels = base.mark_text(dy=-10, fontSize=18, fontWeight="bold").encode(text="count:Q")
    layered = (bars + labels).properties(width=alt.Step(STEP_PX), height=HEIGHT_PX)
    return layered.properties(title=alt.Title(title, fontSize=18)) if title else layered


def _configured(drawn: Any) -> Any:
    return (drawn.configure_axis(labelColor="#31333F", titleColor="#31333F", grid=True)
            .configure_view(strokeWidth=0))


def _top(*value_lists: list[float], question: dict[str, Any]) -> int:
    """The count axis's top: room above the tallest bar of any of the histograms for its count."""
    return max((row["count"] for values in value_lists for row in rows(question, values)), default=0) + 1


def chart(question: dict[str, Any], values: list[float]) -> Any | None:
    """The Altair chart of ``rows`` (None when nobody answered): fixed bar widths, whole-number count ticks."""
    drawn = _panel(question, values, _top(values, question=question))
    return None if drawn is None else _configured(drawn).properties(description=caption(question, values))


def rounds_chart(question: dict[str, Any], rounds: list[tuple[str, list[float]]]) -> Any | None:
    """Each round's histogram side by side (peer instruction: the vote, then the vote after discussion), titled
    (``Round 1``…), on one count axis so the bars compare; a round nobody answered is left out."""
    import altair as alt

    top = _top(*(values for _title, values in rounds), question=question)
    panels = [p for title, values in rounds if (p := _panel(question, values, top, title)) is not None]
    if not panels:
        return None
    words = " · ".join(f"{title}: {caption(question, values)}" for title, values in rounds if values)
    return _configured(alt.hconcat(*panels, spacing=48).resolve_scale(y="shared")).properties(description=words)
