"""The graph as an inline SVG you can click: a click on a node opens it in the node inspector.

A Streamlit v2 component (trusted inline JavaScript, no build step, no network)
holds the SVG that Graphviz's ``dot`` rendered on the server, and reports the
id of a clicked node (``t<k>``, or ``op<k>`` for the op that made ``t<k>``).
The SVG comes from ``lucid.viz``, which escapes every piece of user text
before it reaches the DOT, so it is safe to place in the page. Without ``dot``
the page falls back to ``st.graphviz_chart`` (no clicking).
"""
from __future__ import annotations

from collections.abc import Callable

import streamlit as st

_JS = """
export default function(component) {
  const { data, setTriggerValue, parentElement } = component;
  let host = parentElement.querySelector('.lucid-svg-host');
  if (!host) {
    host = document.createElement('div');
    host.className = 'lucid-svg-host';
    parentElement.appendChild(host);
  }
  if (host.dataset.frame !== data.frame) {
    host.innerHTML = data.svg;
    host.dataset.frame = data.frame;
  }
  host.querySelectorAll('g.node').forEach((node) => {
    if (/^(t|op)[0-9]+$/.test(node.id)) {
      node.style.cursor = 'pointer';
      node.onclick = () => setTriggerValue('node', node.id);
    }
  });
}
"""

_CSS = """
.lucid-svg-host { width: 100%; display: flex; justify-content: center; }
.lucid-svg-host g.node:hover polygon, .lucid-svg-host g.node:hover path,
.lucid-svg-host g.node:hover ellipse { stroke-width: 3; }
"""

_component: list = []


def _graph_component():  # registered on first use, from inside a script run
    if not _component:
        _component.append(st.components.v2.component("lucid_clickable_graph", js=_JS, css=_CSS,
                                                      isolate_styles=False))
    return _component[0]


def clickable_graph(svg: str, frame: str, *, key: str, on_node: Callable[[str], None]) -> None:
    """Show ``svg``; ``on_node(node_id)`` runs (as a widget callback) when a node is clicked.

    ``frame`` identifies the picture, so the browser only swaps the SVG when it changed.
    """
    def clicked() -> None:
        state = st.session_state.get(key)
        node = None if state is None else state.get("node")
        if node:
            on_node(str(node))

    _graph_component()(key=key, data={"svg": svg, "frame": frame}, on_node_change=clicked)
