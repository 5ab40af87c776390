"""lucid.viz: draw a lucid graph, and every step of its backward pass, with Graphviz.

- ``to_dot(root, trace, step, **options)``: the picture as a ``graphviz.Digraph``
  (``.source`` is the DOT text); ``draw(tensor)`` for Jupyter.
- ``explain(trace, step)``: the chain rule of that step in words and numbers.
- large graphs: ``to_dot(..., expanded=...)`` draws them collapsed into boxes; ``large_view`` /
  ``large_frame`` give the collapsed steps and a main, overview and detail drawing per step;
  ``toggle`` opens or closes a clicked box; ``group``/``tag``/``tag_subgraph`` name the boxes.
- ``format_array``: the compact fixed-width number text shared with the app's tables.
- ``stepper(x)``: the backward pass as a notebook widget (anywidget, imported only when one is made).
- ``to_svg``/``to_png``/``animation_gif``/``frames_zip``: exports (need Graphviz's ``dot``).
- ``save_html(x, path)``: the player as ONE self-contained HTML file that steps offline in any browser.
"""
from lucid.notebook.html_file import HTML_LIMIT_BYTES, HtmlTooLarge, save_html
from lucid.notebook.widget import StepperError, stepper
from lucid.viz.errors import GraphTooLarge, GraphvizNotInstalled, RenderError
from lucid.viz.explanation.explain import StepExplanation, explain
from lucid.viz.export.pictures import animation_gif, frames, frames_zip, to_png, to_svg
from lucid.viz.graph.collapse import MAX_DRAWN, CollapsedStep, CollapsedView, collapsed_dot, describe_step, toggle
from lucid.viz.graph.dot import DIRECTIONS, contribution_note, draw, to_dot
from lucid.viz.graph.groups import group, group_of, tag, tag_subgraph
from lucid.viz.graph.large import LargeFrame, large_frame, large_view
from lucid.viz.graph.structure import LARGE_AUTO_NODES, node_label
from lucid.viz.graph.style import legend
from lucid.viz.numbers import format_array, format_number

__all__ = [
    "MAX_DRAWN", "CollapsedStep", "CollapsedView", "LargeFrame", "collapsed_dot", "describe_step", "group", "group_of",
    "large_frame", "large_view", "tag", "tag_subgraph", "toggle",
    "DIRECTIONS", "LARGE_AUTO_NODES", "GraphTooLarge", "GraphvizNotInstalled", "RenderError", "StepExplanation",
    "animation_gif", "contribution_note", "draw", "explain", "format_array", "format_number", "frames",
    "frames_zip", "HTML_LIMIT_BYTES", "HtmlTooLarge", "legend", "node_label", "save_html",
    "stepper", "StepperError", "to_dot", "to_png", "to_svg",
]
