"""A small least-recently-used memo that lives in one browser session.

Streamlit's ``st.cache_data`` pickles results (graphs hold closures) and
``st.cache_resource`` would share mutable Tensors between sessions; a per-session
LRU keeps each classroom laptop's graphs its own while stepping through them
never recomputes anything. No Streamlit import: the page keeps one in session state.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class LRUMemo(Generic[V]):
    """``get(key, compute)`` returns the stored value or computes, stores and returns it."""

    def __init__(self, capacity: int = 64) -> None:
        self.capacity = capacity
        self._store: OrderedDict[Hashable, V] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable, compute: Callable[[], V]) -> V:
        if key in self._store:
            self._store.move_to_end(key)
            self.hits += 1
            return self._store[key]
        self.misses += 1
        value = compute()
        self._store[key] = value
        if len(self._store) > self.capacity:
            self._store.popitem(last=False)
        return value

    def __contains__(self, key: Hashable) -> bool:
        return key in self._store

    def __len__(self) -> int:
        return len(self._store)


class SharedLRUMemo(LRUMemo[V]):
    """A process-wide ``LRUMemo``: safe to share between sessions (threads), bounded by ``capacity``.

    For results that are pure functions of their key and never mutated (numbers, frozen dataclasses), so
    a whole class asking for the same thing costs one computation. ``compute`` runs outside the lock, so a
    slow computation never blocks other keys; two sessions racing for one new key may both compute it.
    """

    def __init__(self, capacity: int = 64) -> None:
        super().__init__(capacity)
        self._lock = threading.Lock()

    def get(self, key: Hashable, compute: Callable[[], V]) -> V:
        with self._lock:
            if key in self._store:
                self._store.move_to_end(key)
                self.hits += 1
                return self._store[key]
            self.misses += 1
        value = compute()
        with self._lock:
            self._store[key] = value
            self._store.move_to_end(key)
            while len(self._store) > self.capacity:
                self._store.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._store.clear()
            self.hits = self.misses = 0
