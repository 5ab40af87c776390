"""Generated 2-D toys: two moons (nearly linear) and spirals (needs a hidden layer)."""
from __future__ import annotations

import numpy as np

from lucid.data.dataset import Dataset
from lucid.i18n import L_


def two_moons(n: int = 200, noise: float = 0.1, seed: int = 0) -> Dataset:
    """Two interleaving half circles; label 1 is the lower, shifted moon."""
    if n < 2:
        raise ValueError("two moons needs at least 2 points")
    rng = np.random.default_rng(seed)
    n_top = n // 2
    n_bottom = n - n_top
    t_top = rng.uniform(0.0, np.pi, n_top)
    t_bottom = rng.uniform(0.0, np.pi, n_bottom)
    top = np.column_stack([np.cos(t_top), np.sin(t_top)])
    bottom = np.column_stack([1.0 - np.cos(t_bottom), 0.5 - np.sin(t_bottom)])
    X = np.vstack([top, bottom]) + rng.normal(0.0, noise, (n, 2))
    y = np.concatenate([np.zeros(n_top), np.ones(n_bottom)])
    order = rng.permutation(n)
    return Dataset("two moons", X[order], y[order], ("x₁", "x₂"),
                   L_("{n} points on two interleaving half circles, noise {noise}", n=n, noise=noise))


def spirals(n: int = 200, turns: float = 1.5, noise: float = 0.08, seed: int = 0) -> Dataset:
    """Two arms of a spiral, each the other rotated by 180°; label = arm."""
    if n < 2:
        raise ValueError("spirals needs at least 2 points")
    rng = np.random.default_rng(seed)
    n0 = n // 2
    n1 = n - n0
    arms = []
    for count, phase in ((n0, 0.0), (n1, np.pi)):
        r = np.sqrt(rng.uniform(0.02, 1.0, count))  # sqrt: points spread evenly along the arm
        theta = r * turns * 2 * np.pi + phase
        arms.append(np.column_stack([r * np.cos(theta), r * np.sin(theta)]))
    X = np.vstack(arms) + rng.normal(0.0, noise, (n, 2))
    y = np.concatenate([np.zeros(n0), np.ones(n1)])
    order = rng.permutation(n)
    return Dataset("spirals", X[order], y[order], ("x₁", "x₂"),
                   L_("{n} points on two spiral arms ({turns} turns), noise {noise}", n=n, turns=turns, noise=noise))
