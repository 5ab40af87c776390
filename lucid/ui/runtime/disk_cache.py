"""``disk_cache``: the lesson pages' default experiments kept in the data folder, so a restarted server has them.

A server restart (a deploy, a crash, the machine rebooting before class) used to compute every
page's experiments again on the first visit. ``process_cache(disk=True)`` keeps each value it computes
in ``<data folder>/page-cache/`` (``LUCID_DATA_DIR``, else ``.data/`` beside ``app.py``) and reads it
back on the next server's first miss. Three rules keep that safe:

- **never stale**: every file records the ``code_version`` that wrote it (a digest of lucid's own source
  and message catalogs, NumPy's version and Python's), the function and the arguments; a file whose record
  differs in any of them is never read (and a new version's files replace the old ones as they are written);
- **never wrong**: the payload carries its own digest, so a truncated or damaged file, or one that does not
  unpickle, counts as missing: the value is computed as if there were no file (and the file is removed);
- **bounded**: a value larger than ``max_entry_bytes`` is not written, and the folder's files stay under
  ``max_bytes`` in all (the least recently used go first; a read counts as a use).

Only the server writes the folder, and it holds only what the server computed (as with the rooms' SQLite
file beside it). No Streamlit import, so it is tested without a server.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import pickle
import sys
import tempfile
from pathlib import Path
from typing import Any

_LOG = logging.getLogger(__name__)

FORMAT = 1
"""The file layout's own version (a change of layout makes every older file unreadable on purpose)."""
MAGIC = b"lucid-page-cache\n"
MAX_BYTES = 64 << 20
"""The folder's files in all: a few dozen default experiments and their drawings fit many times over."""
MAX_ENTRY_BYTES = 8 << 20
"""The largest value written (a bigger one is recomputed after a restart instead)."""
SUFFIX = ".pickle"
LUCID_ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def code_version(root: Path = LUCID_ROOT) -> str:
    """A digest of everything a cached value can depend on: lucid's source and message catalogs (by path and
    content), NumPy's version, Python's version and this file layout's ``FORMAT``."""
    import numpy as np

    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{FORMAT}|{sys.version}|{np.__version__}".encode())
    for path in sorted(p for p in root.rglob("*") if p.suffix in {".py", ".po"} and p.is_file()):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(hashlib.blake2b(path.read_bytes(), digest_size=16).digest())
    return digest.hexdigest()


def default_folder() -> Path:
    """``<data folder>/page-cache``: the data folder the rooms' file lives in (``lucid.ui.live_class.room_service``)."""
    from lucid.ui.live_class.room_service import data_dir

    return data_dir() / "page-cache"


class DiskCache:
    """Values by (name, key) in one folder, each file stamped with ``version``; see the module's rules."""

    def __init__(self, folder: Path, *, version: str, max_bytes: int = MAX_BYTES,
                 max_entry_bytes: int = MAX_ENTRY_BYTES) -> None:
        self.folder = Path(folder)
        self.version = version
        self.max_bytes = max_bytes
        self.max_entry_bytes = max_entry_bytes
        self.reads = 0
        self.writes = 0

    def path(self, name: str, key: Any) -> Path:
        """The file of ``(name, key)`` under this version (different versions never share a file)."""
        stamp = hashlib.blake2b(f"{self.version}|{name}|{key!r}".encode(), digest_size=16).hexdigest()
        return self.folder / f"{stamp}{SUFFIX}"

    def _header(self, name: str, key: Any) -> bytes:
        return json.dumps({"version": self.version, "name": name, "key": repr(key)}, sort_keys=True).encode()

    def load(self, name: str, key: Any) -> tuple[bool, Any]:
        """``(True, value)`` from this version's file of ``(name, key)``; ``(False, None)`` when there is none
        or it is not exactly what this version wrote (stale, corrupt or unreadable: then it is removed)."""
        path = self.path(name, key)
        try:
            raw = path.read_bytes()
        except OSError:
            return False, None
        try:
            value = self._decode(raw, self._header(name, key))
        except Exception as err:  # noqa: BLE001 - any damage means: compute it again
            _LOG.warning("page cache: %s is unreadable (%s); computing instead", path.name, type(err).__name__)
            with contextlib.suppress(OSError):
                path.unlink()
            return False, None
        with contextlib.suppress(OSError):
            os.utime(path)  # a read is a use: the least recently used files go first
        self.reads += 1
        return True, value

    @staticmethod
    def _decode(raw: bytes, header: bytes) -> Any:
        if not raw.startswith(MAGIC):
            raise ValueError("not a page-cache file")
        rest = raw[len(MAGIC):]
        stored_header, checksum, payload = rest.split(b"\n", 2)
        if stored_header != header:
            raise ValueError("written for another version, function or key")
        if hashlib.blake2b(payload, digest_size=32).hexdigest().encode() != checksum:
            raise ValueError("damaged payload")
        return pickle.loads(payload)  # noqa: S301 - the server's own file, checked against its digest above

    def store(self, name: str, key: Any, value: Any) -> bool:
        """Write ``value`` for ``(name, key)`` (atomically: a reader sees the old file or the new one); False
        when it cannot be pickled, is larger than ``max_entry_bytes`` or the folder cannot be written."""
        try:
            payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001 - a value that holds closures stays in memory only
            return False
        if len(payload) > self.max_entry_bytes:
            return False
        checksum = hashlib.blake2b(payload, digest_size=32).hexdigest().encode()
        data = MAGIC + self._header(name, key) + b"\n" + checksum + b"\n" + payload
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".writing-")
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                os.replace(tmp, self.path(name, key))
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError as err:
            _LOG.warning("page cache: cannot write to %s (%s)", self.folder, err)
            return False
        self.writes += 1
        self.trim()
        return True

    def files(self) -> list[Path]:
        with contextlib.suppress(OSError):
            return [p for p in self.folder.iterdir() if p.suffix == SUFFIX and p.is_file()]
        return []

    def size(self) -> int:
        """Bytes of the folder's cache files."""
        total = 0
        for path in self.files():
            with contextlib.suppress(OSError):
                total += path.stat().st_size
        return total

    def trim(self) -> None:
        """Remove the least recently used files until the rest fit in ``max_bytes``."""
        entries = []
        for path in self.files():
            with contextlib.suppress(OSError):
                stat = path.stat()
                entries.append((stat.st_mtime_ns, stat.st_size, path))
        total = sum(size for _, size, _ in entries)
        for _, size, path in sorted(entries, key=lambda e: e[0]):
            if total <= self.max_bytes:
                break
            with contextlib.suppress(OSError):
                path.unlink()
                total -= size


_DEFAULT: DiskCache | None = None


def default() -> DiskCache:
    """The server's page cache: ``default_folder()`` under this code's ``code_version()``."""
    global _DEFAULT
    folder = default_folder()
    if _DEFAULT is None or _DEFAULT.folder != folder:  # the data folder may change (a test's own folder)
        _DEFAULT = DiskCache(folder, version=code_version())
    return _DEFAULT
