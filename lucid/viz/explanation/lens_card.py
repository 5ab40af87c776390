"""The lens's card: the node receiving gradient, redrawn as HTML at projector size, whole.

The lens magnifies the graph itself (an SVG ``<use>``) when the node fits in it with text at least 18 px
high. A tensor node drawn as a grid does not: a 6×4 gradient at 18 px is wider than the explanation's
column, and a magnified copy could only cut it (its ``final`` tag went first). So each step also carries
this card, which the player shows instead (``lucid.viz.player``): the node's name, kind and shape, its
gradient after the step as a grid whose numbers are set in the page's own font size (never scaled down),
the entry the step's headline works out highlighted (``lucid.viz.explanation.entry``), the final/partial tag, and the
value summarised on one line. A grid wider than ``MAX_COLUMNS`` or taller than ``MAX_ROWS`` shows the
window around that entry and says which rows and columns it shows ("rows 2–7 of 8"), so nothing is cut
without saying so.

Safe HTML: every name is escaped; no scripts, no attributes from user text.
"""
from __future__ import annotations

import html

import numpy as np

from lucid.autograd import Trace
from lucid.i18n import _
from lucid.viz.explanation.explain import StepExplanation
from lucid.viz.explanation.opinfo import op_label
from lucid.viz.graph.naming import display_names
from lucid.viz.graph.structure import kind_of
from lucid.viz.graph.style import KIND_WORD
from lucid.viz.numbers import format_grid, is_grid, shape_text, summary_text

MAX_ROWS = 6
MAX_COLUMNS = 5


def _window(size: int, at: int, most: int) -> range:
    """``most`` consecutive indices out of ``size`` that hold ``at`` (as centred as the ends allow)."""
    if size <= most:
        return range(size)
    start = min(max(0, at - most // 2), size - most)
    return range(start, start + most)


def _grid(grad: np.ndarray, entry: tuple[int, ...] | None) -> tuple[str, str]:
    """The gradient's table (highlighted entry) and, when windowed, the sentence saying what it shows."""
    g = np.atleast_2d(np.asarray(grad, dtype=np.float64)) if grad.ndim < 2 else np.asarray(grad, dtype=np.float64)
    at = entry if entry is not None and len(entry) == grad.ndim else (0,) * grad.ndim
    r_at, c_at = ((0, at[0]) if grad.ndim == 1 else (at[0], at[1])) if grad.ndim else (0, 0)
    rows, cols = _window(g.shape[0], r_at, MAX_ROWS), _window(g.shape[1], c_at, MAX_COLUMNS)
    texts = format_grid(g)
    body = []
    for i in rows:
        cells = []
        for j in cols:
            cls = ' class="lucid-hl"' if grad.ndim and (i, j) == (r_at, c_at) and entry is not None else ""
            cells.append(f"<td{cls}>{html.escape(texts[i * g.shape[1] + j])}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    more = []
    if len(rows) < g.shape[0]:
        more.append(_("rows {first}–{last} of {n}").format(first=rows[0], last=rows[-1], n=g.shape[0]))
    if len(cols) < g.shape[1]:
        more.append(_("columns {first}–{last} of {n}").format(first=cols[0], last=cols[-1], n=g.shape[1]))
    return f'<table class="lucid-card-grid">{"".join(body)}</table>', " · ".join(more)


def node_card(trace: Trace, expl: StepExplanation) -> str:
    """The card of the node whose gradient step ``expl.step`` changes ('' for the seed of a scalar output)."""
    s = trace.steps[expl.step]
    t = s.parent
    grad = np.asarray(s.accumulated)
    if grad.ndim == 0 or grad.dtype.kind not in "fiub":
        return ""
    names = display_names(trace.order, trace.root)
    index = {id(x): k for k, x in enumerate(trace.order)}
    k = index.get(id(t))
    name = names[k] if k is not None else (t.name or "")
    kind = kind_of(t, trace.root)
    meta = " · ".join(w for w in (_(KIND_WORD[kind]) if KIND_WORD.get(kind) else "",
                                  op_label(t) if t._op is not None else "", shape_text(t.shape)) if w)
    tag_word, tag_class = (_("final"), "lucid-final") if s.is_final else (_("partial"), "lucid-partial")
    head = (f'<div class="lucid-card-head"><span class="lucid-card-name">{html.escape(name)}</span>'
            f'<span class="lucid-card-kind">{html.escape(meta)}</span>'
            f'<span class="lucid-card-tag {tag_class}">{html.escape(tag_word)}</span></div>')
    if is_grid(grad.shape):
        table, more = _grid(grad, expl.entry)
        grad_html = f'<div class="lucid-card-row"><span class="lucid-card-word">grad</span>{table}</div>'
        if more:
            grad_html += f'<div class="lucid-card-more">{html.escape(more)}</div>'
    else:
        grad_html = (f'<div class="lucid-card-row"><span class="lucid-card-word">grad</span>'
                     f'<span class="lucid-card-summary">{html.escape(summary_text(grad))}</span></div>')
    value = (f'<div class="lucid-card-val"><span class="lucid-card-word">val</span>'
             f'{html.escape(summary_text(np.asarray(t.data)))}</div>') if np.asarray(t.data).dtype.kind in "fiub" \
        else ""
    return f'<div class="lucid-card">{head}{grad_html}{value}</div>'
