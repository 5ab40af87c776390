"""What the node inspector prints of a node's arrays, read off an ``AppTest`` run (its value, then its gradient).

The inspector draws them as preformatted HTML (``inspector_view.array_block``), not as ``st.code``, so a test finds
them among the run's HTML elements.
"""
from __future__ import annotations

import html
import re

from lucid.ui.playground.inspector_view import ARRAY_CLASS

_BLOCK = re.compile(rf'<pre class="{ARRAY_CLASS}"[^>]*>(.*?)</pre>', re.DOTALL)


def inspector_arrays(at) -> list[str]:
    """Every array block of the run, in page order, as the reader sees its text."""
    return [html.unescape(m) for element in at.get("html") for m in _BLOCK.findall(element.proto.body)]
