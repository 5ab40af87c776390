"""A real dataset built at run time: 4 KiB chunks of the files of Python's own installation.

Each chunk gets five cheap statistics of its bytes, and the label says whether
zlib squeezes it below 30% of its size. The question "can a tiny network tell
compressible data from the statistics alone?" has a real answer on any machine
with Python, without shipping or downloading data.

The work is bounded and deterministic: the library directory is walked in
sorted order (at most ``max_files`` candidate files), a seeded generator picks
``n_chunks`` files and one aligned chunk in each, and only those bytes are read.
"""
from __future__ import annotations

import os
import sysconfig
import zlib
from pathlib import Path

import numpy as np

from lucid.data.dataset import Dataset
from lucid.i18n import L_, N_

FEATURE_NAMES = (N_("byte entropy"), N_("bigram entropy"), N_("ASCII share"), N_("unique-byte share"),
                 N_("mean run length"))
"""English names (the keys pages show translated)."""
COMPRESSED_BELOW = 0.30
_SKIP_DIRS = {"__pycache__", "site-packages", "dist-packages"}


def python_library_dir() -> Path:
    """The directory of Python's standard library (where ``os`` itself lives)."""
    here = Path(os.__file__).resolve().parent
    return here if here.is_dir() else Path(sysconfig.get_paths()["stdlib"])


def library_files(root: Path, min_size: int, max_files: int = 4000) -> list[Path]:
    """Regular files of at least ``min_size`` bytes under ``root``, in sorted walk order.

    Third-party packages and bytecode caches are skipped: the dataset is about
    Python's own files, and those directories differ between machines.
    """
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        for name in sorted(filenames):
            path = Path(dirpath) / name
            try:
                if path.is_symlink() or not path.is_file() or path.stat().st_size < min_size:
                    continue
            except OSError:
                continue
            found.append(path)
            if len(found) >= max_files:
                return found
    return found


def _entropy_bits(counts: np.ndarray) -> float:
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log2(p)).sum())


def chunk_features(chunk: bytes) -> np.ndarray:
    """The five features of one chunk, in the order of ``FEATURE_NAMES``.

    byte entropy (bits per byte, 0–8), bigram entropy (bits per byte pair,
    0–16), share of ASCII bytes (< 128), share of the 256 byte values that
    occur, and the mean length of runs of one repeated byte.
    """
    if len(chunk) < 2:
        raise ValueError("a chunk needs at least 2 bytes")
    b = np.frombuffer(chunk, dtype=np.uint8)
    bytes_hist = np.bincount(b, minlength=256)
    pairs = b[:-1].astype(np.int64) * 256 + b[1:]
    pairs_hist = np.bincount(pairs, minlength=65536)
    runs = 1 + int(np.count_nonzero(b[1:] != b[:-1]))
    return np.array([
        _entropy_bits(bytes_hist),
        _entropy_bits(pairs_hist),
        float(np.count_nonzero(b < 128)) / b.size,
        float(np.count_nonzero(bytes_hist)) / 256.0,
        b.size / runs,
    ])


def compression_ratio(chunk: bytes) -> float:
    """zlib's compressed size over the original size (default level)."""
    return len(zlib.compress(chunk)) / len(chunk)


def compresses_well(chunk: bytes) -> bool:
    """The label: zlib gets the chunk below 30% of its size."""
    return compression_ratio(chunk) < COMPRESSED_BELOW


def file_chunks(n_chunks: int = 300, chunk_size: int = 4096, seed: int = 0, root: Path | None = None,
                max_files: int = 4000) -> Dataset:
    """``n_chunks`` chunks (one per file) of Python's installation: features and labels.

    Fewer chunks come back only if the installation has fewer usable files.
    """
    if n_chunks < 1 or chunk_size < 64:
        raise ValueError("need at least 1 chunk of at least 64 bytes")
    root = python_library_dir() if root is None else Path(root)
    files = library_files(root, chunk_size, max_files)
    if not files:
        raise FileNotFoundError(f"no files of {chunk_size} bytes or more under {root}")
    rng = np.random.default_rng(seed)
    picked = sorted(rng.choice(len(files), size=min(n_chunks, len(files)), replace=False))
    rows, labels, sources = [], [], []
    for index in picked:
        path = files[index]
        try:
            n_full = path.stat().st_size // chunk_size
            offset = int(rng.integers(n_full)) * chunk_size
            with path.open("rb") as fh:
                fh.seek(offset)
                chunk = fh.read(chunk_size)
        except OSError:
            continue
        if len(chunk) != chunk_size:
            continue
        rows.append(chunk_features(chunk))
        labels.append(1.0 if compresses_well(chunk) else 0.0)
        sources.append(f"{path.relative_to(root)}@{offset}")
    X = np.array(rows, dtype=np.float64).reshape(-1, len(FEATURE_NAMES))
    y = np.array(labels, dtype=np.float64)
    return Dataset("file chunks", X, y, FEATURE_NAMES,
                   L_("{n} chunks of {size} bytes from {files} files of Python's library; label 1 = zlib "
                      "compresses the chunk below {share} of its size", n=len(rows), size=chunk_size,
                      files=len(files), share=format(COMPRESSED_BELOW, ".0%")),
                   tuple(sources))
