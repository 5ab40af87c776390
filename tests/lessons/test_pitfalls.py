"""The three pitfalls reproduce their classic wrong numbers, and lucid gets the right ones."""
import sys

import numpy as np
import pytest

import lucid
from lucid.lessons.pitfalls import (
    addition_chain,
    first_failing_chain_length,
    hand_backward,
    quadratic_descent,
    recursive_topological_order,
    square_gradients,
    try_lucid_backward,
    try_recursive_sort,
)


def test_assigning_instead_of_accumulating_gives_3_for_x_times_x_at_3():
    demo = square_gradients(3.0)
    assert demo.y == 9.0
    assert demo.assigned == 3.0
    assert demo.accumulated == 6.0
    assert demo.engine == 6.0


def test_hand_backward_with_accumulation_matches_lucid_on_a_branching_graph():
    x = lucid.Tensor(np.array([0.5, -1.2]), requires_grad=True)
    w = lucid.Tensor(np.array([2.0, 0.3]), requires_grad=True)
    h = lucid.tanh(x * w)
    y = h * x + lucid.exp(h)
    right = hand_backward(y, accumulate=True)
    wrong = hand_backward(y, accumulate=False)
    y.backward()
    np.testing.assert_allclose(right[id(x)], x.grad)
    np.testing.assert_allclose(right[id(w)], w.grad)
    assert not np.allclose(wrong[id(x)], x.grad)  # x is used twice: one path is lost


def test_hand_backward_refuses_non_elementwise_ops():
    x = lucid.Tensor(np.array([1.0, 2.0]), requires_grad=True)
    with pytest.raises(ValueError, match="elementwise"):
        hand_backward(lucid.sum(x * x))


def test_zeroing_gradients_each_step_converges_to_1():
    trajectory = quadratic_descent(steps=6, lr=0.3, w0=0.0, reset=True)
    assert [f"{w:.3f}" for w in trajectory] == ["0.600", "0.840", "0.936", "0.974", "0.990", "0.996"]
    # exact: w_k = 1 - 0.4**k
    np.testing.assert_allclose(trajectory, [1 - 0.4 ** k for k in range(1, 7)])


def test_forgetting_to_zero_gradients_overshoots_and_swings_back():
    trajectory = quadratic_descent(steps=6, lr=0.3, w0=0.0, reset=False)
    assert [f"{w:.3f}" for w in trajectory] == ["0.600", "1.440", "2.016", "1.982", "1.359", "0.521"]
    # by hand: the stale sum of all earlier gradients is re-applied every step
    w, total, expected = 0.0, 0.0, []
    for _ in range(6):
        total += 2 * (w - 1.0)
        w -= 0.3 * total
        expected.append(w)
    np.testing.assert_allclose(trajectory, expected, rtol=0, atol=1e-15)


def test_addition_chain_is_n_levels_deep():
    x, out = addition_chain(5)
    assert out.item() == 5.5
    depth, node = 0, out
    while node._prev:
        node = node._prev[0]
        depth += 1
    assert depth == 5 and node is x


def test_recursive_sort_orders_a_shallow_chain_like_lucid():
    _, out = addition_chain(50)
    assert [id(n) for n in recursive_topological_order(out)] == \
        [id(n) for n in lucid.autograd.topological_order(out)]


def test_recursive_sort_fails_past_the_recursion_limit_and_reports_its_depth():
    limit = sys.getrecursionlimit()
    result = try_recursive_sort(limit + 500)
    assert not result.ok
    assert str(result.message).startswith("RecursionError")
    assert limit - 100 < result.depth_reached < limit
    assert result.recursion_limit == limit
    assert sys.getrecursionlimit() == limit  # the demo leaves the limit alone


def test_recursive_sort_succeeds_on_a_chain_under_the_limit():
    result = try_recursive_sort(300)
    assert result.ok
    assert result.nodes == 601  # 300 additions, 300 constants, x
    assert result.depth_reached == 301


def test_lucid_backward_handles_a_100000_addition_chain():
    result = try_lucid_backward(100_000)
    assert result.ok
    assert result.nodes == 200_001
    assert result.depth_reached == 100_001


def test_the_x_times_x_graph_shows_both_contributions_and_their_sum():
    """The Pitfalls page draws lucid's graph after backward: both parts on the two edges, the sum at x."""
    import re

    from lucid.viz import explain, to_dot

    demo = square_gradients(-1.5)
    source = to_dot(demo.graph_root, demo.trace).source
    shown = {edge: text.replace("\u00a0", " ")
             for text, edge in re.findall(r"label=<<FONT[^>]*>([^<]*)</FONT>>[^\n]*id=(e1_[01])", source)}
    assert shown == {"e1_0": "◀ grad += −1.500", "e1_1": "◀ grad += −1.500"}
    assert "grad −3.000 final" in source.replace("\u00a0", " ")
    assert explain(demo.trace, 2).arithmetic.endswith("⇒  grad x = −1.500 + (−1.500) = −3.000")
    assert demo.headline == "grad y · ∂y/∂x = 1.000 · (−1.500) = −1.500  ⇒  grad x = −1.500 + (−1.500) = −3.000"
    assert demo.accumulated == -3.0 and demo.assigned == -1.5


def test_the_page_opens_on_the_shortest_chain_that_fails_under_the_limit_in_force():
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(1000)
        assert first_failing_chain_length() == 2_000
        sys.setrecursionlimit(3000)  # what importing IPython's completer does to the whole process
        assert first_failing_chain_length() == 5_000
        assert not try_recursive_sort(first_failing_chain_length()).ok
    finally:
        sys.setrecursionlimit(limit)
