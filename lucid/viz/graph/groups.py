"""Group tags: which named part of a program (a neuron, a layer, a sample) each tensor belongs to.

A drawing of thousands of scalar nodes is only readable collapsed into the parts a
person thinks in. Code that builds a model knows those parts; this module lets it
say so without touching the engine: ``Tensor`` has fixed slots, so tags live in a
side table keyed by the tensor's identity (with a weak reference, so a tag never
keeps a graph alive and a reused ``id`` never inherits a stale tag).

    with group("sample 3"):
        with group("hidden neuron 0"):
            h = neuron(x)
            tag_subgraph(h, stop=x)        # everything h was computed from, back to x

tags the tensors that made ``h`` with the path ``("sample 3", "hidden neuron 0")``.
Inner tags win: ``tag_subgraph`` never re-tags a tensor that already has a path, so
tagging the inner part first and the outer part afterwards nests them.
"""
from __future__ import annotations

import contextlib
import contextvars
import weakref
from collections.abc import Iterable, Iterator

from lucid._tensor.tensor import Tensor

Path = tuple[str, ...]

_scope: contextvars.ContextVar[Path] = contextvars.ContextVar("lucid_viz_group", default=())
_tags: dict[int, tuple[weakref.ref, Path]] = {}


@contextlib.contextmanager
def group(name: str) -> Iterator[Path]:
    """Open a named group inside the current one; yields the full path (outer names first)."""
    name = str(name).strip()
    if not name or "/" in name:
        raise ValueError(f"a group name must be non-empty and contain no '/': {name!r}")
    path = _scope.get() + (name,)
    token = _scope.set(path)
    try:
        yield path
    finally:
        _scope.reset(token)


def tag(tensors: Tensor | Iterable[Tensor], path: Path | str | None = None, *, overwrite: bool = True) -> None:
    """Put ``tensors`` in group ``path`` (a tuple, or ``"a/b"``; default: the current ``group``)."""
    path = _as_path(path)
    for t in [tensors] if isinstance(tensors, Tensor) else tensors:
        if overwrite or group_of(t) is None:
            _tags[id(t)] = (weakref.ref(t, _forget(id(t))), path)


def tag_subgraph(outputs: Tensor | Iterable[Tensor], stop: Iterable[Tensor] = (), path: Path | str | None = None,
                 ) -> int:
    """Tag every untagged tensor that ``outputs`` were computed from, not crossing ``stop``.

    The walk goes back along ``_prev`` from the outputs, does not enter tensors in
    ``stop`` (typically the part's inputs) and does not enter tensors that already
    have a tag (an inner part, or an earlier part that shares them). Returns how many
    tensors it tagged.
    """
    path = _as_path(path)
    outs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    seen = {id(t) for t in stop}
    stack = [t for t in outs if id(t) not in seen]
    count = 0
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        if group_of(t) is not None:
            continue
        _tags[id(t)] = (weakref.ref(t, _forget(id(t))), path)
        count += 1
        stack.extend(p for p in t._prev if id(p) not in seen)
    return count


def group_of(tensor: Tensor) -> Path | None:
    """The path ``tensor`` was tagged with, or None."""
    entry = _tags.get(id(tensor))
    if entry is None or entry[0]() is not tensor:
        return None
    return entry[1]


def _as_path(path: Path | str | None) -> Path:
    if path is None:
        return _scope.get()
    if isinstance(path, str):
        path = tuple(p for p in path.split("/") if p)
    return tuple(str(p) for p in path)


def _forget(key: int):
    def drop(ref: weakref.ref) -> None:
        entry = _tags.get(key)
        if entry is not None and entry[0] is ref:
            del _tags[key]
    return drop
