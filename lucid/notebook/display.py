"""How a ``Tensor`` shows itself in a notebook: its graph as SVG, with values and gradients.

Jupyter, VS Code, Colab and marimo ask the last value of a cell for ``_repr_mimebundle_``
(and ``_repr_svg_``); ``Tensor`` answers with these functions. The picture is ``to_dot`` of the
tensor without a trace: every node's value, and the gradient of the tensors that hold one (the
leaves after ``backward()``). Large graphs are drawn as the app draws them (chains folded, and past
the layout budget collapsed into boxes), so a deep network displays in about a second.

Displaying must never fail: without Graphviz's ``dot`` program, or when drawing goes wrong for
any reason, the bundle holds only ``text/plain`` (the tensor's ``repr``) and the notebook shows
that text instead of a traceback.
"""
from __future__ import annotations

import shutil
from collections.abc import Collection

from lucid._tensor.tensor import Tensor

SVG_MIME = "image/svg+xml"
TEXT_MIME = "text/plain"


def has_graph(tensor: Tensor) -> bool:
    """True when there is a graph worth drawing: the tensor was made by an op or takes gradients.

    A plain constant (``Tensor(np.ones(3))``) is a box of numbers: its text says it better.
    """
    return tensor._op is not None or tensor.requires_grad


def tensor_svg(tensor: Tensor) -> str | None:
    """The graph that produced ``tensor`` as SVG text, or None when it cannot or need not be drawn."""
    if not has_graph(tensor) or shutil.which("dot") is None:
        return None
    from lucid.viz.export.pictures import to_svg
    from lucid.viz.graph.dot import to_dot

    try:
        svg = to_svg(to_dot(tensor)).decode("utf-8")
    except Exception:  # a repr must not raise: the notebook shows the text instead
        return None
    start = svg.find("<svg")  # drop the XML prolog and DOCTYPE: the SVG is placed inside an HTML page
    return svg[start:] if start >= 0 else None


def tensor_mimebundle(tensor: Tensor, include: Collection[str] | None = None,
                      exclude: Collection[str] | None = None) -> dict[str, str]:
    """``{"text/plain": repr, "image/svg+xml": graph}``; the SVG only when it can be drawn and is wanted."""
    bundle = {TEXT_MIME: repr(tensor)}
    wanted = (include is None or SVG_MIME in include) and (exclude is None or SVG_MIME not in exclude)
    if wanted:
        svg = tensor_svg(tensor)
        if svg is not None:
            bundle[SVG_MIME] = svg
    return bundle
