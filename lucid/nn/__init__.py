"""Neural-network building blocks on top of the engine: ``Module``, ``Linear``, ``MLP``.

Twins of one MLP for comparisons (the training page, ``bench/bench_mlp.py``):
``NumpyMLP`` (``lucid.nn.reference``, forward and backward written out in NumPy)
and ``ScalarMLP`` (``lucid.nn.scalar``, one 0-d Tensor per weight, micrograd
style); ``lucid.nn.training`` trains any of the three the same way and
``lucid.nn.data.toy_binary_data`` gives them a small fixed data set.
"""
from lucid.nn.data import toy_binary_data
from lucid.nn.layers import ACTIVATIONS, MLP, Linear
from lucid.nn.module import Module
from lucid.nn.reference import NumpyMLP
from lucid.nn.scalar import ScalarMLP, ScalarNeuron
from lucid.nn.training import train_numpy, train_scalar, train_tensor

__all__ = ["ACTIVATIONS", "MLP", "Linear", "Module", "NumpyMLP", "ScalarMLP", "ScalarNeuron", "toy_binary_data",
           "train_numpy", "train_scalar", "train_tensor"]
