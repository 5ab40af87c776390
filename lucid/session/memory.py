"""Give freed large arrays back to the operating system at once (glibc's malloc, Linux).

glibc serves big allocations with ``mmap`` (returned to the system on ``free``) but,
after the first such block is freed, raises that threshold up to 32 MB, so later
NumPy arrays of a few MB come from heaps that keep their memory; every script thread
gets its own heap (arena). On a server where thirty sessions run programs with
million-element arrays, that turned a 200 MB working set into well over a gigabyte
of resident memory. Fixing the threshold (which also stops its adjustment) and
capping the number of arenas keeps resident memory close to what is alive.
Elsewhere (macOS, musl) this does nothing.
"""
from __future__ import annotations

import ctypes
import ctypes.util

M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8
MMAP_THRESHOLD_BYTES = 256 * 1024
ARENAS = 4

_done: list[bool] = []


def return_large_blocks_to_os() -> bool:
    """Tune glibc's malloc once per process; True when it took effect."""
    if _done:
        return _done[0]
    ok = False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        mallopt = None
    if mallopt is not None:
        mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        mallopt.restype = ctypes.c_int
        ok = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)) and bool(mallopt(M_ARENA_MAX, ARENAS))
    _done.append(ok)
    return ok
