"""One explanation written once, rendered three ways: Markdown (the app), plain text, safe HTML.

Parts are plain ``str`` (our own words) or wrapped user text: ``U`` (a name),
``N`` (a name in bold), ``C`` (a formula in a code span), ``B`` (our words in
bold). Every renderer escapes user text: Markdown with backslashes (so a name
cannot inject markup or Streamlit's ``$…$`` LaTeX), HTML with ``html.escape``
(the HTML has no scripts, no event handlers and no user-controlled attributes;
its only ``style`` is a heatmap cell's background, a colour we computed).
"""
from __future__ import annotations

import html
import re
from importlib import resources

import numpy as np

from lucid.viz.graph.style import HEAT_TEXT, heat_colour
from lucid.viz.graph.text import visible
from lucid.viz.numbers import format_array, format_grid, is_grid, shape_text

_MD_SPECIAL = set("\\`*_{}[]()#+-.!|<>~$&")


def md_escape(text: str) -> str:
    """User text made literal in Markdown (and in Streamlit's ``$…$`` LaTeX)."""
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in visible(text))


def html_escape(text: str) -> str:
    """Any text made literal in HTML (quotes too)."""
    return html.escape(visible(text), quote=True)


class U(str):
    """User text (a name): escaped in Markdown and HTML, as is in plain text."""


class N(str):
    """A user name shown in bold."""


class B(str):
    """Our own text in bold."""


class C(str):
    """A formula or symbol in a code span (literal in Markdown, no LaTeX)."""


def heatmap_html(arr: np.ndarray) -> str:
    """A small tensor as an HTML table: each number on a fill whose hue is its sign and strength its size."""
    a = np.asarray(arr, dtype=np.float64)
    rows = a.reshape(1, -1) if a.ndim == 1 else a
    finite = np.abs(rows[np.isfinite(rows)])
    scale = float(finite.max()) if finite.size else 0.0
    texts = iter(format_grid(rows))  # one format for the whole grid
    out = []
    for row in rows:
        cells = []
        for v in row:
            v = float(v)
            text = next(texts)
            kind = "nan" if not np.isfinite(v) else ("zero" if v == 0 else ("pos" if v > 0 else "neg"))
            cells.append(f'<td class="lgl-{kind}" style="background:{heat_colour(v, scale)};color:{HEAT_TEXT}">'
                         f"{html_escape(text)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    return f'<table class="lgl-heat">{"".join(out)}</table>'


def array_html(arr: np.ndarray) -> str:
    """A value or gradient for the HTML: a heatmap up to 8×8, a scalar or summary as text."""
    a = np.asarray(arr)
    if a.ndim and is_grid(a.shape) and a.dtype.kind in "fiub":
        return heatmap_html(a)
    return f'<pre class="lgl-values">{html_escape(format_array(a))}</pre>'


#: A default look for the HTML fragment (the page that shows it may use its own): the arithmetic line
#: large, names bold-ish, heatmap cells in a monospace grid.
EXPLANATION_CSS = resources.files(__package__).joinpath("explanation.css").read_text(encoding="utf-8")
"""The explanation fragment's own look (``explanation.css``), put before the player's stylesheet."""


_TAG = re.compile(r"<[^>]*>")
#: Terms longer than this (visible characters) may wrap at their spaces; shorter ones never break.
_WHOLE_TERM = 24


def _term_class(term_html: str) -> str:
    return "lgl-term" if len(html.unescape(_TAG.sub("", term_html))) <= _WHOLE_TERM else "lgl-term lgl-long"


def _arith_html(htm: str) -> str:
    """The arithmetic line broken only between its terms, never inside one, and the accumulation on its own line.

    ``upstream · local = numbers = contribution ⇒ grad p = total`` in a narrow column or at projector size
    would otherwise wrap in the middle of ``∂t12/∂t11``. Each ``= …`` term is kept whole; ``⇒ …`` starts a line.
    """
    lines = [part.strip() for part in htm.split("⇒")]

    def terms(line: str) -> str:
        pieces = line.split(" = ")
        spans = [pieces[0], *(f"= {p}" for p in pieces[1:])]
        return "".join(f'<span class="{_term_class(p)}">{p}</span>' for p in spans if p)

    head, *rest = lines
    return terms(head) + "".join(f'<span class="lgl-then">⇒ {terms(r)}</span>' for r in rest)


class Doc:
    """Paragraphs, one arithmetic line and arrays, rendered as Markdown, plain text and HTML."""

    def __init__(self) -> None:
        self.md: list[str] = []
        self.txt: list[str] = []
        self.html: list[str] = []

    @staticmethod
    def _render(parts: tuple[str, ...]) -> tuple[str, str, str]:
        md, txt, htm = [], [], []
        for part in parts:
            txt.append(visible(part))
            if isinstance(part, N):
                md.append(f"**{md_escape(part)}**")
                htm.append(f'<strong class="lgl-name">{html_escape(part)}</strong>')
            elif isinstance(part, U):
                md.append(md_escape(part))
                htm.append(f'<span class="lgl-name">{html_escape(part)}</span>')
            elif isinstance(part, B):
                md.append(f"**{part}**")
                htm.append(f"<strong>{html_escape(part)}</strong>")
            elif isinstance(part, C):
                md.append(f"`{visible(part).replace('`', 'ˋ')}`")
                htm.append(f'<code class="lgl-formula">{html_escape(part)}</code>')
            else:
                md.append(part)
                htm.append(html_escape(part))
        return "".join(md), "".join(txt), "".join(htm)

    def arith(self, *parts: str) -> None:
        """The step's one large arithmetic line (user names must come as ``U``)."""
        md, txt, htm = self._render(tuple(U(p) if isinstance(p, U) else p for p in parts))
        # In Markdown a heading makes it large; our own text there holds no Markdown syntax but * and _,
        # which never occur in it, and user names are escaped.
        self.md.append("#### " + md)
        self.txt.append(txt)
        self.html.append(f'<div class="lgl-arith">{_arith_html(htm)}</div>')

    def para(self, *parts: str) -> None:
        md, txt, htm = self._render(parts)
        self.md.append(md)
        self.txt.append(txt)
        self.html.append(f'<p class="lgl-p">{htm}</p>')

    def array(self, arr: np.ndarray) -> None:
        body = format_array(arr)
        self.md.append("```\n" + body + "\n```")
        self.txt.append("\n".join("    " + line for line in body.split("\n")))
        a = np.asarray(arr)
        self.html.append(f'<figure class="lgl-array" data-shape="{html_escape(shape_text(a.shape))}">'
                         f"{array_html(a)}</figure>")

    def render(self) -> tuple[str, str, str]:
        body = "".join(self.html)
        return "\n\n".join(self.md), "\n\n".join(self.txt), f'<div class="lgl-explain">{body}</div>'
