"""Tokens -> syntax tree, by recursive descent with Python's precedence.

Grammar (one statement per line; newlines inside brackets are ignored)::

    statement  := NAME '=' expression | expression | definition | rule
    definition := 'def' NAME '(' NAME { ',' NAME } ')' '=' expression     # an op of your own
    rule       := 'd' NAME '/' 'd' NAME '=' expression                    # its local derivative ∂NAME/∂NAME
    expression := arith [ ('<' | '<=' | '>' | '>=' | '==' | '!=') arith ]
    arith      := term { ('+' | '-') term }
    term       := unary { ('*' | '/' | '@') unary }
    unary      := { '-' | '+' } power            # so -x**2 is -(x**2)
    power      := postfix [ '**' unary ]          # right-associative, 2**-1 works
    postfix    := atom { '(' args ')' | '[' index ']' | '.' NAME }
    atom       := NUMBER | NAME | True | False | None | '(' expression [',' ...] ')' | '[' items ']'

The parser counts syntax nodes and nesting as it goes and stops at the limit,
so a hostile input costs at most one pass over its (length-limited) tokens and
a bounded Python stack.
"""
from __future__ import annotations

import math

from lucid.expr import syntax as S
from lucid.expr.errors import ExprError, line_text
from lucid.expr.limits import Limits
from lucid.expr.tokens import Token
from lucid.i18n import L_, Message

_COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")
_KEYWORD_VALUES = {"True": True, "False": False, "None": None}


class Parser:
    def __init__(self, tokens: list[Token], source: str, limits: Limits) -> None:
        self.tokens = tokens
        self.source = source
        self.limits = limits
        self.i = 0
        self.nodes = 0
        self.nesting = 0

    # ----- helpers -----------------------------------------------------------
    def peek(self, ahead: int = 0) -> Token:
        j = self.i + ahead
        return self.tokens[j] if j < len(self.tokens) else self.tokens[-1]

    def advance(self) -> Token:
        tok = self.tokens[self.i]
        self.i = min(self.i + 1, len(self.tokens) - 1)
        return tok

    def is_op(self, text: str, ahead: int = 0) -> bool:
        tok = self.peek(ahead)
        return tok.kind == "op" and tok.text == text

    def error(self, tok: Token | S.Node, message: str | Message, kind: str = "syntax",
              length: int | None = None) -> ExprError:
        if length is None:
            length = len(tok.text) if isinstance(tok, Token) else tok.length
        return ExprError(message, tok.line, tok.col, line_text(self.source, tok.line), kind, length)

    def unexpected(self, tok: Token, wanted: str | Message) -> ExprError:
        if tok.kind in ("newline", "end"):
            return self.error(tok, L_("unexpected end of line: expected {wanted}",
                                      wanted=wanted))
        what = L_("number {text}", text=tok.text) if tok.kind == "number" else f"'{tok.text}'"
        return self.error(tok, L_("unexpected {what}: expected {wanted}",
                                  what=what, wanted=wanted))

    def expect(self, text: str) -> Token:
        if not self.is_op(text):
            raise self.unexpected(self.peek(), f"'{text}'")
        return self.advance()

    def make(self, cls: type, at: Token | S.Node, children: tuple, length: int | None = None, **fields) -> S.Node:
        """Build a node, counting it and measuring its depth against the limits."""
        self.nodes += 1
        if self.nodes > self.limits.max_syntax_nodes:
            raise self.error(at, L_("the program is too large: more than {max_syntax_nodes} syntax elements",
                                    max_syntax_nodes=self.limits.max_syntax_nodes), "limit")
        depth = 1 + max((c.depth for c in children if c is not None), default=0)
        if depth > self.limits.max_depth:
            raise self.error(at, L_("the expression is nested too deeply (more than {max_depth} levels)",
                                    max_depth=self.limits.max_depth),
                             "limit")
        if length is None:
            length = len(at.text) if isinstance(at, Token) else at.length
        return cls(at.line, at.col, length=length, depth=depth, **fields)

    def enter(self, at: Token) -> None:
        self.nesting += 1
        if self.nesting > self.limits.max_depth:
            raise self.error(at, L_("the expression is nested too deeply (more than {max_depth} levels)",
                                    max_depth=self.limits.max_depth),
                             "limit")

    # ----- statements --------------------------------------------------------
    def program(self) -> list[S.Statement]:
        statements: list[S.Statement] = []
        while self.peek().kind != "end":
            if self.peek().kind == "newline":
                self.advance()
                continue
            statements.append(self.statement())
            tok = self.peek()
            if tok.kind != "newline":
                if tok.kind == "op" and tok.text == ",":
                    raise self.error(tok, L_("unexpected ',': tuples and unpacking are not supported"))
                raise self.unexpected(tok, L_("the end of the line (one statement per line)"))
        return statements

    def statement(self) -> S.Statement:
        first = self.peek()
        if first.kind == "def":
            return self.definition()
        if self.is_rule():
            return self.rule()
        if first.kind == "name" and self.is_op("=", 1):
            self.advance()
            self.advance()
            value = self.expression()
            if self.is_op("="):
                raise self.error(self.peek(), L_("chained assignment (a = b = ...) is not supported"))
            return S.Assign(first.text, value, first.line, first.col)
        value = self.expression()
        if self.is_op("="):
            raise self.error(self.peek(), L_("can only assign to a plain name, like x = ..."))
        return S.ExprStmt(value, first.line, first.col)

    # ----- defined ops and their rules -----------------------------------------
    def definition(self) -> S.Define:
        """``def swish(x) = x * sigmoid(x)``: the name, the parameters (plain names), '=' and the formula."""
        self.advance()
        name = self.peek()
        if name.kind != "name" or name.text in _KEYWORD_VALUES:
            raise self.unexpected(name, L_("the name of your op after 'def', like def swish(x) = x * sigmoid(x)"))
        self.advance()
        if not self.is_op("("):
            raise self.unexpected(self.peek(), L_("'(' and the op's parameters, like def {name}(x) = ...",
                                                  name=name.text))
        self.advance()
        params: list[S.Param] = []
        while not self.is_op(")"):
            tok = self.peek()
            if tok.kind != "name" or tok.text in _KEYWORD_VALUES:
                raise self.unexpected(tok, L_("a parameter name"))
            if any(p.name == tok.text for p in params):
                raise self.error(tok, L_("the parameter '{name}' is listed twice", name=tok.text), "name")
            params.append(S.Param(tok.text, tok.line, tok.col))
            self.advance()
            if not self.is_op(","):
                break
            self.advance()
        close = self.expect(")")
        if not params:
            raise self.error(close, L_("{name}() needs at least one parameter, like def {name}(x) = ...",
                                       name=name.text), "argument")
        if not self.is_op("="):
            raise self.unexpected(self.peek(), L_("'=' and the op's formula, like def {name}(x) = x * sigmoid(x)",
                                                  name=name.text))
        self.advance()
        body = self.expression()
        if self.is_op("="):
            raise self.error(self.peek(), L_("chained assignment (a = b = ...) is not supported"))
        return S.Define(name.text, params, body, name.line, name.col)

    def is_rule(self) -> bool:
        """``d NAME / ...`` starts a rule: two names side by side are never an expression, so nothing is lost."""
        first, second = self.peek(), self.peek(1)
        if first.kind == "name" and first.text == "d" and second.kind == "name" and self.is_op("/", 2):
            return True
        third, fourth = self.peek(2), self.peek(3)
        squashed = (first.kind == "name" and len(first.text) > 1 and first.text.startswith("d")
                    and third.kind == "name" and len(third.text) > 1 and third.text.startswith("d"))
        if squashed and self.is_op("/", 1) and fourth.kind == "op" and fourth.text == "=":
            raise self.error(first, L_("write a derivative rule with spaces: d {op} / d {param} = ...",
                                       op=first.text[1:], param=third.text[1:]), length=_span(first, third))
        return False

    def rule(self) -> S.Rule:
        """``d swish / d x = ...``: ∂swish/∂x, one line per parameter."""
        first = self.advance()
        op = self.advance()
        self.advance()  # '/'
        d = self.peek()
        if d.kind != "name" or d.text != "d":
            raise self.unexpected(d, L_("'d', a space and the parameter, like d {op} / d x", op=op.text))
        self.advance()
        param = self.peek()
        if param.kind != "name":
            raise self.unexpected(param, L_("a parameter name"))
        self.advance()
        if not self.is_op("="):
            raise self.unexpected(self.peek(), L_("'=' and the derivative's formula, like d {op} / d {param} = ...",
                                                  op=op.text, param=param.text))
        self.advance()
        value = self.expression()
        if self.is_op("="):
            raise self.error(self.peek(), L_("chained assignment (a = b = ...) is not supported"))
        return S.Rule(op.text, param.text, value, first.line, first.col, op.line, op.col, param.line, param.col)

    # ----- expressions -------------------------------------------------------
    def expression(self) -> S.Node:
        self.enter(self.peek())
        left = self.arith()
        tok = self.peek()
        if tok.kind == "op" and tok.text in _COMPARISONS:
            self.advance()
            right = self.arith()
            left = self.make(S.Binary, tok, (left, right), op=tok.text, left=left, right=right)
            after = self.peek()
            if after.kind == "op" and after.text in _COMPARISONS:
                raise self.error(after, L_("chained comparisons (a < b < c) are not supported"))
        self.nesting -= 1
        return left

    def arith(self) -> S.Node:
        left = self.term()
        while self.peek().kind == "op" and self.peek().text in ("+", "-"):
            tok = self.advance()
            right = self.term()
            left = self.make(S.Binary, tok, (left, right), op=tok.text, left=left, right=right)
        return left

    def term(self) -> S.Node:
        left = self.unary()
        while self.peek().kind == "op" and self.peek().text in ("*", "/", "@"):
            tok = self.advance()
            right = self.unary()
            left = self.make(S.Binary, tok, (left, right), op=tok.text, left=left, right=right)
        return left

    def unary(self) -> S.Node:
        signs: list[Token] = []
        while self.peek().kind == "op" and self.peek().text in ("-", "+"):
            if len(signs) >= self.limits.max_depth:
                raise self.error(self.peek(), L_("the expression is nested too deeply (more than {max_depth} levels)",
                                                 max_depth=self.limits.max_depth), "limit")
            signs.append(self.advance())
        node = self.power()
        for tok in reversed(signs):
            if isinstance(node, S.Num):  # fold "-2" into a literal; -2**2 never reaches here as a Num
                value = -node.value if tok.text == "-" else node.value
                node = self.make(S.Num, tok, (), length=node.col - tok.col + node.length if node.line == tok.line
                                 else 1, value=value, is_int=node.is_int, text=tok.text + node.text)
            elif tok.text == "-":
                node = self.make(S.Unary, tok, (node,), op="-", operand=node)
        return node

    def power(self) -> S.Node:
        base = self.postfix()
        if self.is_op("**"):
            tok = self.advance()
            self.enter(tok)
            exponent = self.unary()
            self.nesting -= 1
            return self.make(S.Binary, tok, (base, exponent), op="**", left=base, right=exponent)
        return base

    def postfix(self) -> S.Node:
        node = self.atom()
        while True:
            tok = self.peek()
            if tok.kind != "op":
                return node
            if tok.text == "(":
                if not isinstance(node, S.Name):
                    raise self.error(tok, L_("only named functions can be called, like tanh(x)"))
                self.advance()
                args, kwargs = self.arguments()
                node = self.make(S.Call, node, tuple(args) + tuple(k.value for k in kwargs),
                                 func=node.id, args=args, kwargs=kwargs)
            elif tok.text == "[":
                self.advance()
                items, is_tuple = self.index_items(tok)
                node = self.make(S.Index, tok, (node, *items), receiver=node, items=items, is_tuple=is_tuple)
            elif tok.text == ".":
                self.advance()
                name = self.peek()
                if name.kind != "name":
                    raise self.unexpected(name, L_("a method name after '.'"))
                self.advance()
                if self.is_op("("):
                    self.advance()
                    args, kwargs = self.arguments()
                    node = self.make(S.Method, name, (node, *args, *(k.value for k in kwargs)),
                                     receiver=node, name=name.text, args=args, kwargs=kwargs)
                else:
                    node = self.make(S.Attribute, name, (node,), receiver=node, name=name.text)
            else:
                return node

    def arguments(self) -> tuple[list[S.Node], list[S.KeywordArg]]:
        args: list[S.Node] = []
        kwargs: list[S.KeywordArg] = []
        while not self.is_op(")"):
            tok = self.peek()
            if tok.kind == "name" and self.is_op("=", 1):
                self.advance()
                self.advance()
                if any(k.name == tok.text for k in kwargs):
                    raise self.error(tok, L_("keyword argument '{text}' is given twice",
                                             text=tok.text), "argument")
                kwargs.append(S.KeywordArg(tok.text, self.expression(), tok.line, tok.col))
            else:
                if tok.kind == "op" and tok.text in ("*", "**"):
                    raise self.error(tok, L_("argument unpacking with '*' or '**' is not allowed"))
                value = self.expression()
                if kwargs:
                    raise self.error(tok, L_("positional argument after a keyword argument"), "argument",
                                     length=value.length)
                args.append(value)
            if not self.is_op(","):
                break
            self.advance()
        self.expect(")")
        return args, kwargs

    def index_items(self, bracket: Token) -> tuple[list[S.Node], bool]:
        items: list[S.Node] = []
        is_tuple = False
        while not self.is_op("]"):
            items.append(self.index_item())
            if not self.is_op(","):
                break
            is_tuple = True
            self.advance()
        self.expect("]")
        if not items:
            raise self.error(bracket, L_("empty index: write x[0], x[:, 1] or x[[0, 2]]"))
        return items, is_tuple

    def index_item(self) -> S.Node:
        tok = self.peek()
        if self.is_op("..."):
            self.advance()
            return self.make(S.EllipsisNode, tok, ())
        start = None if self.is_op(":") else self.expression()
        if not self.is_op(":"):
            return start
        colon = self.advance()
        stop = step = None
        if not (self.is_op(":") or self.is_op(",") or self.is_op("]")):
            stop = self.expression()
        if self.is_op(":"):
            self.advance()
            if not (self.is_op(",") or self.is_op("]")):
                step = self.expression()
        return self.make(S.Slice, start if start is not None else colon, (start, stop, step),
                         start=start, stop=stop, step=step)

    def atom(self) -> S.Node:
        tok = self.peek()
        if tok.kind == "number":
            self.advance()
            value = float(tok.text)
            if not math.isfinite(value):
                shown = tok.text if len(tok.text) <= 24 else tok.text[:21] + "..."
                raise self.error(tok, L_("the number {shown} is too large for float64",
                                         shown=shown), "argument")
            is_int = tok.text.isdigit()
            return self.make(S.Num, tok, (), value=value, is_int=is_int, text=tok.text)
        if tok.kind == "name":
            self.advance()
            if tok.text in _KEYWORD_VALUES:
                return self.make(S.Keyword, tok, (), value=_KEYWORD_VALUES[tok.text])
            return self.make(S.Name, tok, (), id=tok.text)
        if tok.kind == "op" and tok.text == "(":
            self.advance()
            if self.is_op(")"):
                self.advance()
                return self.make(S.TupleLit, tok, (), items=[])
            first = self.expression()
            if not self.is_op(","):
                self.expect(")")
                return first
            items = [first]
            while self.is_op(","):
                self.advance()
                if self.is_op(")"):
                    break
                items.append(self.expression())
            close = self.expect(")")
            return self.make(S.TupleLit, tok, tuple(items), length=_span(tok, close), items=items)
        if tok.kind == "op" and tok.text == "[":
            self.advance()
            items: list[S.Node] = []
            while not self.is_op("]"):
                items.append(self.expression())
                if not self.is_op(","):
                    break
                self.advance()
            close = self.expect("]")
            return self.make(S.ListLit, tok, tuple(items), length=_span(tok, close), items=items)
        if tok.kind == "op" and tok.text == "...":
            raise self.error(tok, L_("'...' is only allowed inside an index, like x[..., 0]"))
        if tok.kind == "def":
            raise self.error(tok, L_("'def' can only start a line: def name(x) = formula"), length=3)
        raise self.unexpected(tok, L_("a value (a number, a name, a call or '(')"))


def _span(start: Token, end: Token) -> int:
    """Characters from ``start`` to ``end`` inclusive when on one line (else just the first)."""
    return end.col - start.col + len(end.text) if end.line == start.line else 1


def parse(tokens: list[Token], source: str, limits: Limits) -> list[S.Statement]:
    """The statements of a tokenized program (see the module docstring for the grammar)."""
    return Parser(tokens, source, limits).program()
