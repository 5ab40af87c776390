"""explanation.lens_card: the lens's card shows the node receiving gradient whole, or says what it leaves out."""
import re

import numpy as np

from lucid import Tensor
from lucid.autograd import backward_trace
from lucid.i18n import use_language
from lucid.viz import explain
from lucid.viz.explanation.lens_card import node_card
from lucid.viz.numbers import format_number


def cells(card: str) -> list[str]:
    return re.findall(r"<td[^>]*>([^<]*)</td>", card)


def test_a_grid_node_shows_every_entry_of_its_gradient_with_the_headlines_entry_ringed():
    x = Tensor(np.arange(24.0).reshape(6, 4) / 8 - 1, requires_grad=True, name="x")
    up = np.arange(24.0).reshape(6, 4)[::-1] / 4 - 2
    trace = backward_trace(x * 3.0, grad=up)
    e = explain(trace, 1)
    card = node_card(trace, e)
    assert cells(card) == [format_number(v) for v in (up * 3.0).reshape(-1)]
    (ringed,) = re.findall(r'<td class="lucid-hl">([^<]*)</td>', card)
    assert ringed == format_number((up * 3.0)[e.entry]) and f"= {ringed}" in e.arithmetic
    assert "final" in card and "leaf · 6×4" in card and "rows" not in card


def test_a_wide_grid_shows_the_window_around_the_entry_and_says_so():
    x = Tensor(np.ones((8, 8)), requires_grad=True, name="x")
    up = np.zeros((8, 8))
    up[7, 6] = 5.0
    trace = backward_trace(x * 2.0, grad=up)
    card = node_card(trace, explain(trace, 1))
    assert len(cells(card)) == 6 * 5 and "rows 2–7 of 8 · columns 3–7 of 8" in card
    assert re.findall(r'<td class="lucid-hl">([^<]*)</td>', card) == ["10.00"]
    with use_language("ko"):
        assert "8개 행 중 2–7행" in node_card(trace, explain(trace, 1))


def test_names_are_escaped_and_a_scalar_node_has_no_card():
    x = Tensor([1.0, 2.0], requires_grad=True, name="<b>x")
    trace = backward_trace(x * 2.0)
    assert "&lt;b&gt;x" in node_card(trace, explain(trace, 1)) and "<b>x" not in node_card(trace, explain(trace, 1))
    s = Tensor(2.0, requires_grad=True, name="s")
    trace = backward_trace(s * 3.0)
    assert node_card(trace, explain(trace, 1)) == ""
