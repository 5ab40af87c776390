"""Adam against a trajectory recorded from PyTorch (torch 2.13.0, float64, ``torch.optim.Adam``).

The scenario is the one where a single shared step count goes wrong: parameter ``b`` first gets a gradient
at the fourth step, and the third ``step()`` has no gradients at all. PyTorch keeps one count per
parameter and skips parameters without a gradient, so ``b``'s first update is a full bias-corrected
step of size ≈ lr and the empty step changes nothing. The values below were printed by the recording
script (the same loop written with torch); torch is not a dependency of this project.
"""
from __future__ import annotations

import numpy as np

import lucid
from lucid import Tensor
from lucid.optim import Adam

# (a, b, per-parameter step counts) after each of the seven step() calls
TORCH_TRAJECTORY = [
    ([0.900000000625, -1.9000000000694444, 0.40000000066666663],
     [0.3, -0.7], [1, 0]),
    ([0.800568284120291, -1.8001335214136256, 0.30023906296839026],
     [0.3, -0.7], [2, 0]),
    ([0.800568284120291, -1.8001335214136256, 0.30023906296839026],
     [0.3, -0.7], [2, 0]),
    ([0.7006261085172313, -1.7006110723766419, 0.20090287154536718],
     [0.20000000055180972, -0.7999999774263734], [3, 1]),
    ([0.6013594247668549, -1.6014798417478524, 0.10219893785315153],
     [0.10061204247832752, -0.7411002516254431], [4, 2]),
    ([0.5047182737966828, -1.5028689196733098, 0.004358171200153624],
     [0.00263452299333182, -0.6979401373351032], [5, 3]),
    ([0.41317261224729795, -1.404913051512151, -0.09236376791911953],
     [-0.09282999554631229, -0.7083750787870469], [6, 4]),
]


def test_adam_follows_pytorchs_trajectory_with_a_late_parameter_and_an_empty_step():
    a = Tensor([1.0, -2.0, 0.5], requires_grad=True)
    b = Tensor([0.3, -0.7], requires_grad=True)
    target, weight = np.array([0.2, 0.4, -1.0]), np.array([1.0, 3.0, 0.5])
    opt = Adam([a, b], lr=0.1, betas=(0.9, 0.999), eps=1e-8)
    for k, (a_expected, b_expected, counts) in enumerate(TORCH_TRAJECTORY):
        opt.zero_grad()
        if k != 2:  # step 3: nothing was computed, step() must be a no-op
            loss = (weight * (a - target) ** 2).sum()
            if k >= 3:  # b takes part from the fourth step on
                loss = loss + (lucid.tanh(b * a[:2]) * np.array([2.0, -1.5])).sum() + (b ** 2).sum() * 0.5
            loss.backward()
        opt.step()
        np.testing.assert_allclose(a.data, a_expected, rtol=1e-12, atol=1e-15, err_msg=f"a after step {k + 1}")
        np.testing.assert_allclose(b.data, b_expected, rtol=1e-12, atol=1e-15, err_msg=f"b after step {k + 1}")
        assert opt.step_counts == counts


def test_a_late_parameters_first_adam_step_is_lr_in_size():
    """With its own count at t = 1, m̂ = g and v̂ = g², so the first move is lr · sign(g) (up to eps)."""
    early, late = Tensor([1.0], requires_grad=True), Tensor([2.0, -3.0], requires_grad=True)
    opt = Adam([early, late], lr=0.05)
    for _ in range(5):
        opt.zero_grad()
        (early * early).sum().backward()
        opt.step()
    opt.zero_grad()
    (late * np.array([4.0, 0.25])).sum().backward()
    opt.step()
    np.testing.assert_allclose(late.data, [2.0 - 0.05, -3.0 - 0.05], rtol=0, atol=1e-8)
    assert opt.step_counts == [5, 1]


def _two_real_steps(empty_steps_between: int) -> np.ndarray:
    p = Tensor([1.0, 2.0], requires_grad=True)
    opt = Adam([p], lr=0.1)
    (p * p).sum().backward()
    opt.step()
    after_one, m, v = p.data.copy(), opt.m[0].copy(), opt.v[0].copy()
    opt.zero_grad()
    for _ in range(empty_steps_between):
        opt.step()
    np.testing.assert_array_equal(p.data, after_one)
    np.testing.assert_array_equal(opt.m[0], m)
    np.testing.assert_array_equal(opt.v[0], v)
    assert opt.step_counts == [1]
    (p * p).sum().backward()
    opt.step()
    return p.data


def test_steps_with_no_gradients_change_nothing_not_even_the_next_update():
    np.testing.assert_array_equal(_two_real_steps(3), _two_real_steps(0))
