"""Grad mode, kept per thread/task.

Streamlit runs every browser session's script in its own thread; a module-global
flag would let one session's ``no_grad`` switch gradients off for everyone else.
A ``ContextVar`` gives each thread (and each asyncio task) its own value.
"""
from __future__ import annotations

import contextlib
from contextvars import ContextVar

_grad_enabled: ContextVar[bool] = ContextVar("lucid_grad_enabled", default=True)


def is_grad_enabled() -> bool:
    """Whether new ops record the graph in the current thread/context."""
    return _grad_enabled.get()


class _GradMode(contextlib.ContextDecorator):
    """Set grad mode for a ``with`` block (or a decorated function), then restore it.

    A small class rather than a generator-based context manager: optimizers
    enter it on every step, and this costs a fraction of a generator's setup.
    Tokens are stacked so one instance may be nested; a decorated function gets
    a fresh instance per call, so threads never share tokens.
    """

    def __init__(self, enabled: bool) -> None:
        self._enabled = enabled
        self._tokens: list = []

    def _recreate_cm(self) -> _GradMode:
        return _GradMode(self._enabled)

    def __enter__(self) -> None:
        self._tokens.append(_grad_enabled.set(self._enabled))

    def __exit__(self, *exc: object) -> bool:
        _grad_enabled.reset(self._tokens.pop())
        return False


def no_grad() -> _GradMode:
    """Run a block without recording the graph (inference, optimizer updates)."""
    return _GradMode(False)


def enable_grad() -> _GradMode:
    """Re-enable graph recording inside a ``no_grad`` block."""
    return _GradMode(True)
