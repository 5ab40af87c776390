"""``save_html``: the backward-pass player as ONE self-contained HTML file, for a course site, an LMS or a slide.

The file holds everything the player needs and asks the network for nothing: the player's script and
stylesheet (``lucid.viz.player``, the same files the app and the notebook widget run), the animation and
the node facts, inlined. It steps in any browser with the notebook player's keys (→ ← Home End, Space),
explanations and facts. Offline there is no kernel to ask for a node's facts, so they are computed here,
once per node and per step where they change (a node's gradient changes only on the steps that add to it),
with the very function the widget answers a click with (``lucid.notebook.widget.node_facts_html``).

The data travels as JSON in a ``<script type="application/json">`` element, with ``<``, ``>``, ``&``,
U+2028 and U+2029 written as ``\\uXXXX``: a node named ``</script><b>`` is text in a string, never markup.
The player reads it with ``JSON.parse`` and writes names into the page as text or Graphviz's escaped SVG.

Where no script runs (a frame sandboxed without scripts, JavaScript off), a ``<noscript>`` still picture of the
opening step (its SVG, title and explanation) shows instead. The file's page asks for nothing: a
Content-Security-Policy of ``default-src 'none'`` with inline script and styles only.

A file larger than ``HTML_LIMIT_BYTES`` is refused (``HtmlTooLarge``), counted while the facts are made,
so a huge graph fails early with a message, not after minutes of work.

Class mode: ``upto`` (a student's page while a question about that trace step is open) cuts the animation
(``lucid.viz.player.redact.redacted``) and the facts before it, so nothing of the asked step or later is in
the file.
"""
from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lucid.i18n import LANGUAGES, N_, _, current_language, use_language
from lucid.notebook.widget import StepperError, node_facts_html

if TYPE_CHECKING:
    from lucid.viz.player.animation import Animation

HTML_LIMIT_BYTES = 20_000_000
"""The largest file ``save_html`` writes (20 MB): a size course sites and LMS uploads accept and a phone's
browser opens in a moment. The gallery's programs make 0.1 to 0.6 MB (the 2-layer MLP on a batch), a
550-node scalar MLP drawn collapsed 1.7 MB."""

HOST_FILE = "offline.js"
"""The file's own host of the player (``lucid/viz/player/offline.js``): reads the inlined data, mounts the
player, answers a node click from the precomputed facts."""

TITLE = N_("The backward pass, step by step")
TITLE_NAMED = N_("The backward pass of {name}, step by step")
FACTS_HINT = N_("Click a node of the graph (or press Enter on it) to see its value, gradient, inputs and users "
                "here.")
TOO_LARGE = N_("The HTML file of this graph would be larger than {limit} MB (at least {size} MB): export single "
               "steps as SVG or PNG pictures instead.")
BOX_NOTE = N_("A box of the collapsed drawing: this file cannot open it. Open the boxes you want on the "
              "Playground before you export, and they are saved open.")
STILL_NOTE = N_("This page steps through the backward pass with JavaScript, which is off here: this is a still "
                "picture of step {step}.")
MADE_WITH = N_("Made with Lucid Graph Lab: works offline, nothing is sent anywhere.")

_CLOSERS = re.compile(r"<(?=/(?:script|style)|!--)", re.IGNORECASE)
_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


class HtmlTooLarge(StepperError):
    """The HTML file would be larger than ``HTML_LIMIT_BYTES``."""


def script_json(value: Any) -> str:
    """``value`` as JSON safe inside ``<script type="application/json">``: no ``<``, ``>``, ``&``, U+2028, U+2029.

    Those characters only occur inside JSON strings, where ``\\uXXXX`` means the same character to
    ``JSON.parse``; so no text can close the element or open a comment, whatever the names say.
    """
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return "".join(_JSON_ESCAPES.get(c, c) for c in text) if any(c in text for c in _JSON_ESCAPES) else text


def _inline(text: str) -> str:
    """Script or style text safe inside its element: no ``</script`` or ``</style`` ends it early, no ``<!--``
    starts a comment.

    A backslash goes after the ``<``: ``<\\/`` and ``<\\!`` read the same in a JS or CSS string, a template or a
    regular expression, and inside a comment it does not matter; the player's own files contain neither
    (checked by the tests), so this guards what they may hold one day.
    """
    return _CLOSERS.sub(r"<\\", text)


def facts_timeline(rec: Any, shown: int, *, budget: int = HTML_LIMIT_BYTES) -> tuple[dict, list[str]]:
    """Every node's facts at every trace step below ``shown`` where they change: ``(facts, texts)``.

    ``facts["t3"]`` lists ``[from_step, text_index]`` pairs, first step first: node t3 shows
    ``texts[text_index]`` from that trace step until the next pair's. A node's facts change only on the
    steps that add to its gradient (and step 0, when nothing has reached most nodes yet), so the list
    is as long as the backward pass, not nodes × steps. ``rec`` is anything the node inspector reads
    (``lucid.notebook.widget.Recording``, ``lucid.session.analysis.Analysis``). Raises ``HtmlTooLarge``
    once the texts pass ``budget`` bytes.
    """
    if rec.trace is None or shown <= 0:
        return {}, []
    index = {id(t): k for k, t in enumerate(rec.order)}
    changes: list[list[int]] = [[0] for _ in rec.order]
    for s in rec.trace.steps[:shown]:
        k = index.get(id(s.parent))
        if k is not None and s.index > 0:
            changes[k].append(s.index)
    texts: list[str] = []
    seen: dict[str, int] = {}
    used = 0
    facts: dict[str, list[list[int]]] = {}
    for k, steps in enumerate(changes):
        timeline = facts[f"t{k}"] = []
        for step in steps:
            text = node_facts_html(rec, k, step)
            at = seen.get(text)
            if at is None:
                at = seen[text] = len(texts)
                texts.append(text)
                used += len(text.encode("utf-8"))
                if used > budget:
                    raise HtmlTooLarge(_too_large(used))
            if not timeline or timeline[-1][1] != at:
                timeline.append([step, at])
    return facts, texts


def _too_large(size: int) -> str:
    return _(TOO_LARGE).format(limit=HTML_LIMIT_BYTES // 1_000_000, size=f"{size / 1_000_000:.1f}")


def offline_data(rec: Any, anim: Animation, *, step: int = 0, upto: int | None = None, seconds: float = 1.5,
                 classroom: bool = False, zoom: str | float = "screen", beside: bool = True) -> dict:
    """What the file's player reads: the notebook player's data (``player_data``), the facts, the box note.

    ``upto``: keep only the trace steps before it (class mode, see the module's docstring); ``step``: the trace
    step the file opens at (kept below ``upto``). In the current language.
    """
    from lucid.notebook.widget import player_data
    from lucid.viz.player.redact import kept_steps, redacted

    n = len(rec.trace.steps) if rec.trace is not None else 0
    shown = n
    if upto is not None:
        kept = kept_steps(anim, upto)
        anim = redacted(anim, upto)
        # the last trace step the cut animation shows, and every step before it: the file's steps
        shown = min(n, (anim.trace_step(kept - 1) + 1) if kept > 0 else 0)
    budget = HTML_LIMIT_BYTES - anim.payload_bytes()
    if budget < 0:
        raise HtmlTooLarge(_too_large(anim.payload_bytes()))
    facts, texts = facts_timeline(rec, shown, budget=budget)
    data = player_data(anim, seconds=seconds, classroom=classroom, zoom=zoom, beside=beside)
    data["step"] = max(0, min(int(step), shown - 1))
    box = f'<div class="lucid-facts-head">{html.escape(_(BOX_NOTE))}</div>'
    return {"player": data, "facts": facts, "texts": texts, "box": box,
            "hint": _(FACTS_HINT)}


def still_picture(data: dict) -> str:
    """The step the file opens at, drawn (SVG), with its title and explanation: what shows without JavaScript.

    For a host that runs no script (an LMS frame sandboxed without scripts, a mail preview): the page still shows
    the graph. Made from the file's own (possibly cut) animation; left out past the notebook's picture limit.
    """
    from lucid.notebook.widget import STATIC_SVG_LIMIT
    from lucid.viz.player.animation import Animation

    anim = Animation(**data["player"]["anim"])
    frame = anim.step_for_trace(data["player"]["step"])
    svg = anim.frame_svg(frame)
    explanation = anim.explanations[frame] if frame < len(anim.explanations) else ""
    still = (f'<div class="lucid-still"><p><b>{html.escape(anim.titles[frame])}</b></p>{svg}<div>{explanation}</div>'
             f"<p>{html.escape(_(STILL_NOTE).format(step=data['player']['step']))}</p></div>")
    if len(svg) > STATIC_SVG_LIMIT or "</noscript" in still.lower():
        return f"<p>{html.escape(_(STILL_NOTE).format(step=data['player']['step']))}</p>"
    return still


def html_document(data: dict, *, lang: str, title: str, still: str = "") -> str:
    """The whole file: ``<html lang>``, a title, the player's styles, the data, the player's script and its host;
    ``still``: what shows where scripts do not run (``still_picture``)."""
    from importlib import resources

    from lucid.viz import player

    host = resources.files(player.__name__).joinpath(HOST_FILE).read_text(encoding="utf-8")
    e = html.escape
    page_css = ("body{margin:0;padding:12px 16px;font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;"
                "color:#1a1a1a;background:#fff}"
                "main{max-width:1400px;margin:0 auto}h1{font-size:1.15rem;margin:0 0 .5rem}"
                ".lucid-offline-note{color:#555;font-size:12px;margin-top:.8rem}")
    return ("<!DOCTYPE html>\n"
            f'<html lang="{e(lang)}">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            # nothing from the network, ever: the file's own inline script and styles only
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
            "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:\">\n"
            f"<title>{e(title)} · Lucid Graph Lab</title>\n"
            f"<style>{_inline(page_css + player.stylesheet())}</style>\n</head>\n<body>\n"
            f'<main>\n<h1>{e(title)}</h1>\n<div id="lucid-offline" class="lucid-widget"></div>\n'
            f"<noscript>{still}</noscript>\n"
            f'<p class="lucid-offline-note">{e(_(MADE_WITH))}</p>\n</main>\n'
            f'<script type="application/json" id="lucid-data">{script_json(data)}</script>\n'
            f'<script type="module">\n{_inline(player.script() + chr(10) + host)}\n</script>\n'
            "</body>\n</html>\n")


def html_text(rec: Any, anim: Animation, *, lang: str, step: int = 0, upto: int | None = None,
              title: str | None = None, **view: Any) -> str:
    """The file's text for a recorded pass and its animation, in ``lang``; ``view``: ``offline_data``'s options.

    Raises ``HtmlTooLarge`` past ``HTML_LIMIT_BYTES``.
    """
    with use_language(lang):
        data = offline_data(rec, anim, step=step, upto=upto, **view)
        name = title or _title(rec)
        text = html_document(data, lang=lang, title=name, still=still_picture(data))
    size = len(text.encode("utf-8"))
    if size > HTML_LIMIT_BYTES:
        raise HtmlTooLarge(_too_large(size))
    return text


def _title(rec: Any) -> str:
    root = rec.output
    name = getattr(root, "name", None)
    return _(TITLE_NAMED).format(name=name) if name else _(TITLE)


def _animate(rec: Any, drawing: dict) -> Animation:
    """The animation of ``rec`` drawn with ``to_dot``'s ``drawing`` options (a stepper's), in the current language."""
    from lucid.notebook.widget import animate

    style = "circuit" if drawing.get("preset") == "circuit" else "standard"
    return animate(rec, style=style, direction=drawing.get("direction", "TB"))


def save_html(x: Any, path: str | Path, *, lang: str | None = None, step: int | None = None,
              style: str = "standard", direction: str = "TB", classroom: bool = False,
              zoom: str | float = "screen", beside: bool = True, seconds: float = 1.5, seed: int = 0,
              title: str | None = None) -> Path:
    """Write the backward pass of ``x`` as one self-contained HTML file at ``path``; returns the path.

    ``x``: what ``lucid.viz.stepper`` takes (a ``Tensor`` after ``backward()``, a program source string, a
    ``Program``, a recorded PyTorch pass) or a stepper itself (its step, view and language are kept).
    ``lang``: ``"en"`` or ``"ko"`` (the current language when None). The other options are the stepper's.
    The file needs no network and no server; refuses bad arguments with ``StepperError`` and a graph whose
    file would exceed ``HTML_LIMIT_BYTES`` with ``HtmlTooLarge``.
    """
    from lucid.notebook.widget import _check_options, _check_step, animate, record

    if lang is not None and lang not in LANGUAGES:
        raise StepperError(f"lang must be one of {', '.join(repr(k) for k in LANGUAGES)}, not {lang!r}")
    source = getattr(x, "_html_source", None)
    if callable(source) and type(x).__module__.startswith("lucid."):
        rec, anim, options = source()
        own, drawing = options.pop("lang"), options.pop("drawing")
        if lang is None:
            lang = own
        elif lang != own:  # the titles and explanations are written anew in the file's language
            with use_language(lang):
                anim = _animate(rec, drawing)
        if step is not None:
            options["step"] = _check_step(step, len(rec.trace.steps))
    else:
        _check_options(style, direction, zoom, seconds)
        lang = lang or current_language()
        with use_language(lang):
            rec = record(x, seed=seed)
            anim = animate(rec, style=style, direction=direction)
        start = 0 if step is None else _check_step(step, len(rec.trace.steps))
        options = {"step": start, "seconds": seconds, "classroom": classroom, "zoom": zoom, "beside": beside}
    text = html_text(rec, anim, lang=lang, title=title, **options)
    target = Path(path)
    target.write_text(text, encoding="utf-8")
    return target
