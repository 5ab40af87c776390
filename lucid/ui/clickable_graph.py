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
function fit(host, data) {
  // "screen": fit the width and the screen height below the controls, but never shrink past a
  // readable scale (then the page scrolls) nor blow a tiny graph up; "width": fit the width only;
  // a number: that fixed scale.
  const svg = host.querySelector('svg');
  if (!svg) return;
  const w = parseFloat(svg.getAttribute('width')) * 4 / 3;
  const h = parseFloat(svg.getAttribute('height')) * 4 / 3;
  if (!(w > 0 && h > 0)) return;
  const width = host.clientWidth || 800;
  const height = Math.max(320, window.innerHeight - data.reserve);
  let scale;
  if (typeof data.zoom === 'number') {
    scale = data.zoom;
  } else if (data.zoom === 'width') {
    scale = Math.min(width / w, data.max_scale);
  } else {
    scale = Math.max(Math.min(width / w, height / h, data.max_scale), data.min_scale);
  }
  svg.style.width = Math.round(w * scale) + 'px';
  svg.style.height = Math.round(h * scale) + 'px';
  return w * scale > width + 1 || h * scale > height + 1;
}

function follow(host) {
  // In a picture larger than the screen, keep the node receiving gradient in view.
  const current = host.querySelector('g.node.current');
  if (!current) return;
  const box = current.getBoundingClientRect();
  const view = host.getBoundingClientRect();
  const outside = box.bottom > window.innerHeight || box.top < 0 || box.right > view.right || box.left < view.left;
  if (outside) current.scrollIntoView({ block: 'center', inline: 'center', behavior: 'smooth' });
}

export default function(component) {
  const { data, setTriggerValue, parentElement } = component;
  let host = parentElement.querySelector('.lucid-svg-host');
  if (!host) {
    host = document.createElement('div');
    host.className = 'lucid-svg-host';
    parentElement.appendChild(host);
  }
  const changed = host.dataset.frame !== data.frame;
  if (changed) {
    host.innerHTML = data.svg;
    host.dataset.frame = data.frame;
  }
  const larger = fit(host, data);
  if (changed && larger) {
    // On the first picture only a shared link's later step scrolls (a fresh page keeps its editor in view).
    if (host.dataset.shown) follow(host);
    else if (data.follow_first) setTimeout(() => follow(host), 400);
  }
  host.dataset.shown = '1';
  host.querySelectorAll('g.node').forEach((node) => {
    if (/^(t|op)[0-9]+$/.test(node.id)) {
      node.style.cursor = 'pointer';
      node.onclick = () => setTriggerValue('node', node.id);
    }
  });
  const onResize = () => fit(host, data);
  window.addEventListener('resize', onResize);
  return () => window.removeEventListener('resize', onResize);
}
"""

_CSS = """
.lucid-svg-host { width: 100%; overflow-x: auto; text-align: center; }
.lucid-svg-host > svg { display: inline-block; }
.lucid-svg-host g.node:hover polygon, .lucid-svg-host g.node:hover path,
.lucid-svg-host g.node:hover ellipse { stroke-width: 3; }
"""

_component: list = []


def sizing(classroom: bool) -> dict[str, float]:
    """Scale limits and the screen height kept for the controls above the graph, per mode."""
    if classroom:
        return {"min_scale": 0.9, "max_scale": 1.8, "reserve": 300}
    return {"min_scale": 0.7, "max_scale": 1.25, "reserve": 270}


def _graph_component():  # registered on first use, from inside a script run
    if not _component:
        _component.append(st.components.v2.component("lucid_clickable_graph", js=_JS, css=_CSS,
                                                      isolate_styles=False))
    return _component[0]


def clickable_graph(svg: str, frame: str, *, key: str, on_node: Callable[[str], None],
                    classroom: bool = False, zoom: str | float = "screen", follow_first: bool = False) -> None:
    """Show ``svg``; ``on_node(node_id)`` runs (as a widget callback) when a node is clicked.

    ``frame`` identifies the picture, so the browser only swaps the SVG when it changed.
    The picture is scaled to fit the width and the screen height under the controls,
    between a readable minimum (then the page scrolls) and a maximum (larger in classroom mode);
    ``zoom`` may instead ask for the width only (``"width"``) or a fixed scale (a number).
    When the picture is larger than the screen, the node receiving gradient is kept in view
    (from the first picture on when ``follow_first``: a link that opens at a later step).
    """
    def clicked() -> None:
        state = st.session_state.get(key)
        node = None if state is None else state.get("node")
        if node:
            on_node(str(node))

    data = {"svg": svg, "frame": frame, "zoom": zoom, "follow_first": follow_first, **sizing(classroom)}
    _graph_component()(key=key, data=data, on_node_change=clicked)
