"""The Tensor: a NumPy array plus the links that make it a node of the graph."""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from lucid._backend.core import operation


_FLOAT64 = np.dtype(np.float64)


def _as_array(data: Any, dtype: Any) -> np.ndarray:
    """``data`` as the array a Tensor holds: floating data is float64 always (see ``Tensor``)."""
    if isinstance(data, Tensor):
        data = data.data
    if dtype is not None:
        arr = np.array(data, dtype=dtype)
        # float32 or float16 asked for: widened to float64, exactly (every op computes in float64)
        return arr.astype(np.float64) if arr.dtype.kind == "f" and arr.dtype != np.float64 else arr
    arr = np.asarray(data)
    if arr.dtype != np.float64 and arr.dtype.kind in "iuf":
        arr = arr.astype(np.float64)
    elif arr.dtype.kind not in "fb":
        raise TypeError(f"cannot make a Tensor from data of type {arr.dtype}")
    return arr


class Tensor:
    """An n-dimensional array that remembers how it was computed.

    ``_op`` is the ``operation`` that produced it, ``_prev`` its inputs in order
    (duplicates kept: ``x*x`` has ``_prev == [x, x]``) and ``_backward_op`` the
    closure that pushes this tensor's gradient to them. What the node stores for
    that is ``_grad_fn``, the gradient closure its op's forward returned (upstream
    gradient in, one gradient per input out); ``_backward_op`` wraps it on demand,
    so an op call leaves one object fewer behind.

    Numbers are float64 always: integer or float32 (float16) data, and ``dtype=np.float32`` too, become float64
    (widened exactly), so every op's result and every ``.grad`` is float64 and ``gradcheck``'s central
    differences have the precision they need. Only an explicit non-floating ``dtype`` (bool, an integer type)
    is kept, for data that never requires grad.
    """

    __slots__ = ("data", "grad", "requires_grad", "name", "_op", "_prev", "_grad_fn",
                 "_retain_grad", "__weakref__")
    __array_priority__ = 1000.0  # make ``ndarray * Tensor`` call Tensor.__rmul__

    def __init__(self, data: Any, requires_grad: bool = False, dtype: Any = None, name: str | None = None) -> None:
        # Fast path first: every op result is a fresh float64 array or a float64 scalar.
        kind = data.__class__
        if dtype is None and kind is np.ndarray and data.dtype is _FLOAT64:
            self.data: np.ndarray = data
        elif dtype is None and (kind is np.float64 or kind is float or kind is int):
            self.data = np.array(data, dtype=_FLOAT64)  # a constant such as the 1 in ``1 - p``
        else:
            self.data = _as_array(data, dtype)
        if requires_grad:
            if self.data.dtype.kind != "f":
                raise TypeError(f"only floating-point tensors can require grad, not {self.data.dtype}")
            self.requires_grad: bool = True
        else:
            self.requires_grad = False
        self.grad: np.ndarray | None = None
        self.name = name
        self._op: operation | None = None
        self._prev: list[Tensor] = []
        self._grad_fn: Callable[[np.ndarray], Any] | None = None
        self._retain_grad = False

    # ----- array facts -------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    @property
    def ndim(self) -> int:
        return self.data.ndim

    @property
    def size(self) -> int:
        return self.data.size

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype

    @property
    def is_leaf(self) -> bool:
        """True for tensors made by the user rather than by an op."""
        return self._op is None

    def item(self) -> float:
        return self.data.item()

    def numpy(self) -> np.ndarray:
        return self.data

    def __len__(self) -> int:
        return len(self.data)

    def __bool__(self) -> bool:
        return bool(self.data)

    __hash__ = object.__hash__

    # ----- autograd ----------------------------------------------------------
    @property
    def _backward_op(self) -> Callable[..., None] | None:
        """The closure that pushes this tensor's gradient to its parents (None for a leaf or constant).

        ``t._backward_op()`` runs ``lucid._backend.core.push_gradient(t)``; it is made
        when asked for, from ``_grad_fn``, and holds the tensor only while it is used
        (stored on the tensor it would be a reference cycle).
        """
        if self._grad_fn is None:
            return None
        from lucid._backend.core import push_gradient  # the engine imports this module, not the reverse

        return functools.partial(push_gradient, self)

    def detach(self) -> Tensor:
        """Same values, cut from the graph."""
        return Tensor(self.data, name=self.name)

    def retain_grad(self) -> Tensor:
        """Keep this non-leaf tensor's gradient after backward (it is released otherwise)."""
        self._retain_grad = True
        return self

    def zero_grad(self) -> None:
        self.grad = None

    def backward(self, grad: Any = None, create_graph: bool = False) -> None:
        """Reverse-mode pass from this tensor; leaves' ``grad`` accumulate.

        With ``create_graph=True`` the pass is recorded and each leaf's ``grad`` is a Tensor
        (a graph node that can be differentiated again) instead of an array.

        ``lucid`` replaces this method by ``lucid.autograd.backward.run_backward``
        itself when it binds the operators (one Python call and no import
        statement per backward); this body only runs before that.
        """
        from lucid.autograd.backward import run_backward

        run_backward(self, grad, create_graph)

    def __repr__(self) -> str:
        body = np.array2string(self.data, precision=4, separator=" ", threshold=20)
        grad = "None" if self.grad is None else np.array2string(self.grad, precision=4, threshold=20)
        extra = f", name={self.name!r}" if self.name else ""
        return f"Tensor({body}, grad={grad}{extra})"

    # ----- notebook display (Jupyter, VS Code, Colab, marimo) ----------------
    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        """The graph that made this tensor as SVG (values, gradients), plus the text; text only without ``dot``."""
        from lucid.notebook.display import tensor_mimebundle  # lucid.viz is loaded only when a notebook asks

        return tensor_mimebundle(self, include, exclude)

    def _repr_svg_(self) -> str | None:
        """The graph as SVG, or None (no ``dot``, or a plain constant) so the notebook shows the text."""
        from lucid.notebook.display import tensor_svg

        return tensor_svg(self)


_new_object = object.__new__
_ndarray, _float64, _array = np.ndarray, np.float64, np.array


def tensor_from_array(data: Any) -> Tensor:
    """``Tensor(data)`` for an op's freshly computed result, built without ``Tensor.__init__``.

    Every op makes one result tensor per call, so this is a hot path: a float64
    ``ndarray`` (nearly every result) or float64 NumPy scalar gets its slots set
    directly, which skips the class call and the argument checks; anything else
    (a bool array, a Python number) goes through ``Tensor(data)``, which makes floating data float64.
    """
    kind = data.__class__
    if kind is not _ndarray:
        if kind is not _float64:
            return Tensor(data)
        data = _array(data)  # a 0-d result (a full reduction, ``-x`` of a 0-d x) decays to a NumPy scalar
    elif data.dtype is not _FLOAT64:
        return Tensor(data)
    t = _new_object(Tensor)
    t.data = data
    t.requires_grad = False
    t.grad = None
    t.name = None
    t._op = None
    t._prev = []
    t._grad_fn = None
    t._retain_grad = False
    return t


def as_tensor(value: Any) -> Tensor:
    """``value`` itself if it is a Tensor, else ``Tensor(value)``: how every op promotes its inputs.

    A Python ``float`` or ``int`` (the ``1`` in ``1 - p``, once per op call) is
    converted by ``float`` and made a 0-d float64 array directly: the same value
    ``Tensor(value)`` stores (NumPy converts a Python int to float64 the same
    way), without the constructor's argument checks.
    """
    kind = value.__class__
    if kind is Tensor:
        return value
    if kind is float or kind is int:
        return tensor_from_array(_array(float(value)))
    return value if isinstance(value, Tensor) else Tensor(value)
