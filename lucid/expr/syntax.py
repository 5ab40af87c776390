"""The syntax tree of a program: small, position-carrying nodes and nothing else.

Every node remembers where it starts (``line``, ``col``) and how many
characters an error caret should cover (``length``), so each later stage can
point at the exact spot. ``depth`` is the node's height, kept so the parser can
refuse trees that would make later (recursive) passes run out of stack.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(eq=False, slots=True)
class Node:
    line: int
    col: int
    length: int = field(default=1, kw_only=True)
    depth: int = field(default=1, kw_only=True)


@dataclass(eq=False, slots=True)
class Num(Node):
    """A number literal; ``-2`` is folded into one literal (``-2**2`` is still ``-(2**2)``)."""

    value: float = 0.0
    is_int: bool = False
    text: str = ""


@dataclass(eq=False, slots=True)
class Name(Node):
    id: str = ""


@dataclass(eq=False, slots=True)
class Keyword(Node):
    """``True``, ``False`` or ``None``: only meaningful as option values."""

    value: object = None


@dataclass(eq=False, slots=True)
class Unary(Node):
    op: str = "-"
    operand: Node | None = None


@dataclass(eq=False, slots=True)
class Binary(Node):
    """``left op right`` for ``+ - * / ** @`` and comparisons; the position is the operator's."""

    op: str = "+"
    left: Node | None = None
    right: Node | None = None


@dataclass(eq=False, slots=True)
class KeywordArg:
    name: str
    value: Node
    line: int
    col: int


@dataclass(eq=False, slots=True)
class Call(Node):
    """``func(args)``; the position is the function name's."""

    func: str = ""
    args: list[Node] = field(default_factory=list)
    kwargs: list[KeywordArg] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class Method(Node):
    """``receiver.name(args)``; the position is the method name's."""

    receiver: Node | None = None
    name: str = ""
    args: list[Node] = field(default_factory=list)
    kwargs: list[KeywordArg] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class Attribute(Node):
    """``receiver.name`` without a call (only ``.T`` means anything)."""

    receiver: Node | None = None
    name: str = ""


@dataclass(eq=False, slots=True)
class Slice(Node):
    start: Node | None = None
    stop: Node | None = None
    step: Node | None = None


@dataclass(eq=False, slots=True)
class EllipsisNode(Node):
    pass


@dataclass(eq=False, slots=True)
class Index(Node):
    """``receiver[items]``; the position is the ``[``."""

    receiver: Node | None = None
    items: list[Node] = field(default_factory=list)
    is_tuple: bool = False


@dataclass(eq=False, slots=True)
class ListLit(Node):
    items: list[Node] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class TupleLit(Node):
    items: list[Node] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class Assign:
    name: str
    value: Node
    line: int
    col: int


@dataclass(eq=False, slots=True)
class ExprStmt:
    value: Node
    line: int
    col: int


@dataclass(eq=False, slots=True)
class Param:
    """A parameter of a defined op: its name and where it is written."""

    name: str
    line: int
    col: int


@dataclass(eq=False, slots=True)
class Define:
    """``def name(p, q) = body``: an op of the student's own, elementwise in its parameters.

    The position is the op's name (after ``def``); ``body`` may use only the parameters and numbers.
    """

    name: str
    params: list[Param]
    body: Node
    line: int
    col: int


@dataclass(eq=False, slots=True)
class Rule:
    """``d name / d p = expression``: the local derivative ∂name/∂p, written by the student.

    ``line``/``col`` are the statement's start (the first ``d``); ``op_*`` and ``param_*`` point at the two
    names, so an unknown op or parameter is shown where it is written.
    """

    op: str
    param: str
    value: Node
    line: int
    col: int
    op_line: int
    op_col: int
    param_line: int
    param_col: int


Statement = Assign | ExprStmt | Define | Rule
