"""A ``.lucid`` recording as the Playground's ``Analysis``, so the same player, inspector and exports play it.

The Playground reads one ``lucid.session.analysis.Analysis`` per program: its root, trace and node order. A
recorded PyTorch pass has all three (``replay``) but no program text, so ``RecordedProgram`` stands in for
``lucid.expr.Program``: the root as ``output`` and no inputs, variables or ``def`` ops (the inputs table,
forward mode and the rule check, which re-run a program, have nothing to run). The analysis's ``source`` is a
digest of the file, never program text: the shared caches key animations by it, so one file is laid out once
per server process however many sessions play it, and no program can share its key (a digest line is a
syntax error in the language).

Nothing here imports torch: a file plays with data and lucid alone.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from lucid._tensor.tensor import Tensor
from lucid.session.analysis import ANALYSES, Analysis
from lucid.torch.data import FileLimits, RecordedGraph, RecordingFileError, from_json
from lucid.torch.playback import replay

LIMITS = FileLimits()
"""The limits a file is held to unless a caller says otherwise."""

SOURCE_PREFIX = "@torch-recording sha256:"
"""How an analysis's ``source`` names a recording (an ``@`` at a line's start is no program's text)."""


@dataclass
class RecordedProgram:
    """What the app reads of a ``Program``, for a recording: its root, and nothing to re-run."""

    source: str
    output: Tensor
    recording: RecordedGraph
    variables: dict[str, Tensor] = field(default_factory=dict)
    inputs: list[Tensor] = field(default_factory=list)
    definitions: dict = field(default_factory=dict)


def recording_source(data: bytes) -> str:
    """The ``source`` an analysis of the file ``data`` carries: its digest, so equal files share a key."""
    return SOURCE_PREFIX + hashlib.sha256(data).hexdigest()


def is_recording(analysis: Analysis | None) -> bool:
    """Whether ``analysis`` plays a recorded PyTorch pass rather than a program."""
    return analysis is not None and isinstance(analysis.program, RecordedProgram)


def check_size(n_bytes: int, limits: FileLimits = LIMITS) -> None:
    """Refuse a file by its size alone, before a byte of it is read (``RecordingFileError``)."""
    if n_bytes > limits.max_bytes:
        raise RecordingFileError(f"the file is {n_bytes:,} bytes; a recording may be at most {limits.max_bytes:,}")


def analyze_recording(data: bytes, limits: FileLimits = LIMITS) -> Analysis:
    """The file ``data`` checked (``from_json``), replayed with torch's numbers, as an ``Analysis``.

    Raises ``RecordingFileError`` for a file that is refused, naming the field; a file that passes every
    check but still cannot be replayed (its numbers contradict each other) is refused the same way.
    """
    check_size(len(data), limits)
    graph = from_json(data, limits)
    try:
        with np.errstate(all="ignore"):
            root, trace = replay(graph)
    except (ArithmeticError, IndexError, KeyError, TypeError, ValueError) as err:
        raise RecordingFileError(f"the recording's graph cannot be played: {err}") from None
    source = recording_source(data)
    return Analysis(source, 0, RecordedProgram(source, root, graph), trace, None, list(trace.order))  # type: ignore[arg-type]


def shared_recording(data: bytes, limits: FileLimits = LIMITS) -> Analysis:
    """``analyze_recording(data)`` once per server process, in the programs' shared cache (bounded in bytes)."""
    return ANALYSES.get(("torch-recording", recording_source(data), limits), lambda: analyze_recording(data, limits))
