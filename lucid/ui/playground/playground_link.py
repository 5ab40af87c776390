"""*Open in Playground*: the program behind another page's graph, as a Playground link at that graph's step.

The Pitfalls, Broadcasting and Train pages each show one computation; here it is written in the
Playground's expression language (the same numbers: array literals of the page's own values), so a
teacher can step through its backward pass one gradient at a time. ``program_link`` gives the query
parameters (``lucid.session.share``: the program, packed when long, and the step); the step defaults to the
last one, which is what those pages draw (the graph after its backward pass). The programs are pure
text builders; only ``open_in_playground`` touches Streamlit.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lucid.i18n import _
from lucid.session import share
from lucid.ui.playground.keys import keys
from lucid.ui.runtime import streamlit_internals

DIGITS = 6
"""Significant digits of a number written into a program: the pages show four."""


def number(value: float) -> str:
    """A float as the expression language reads it, short (``0.1``, ``-2.5e-05``) and never ``nan``."""
    value = float(value)
    if not np.isfinite(value):
        raise ValueError("only finite numbers go into a Playground program")
    text = f"{value:.{DIGITS}g}"
    return text if any(c in text for c in ".en") else text + ".0"


def array_literal(values: np.ndarray) -> str:
    """A nested list literal of ``values`` (a 0-d array is a plain number)."""
    values = np.asarray(values, dtype=float)
    if values.ndim == 0:
        return number(values)
    return "[" + ", ".join(array_literal(v) for v in values) + "]"


def square_program(x: float) -> str:
    """The Pitfalls page's ``y = x*x``: one value used twice, two contributions to add up."""
    return f"x = {number(x)}\ny = x * x\n"


def broadcast_program(a: np.ndarray, b: np.ndarray, op: str, upstream: np.ndarray) -> str:
    """The Broadcasting page's ``a op b`` with its upstream gradient ``grad out``.

    ``sum(out * g)`` with the constant ``g`` sends exactly ``g`` back into ``out``, so the Playground's
    gradients of ``a`` and ``b`` are the page's.
    """
    symbol = {"+": "+", "×": "*", "*": "*"}[op]
    return (f"a = {array_literal(a)}\nb = {array_literal(b)}\nout = a {symbol} b\n"
            f"g = const({array_literal(upstream)})\nloss = sum(out * g)\n")


def training_step_program(X: np.ndarray, y: np.ndarray, weights: Sequence[tuple[np.ndarray, np.ndarray | None]],
                          activation: str = "tanh") -> str:
    """The Train page's step graph: a batch through the MLP (``weights`` per layer), sigmoid, then BCE."""
    lines = [f"X = const({array_literal(X)})", f"y = const({array_literal(np.asarray(y).reshape(-1, 1))})"]
    h = "X"
    for k, (weight, bias) in enumerate(weights, start=1):
        lines.append(f"W{k} = {array_literal(weight)}")
        z = f"{h} @ W{k}"
        if bias is not None:
            lines.append(f"b{k} = {array_literal(bias)}")
            z += f" + b{k}"
        last = k == len(weights)
        name = "p" if last else f"h{k}"
        lines.append(f"{name} = {'sigmoid' if last else activation}({z})")
        h = name
    lines.append("loss = binary_cross_entropy(p, y)")
    return "\n".join(lines) + "\n"


def last_step(source: str) -> int:
    """The last step of ``source``'s backward pass (0 when it has none): where those pages' graphs stand."""
    from lucid.autograd import backward_trace
    from lucid.expr import run

    root = run(source, seed=0).output
    return max(len(backward_trace(root).steps) - 1, 0) if root.requires_grad else 0


def program_link(source: str, step: int | None = None) -> dict[str, str]:
    """Query parameters that open ``source`` in the Playground at ``step`` (default: its last step)."""
    return share.encode(source, last_step(source) if step is None else step)


def open_in_playground(source: str, step: int | None = None, *, key: str) -> None:
    """The *Open in Playground* button for ``source``: the Playground opens in this tab at that program and step.

    A button that switches page (not a page link), so the browser's history gets the Playground only when
    it is asked for. A page file run on its own (no navigation, as in unit tests) has no Playground page to
    switch to; a click then offers an ordinary link to the Playground's address.
    """
    import urllib.parse

    import streamlit as st

    from lucid.expr import ExprError
    from lucid.ui.projector.lesson_pages import classroom

    try:
        params = program_link(source, step)
    except ExprError as err:  # e.g. x = 1e308 overflows in x * x: the Playground would only show this error
        st.caption(_("No Playground link for these numbers: {reason}.").format(reason=err.message))
        return
    if classroom():  # the class keeps its projector view in the Playground
        params["classroom"] = "1"
    st.session_state[keys(key).opens] = params  # what the button opens (kept for the page's next run and tests)
    if not st.button(_("Open in Playground"), key=key, icon=":material/hub:",
                     help=_("Step through this graph's backward pass one gradient at a time in the Playground.")):
        return
    try:
        st.switch_page("pages/playground.py", query_params=params)
    except streamlit_internals.api_exception():
        st.link_button(_("Go to the Playground"), f"/playground?{urllib.parse.urlencode(params)}",
                       icon=":material/hub:", key=keys(key).address)


PLAYGROUND_KEY = "pg"
"""Session-state prefix of the Playground page (``pages/playground.py``)."""


def playground_source(state: object) -> str | None:
    """The program the Playground last ran in this session (its last good source), or None.

    ``state``: the session state (any mapping). The editor keeps the last program that ran under
    ``<key>_good``; unlike the text area's own key it survives a visit to another page.
    """
    get = getattr(state, "get", None)
    source = get(f"{PLAYGROUND_KEY}_good") if get is not None else None
    return source if isinstance(source, str) and source.strip() else None


def _use_program(key: str, source: str) -> None:
    import streamlit as st

    st.session_state[keys(key).source] = source
    st.session_state[keys(key).run_requested] = True


def use_playground_program(key: str) -> None:
    """A button that puts the Playground's program into the editor ``key`` (before that editor is drawn)."""
    import streamlit as st

    source = playground_source(st.session_state)
    same = source is not None and source == st.session_state.get(keys(key).source)
    st.button(_("Use the Playground's program"), key=keys(key).use_playground, icon=":material/hub:",
              disabled=source is None or same, on_click=_use_program, args=(key, source or ""),
              help=(_("Check the gradients of the program the Playground shows.") if source is not None and not same
                    else _("This is the Playground's program.") if same
                    else _("Run a program in the Playground first.")))
