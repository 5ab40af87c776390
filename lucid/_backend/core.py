"""The operation machinery: one op = one ``operation`` subclass.

An op author writes only the math: a ``forward`` that returns
``(result_tensor, grad_function)`` and, through ``grad_function(upstream)``, one
gradient per tensor input. The ``func_op`` decorator family does every piece of
graph bookkeeping (promoting inputs, ``requires_grad``, ``_op``/``_prev``/
``_backward_op``, shape matching and accumulation), so no op can get it wrong.

Every subclass that sets ``name`` is entered in ``REGISTRY`` together with its
display symbol and formula text; the graph labels, the step explanations, the
op reference page and the gradcheck tests all read that one table.
"""
from __future__ import annotations

import functools
import math
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

from lucid._backend.grad_mode import _grad_enabled
from lucid._tensor.tensor import Tensor, as_tensor

_FLOAT64 = np.dtype(np.float64)
weakref_ref = weakref.ref
grad_enabled = _grad_enabled.get

GradFunction = Callable[[np.ndarray], Sequence["np.ndarray | None"]]
Recorder = Callable[..., None]


@dataclass(frozen=True)
class OpSpec:
    """Registry entry: what an op is called, how it is drawn and how it differentiates."""

    name: str
    symbol: str
    formula: str
    derivatives: tuple[str, ...]
    group: str
    samples: Callable[[np.random.Generator], list[Any]] | None = field(repr=False, default=None)
    cls: type = field(repr=False, default=object)


REGISTRY: dict[str, OpSpec] = {}

#: Called with each op class as it is registered: the bindings (``lucid/_func/_bindings.py``) listen here, so an
#: op declared after the package loaded (a test's, a lesson's) is a public function and a method at once.
ON_REGISTER: list[Callable[[type], None]] = []

#: Rules an op gets from its ``kind`` instead of writing them (``lucid/_func/_rules.py`` fills it):
#: ``DERIVED[kind][method name] = function``, installed on a class that does not define that method.
DERIVED: dict[str, dict[str, Callable[..., Any]]] = {}


@dataclass
class Sample:
    """Example call of an op for gradcheck: float arrays become differentiable inputs."""

    args: tuple
    kwargs: dict = field(default_factory=dict)


class operation:
    """Base of every op. A fresh instance is made per call, so it may keep state
    (parameters such as ``axis``, the output, lazily computed local derivatives)."""

    name: ClassVar[str] = ""
    symbol: ClassVar[str] = "?"
    formula: ClassVar[str] = ""
    derivatives: ClassVar[tuple[str, ...]] = ()
    group: ClassVar[str] = "other"
    # What the op is, for the rules derived from it (``DERIVED``): "elementwise" (a ``local(i, inputs, out)``
    # rule gives vjp, jvp and the trace's local derivatives), "reduction" (an elementwise ``local``, then a sum
    # over ``reduced(inputs)``), "linear" (jvp: the op applied to the tangents), "bilinear" (one term per input)
    kind: ClassVar[str] = ""
    # The bindings generated from the registry (``lucid/_func/_bindings.py``): the public function
    # ``lucid.<name>`` always; a ``Tensor`` method when ``method``; ``aliases`` are more public names;
    # ``summary`` is the one line of its docstring and of the language's table, which lists the op
    # when ``language`` (a ``Language``) says how a program calls it.
    method: ClassVar[bool] = False
    # True when ``cls()`` is ``object.__new__(cls)``: the class's own attributes (``params`` among them) are what
    # ``__init__`` sets when it is given no options, so the public function of an op with options skips
    # ``__init__`` (a Python call and a dict per op call) when it is called without any
    defaults_on_class: ClassVar[bool] = False
    aliases: ClassVar[tuple[str, ...]] = ()
    summary: ClassVar[str] = ""
    language: ClassVar[Any] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for method, derived in DERIVED.get(cls.kind, {}).items():
            if getattr(cls, method) is getattr(operation, method):  # written by the op itself: kept
                setattr(cls, method, derived)
        if "forward" in cls.__dict__ and "__call__" not in cls.__dict__:
            # op(a, b) runs the decorated forward directly (one Python frame less per op), unless a
            # base class defines its own __call__
            owner = next(base for base in cls.__mro__[1:] if "__call__" in base.__dict__)
            if owner is operation or owner.__dict__["__call__"] is owner.__dict__.get("forward"):
                cls.__call__ = cls.__dict__["forward"]
        if cls.__init__ is operation.__init__:
            # an op without parameters: ``add()`` runs the C-level object.__init__ instead of a Python
            # one (once per op call), keeps the read-only empty ``params`` of the base class, and
            # ``add(x=1)`` is still a TypeError
            cls.__init__ = object.__init__
        if cls.__dict__.get("name"):
            samples = getattr(cls, "samples", None)
            REGISTRY[cls.name] = OpSpec(cls.name, cls.symbol, cls.formula, tuple(cls.derivatives),
                                        cls.group, samples, cls)
            for listener in ON_REGISTER:
                listener(cls)

    # Per-call state. ``_result`` (weak reference(s) to the result(s)), which every call sets, is a slot; anything
    # else goes in the instance's ``__dict__``, made only when a call sets something else (``params``, ``_locals``):
    # an op such as ``add`` allocates no dict at all, where an instance dict costs an allocation per call and
    # another to free it. The class-level defaults below mean an instance stores only what it sets.
    __slots__ = ("_result", "__dict__", "__weakref__")
    _locals: Callable[[], Sequence[np.ndarray | None]] | None = None
    params: Mapping[str, Any] = MappingProxyType({})  # read-only default: an op without parameters
    # the forward node whose gradient this call helps compute, when a recorded backward pass made it
    # (``grad(..., create_graph=True)``): drawings show such nodes as the backward pass
    differentiates: Tensor | None = None

    def __init__(self, **params: Any) -> None:
        self.params = params

    @property
    def result(self) -> Tensor | tuple[Tensor, ...] | None:
        """The tensor(s) this call produced (held weakly: ``result._op`` is this op, and a
        strong link back would make every graph a reference cycle that only the GC frees)."""
        ref = getattr(self, "_result", None)  # a slot: unset until the call has made its result
        if ref is None:
            return None
        if isinstance(ref, tuple):
            return tuple(r() for r in ref)
        return ref()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def forward(self, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def chain(self, local_derivatives: Callable[[], Sequence[np.ndarray | None]]) -> GradFunction:
        """Gradient function of an elementwise op from its local derivatives.

        ``local_derivatives()`` returns ∂out/∂input per input (``None`` for inputs
        without a gradient); the chain rule multiplies each by the upstream
        gradient. The locals are kept so the backward trace can show them.
        """
        self._locals = local_derivatives

        def grad_function(upstream: np.ndarray) -> tuple[np.ndarray | None, ...]:
            ds = local_derivatives()
            if len(ds) == 1:  # the common case, spelled out: it runs once per node per backward
                return (upstream * ds[0],)
            return tuple(None if d is None else upstream * d for d in ds)

        return grad_function

    def select(self, local_derivatives: Callable[[], Sequence[np.ndarray | None]],
               grad_function: GradFunction) -> GradFunction:
        """Gradient function of an op whose local derivative blocks some elements (a 0/1 mask).

        ``grad_function`` *selects* the upstream where the branch is open and puts an exact 0
        where it is blocked, as PyTorch does (relu's backward is ``where(a > 0, upstream, 0)``):
        multiplying by the mask would turn an infinite or NaN upstream on a blocked element into
        ``inf · 0 = nan``. ``local_derivatives`` still gives the mask for the backward trace and
        its explanation, which then reads ``inf · 0 = 0``, the number the engine used.
        """
        self._locals = local_derivatives
        return grad_function

    # ∂out/∂input per input from ``(*input_tensors, out_array)``: the hottest ops declare their
    # local derivatives here, once per class, instead of building a ``_locals`` closure per call
    local_rule: ClassVar[Callable[..., Sequence[np.ndarray | None]] | None] = None

    def local_derivatives(self) -> Sequence[np.ndarray | None] | None:
        """Elementwise ∂out/∂input arrays, or None when the op is not elementwise.

        From the call's own ``_locals`` when it set one, else from the class's
        ``local_rule`` applied to the graph node this call produced (its inputs
        are the node's ``_prev``).
        """
        if self._locals is not None:
            return self._locals()
        rule = self.local_rule
        if rule is None:
            return None
        result = self.result
        if result is None or result.__class__ is tuple or result._op is not self:
            return None
        return rule(*result._prev, result.data)

    # The derivative again, written with lucid ops on Tensors (``lucid/_func/_rules.py``): what these
    # return is a graph node, so a gradient can be drawn and differentiated again. ``vjp`` is the
    # backward rule (``grad(..., create_graph=True)``), ``jvp`` the forward rule (forward mode);
    # every op in the registry with a gradient has both, most of them derived from its ``kind`` and
    # its one ``local`` rule (``DERIVED``), the rest written out (matmul's vjp, softmax's jvp).
    def vjp(self, g: Tensor, inputs: Sequence[Tensor], out: Tensor) -> Sequence[Tensor | None]:
        """One gradient per input (None where none is needed) for the output gradient ``g``."""
        raise NotImplementedError(f"{self.name or type(self).__name__} has no differentiable backward rule (vjp)")

    def jvp(self, tangents: Sequence[Tensor | None], inputs: Sequence[Tensor], out: Tensor) -> Tensor | None:
        """The output's tangent from the inputs' tangents (None for an input that has none)."""
        raise NotImplementedError(f"{self.name or type(self).__name__} has no forward-mode rule (jvp)")

    def describe(self) -> str:
        """Short label such as ``sum(axis=0)`` for graphs and explanations."""
        shown = {k: v for k, v in self.params.items() if v is not None and v is not False}
        if not shown:
            return self.symbol
        inner = ", ".join(f"{k}={_short(v)}" for k, v in shown.items())
        return f"{self.symbol}({inner})"


def masked_product(upstream: np.ndarray, local: np.ndarray) -> np.ndarray:
    """``upstream · local`` where ``local ≠ 0`` and an exact 0 where it is 0 (a blocked branch).

    The blocked elements are never multiplied, so an infinite or NaN upstream there gives 0,
    not ``inf · 0 = nan`` (and no floating-point warning under ``np.errstate(invalid="raise")``).
    """
    out = np.zeros(np.broadcast_shapes(np.shape(upstream), np.shape(local)))
    return np.multiply(upstream, local, out=out, where=local != 0)


def _short(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"array{value.shape}" if value.size > 6 else np.array2string(value, separator=",")
    text = repr(value)
    return text if len(text) <= 24 else text[:21] + "..."


_check_is_tensor = as_tensor  # DESIGN's name for promoting numbers, lists and arrays to (constant) Tensors


def match_shape(grad: np.ndarray, shape: tuple[int, ...]) -> tuple[np.ndarray, tuple[int, ...]]:
    """Bring a gradient back to an input's shape; also say which grad axes were summed.

    Broadcasting copies an input along new leading axes and along its size-1
    axes, so its gradient is the *sum* over those axes (never a reshape, which
    only looks right when the upstream gradient is all ones).
    """
    grad = np.asarray(grad)
    gshape = grad.shape
    if gshape == shape:
        return grad, ()
    if not gshape:  # a scalar gradient stands for the same value everywhere
        return np.broadcast_to(grad, shape).copy(), ()
    extra = len(gshape) - len(shape)
    if extra < 0:  # same values, fewer axes: restore the size-1 axes
        if grad.size != math.prod(shape):
            raise ValueError(f"gradient of shape {gshape} cannot match input of shape {shape}")
        return grad.reshape(shape), ()
    if extra == 1 and gshape[1:] == shape:  # the bias of a layer: one new leading axis, summed in C
        return np.add.reduce(grad, axis=0), (0,)
    axes = tuple(range(extra)) + tuple(
        extra + i for i, n in enumerate(shape) if n == 1 and gshape[extra + i] != 1)
    out = np.add.reduce(grad, axis=axes) if axes else grad  # the sum without np.sum's Python wrapper
    if out.shape != shape:
        out = out.reshape(shape)  # summed size-1 axes come back as size 1 (and bool counts stay exact)
    return out, axes


def _match_grad_shape(tensor: Tensor, grad: np.ndarray) -> np.ndarray:
    """The gradient ``grad`` brought to ``tensor``'s shape (see ``match_shape``)."""
    return match_shape(grad, tensor.data.shape)[0]


def _grad_dtype(tensor: Tensor) -> np.dtype:
    """A gradient is float64, as every tensor's floating data is (``Tensor`` widens float32 to float64)."""
    return _FLOAT64


def _set_tensor_grad(tensor: Tensor, grad: np.ndarray) -> None:
    """Accumulate (+=, never =) a gradient: a tensor used twice gets both parts.

    The first gradient is copied so two tensors never share one array; a sum
    is a new array (an array someone kept from an earlier pass never changes),
    and a 0-d sum stays an array rather than decaying to a NumPy scalar. The
    gradient stays float64 however many contributions it gets (one set by hand in float32 is widened).
    """
    current = tensor.grad
    dtype = _grad_dtype(tensor)
    if current is None:
        tensor.grad = np.array(grad, dtype=dtype)
        return
    total = current + grad  # a new array: never written into the old one
    if total.__class__ is not np.ndarray or total.dtype != dtype:  # a 0-d sum decays; a hand-set float32 widens
        # (and a ``.grad`` that backward(create_graph=True) left as a Tensor makes a Tensor sum: its values)
        total = np.asarray(total.data if total.__class__ is Tensor else total, dtype=dtype)
    tensor.grad = total


def push_gradient(node: Tensor, record: Recorder | None = None) -> None:
    """What ``node._backward_op()`` does: push ``node.grad`` to its parents, one edge at a time.

    ``node._grad_fn`` (the closure its op's forward returned) turns the node's
    gradient into one gradient per parent; each is matched to its parent's shape
    and accumulated. ``record(node, parent, slot, upstream, raw, matched, axes)``
    sees every edge (``backward_trace``). ``Tensor.backward`` runs the same steps
    inline (``lucid.autograd.backward._propagate``).
    """
    upstream = node.grad
    grads = node._grad_fn(upstream)
    for slot, (parent, raw) in enumerate(zip(node._prev, grads)):
        if raw is None or not parent.requires_grad:
            continue
        matched, axes = match_shape(raw, parent.data.shape)
        _set_tensor_grad(parent, matched)
        if record is not None:
            record(node, parent, slot, upstream, raw, matched, axes)


def func_op(n_in: int | None, n_ret: int = 1, has_gradient: bool = True) -> Callable:
    """Decorate an ``operation.forward`` with all graph bookkeeping.

    ``n_in`` tensor inputs come first (``None``: the first argument is a
    sequence of tensors, as for ``concatenate``); other arguments pass through.
    ``n_ret`` is how many ``(result, grad_function)`` pairs forward returns.
    With ``has_gradient=False`` results never require grad (comparisons).
    """

    def decorator(forward: Callable) -> Callable:
        # The wrapper runs for every op call, so it is written for speed: the common one- and
        # two-input, one-result cases get wrappers of their own, and the grad-mode lookup comes last.
        if n_ret == 1 and n_in == 1:
            def wrapper(op: operation, a: Any, *args: Any, **kwargs: Any) -> Any:
                if a.__class__ is not Tensor:
                    a = as_tensor(a)
                result, grad_function = forward(op, a, *args, **kwargs) if args or kwargs else forward(op, a)
                op._result = weakref_ref(result)  # weak: ``result._op`` is this op, and a strong link would be a cycle
                if has_gradient and a.requires_grad and grad_enabled():
                    result.requires_grad = True
                    result._op = op
                    result._prev = [a]
                    result._grad_fn = grad_function
                return result

            def make_function(cls: type, options: bool = False) -> Callable[..., Any]:
                if options:  # ``function(a, **options)`` is ``wrapper(cls(**options), a)``
                    new = object.__new__

                    def with_options(a: Any, *args: Any, **kwargs: Any) -> Any:
                        # without options, ``cls()`` is the bare instance: the class holds the defaults
                        # (see ``operation.defaults_on_class``), so ``__init__`` and its dict are skipped
                        op = cls(*args, **kwargs) if args or kwargs else new(cls)
                        if a.__class__ is not Tensor:
                            a = as_tensor(a)
                        result, grad_function = forward(op, a)
                        op._result = weakref_ref(result)
                        if has_gradient and a.requires_grad and grad_enabled():
                            result.requires_grad = True
                            result._op = op
                            result._prev = [a]
                            result._grad_fn = grad_function
                        return result
                    return with_options

                def function(a: Any, *args: Any) -> Any:  # ``wrapper(cls(), a, *args)`` in one frame
                    op = cls()
                    if a.__class__ is not Tensor:
                        a = as_tensor(a)
                    result, grad_function = forward(op, a, *args) if args else forward(op, a)
                    op._result = weakref_ref(result)
                    if has_gradient and a.requires_grad and grad_enabled():
                        result.requires_grad = True
                        result._op = op
                        result._prev = [a]
                        result._grad_fn = grad_function
                    return result
                return function
        elif n_ret == 1 and n_in == 2:
            def wrapper(op: operation, a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
                if a.__class__ is not Tensor:
                    a = as_tensor(a)
                if b.__class__ is not Tensor:
                    b = as_tensor(b)
                result, grad_function = forward(op, a, b, *args, **kwargs) if args or kwargs else forward(op, a, b)
                op._result = weakref_ref(result)
                if has_gradient and (a.requires_grad or b.requires_grad) and grad_enabled():
                    result.requires_grad = True
                    result._op = op
                    result._prev = [a, b]
                    result._grad_fn = grad_function
                return result

            def make_function(cls: type) -> Callable[[Any, Any], Any]:
                def function(a: Any, b: Any) -> Any:  # ``wrapper(cls(), a, b)`` in one frame
                    op = cls()
                    if a.__class__ is not Tensor:
                        a = as_tensor(a)
                    if b.__class__ is not Tensor:
                        b = as_tensor(b)
                    result, grad_function = forward(op, a, b)
                    op._result = weakref_ref(result)
                    if has_gradient and (a.requires_grad or b.requires_grad) and grad_enabled():
                        result.requires_grad = True
                        result._op = op
                        result._prev = [a, b]
                        result._grad_fn = grad_function
                    return result
                return function

            def make_reflected(cls: type) -> Callable[[Any, Any], Any]:
                def reflected(b: Any, a: Any) -> Any:  # ``make_function(cls)(a, b)``, arguments swapped
                    op = cls()
                    if a.__class__ is not Tensor:
                        a = as_tensor(a)
                    if b.__class__ is not Tensor:
                        b = as_tensor(b)
                    result, grad_function = forward(op, a, b)
                    op._result = weakref_ref(result)
                    if has_gradient and (a.requires_grad or b.requires_grad) and grad_enabled():
                        result.requires_grad = True
                        result._op = op
                        result._prev = [a, b]
                        result._grad_fn = grad_function
                    return result
                return reflected
        else:
            def wrapper(op: operation, *args: Any, **kwargs: Any) -> Any:
                if n_in is None:
                    tensors = [_check_is_tensor(t) for t in args[0]]
                    outs = forward(op, tensors, *args[1:], **kwargs)
                else:
                    tensors = [_check_is_tensor(t) for t in args[:n_in]]
                    outs = forward(op, *tensors, *args[n_in:], **kwargs)
                track = has_gradient and any(t.requires_grad for t in tensors) and grad_enabled()
                pairs = [outs] if n_ret == 1 else list(outs)
                results, refs = [], []
                for result, grad_function in pairs:
                    if track:
                        result.requires_grad = True
                        result._op = op
                        result._prev = tensors
                        result._grad_fn = grad_function
                    results.append(result)
                    refs.append(weakref_ref(result))
                if n_ret == 1:
                    op._result = refs[0]
                    return results[0]
                op._result = tuple(refs)
                return tuple(results)

            make_function = None

        wrapped = functools.wraps(forward)(wrapper)
        wrapped.make_function = make_function  # see ``op_function``
        wrapped.n_in = n_in  # how the op takes its tensors (None: one sequence), for rules that call it again
        wrapped.make_reflected = make_reflected if n_ret == 1 and n_in == 2 else None  # ``reflected_op_function``
        return wrapped

    return decorator


def op_function(cls: type[operation], name: str, doc: str | None = None) -> Callable:
    """The public function of an op without parameters: ``add(a, b)`` is ``add.forward(add(), a, b)``.

    Same result and the same graph (a fresh ``cls()`` per call), but the instance is
    made inside the decorated forward's own bookkeeping frame, one Python call less
    per op than a ``def`` that builds the instance and calls ``forward``. Falls back
    to that ``def`` for ops whose ``forward`` has no one-frame form.
    """
    make = getattr(cls.forward, "make_function", None)
    if make is not None and cls.__init__ is object.__init__:
        function = make(cls)
        function.make_reflected = cls.forward.make_reflected  # see ``reflected_op_function``
    else:
        forward = cls.forward

        def function(*args: Any) -> Any:
            return forward(cls(), *args)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    function.op_class = cls
    return function


def reflected_op_function(function: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """``lambda b, a: function(a, b)``: a reflected operator (``1 - p`` runs ``p.__rsub__(1)``).

    An operator's method is called from C, so a Python wrapper around the op function
    costs a whole extra call on every use. For a two-input op function made by
    ``op_function`` the swapped version is built the same way instead, in one frame.
    """
    make = getattr(function, "make_reflected", None)
    if make is not None:
        reflected = make(function.op_class)
    else:
        def reflected(b: Any, a: Any) -> Any:
            return function(a, b)
    name = function.__name__
    reflected.__name__ = reflected.__qualname__ = f"reflected_{name}"
    reflected.__doc__ = f"``{name}(a, b)`` with its arguments swapped, for a reflected operator."
    return reflected


def unary_func_op(has_gradient: bool = True) -> Callable:
    """``func_op`` for one tensor input and one result."""
    return func_op(1, 1, has_gradient)


def binary_func_op(has_gradient: bool = True) -> Callable:
    """``func_op`` for two tensor inputs and one result."""
    return func_op(2, 1, has_gradient)


def poly_func_op(has_gradient: bool = True) -> Callable:
    """``func_op`` for a sequence of tensor inputs and one result."""
    return func_op(None, 1, has_gradient)
