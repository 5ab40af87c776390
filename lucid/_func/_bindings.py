"""Everything an op is reachable by, generated from its class: ``lucid.<name>``, ``Tensor.<name>``, the language.

An op class is the one place an op is declared (``lucid/_backend/core.py``'s ``operation``): its ``name``
makes it a public function of ``lucid`` and ``lucid._func``, ``method = True`` a ``Tensor`` method too,
``aliases`` more names for both, ``summary`` the function's docstring and the language's one-line
description, and ``language`` (a ``Language``) how a program calls it (``lucid/expr/functions.py`` builds
its table entry from that). A class defined later (a test's, a lesson's) is bound the moment it is
registered, and ``unregister`` takes every binding away again.
"""
from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lucid._backend.core import ON_REGISTER, REGISTRY, op_function, operation

#: ``(name, kind)`` or ``(name, kind, default)``: one parameter of a language call; a bare name is a tensor.
ParamDecl = str | tuple[str, str] | tuple[str, str, Any]


@dataclass(frozen=True)
class Language:
    """How a program calls an op: the language's shape rule (a key of ``lucid.expr.functions.SHAPE_RULES``:
    ``"same"``, ``"broadcast"``, ``"reduce"``...) and its parameters in call order (tensors by name, options
    as ``(name, kind, default)`` with the language's kinds: ``"float"``, ``"axis"``, ``"bool"``...)."""

    shape: str
    params: tuple[ParamDecl, ...]
    varargs: str | None = None  # the option that also soaks up extra positional literals (``reshape(x, 2, 3)``)


UNARY = Language("same", ("x",))
BINARY = Language("broadcast", ("a", "b"))
REDUCTION = Language("reduce", ("x", ("axis", "axis", None), ("keepdims", "bool", False)))

#: Every op's public function by public name (aliases included), as the bindings made it.
PUBLIC: dict[str, Callable[..., Any]] = {}

#: Called with an op class when it is bound (``bind``) or with its name when it is unbound (``unregister``):
#: the language's table listens here, without the engine importing it.
ON_BIND: list[Callable[[type], None]] = []
ON_UNBIND: list[Callable[[str], None]] = []


def names_of(cls: type) -> tuple[str, ...]:
    """The public names of an op class: its name, then its aliases."""
    return (cls.name, *cls.aliases)


def _defaults_on_class(cls: type[operation]) -> bool:
    """Whether ``cls()`` is the bare instance: ``defaults_on_class`` set by a class whose ``__init__`` ``cls`` keeps."""
    owner = next(c for c in cls.__mro__ if "defaults_on_class" in c.__dict__)
    return bool(owner.__dict__["defaults_on_class"]) and cls.__init__ is owner.__init__


def public_function(cls: type[operation]) -> Callable[..., Any]:
    """``lucid.<name>``: a fresh instance per call, its options (``__init__``'s parameters) after the tensors.

    A class may write its own (``public``, a staticmethod, for a signature of its own such as
    ``reshape(x, 2, 3)``). The generated one carries the signature its parts make (``sum(a, axis=None,
    keepdims=False)``), for ``help`` and ``inspect``.
    """
    own = cls.__dict__.get("public")
    if own is not None:
        function = own.__func__ if isinstance(own, staticmethod) else own
        function.__name__ = function.__qualname__ = cls.name
        function.__module__ = "lucid"
        return function
    forward = cls.forward
    tensors = [p.replace(annotation=inspect.Parameter.empty)
               for p in list(inspect.signature(inspect.unwrap(forward)).parameters.values())[1:]]
    if cls.__init__ is object.__init__:
        function = op_function(cls, cls.name, cls.summary or None)
        options = []
    else:
        options = list(inspect.signature(cls.__init__).parameters.values())[1:]
        make = getattr(forward, "make_function", None)
        if len(tensors) == 1 and make is not None and _defaults_on_class(cls):
            function = make(cls, options=True)  # the same call in one frame, no ``__init__`` without options
        elif len(tensors) == 1:
            def function(a: Any, *args: Any, **kwargs: Any) -> Any:
                return forward(cls(*args, **kwargs), a)
        else:
            n = len(tensors)

            def function(*args: Any, **kwargs: Any) -> Any:
                return forward(cls(*args[n:], **kwargs), *args[:n])
    function.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [p.replace(kind=inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in tensors + options],
        return_annotation="Tensor")
    function.__name__ = function.__qualname__ = cls.name
    function.__module__ = "lucid"
    if cls.summary and not function.__doc__:
        function.__doc__ = cls.summary
    return function


def _namespaces() -> list[Any]:
    """The modules that hold the public functions (``lucid`` once it is importing or imported)."""
    return [sys.modules[m] for m in ("lucid._func", "lucid") if m in sys.modules]


def bind(cls: type[operation]) -> None:
    """Make a registered op reachable: public function(s), Tensor method(s), the listeners (the language)."""
    from lucid._tensor.tensor import Tensor

    function = public_function(cls)
    for name in names_of(cls):
        PUBLIC[name] = function
    for module in _namespaces():
        for name in names_of(cls):
            setattr(module, name, function)
            listed = getattr(module, "__all__", None)
            if isinstance(listed, list) and name not in listed:
                listed.append(name)
    if cls.method:
        for name in names_of(cls):
            setattr(Tensor, name, function)
    for listener in ON_BIND:
        listener(cls)


def bind_all() -> dict[str, Callable[..., Any]]:
    """Bind every registered op (the package's own, at import) and every op registered from now on."""
    for spec in list(REGISTRY.values()):
        bind(spec.cls)
    if bind not in ON_REGISTER:
        ON_REGISTER.append(bind)
    return dict(PUBLIC)


def unregister(name: str) -> None:
    """Take an op out of the registry and every binding made from it (a test's op cleans up after itself)."""
    from lucid._tensor.tensor import Tensor

    spec = REGISTRY.pop(name, None)
    if spec is None:  # never registered, or already taken away
        return
    cls = spec.cls
    for public in names_of(cls):
        PUBLIC.pop(public, None)
        for module in _namespaces():
            if getattr(module, public, None) is not None:
                delattr(module, public)
            listed = getattr(module, "__all__", None)
            if isinstance(listed, list) and public in listed:
                listed.remove(public)
        if cls.method and public in Tensor.__dict__:
            delattr(Tensor, public)
        for listener in ON_UNBIND:
            listener(public)
