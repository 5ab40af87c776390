"""The one shape every dataset comes in: features, 0/1 labels and a description."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from lucid.i18n import Message


@dataclass(frozen=True)
class Dataset:
    """``X`` is ``(n, d)`` float64, ``y`` is ``(n,)`` float64 of 0.0 / 1.0."""

    name: str
    X: np.ndarray
    y: np.ndarray
    feature_names: tuple[str, ...]
    description: str | Message = ""  # a Message renders in the reader's language
    sources: tuple[str, ...] = field(default=(), repr=False)

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def positive_share(self) -> float:
        """Share of label 1: a sanity number for class balance."""
        return float(self.y.mean()) if self.y.size else 0.0


def standardize(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Zero mean, unit variance per column (constant columns are left centred).

    Returns ``(Z, mean, std)`` so new points (a decision-boundary grid) can be
    mapped the same way.
    """
    mean = X.mean(axis=0)
    std = X.std(axis=0)
    std = np.where(std > 0, std, 1.0)
    return (X - mean) / std, mean, std
