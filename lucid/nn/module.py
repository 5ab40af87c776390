"""``Module``: a container that finds its own parameters.

A parameter is any leaf Tensor attribute that requires grad; sub-modules and
lists/tuples/dicts of them are searched too, in attribute-definition order, so
``parameters()`` is deterministic and an optimizer built twice over the same
model sees the same tensors in the same order.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lucid._tensor.tensor import Tensor


def _walk(prefix: str, value: Any, seen: set[int]) -> Iterator[tuple[str, Tensor]]:
    """Yield ``(dotted_name, parameter)`` for every parameter reachable from ``value``."""
    if isinstance(value, Tensor):
        if value.requires_grad and value.is_leaf and id(value) not in seen:
            seen.add(id(value))
            yield prefix, value
    elif isinstance(value, Module):
        for name, attr in vars(value).items():
            if not name.startswith("_"):
                yield from _walk(f"{prefix}.{name}" if prefix else name, attr, seen)
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from _walk(f"{prefix}.{i}" if prefix else str(i), item, seen)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _walk(f"{prefix}.{key}" if prefix else str(key), item, seen)


class Module:
    """Base class of layers and models: ``model(x)`` calls ``model.forward(x)``."""

    def forward(self, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "forward" in cls.__dict__ and "__call__" not in cls.__dict__:
            # ``model(x)`` runs the subclass's forward directly: no extra frame and no
            # argument packing on every layer call of every training step
            cls.__call__ = cls.__dict__["forward"]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def named_parameters(self) -> list[tuple[str, Tensor]]:
        """``(name, tensor)`` pairs such as ``("layers.0.weight", W)``, in definition order."""
        return list(_walk("", self, set()))

    def parameters(self) -> list[Tensor]:
        """The trainable tensors, each once, in definition order."""
        return [p for _, p in self.named_parameters()]

    def num_parameters(self) -> int:
        """Total number of trainable scalars."""
        return sum(p.size for p in self.parameters())

    def zero_grad(self) -> None:
        """Forget accumulated gradients (backward adds to ``grad``, it never overwrites)."""
        for p in self.parameters():
            p.grad = None
