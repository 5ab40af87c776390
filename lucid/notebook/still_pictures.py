"""An nbconvert preprocessor that keeps the stepper's still picture in an HTML export (issue 29).

A stepper's output carries the widget view and, beside it, a still picture as ``text/html`` (the step's SVG
and explanation, ``lucid.notebook.widget.static_html``). nbconvert's HTML exporter ranks the widget view
above ``text/html`` and writes only the view: a ``<script>`` that a widget manager, loaded from a CDN, turns
into the player. Offline (or with anywidget's module out of reach) the export shows nothing where the graph
was. This preprocessor drops the widget view from the outputs that carry lucid's picture, so the export
shows the picture, with no network::

    jupyter nbconvert --to html --execute \\
        --HTMLExporter.preprocessors=lucid.notebook.still_pictures.StillPictures nb.ipynb

Outputs of other widgets are left alone. For a player that steps offline, use ``save_html``.
"""
from __future__ import annotations

from typing import Any

from nbconvert.preprocessors import Preprocessor

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
PICTURE_MARK = '<div class="lucid-static"'
"""How lucid's still picture begins (after its stylesheet): the one output this preprocessor changes."""


class StillPictures(Preprocessor):
    """Drop the widget view of every output whose ``text/html`` is lucid's still picture of a stepper."""

    def preprocess_cell(self, cell: Any, resources: Any, index: int) -> tuple[Any, Any]:
        for output in cell.get("outputs", []):
            data = output.get("data") or {}
            if WIDGET_VIEW in data and PICTURE_MARK in str(data.get("text/html", "")):
                del data[WIDGET_VIEW]
        return cell, resources
