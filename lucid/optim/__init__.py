"""Optimizers for ``lucid.nn`` models: ``SGD`` (with momentum) and ``Adam``."""
from lucid.optim.adam import Adam
from lucid.optim.optimizer import Optimizer
from lucid.optim.sgd import SGD

__all__ = ["SGD", "Adam", "Optimizer"]
