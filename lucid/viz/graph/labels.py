"""HTML-like labels for tensor and op nodes, built so their size never depends on the step.

A tensor label has a name row, a kind/shape row, the value and the gradient.
Tensors up to 8×8 are drawn in full as a small heatmap: one cell per element,
the number in the cell (colour is never the only signal) and a fill whose hue
is the sign and whose strength is the magnitude. Larger tensors show one
summary line (min/mean/max), computed with NumPy reductions: only the numbers
that are shown are ever formatted, so a 1000×1000 tensor costs what a 3×3 does.

The gradient block always reserves the same room: a pending gradient is a grid
of blank cells (or a dash padded to the final width), every cell is padded to
the widest number the node will show, and the status word
(``partial``/``final``/``pending``) is padded too.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

from lucid.autograd import TraceStep
from lucid.i18n import _, pgettext
from lucid.viz import numbers as num
from lucid.viz.graph.style import GRAD_COLOURS, HEAT_TEXT, KIND_WORD, MONO, RED, heat_colour
from lucid.viz.graph.text import NBSP, html_text

#: Points against the data flow, the way gradients travel (arrowheads stay forward: moving
#: them would bend the edge's spline and the frames would no longer match).
BACK_ARROW = {"LR": "◀", "RL": "▶", "TB": "▲", "BT": "▼"}
STATUS_WORDS = {"partial": "partial", "final": "final", "nograd": "pending"}
STATUS_WIDTH = max(len(w) for w in STATUS_WORDS.values())


def columns(text: str) -> int:
    """Monospace columns ``text`` takes: a wide character (a Hangul syllable) two, others one."""
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def status_word(status: str) -> str:
    """The gradient's state word in the reader's language, padded to the widest one so every frame keeps the
    node's size (widths in monospace columns: a Korean word is two columns per syllable)."""
    words = {"partial": _("partial"), "final": _("final"), "nograd": pgettext("node", "pending")}
    width = max(columns(w) for w in words.values())
    word = words[status]
    return word + " " * (width - columns(word))
#: Summary numbers (min/mean/max) are padded to this width so they keep their size.
SUMMARY_WIDTH = 9
_BR = '<BR ALIGN="LEFT"/>'


@dataclass
class LabelOptions:
    show_values: bool = True
    show_grads: bool = True
    show_shapes: bool = True
    grids: bool = True  # False in large-graph mode: non-scalars are summarised on one line


def _is_heatmap(arr: np.ndarray, grids: bool) -> bool:
    a = np.asarray(arr)
    return grids and a.ndim >= 1 and num.is_grid(a.shape)


def _lines(arr: np.ndarray, width: int, grids: bool) -> list[str]:
    """Text lines of a scalar or summary (large-graph mode: just the mean, to keep labels narrow)."""
    a = np.asarray(arr, dtype=np.float64)
    if a.ndim and a.size and not grids:
        summary = num.summary_numbers(a)
        mean = num.format_number(summary[1]) if summary else "nan"
        return [_("mean {value}").format(value=mean.rjust(SUMMARY_WIDTH))
                + ("  has nan/inf" if num.has_nonfinite(a) else "")]
    if a.ndim and a.size and not num.is_grid(a.shape):
        return [num.summary_text(a, SUMMARY_WIDTH)]
    return num.array_lines(a, width)


def number_columns(arrays: list[np.ndarray]) -> int:
    """Common column width for a node's value and every gradient it will show (only shown numbers count)."""
    return max((num.number_width(a) for a in arrays if np.asarray(a).size), default=1)


def _mono(lines: list[str], colour: str | None = None, size: int = 11) -> str:
    body = _BR.join(html_text(line, keep_spaces=True) for line in lines)
    attrs = f' FACE="{MONO}" POINT-SIZE="{size}"' + (f' COLOR="{colour}"' if colour else "")
    return f"<FONT{attrs}>{body}{_BR}</FONT>"


def _block(prefix: str, lines: list[str], suffix: str = "") -> list[str]:
    pad = " " * len(prefix)
    out = [(prefix if i == 0 else pad) + line for i, line in enumerate(lines)]
    if suffix:
        out[0] += " " + suffix
    return out


def heatmap_table(arr: np.ndarray | None, shape: tuple[int, ...], width: int, *, size: int = 11) -> str:
    """A grid of cells, one per element, each number padded to ``width`` on its heat colour.

    ``arr=None`` draws the same grid with blank cells (a dash in the first), so a
    gradient that has not arrived yet takes exactly the room it will need.
    """
    rows, cols = (1, shape[0]) if len(shape) == 1 else shape
    values = None if arr is None else np.asarray(arr, dtype=np.float64).reshape(rows, cols)
    texts = [] if values is None else num.format_grid(values)  # one format for the whole grid
    scale = 0.0
    if values is not None:
        finite = np.abs(values[np.isfinite(values)])
        scale = float(finite.max()) if finite.size else 0.0
    out = []
    for i in range(rows):
        cells = []
        for j in range(cols):
            if values is None:
                text = ("—" if i == j == 0 else "").rjust(width)
                cells.append(f'<TD><FONT FACE="{MONO}" POINT-SIZE="{size}">{html_text(text, keep_spaces=True)}'
                             "</FONT></TD>")
                continue
            v = float(values[i, j])
            colour = HEAT_TEXT if np.isfinite(v) else RED
            text = html_text(texts[i * cols + j].rjust(width), keep_spaces=True)
            cells.append(f'<TD BGCOLOR="{heat_colour(v, scale)}"><FONT FACE="{MONO}" POINT-SIZE="{size}" '
                         f'COLOR="{colour}">{text}</FONT></TD>')
        out.append("<TR>" + "".join(cells) + "</TR>")
    return '<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="1" CELLPADDING="1">' + "".join(out) + "</TABLE>"


def _heat_row(prefix: str, grid: str, colour: str | None, suffix: str = "", background: str = "") -> str:
    font = f'<FONT FACE="{MONO}" POINT-SIZE="11"' + (f' COLOR="{colour}"' if colour else "") + ">"
    # every row ends in a cell as wide as the status word, so value and gradient grids line up
    cells = (f'<TD VALIGN="TOP">{font}{html_text(prefix, keep_spaces=True)}</FONT></TD><TD>{grid}</TD>'
             f'<TD VALIGN="TOP">{font}{html_text(" " + suffix.ljust(STATUS_WIDTH), keep_spaces=True)}</FONT></TD>')
    bg = f' BGCOLOR="{background}"' if background else ""
    return (f'<TR><TD ALIGN="LEFT" BALIGN="LEFT"{bg}><TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" '
            f'CELLPADDING="0"><TR>{cells}</TR></TABLE></TD></TR>')


def tensor_label(name: str, kind: str, data: np.ndarray, *, grad: np.ndarray | None, grad_status: str | None,
                 width: int, grad_history: list[np.ndarray], options: LabelOptions,
                 status_words: bool = True, grad_word: str = "grad ") -> str:
    """The HTML label of a tensor node.

    ``grad_status`` is None when the node never has a gradient (constants) or
    gradients are hidden; ``grad_history`` holds every gradient the node shows
    during the animation, so the block reserves room for the widest of them.
    ``grad_word`` names that row (forward mode shows a tangent there: ``"tang "``).
    """
    rows = [f"<TR><TD><B>{html_text(name)}</B></TD></TR>"]
    kind_word = _(KIND_WORD[kind]) if KIND_WORD[kind] else ""
    meta = [w for w in (kind_word, num.shape_text(data.shape) if options.show_shapes else "") if w]
    if meta:
        rows.append(f'<TR><TD><FONT POINT-SIZE="9" COLOR="#555555">{html_text(" · ".join(meta))}</FONT></TD></TR>')
    heat = _is_heatmap(data, options.grids)
    nonfinite = num.has_nonfinite(data)
    if options.show_values:
        colour = RED if nonfinite else None
        if heat:
            rows.append(_heat_row("val  ", heatmap_table(data, data.shape, width), colour))
        else:
            lines = _block("val  ", _lines(data, width, options.grids))
            rows.append(f'<TR><TD ALIGN="LEFT" BALIGN="LEFT">{_mono(lines, colour)}</TD></TR>')
        if colour:
            warning = html_text(_("⚠ NaN/inf in value"))
            rows.append(f'<TR><TD><FONT COLOR="{RED}" POINT-SIZE="10">{warning}</FONT></TD></TR>')
    if options.show_grads and grad_status is not None:
        word = status_word(grad_status) if status_words and grad_status in STATUS_WORDS else ""
        text_colour, background = GRAD_COLOURS.get(grad_status, (None, ""))
        if grad is not None and num.has_nonfinite(grad):
            text_colour = RED
        if heat:
            rows.append(_heat_row(grad_word, heatmap_table(grad, data.shape, width), text_colour, word, background))
        else:
            rows.append(_grad_text_row(data, grad, word, text_colour, background, width, grad_history, options,
                                       grad_word))
    return '<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">' + "".join(rows) + "</TABLE>>"


def _grad_text_row(data: np.ndarray, grad: np.ndarray | None, word: str, text_colour: str | None, background: str,
                   width: int, grad_history: list[np.ndarray], options: LabelOptions, grad_word: str = "grad ") -> str:
    """The gradient of a scalar or a summarised tensor as fixed-width text, padded to its widest version."""
    history = [_lines(h, width, options.grids) for h in grad_history] or \
        [_lines(np.zeros(np.shape(data)), width, options.grids)]
    reserved = [max(len(h[i]) if i < len(h) else 0 for h in history) for i in range(max(map(len, history)))]
    if grad is None:
        lines = ["—"] + [""] * (len(reserved) - 1)
    else:
        lines = _lines(grad, width, options.grids)
        lines += [""] * (len(reserved) - len(lines))
    lines = [line.ljust(n) for line, n in zip(lines, reserved + [0] * len(lines))]
    bg = f' BGCOLOR="{background}"' if background else ""
    return f'<TR><TD ALIGN="LEFT" BALIGN="LEFT"{bg}>{_mono(_block(grad_word, lines, word), text_colour)}</TD></TR>'


def op_html(text: str) -> str:
    """The HTML label of an op node: its registered symbol with parameters."""
    return f"<{html_text(text)}>"


def edge_text(text: str, visible: bool) -> str:
    """An edge's fixed-width note: the text, or as many blanks when it is not this edge's turn."""
    shown = text if visible else NBSP * len(text)
    return f'<<FONT FACE="{MONO}" POINT-SIZE="10">{html_text(shown, keep_spaces=True)}</FONT>>'


def contribution_note(step: TraceStep, direction: str = "LR") -> str:
    """The short text on an edge once its gradient contribution has flowed: ``◀ grad += 3.000``.

    It names what travels along the edge: a part of the input's total gradient (``grad``, the
    explanations' word), not a local derivative ``∂``; the summed broadcast axes follow, if any.
    """
    c = np.asarray(step.contribution, dtype=np.float64)
    if c.ndim == 0:
        body = num.format_number(c)
    elif c.size <= 3 and c.ndim == 1:
        body = num.array_lines(c)[0]
    else:
        body = _("{shape}, mean {value}").format(shape=num.shape_text(c.shape),
                                                 value=num.format_number(c.mean()) if c.size else "-")
    note = f"{BACK_ARROW.get(direction, '◀')} grad += {body}"
    if step.summed_axes:
        note += "  (" + _("Σ axis {axes}").format(axes=",".join(str(a) for a in step.summed_axes)) + ")"
    return note
