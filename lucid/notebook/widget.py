"""``lucid.viz.stepper``: the backward-pass player as a notebook widget (Jupyter, VS Code, Colab, marimo).

The widget is an anywidget whose script and stylesheet are the player's own package files
(``lucid.viz.player``), the same ones the Streamlit app hosts: the whole ``Animation`` travels to
the browser once, and stepping, the slider, Play and the keys (while the player has the focus)
change the picture there, with no kernel round trip. ``widget.step`` is synced both ways: set it
in Python and the picture moves; step in the browser and it is written back once the person stops
on a step. A click on a node asks the kernel for that node's facts (its value, gradient, op and
local derivatives), the one thing that needs Python.

anywidget is imported only when a widget is made, so ``import lucid`` works without it.
"""
from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from lucid._tensor.tensor import Tensor
from lucid.i18n import LANGUAGES, N_, _, current_language, use_language

if TYPE_CHECKING:
    from lucid.autograd import Trace
    from lucid.expr import Program
    from lucid.viz.player.animation import Animation

STYLES = {"standard": "default", "default": "default", "circuit": "circuit"}
"""Drawing styles: labelled boxes, or CS231n-style wires with the value above and the gradient below."""
DIRECTIONS = ("TB", "LR")
ZOOMS = ("screen", "width")
KEYS_HELP = N_("Keys, once the player has the focus (click it): → or Page Down: next step · ← or Page Up: "
              "previous · Home / End: first / last · Space: play / pause")
#: What the widget says when anywidget is missing: commands that install as written (the project is on no
#: package index, so never ``pip install "lucid-graph-lab[notebook]"``).
INSTALL_HINT = N_('the notebook player needs anywidget: `pip install anywidget` (or, in the folder of a clone of '
                  'the Lucid Graph Lab repository, `pip install -e ".[notebook]"`), then restart the kernel')
#: Node ids the player reports for a click: a tensor (t<k>), the op that made it (op<k>) or a box (g<k>).
_NODE_ID = re.compile(r"(t|op|g)[0-9]{1,7}")


class StepperError(ValueError):
    """What ``stepper`` refuses, with a message that says what to pass instead."""


@dataclass
class Recording:
    """A backward pass recorded step by step: its root, trace, nodes in topological order and program (if any)."""

    root: Tensor
    trace: Trace
    order: list[Tensor]
    program: Program | None  # None for a bare Tensor

    @property
    def output(self) -> Tensor:
        return self.root

    @property
    def n_steps(self) -> int:
        return len(self.trace.steps)


def record(x: Tensor | str | Program, *, seed: int = 0) -> Recording:
    """The step-by-step backward pass that produces ``x``'s gradients; refuses anything else with a message.

    A ``Tensor`` is replayed from its own graph: the gradients its tensors hold (after ``x.backward()``) are
    put back afterwards, so showing a pass never changes the numbers a notebook already printed. A
    ``lucid.expr`` program source string is run (with ``seed`` for its random leaves), and so is nothing
    else: no ``eval``.
    """
    from lucid.autograd import backward_trace
    from lucid.autograd.trace import TraceTooLarge
    from lucid.expr import ExprError, Limits, Program, run

    if isinstance(x, str):
        try:
            program = run(x, seed=seed)
        except ExprError as err:
            raise StepperError(f"the program does not run:\n{err}") from None
        return _record_program(program)
    if isinstance(x, Program):
        return _record_program(x)
    recorded = _torch_recording(x)
    if recorded is not None:
        return recorded
    if not isinstance(x, Tensor):
        raise StepperError(f"stepper() takes a Tensor (after backward()), a lucid.expr program source string, a "
                           f"Program or a recorded PyTorch pass (lucid.torch.record), not {type(x).__name__}")
    if not x.requires_grad:
        raise StepperError("this tensor does not require a gradient, so no gradient flows back through it: make "
                           "its inputs with requires_grad=True")
    from lucid.autograd import topological_order

    order = topological_order(x)
    kept = [(t, t.grad) for t in order]
    for t in order:
        t.grad = None  # replay the pass from zero: gradients already there would be counted twice
    try:
        with np.errstate(all="ignore"):
            trace = backward_trace(x, max_elements=Limits().max_trace_elements)
    except TraceTooLarge as err:
        raise StepperError(f"this backward pass is too large to show step by step: {err}") from None
    finally:
        for t, grad in kept:
            t.grad = grad
    return Recording(x, trace, list(trace.order), None)


def _torch_recording(x: Any) -> Recording | None:
    """A recorded PyTorch pass (``lucid.torch.record``'s handle, or its plain data read from a ``.lucid`` file)
    played with torch's own numbers; None for anything else. Recognised by its package, so this layer never
    imports ``lucid.torch`` (which sits above it)."""
    if not type(x).__module__.startswith("lucid.torch.") or not callable(getattr(x, "replay", None)):
        return None
    root, trace = x.replay()
    return Recording(root, trace, list(trace.order), None)


def _record_program(program: Program) -> Recording:
    from lucid.autograd import backward_trace
    from lucid.autograd.trace import TraceTooLarge

    root = program.output
    if not root.requires_grad:
        raise StepperError("nothing in this program requires a gradient (every value is a constant), so there is "
                           "no backward pass to show")
    try:
        with np.errstate(all="ignore"):
            trace = backward_trace(root, max_elements=program.limits.max_trace_elements)
    except TraceTooLarge as err:
        raise StepperError(f"this backward pass is too large to show step by step: {err}") from None
    return Recording(root, trace, list(trace.order), program)


def animate(rec: Recording, *, style: str = "standard", direction: str = "TB") -> Animation:
    """The animation of ``rec``, drawn collapsed when the full drawing would cost more than the app allows."""
    from lucid.viz.graph.collapse import CollapsedView
    from lucid.viz.player.animation import build_animation, build_collapsed_animation
    from lucid.viz.player.animation_cost import MAX_ANIMATION_WORK, AnimationTooCostly, collapsed_work, full_work

    options = drawing_options(style, direction)
    with np.errstate(all="ignore"):
        if full_work(rec.root, rec.trace).fits:
            return build_animation(rec.root, rec.trace, **options)
        view = CollapsedView(rec.root, rec.trace, ())
        work = collapsed_work(view)
        if not work.fits:  # the app's budget: past it, building would keep the kernel busy for minutes
            raise StepperError(str(AnimationTooCostly(work.work, MAX_ANIMATION_WORK, work.steps)))
        return build_collapsed_animation(view, direction=options["direction"])


def drawing_options(style: str, direction: str) -> dict[str, str]:
    """``to_dot``'s options for a style and direction (circuits always run left to right)."""
    preset = STYLES[style]
    return {"direction": "LR" if preset == "circuit" else direction, "preset": preset}


def _check_options(style: str, direction: str, zoom: str | float, seconds: float) -> None:
    if style not in STYLES:
        raise StepperError(f"style must be one of {', '.join(sorted(set(STYLES) - {'default'}))}, not {style!r}")
    if direction not in DIRECTIONS:
        raise StepperError(f"direction must be 'TB' (top to bottom) or 'LR' (left to right), not {direction!r}")
    if isinstance(zoom, bool) or not (zoom in ZOOMS or (isinstance(zoom, int | float) and 0.1 <= zoom <= 4)):
        raise StepperError(f"zoom must be 'screen', 'width' or a scale from 0.1 to 4, not {zoom!r}")
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0.2 <= seconds <= 10:
        raise StepperError(f"seconds (per step of Play) must be a number from 0.2 to 10, not {seconds!r}")


def _check_step(step: object, n_steps: int) -> int:
    if isinstance(step, bool) or not isinstance(step, int | np.integer):
        raise StepperError(f"step must be a whole number from 0 to {n_steps - 1}, not {step!r}")
    if not 0 <= int(step) < n_steps:
        raise StepperError(f"step {step} is outside this backward pass: its steps go from 0 to {n_steps - 1}")
    return int(step)


def player_data(anim: Animation, *, seconds: float, classroom: bool, zoom: str | float, beside: bool) -> dict:
    """What the player module is given in a notebook: the animation and the view, as in the app."""
    from lucid.viz.player import animation_id, player_words, sizing

    anim_id = animation_id(anim)
    return {"anim": anim.to_json(), "anim_id": anim_id, "step": 0, "program_id": anim_id,
            "seconds": float(seconds), "classroom": bool(classroom), "zoom": zoom, "beside": bool(beside),
            "follow_first": False, "share_url": False, "top": 0, "resume": False, "keys_help": _(KEYS_HELP),
            "words": player_words(),
            **sizing(classroom), "speeds": [], "speed": None, "lesson": None, "inspector_key": None,
            "embedded": True}


def facts_html(details: Any) -> str:
    """The node inspector's facts (``lucid.session.inspector.NodeDetails``) as HTML, every value escaped.

    Every word comes from the catalog in the current language: the same messages as the app's node
    inspector (``lucid/ui/playground/inspector_view.py``), so a Korean player shows Korean facts.
    """
    e = html.escape

    def words(template: str, **values: str) -> str:
        """A translated template, escaped, with escaped values; ``**x**`` (the app's Markdown) becomes bold."""
        text = e(template)
        text = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)
        return text.format(**{k: e(v) for k, v in values.items()})

    shape = _("scalar") if not details.shape else _("shape {shape}").format(
        shape="×".join(str(n) for n in details.shape))
    parts = [f'<div class="lucid-facts-head"><b>{e(details.node_id)} · {e(details.title)}</b> — '
             f"{e(_(details.kind))}, {e(shape)}, float64</div>",  # every value and gradient is float64
             f'<div class="lucid-facts-row"><div><div>{e(_("Value"))}</div><pre>{e(details.value)}</pre></div>']
    if details.gradient is None:
        parts.append(f"<div><div>{e(_('Gradient'))}</div><pre>{e(_('not reached yet at this step'))}</pre>"
                     "</div></div>")
    else:
        state = _("final") if details.gradient_is_final else _("partial: more contributions still to come")
        parts.append(f"<div><div>{words(_('Gradient ({state})'), state=state)}</div>"
                     f"<pre>{e(details.gradient)}</pre></div></div>")
    if details.op:
        formula = f": <code>{e(details.formula)}</code>" if details.formula else ""
        parts.append(f"<div>{words(_('Made by **{op}**'), op=details.op)}{formula}</div>")
        if details.derivatives:
            listed = ", ".join(f"<code>{e(d)}</code>" for d in details.derivatives)
            parts.append("<div>" + e(_("Local derivatives: {list}")).format(list=listed) + "</div>")
    if details.parents:
        parts.append("<div>" + words(_("Inputs (parents): {list}"), list=", ".join(details.parents)) + "</div>")
    if details.children:
        parts.append("<div>" + words(_("Used by: {list}"), list=", ".join(details.children)) + "</div>")
    return "".join(parts)


def node_facts_html(rec: Any, k: int, step: int) -> str:
    """Node ``k``'s facts at trace ``step`` as HTML, in the current language: what a click on the node shows.

    The widget's ``inspect`` shows exactly this (a click's answer), and ``save_html`` (``lucid.notebook.html_file``)
    writes it into the file ahead of time, since offline no kernel answers.
    ``rec``: anything ``lucid.session.inspector.node_details`` reads (a ``Recording``, an ``Analysis``).
    """
    from lucid.session.inspector import node_details

    return facts_html(node_details(rec, k, step))


#: Largest SVG a saved output carries (a huge graph's picture would bloat the notebook file).
STATIC_SVG_LIMIT = 3_000_000


def static_html(anim: Animation, trace_step: int, n_steps: int) -> str:
    """The picture a notebook keeps when no widget can run: the step's SVG, its title and its explanation.

    A saved notebook reopened without a kernel, GitHub, nbviewer and static sites (Jupyter Book, Quarto)
    show this ``text/html`` instead of the widget view. Styles are inline, plus the explanation's
    stylesheet for hosts that keep ``<style>`` (nbviewer; where it is stripped the page still reads);
    the SVG is Graphviz's (names escaped by it), as an ``<img>`` of a ``data:`` address (hosts that sanitize drop
    inline SVG), the explanation the safe fragment of ``lucid.viz.explain``.
    """
    frame = anim.step_for_trace(trace_step)
    svg = anim.frame_svg(frame)
    too_large = _("The graph is too large to keep in the saved notebook.")  # Babel misses it inside an f-string
    if len(svg) <= STATIC_SVG_LIMIT:
        # An image of the SVG, not the SVG inline: JupyterLab sanitizes the HTML of a notebook it did not run
        # (reopened, untrusted) and drops <svg> elements but keeps their text, which left the labels as a run of
        # words; an <img> with a data: address survives it, as in GitHub's and nbviewer's renderings.
        encoded = base64.b64encode(svg.encode("utf-8")).decode("ascii")
        picture = (f'<img src="data:image/svg+xml;base64,{encoded}" alt="{html.escape(anim.titles[frame])}" '
                   'style="max-width:100%;height:auto">')
    else:
        picture = f"<p>{html.escape(too_large)}</p>"
    note = _("A still picture of step {step} of {last}: run the notebook to step through the backward pass.").format(
        step=trace_step, last=n_steps - 1)
    from lucid.viz.explanation.document import EXPLANATION_CSS

    explanation = anim.explanations[frame] if frame < len(anim.explanations) else ""
    return (f"<style>{EXPLANATION_CSS}</style>"  # the explanation's spacing where a host keeps styles (nbviewer)
            '<div class="lucid-static" style="font:14px/1.45 system-ui,sans-serif;max-width:100%">'
            f'<div style="font-weight:600;margin:.2em 0">{html.escape(anim.titles[frame])}</div>'
            f'<div style="max-width:100%;overflow:auto">{picture}</div>'
            f'<div>{explanation}</div>'
            f'<div style="color:#555;font-size:12px">{html.escape(note)}</div></div>')


@cache
def widget_class() -> type:
    """The anywidget class, made on first use (anywidget is imported here and nowhere else)."""
    try:
        import anywidget
        import traitlets
    except ImportError:
        raise StepperError(_(INSTALL_HINT)) from None
    from lucid.viz import player

    class Stepper(anywidget.AnyWidget):
        """The backward pass of one program, played in the notebook's browser (see ``lucid.viz.stepper``)."""

        _esm = player.script()
        _css = player.stylesheet()
        data = traitlets.Dict().tag(sync=True)
        step = traitlets.Int(0).tag(sync=True)
        inspection = traitlets.Unicode("").tag(sync=True)

        def __init__(self, rec: Recording, anim: Animation, data: dict, step: int, options: dict,
                     lang: str = "en") -> None:
            self._rec = rec  # before the traits: validating ``step`` needs the number of steps
            self._anim = anim
            self._options = options
            self._lang = lang  # the player's language: its facts, asked for later, are written in it too
            super().__init__(data=data, step=step)
            self.on_msg(self._on_message)

        def __repr__(self) -> str:
            return f"<lucid stepper: {self.title()}>"

        def _repr_mimebundle_(self, **kwargs: Any) -> Any:
            """The widget view (anywidget's bundle), plus a still picture for hosts that cannot run it.

            ``text/html``: the step on screen, drawn, with its explanation (``static_html``);
            ``text/plain``: its title. A live front end renders the widget view and ignores both.
            """
            bundle = super()._repr_mimebundle_(**kwargs)
            data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
            if data is None:
                return bundle
            data = dict(data)
            with use_language(self._lang):
                data["text/html"] = static_html(self._anim, self.step, self.n_steps)
                data["text/plain"] = repr(self)
            return (data, metadata) if isinstance(bundle, tuple) else data

        @traitlets.validate("step")
        def _valid_step(self, proposal: Any) -> int:
            return _check_step(proposal["value"], self.n_steps)

        @property
        def n_steps(self) -> int:
            """Steps of the backward pass (``step`` goes from 0 to ``n_steps - 1``)."""
            return len(self._rec.trace.steps)

        @property
        def animation(self) -> Animation:
            return self._anim

        def title(self, step: int | None = None) -> str:
            """The title of ``step`` (the step on screen when None), as the player shows it."""
            at = self.step if step is None else _check_step(step, self.n_steps)
            return self._anim.titles[self._anim.step_for_trace(at)]

        def inspect(self, node: str, step: int | None = None) -> Any:
            """The facts of node ``node`` (``"t3"``: tensor 3; ``"op3"``: the op that made it) at ``step``.

            Also shows them under the player (what a click on the node does). Returns
            ``lucid.session.inspector.NodeDetails``; refuses an id the graph does not have.
            """
            from lucid.session.inspector import node_details, node_from_click

            at = self.step if step is None else _check_step(step, self.n_steps)
            k = node_from_click(node, len(self._rec.order)) if isinstance(node, str) else None
            if k is None:
                raise StepperError(f"no node {node!r} in this graph: nodes are t0 to t{len(self._rec.order) - 1}")
            with use_language(self._lang):
                details = node_details(self._rec, k, at)  # a Recording is a recorded pass as the inspector reads
                self.inspection = facts_html(details)
            return details

        def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
            # From the browser: checked like any value a page sends; anything odd is ignored without a word.
            if not isinstance(content, dict) or content.get("kind") != "inspect":
                return
            node, step = content.get("node"), content.get("step")
            if not isinstance(node, str) or not _NODE_ID.fullmatch(node):
                return
            if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step < self.n_steps:
                return
            if node.startswith("g"):
                if self.open_box(node):
                    return
                with use_language(self._lang):
                    self.inspection = ('<div class="lucid-facts-head">' + html.escape(_(
                        "A box of the collapsed drawing: its nodes are listed in the app's node inspector."))
                        + "</div>")
                return
            try:
                self.inspect(node, step)
            except StepperError:
                return

        def open_box(self, box: str) -> bool:
            """Open a box of a collapsed drawing (``g<n>``), or close an open group by a click on its header.

            The player is drawn again from the new set of open groups (one layout, as the app does), at the
            same step: a recorded ``nn.Sequential`` opens module by module (``model`` → ``model.0``, …).
            False, changing nothing, when the drawing is not collapsed, ``box`` names none of its groups, or
            the opened drawing would cost more than the player may animate.
            """
            from lucid.viz.graph.collapse import CollapsedView, toggle
            from lucid.viz.player.animation import build_collapsed_animation
            from lucid.viz.player.animation_cost import collapsed_work

            info = self._anim.collapsed
            if not info or not isinstance(box, str) or not _NODE_ID.fullmatch(box) or not box.startswith("g"):
                return False
            root, trace = self._rec.root, self._rec.trace
            current = CollapsedView(root, trace, info["expanded"])
            expanded = toggle(current, current.expanded, box)
            if expanded == current.expanded:
                return False
            view = CollapsedView(root, trace, expanded)
            if not collapsed_work(view).fits:
                return False
            data = self.data
            with use_language(self._lang), np.errstate(all="ignore"):
                anim = build_collapsed_animation(view, direction=self._options["direction"])
                fresh = player_data(anim, seconds=data["seconds"], classroom=data["classroom"], zoom=data["zoom"],
                                    beside=data["beside"])
            self._anim = anim
            self.data = {**data, "anim": fresh["anim"], "anim_id": fresh["anim_id"], "program_id": fresh["program_id"]}
            return True

        def save_svg(self, path: str | Path, step: int | None = None) -> Path:
            """Write the picture of ``step`` (the step on screen when None) as an SVG file; returns the path."""
            at = self.step if step is None else _check_step(step, self.n_steps)
            target = Path(path)
            target.write_text(self._anim.frame_svg(self._anim.step_for_trace(at)), encoding="utf-8")
            return target

        def save_html(self, path: str | Path, *, lang: str | None = None, title: str | None = None) -> Path:
            """Write this player as ONE self-contained HTML file (no network, no kernel); returns the path.

            It opens at the step on screen, with this player's view, keys, explanations and node facts (in
            ``lang``, this player's language when None): see ``lucid.viz.save_html``.
            """
            from lucid.notebook.html_file import save_html

            return save_html(self, path, lang=lang, title=title)

        def _html_source(self) -> tuple[Recording, Animation, dict]:
            """What ``save_html`` writes for this player: its pass, its animation and its view."""
            data = self.data
            return self._rec, self._anim, {"step": self.step, "seconds": data["seconds"], "zoom": data["zoom"],
                                           "classroom": data["classroom"], "beside": data["beside"],
                                           "lang": self._lang, "drawing": self._options}

        def save_gif(self, path: str | Path, *, frame_ms: int = 1200, slide: bool = False) -> Path:
            """Write the whole backward pass as a looping GIF (one frame per step, captioned); returns the path.

            Needs Pillow and Graphviz's ``dot``; ``slide=True`` draws 1280×720 frames for slides.
            """
            try:
                import PIL  # noqa: F401
            except ImportError:
                raise StepperError("save_gif needs Pillow: pip install pillow") from None
            from lucid.viz.export.pictures import animation_gif

            with np.errstate(all="ignore"):
                gif = animation_gif(self._rec.root, self._rec.trace, frame_ms=frame_ms, slide=slide,
                                    **self._options)
            target = Path(path)
            target.write_bytes(gif)
            return target

    return Stepper


def stepper(x: Tensor | str | Program, step: int | None = None, *, style: str = "standard",
            direction: str = "TB", classroom: bool = False, zoom: str | float = "screen", beside: bool = True,
            seconds: float = 1.5, seed: int = 0, lang: str | None = None) -> Any:
    """An interactive widget of the backward pass that produced ``x``, one gradient at a time.

    ``x``: a ``Tensor`` after ``backward()`` (its pass is replayed, its gradients left as they are), a
    ``lucid.expr`` program source string (run with ``seed``) or a ``lucid.expr.Program``. ``step``: where
    it opens (0, the seed gradient, when None). ``style``: ``"standard"`` or ``"circuit"`` (CS231n wires);
    ``direction``: ``"TB"`` or ``"LR"``; ``classroom``: fit the whole graph into the screen, with a lens
    on the step's node when the text gets small; ``zoom``: ``"screen"``, ``"width"`` or a scale; ``beside``:
    the explanation beside the graph (else below); ``seconds`` per step of Play; ``lang``: ``"en"`` or
    ``"ko"`` for the player's words, explanations and node facts (the current language when None, see
    ``lucid.i18n.set_language``).

    Every number shown is float64, as lucid computes (a float32 input is widened to float64).

    The widget's ``step`` is synced both ways; ``save_svg(path)``, ``save_gif(path)`` and ``inspect(node)``
    export a frame, the whole pass, or one node's facts. Refuses bad arguments with ``StepperError``.
    """
    _check_options(style, direction, zoom, seconds)
    if lang is None:
        lang = current_language()
    elif lang not in LANGUAGES:
        raise StepperError(f"lang must be one of {', '.join(repr(k) for k in LANGUAGES)}, not {lang!r}")
    cls = widget_class()
    with use_language(lang):  # the animation's titles and explanations are written once, here
        rec = record(x, seed=seed)
        n = len(rec.trace.steps)
        start = 0 if step is None else _check_step(step, n)
        anim = animate(rec, style=style, direction=direction)
        options = drawing_options(style, direction)
        data = player_data(anim, seconds=seconds, classroom=classroom, zoom=zoom, beside=beside)
    return cls(rec, anim, data, start, options, lang)
