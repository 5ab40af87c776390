"""lucid.viz: draw a lucid graph, and every step of its backward pass, with Graphviz.

- ``to_dot(root, trace, step, **options)``: the picture as a ``graphviz.Digraph``
  (``.source`` is the DOT text); ``draw(tensor)`` for Jupyter.
- ``explain(trace, step)``: the chain rule of that step in words and numbers.
- ``format_array``: the compact fixed-width number text shared with the app's tables.
- ``to_svg``/``to_png``/``animation_gif``/``frames_zip``: exports (need Graphviz's ``dot``).
"""
from lucid.viz.dot import DIRECTIONS, contribution_note, draw, to_dot
from lucid.viz.errors import GraphTooLarge, GraphvizNotInstalled, RenderError
from lucid.viz.explain import StepExplanation, explain
from lucid.viz.export import animation_gif, frames, frames_zip, to_png, to_svg
from lucid.viz.numbers import format_array, format_number
from lucid.viz.structure import LARGE_AUTO_NODES, node_label
from lucid.viz.style import legend

__all__ = [
    "DIRECTIONS", "LARGE_AUTO_NODES", "GraphTooLarge", "GraphvizNotInstalled", "RenderError", "StepExplanation",
    "animation_gif", "contribution_note", "draw", "explain", "format_array", "format_number", "frames",
    "frames_zip", "legend", "node_label", "to_dot", "to_png", "to_svg",
]
