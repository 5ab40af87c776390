"""A small least-recently-used memo that lives in one browser session.

Streamlit's ``st.cache_data`` pickles results (graphs hold closures) and
``st.cache_resource`` would share mutable Tensors between sessions; a per-session
LRU keeps each classroom laptop's graphs its own while stepping through them
never recomputes anything. No Streamlit import: the page keeps one in session state.
"""
from __future__ import annotations

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
