"""Neural-network building blocks on top of the engine: ``Module``, ``Linear``, ``MLP``.

``lucid.nn.reference`` (hand-written NumPy) and ``lucid.nn.scalar`` (0-d
tensors, micrograd style) hold twins of the same MLP for comparisons.
"""
from lucid.nn.layers import ACTIVATIONS, MLP, Linear
from lucid.nn.module import Module

__all__ = ["ACTIVATIONS", "MLP", "Linear", "Module"]
