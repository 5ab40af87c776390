"""Memos: a small per-session LRU, and a bounded process-wide cache that computes each key once.

``LRUMemo`` lives in one browser session (the page keeps it in session state).
``SharedCache`` lives in the server process: the same (program, seed, options)
asked for by many sessions is computed once and shared by reference. Streamlit's
``st.cache_data`` would pickle results (graphs hold closures) and copy them per
session; here values are shared read-only, bounded by entries, bytes and age.
No Streamlit import, so both are tested without a server.
"""
from __future__ import annotations

import threading
import time
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


class SharedCache(Generic[V]):
    """A process-wide memo shared by every session: bounded in entries, bytes and age, computed once per key.

    Thirty students opening the teacher's link ask for the same key at once: the first computes, the
    other 29 wait for that one result (never 30 computations). ``max_concurrent`` bounds how many
    different keys compute at the same time, so many large programs at once cannot stack their peak
    memory. Values are shared, never copied: callers must treat them as read-only. ``sizeof`` tells the
    bytes a value keeps alive; the least recently used entries go when the total passes ``max_bytes``.
    A value larger than ``max_bytes`` on its own is returned but not kept.
    """

    def __init__(self, *, max_entries: int = 64, max_bytes: int | None = None, ttl_seconds: float | None = None,
                 sizeof: Callable[[V], int] | None = None, max_concurrent: int | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.ttl_seconds = ttl_seconds
        self._sizeof = sizeof or (lambda _: 0)
        self._clock = clock
        self._lock = threading.Lock()
        self._store: OrderedDict[Hashable, tuple[V, int, float]] = OrderedDict()
        self._inflight: dict[Hashable, _Flight[V]] = {}
        self._slots = threading.BoundedSemaphore(max_concurrent) if max_concurrent else None
        self.bytes = 0
        self.hits = 0
        self.computations = 0

    def get(self, key: Hashable, compute: Callable[[], V]) -> V:
        with self._lock:
            found = self._lookup(key)
            if found is not None:
                self.hits += 1
                return found[0]
            flight = self._inflight.get(key)
            owner = flight is None
            if owner:
                flight = self._inflight[key] = _Flight()
        if not owner:
            return flight.wait()
        try:
            if self._slots is not None:
                self._slots.acquire()
            try:
                with self._lock:
                    self.computations += 1
                value = compute()
            finally:
                if self._slots is not None:
                    self._slots.release()
        except BaseException as err:
            with self._lock:
                del self._inflight[key]
            flight.fail(err)
            raise
        size = int(self._sizeof(value))
        with self._lock:
            del self._inflight[key]
            if self.max_bytes is None or size <= self.max_bytes:
                self._store[key] = (value, size, self._clock())
                self.bytes += size
                self._evict()
        flight.done(value)
        return value

    def _lookup(self, key: Hashable) -> tuple[V, int, float] | None:
        entry = self._store.get(key)
        if entry is None:
            return None
        if self.ttl_seconds is not None and self._clock() - entry[2] > self.ttl_seconds:
            self._drop(key)
            return None
        self._store.move_to_end(key)
        return entry

    def _drop(self, key: Hashable) -> None:
        _, size, _ = self._store.pop(key)
        self.bytes -= size

    def _evict(self) -> None:
        now = self._clock()
        if self.ttl_seconds is not None:
            for key in [k for k, (_, _, at) in self._store.items() if now - at > self.ttl_seconds]:
                self._drop(key)
        while len(self._store) > self.max_entries or (self.max_bytes is not None and self.bytes > self.max_bytes
                                                      and len(self._store) > 1):
            self._drop(next(iter(self._store)))

    def clear(self) -> None:
        with self._lock:
            self._store.clear()
            self.bytes = 0

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return self._lookup(key) is not None

    def __len__(self) -> int:
        return len(self._store)


class _Flight(Generic[V]):
    """One computation in progress that other callers wait for."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._value: V | None = None
        self._error: BaseException | None = None

    def done(self, value: V) -> None:
        self._value = value
        self._event.set()

    def fail(self, error: BaseException) -> None:
        self._error = error
        self._event.set()

    def wait(self) -> V:
        self._event.wait()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]
