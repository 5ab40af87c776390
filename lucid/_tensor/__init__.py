"""Tensor class."""
from lucid._tensor.tensor import Tensor

__all__ = ["Tensor"]
