"""HTML-like labels for tensor and op nodes, built so their size never depends on the step.

A tensor label has a name row, a kind/shape row, the value and the gradient in
fixed-width text. The gradient block always reserves the same lines and
characters: a pending gradient is a dash padded to the width the final one will
need, and the status word (``partial``/``final``/``pending``) is padded too.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lucid.viz.numbers import array_lines, format_number, has_nonfinite, is_grid, number_width, shape_text, summary_text
from lucid.viz.style import GRAD_COLOURS, KIND_WORD, MONO, RED
from lucid.viz.text import NBSP, html_text

STATUS_WORDS = {"partial": "partial", "final": "final", "nograd": "pending"}
STATUS_WIDTH = max(len(w) for w in STATUS_WORDS.values())
#: Summary numbers (min/mean/max) are padded to this width so they keep their size.
SUMMARY_WIDTH = 9


@dataclass
class LabelOptions:
    show_values: bool = True
    show_grads: bool = True
    show_shapes: bool = True
    grids: bool = True  # False in large-graph mode: non-scalars are summarised on one line


def _lines(arr: np.ndarray, width: int, grids: bool) -> list[str]:
    """Grid lines, or one summary line (large-graph mode: just the mean, to keep labels narrow)."""
    a = np.asarray(arr, dtype=np.float64)
    if a.ndim and a.size and not grids:
        finite = a[np.isfinite(a)]
        mean = format_number(finite.mean()) if finite.size else "nan"
        return [f"mean {mean.rjust(SUMMARY_WIDTH)}" + ("  has nan/inf" if finite.size < a.size else "")]
    if a.ndim and a.size and not is_grid(a.shape):
        return [summary_text(a, SUMMARY_WIDTH)]
    return array_lines(a, width)


def number_columns(arrays: list[np.ndarray]) -> int:
    """Common column width for a node's value and every gradient it will show."""
    return max((number_width(a) for a in arrays if np.asarray(a).size), default=1)


def _mono(lines: list[str], colour: str | None = None, size: int = 11) -> str:
    body = "<BR ALIGN=\"LEFT\"/>".join(html_text(line, keep_spaces=True) for line in lines)
    attrs = f' FACE="{MONO}" POINT-SIZE="{size}"' + (f' COLOR="{colour}"' if colour else "")
    return f"<FONT{attrs}>{body}<BR ALIGN=\"LEFT\"/></FONT>"


def _block(prefix: str, lines: list[str], suffix: str = "") -> list[str]:
    pad = " " * len(prefix)
    out = [(prefix if i == 0 else pad) + line for i, line in enumerate(lines)]
    if suffix:
        out[0] += " " + suffix
    return out


def tensor_label(name: str, kind: str, data: np.ndarray, *, grad: np.ndarray | None, grad_status: str | None,
                 width: int, grad_history: list[np.ndarray], options: LabelOptions,
                 status_words: bool = True) -> str:
    """The HTML label of a tensor node.

    ``grad_status`` is None when the node never has a gradient (constants) or
    gradients are hidden; ``grad_history`` holds every gradient the node shows
    during the animation, so the block reserves room for the widest of them.
    """
    rows = [f"<TR><TD><B>{html_text(name)}</B></TD></TR>"]
    meta = [w for w in (KIND_WORD[kind], shape_text(data.shape) if options.show_shapes else "") if w]
    if meta:
        rows.append(f'<TR><TD><FONT POINT-SIZE="9" COLOR="#555555">{html_text(" · ".join(meta))}</FONT></TD></TR>')
    if options.show_values:
        lines = _block("val  ", _lines(data, width, options.grids))
        colour = RED if has_nonfinite(data) else None
        rows.append(f'<TR><TD ALIGN="LEFT" BALIGN="LEFT">{_mono(lines, colour)}</TD></TR>')
        if colour:
            rows.append(f'<TR><TD><FONT COLOR="{RED}" POINT-SIZE="10">⚠ NaN/inf in value</FONT></TD></TR>')
    if options.show_grads and grad_status is not None:
        history = [_lines(h, width, options.grids) for h in grad_history] or \
            [_lines(np.zeros(np.shape(data)), width, options.grids)]
        reserved = [max(len(h[i]) if i < len(h) else 0 for h in history) for i in range(max(map(len, history)))]
        if grad is None:
            lines = ["—"] + [""] * (len(reserved) - 1)
        else:
            lines = _lines(grad, width, options.grids)
            lines += [""] * (len(reserved) - len(lines))
        lines = [line.ljust(n) for line, n in zip(lines, reserved + [0] * len(lines))]
        word = STATUS_WORDS[grad_status].ljust(STATUS_WIDTH) if status_words and grad_status in STATUS_WORDS else ""
        text_colour, background = GRAD_COLOURS.get(grad_status, (None, ""))
        if grad is not None and has_nonfinite(grad):
            text_colour = RED
        bg = f' BGCOLOR="{background}"' if background else ""
        rows.append(f'<TR><TD ALIGN="LEFT" BALIGN="LEFT"{bg}>{_mono(_block("grad ", lines, word), text_colour)}'
                    "</TD></TR>")
    return '<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">' + "".join(rows) + "</TABLE>>"


def op_html(text: str) -> str:
    """The HTML label of an op node: its registered symbol with parameters."""
    return f"<{html_text(text)}>"


def edge_text(text: str, visible: bool) -> str:
    """An edge's fixed-width note: the text, or as many blanks when it is not this edge's turn."""
    shown = text if visible else NBSP * len(text)
    return f'<<FONT FACE="{MONO}" POINT-SIZE="10">{html_text(shown, keep_spaces=True)}</FONT>>'
