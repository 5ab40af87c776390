"""``process_cache``: the pages' drop-in for ``st.cache_data``/``st.cache_resource`` that no client can clear.

Streamlit's caches are global to the server, and any websocket client may send the
``clear_cache`` message (the browser's "Clear cache" menu item sends it): Streamlit
then empties ``st.cache_data`` and ``st.cache_resource`` for every session, so one
student can make the whole class recompute every page's shared work, at will.
Patching Streamlit's message handler would depend on its private internals; keeping
shared work out of Streamlit's caches depends on nothing. So the app keeps it in
``SharedCache`` instances that only the server's own code can clear (the clear message
still resets the sender's own session state, as Streamlit intends).

A page script runs again on every rerun, so a cache defined in it would be new each
time: ``process_cache`` keeps one ``SharedCache`` per decorated function for the whole
process, found again by where the function is defined and its code.
"""
from __future__ import annotations

import functools
import hashlib
import threading
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from lucid.i18n import _, current_language
from lucid.session.memo import SharedCache, WaitCancelled

F = TypeVar("F", bound=Callable[..., Any])

_CACHES: dict[tuple[str, str, str], SharedCache] = {}
_LOCK = threading.Lock()


def _identity(fn: Callable) -> tuple[str, str, str]:
    """Where ``fn`` is defined and a digest of its code: the same function across reruns of a page, and a
    different one after its code changed (so an edited page during development never reads stale values)."""
    digest = hashlib.blake2b(digest_size=8)
    _feed(digest, fn.__code__)
    return fn.__code__.co_filename, fn.__qualname__, digest.hexdigest()


def _feed(digest, code) -> None:
    """Bytecode, names and constants of ``code`` and of the code nested in it (a nested code object's repr
    holds its memory address, which changes on every rerun of a page)."""
    digest.update(code.co_code)
    digest.update(repr(code.co_names).encode())
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            _feed(digest, const)
        else:
            digest.update(repr(const).encode())


def cache_of(fn: Callable) -> SharedCache:
    """The process-wide cache behind a ``process_cache``-decorated function (for tests and counters)."""
    return fn.cache  # type: ignore[attr-defined]


def holds(fn: Callable, *args: Hashable, **kwargs: Hashable) -> bool:
    """Whether the cache behind a ``process_cache``-decorated ``fn`` holds its value for these arguments
    (nothing is computed)."""
    return _key(args, kwargs) in cache_of(fn)


def _key(args: tuple, kwargs: dict) -> Hashable:
    """The arguments, and the language of the run asking: a cached value may hold text (a caption, a
    graph's legend), written in the language of whoever computed it."""
    return current_language(), args, tuple(sorted(kwargs.items()))


def process_cache(*, max_entries: int = 64, max_bytes: int | None = None,
                  sizeof: Callable[[Any], int] | None = None, spinner: str | None = None,
                  disk: bool = False) -> Callable[[F], F]:
    """Memoize a function of hashable arguments for the whole server process, shared by every session.

    Values are shared by reference, never copied: callers treat them as read-only (as with
    ``st.cache_resource``). ``spinner``: text shown while this session computes or waits for the value.
    ``disk``: also keep each (picklable) value in the data folder across restarts (``lucid.ui.runtime.disk_cache``).
    """
    def decorate(fn: F) -> F:
        where = _identity(fn)
        with _LOCK:
            cache = _CACHES.get(where)
            if cache is None:
                cache = _CACHES[where] = SharedCache(max_entries=max_entries, max_bytes=max_bytes, sizeof=sizeof)
        name = f"{fn.__module__}.{fn.__qualname__}.{where[2]}"

        @functools.wraps(fn)
        def cached(*args: Hashable, **kwargs: Hashable) -> Any:
            key = _key(args, kwargs)
            # without a disk the call is fn's own, as deep in the stack as ever (a lesson measures its depth)
            compute = ((lambda: _from_disk_or_compute(name, key, lambda: fn(*args, **kwargs))) if disk
                       else (lambda: fn(*args, **kwargs)))
            if spinner is None or key in cache or not _in_script_run():  # the warm-up's thread shows nothing
                return _get(cache, key, compute)
            import streamlit as st

            with st.spinner(_(spinner)):
                return _get(cache, key, compute)

        cached.cache = cache  # type: ignore[attr-defined]
        return cached  # type: ignore[return-value]
    return decorate


def _in_script_run() -> bool:
    """Whether this thread runs a page's script (a spinner has a page to appear on)."""
    from lucid.ui.runtime import streamlit_internals

    return streamlit_internals.script_run_context() is not None


def _from_disk_or_compute(name: str, key: Hashable, compute: Callable[[], Any]) -> Any:
    """The value the data folder keeps for ``(name, key)`` under this code's version, else ``compute()``'s
    (then written there for the next server). The folder failing in any way only means computing."""
    from lucid.ui.runtime import disk_cache

    try:
        store = disk_cache.default()
        found, value = store.load(name, key)
    except Exception:  # noqa: BLE001 - no folder, no version: compute as without a disk cache
        store, found, value = None, False, None
    if found:
        return value
    value = compute()
    if store is not None:
        store.store(name, key, value)
    return value


def _get(cache: SharedCache, key: Hashable, compute: Callable[[], Any]) -> Any:
    """``cache.get`` for a page: while this session waits for another's computation, a click or a closed tab
    ends its wait (and its script run) at once, and never the computation the others wait for."""
    from lucid.ui.runtime.cancel import session_should_stop

    try:
        return cache.get(key, compute, should_stop=session_should_stop())
    except WaitCancelled:
        import streamlit as st

        st.stop()  # this session is rerunning or gone: its next run asks again
        raise
