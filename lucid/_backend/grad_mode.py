"""Grad mode, kept per thread/task.

Streamlit runs every browser session's script in its own thread; a module-global
flag would let one session's ``no_grad`` switch gradients off for everyone else.
A ``ContextVar`` gives each thread (and each asyncio task) its own value.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

_grad_enabled: ContextVar[bool] = ContextVar("lucid_grad_enabled", default=True)


def is_grad_enabled() -> bool:
    """Whether new ops record the graph in the current thread/context."""
    return _grad_enabled.get()


@contextlib.contextmanager
def no_grad() -> Iterator[None]:
    """Run a block without recording the graph (inference, optimizer updates)."""
    token = _grad_enabled.set(False)
    try:
        yield
    finally:
        _grad_enabled.reset(token)


@contextlib.contextmanager
def enable_grad() -> Iterator[None]:
    """Re-enable graph recording inside a ``no_grad`` block."""
    token = _grad_enabled.set(True)
    try:
        yield
    finally:
        _grad_enabled.reset(token)
