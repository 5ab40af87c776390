"""Hostile programs: each is refused with an ExprError, quickly, and runs nothing.

Two sentinels would record a side effect if any attack got through: a function
planted in ``builtins`` that appends to a list when called, and a file that
the shell/file attacks try to create. Both must stay untouched.
"""
from __future__ import annotations

import builtins
import tracemalloc

import pytest

from lucid.expr import ExprError, Limits, run

# {path}: a file the attack would create; lucid_sentinel: a planted builtin.
ATTACKS: dict[str, str] = {
    # ----- escapes through Python's object model --------------------------------------
    "dunder import": '__import__("os").system("touch {path}")',
    "dunder import bare": "__import__",
    "class of a tensor": "x = [1, 2]\nx.__class__",
    "subclasses walk": "x = 1\nx.__class__.__bases__[0].__subclasses__()",
    "tuple subclasses": "().__class__.__base__.__subclasses__()",
    "function globals": 'exp.__globals__["__builtins__"]',
    "function code": "tanh.__code__",
    "builtins name": "__builtins__",
    "sentinel call": "lucid_sentinel()",
    "sentinel as value": "x = lucid_sentinel",
    "sentinel via method": "x = 1\nx.lucid_sentinel()",
    "tensor data attribute": "x = randn(2)\nx.data",
    "tensor backward method": "x = randn(2)\nx.backward()",
    "tensor private op": "x = randn(2)\nx._op",
    "numpy method": "x = randn(2)\nx.numpy()",
    "method on method": "x = randn(2)\nx.sum.__self__",
    "keyword dunder": "x = randn(2)\nsum(x, __class__=1)",
    "unknown keyword": "x = randn(2)\nsum(x, out=1)",
    "dtype keyword": "randn(3, dtype=1)",
    # ----- builtins and statements ---------------------------------------------------
    "eval": 'eval("lucid_sentinel()")',
    "exec": 'exec("lucid_sentinel()")',
    "compile": "compile(1)",
    "open file": 'open("{path}", "w")',
    "print": "print(1)",
    "getattr": "x = 1\ngetattr(x, 1)",
    "globals": "globals()",
    "import statement": "import os",
    "from import": "from os import system",
    "import in expression": "x = import",
    "def": "def f(): pass",
    "class": "class A: pass",
    "lambda": "f = lambda: lucid_sentinel()",
    "lambda call": "(lambda: 1)()",
    "del": "x = 1\ndel x",
    "global": "global x",
    "with": "with x: pass",
    "try": "try: lucid_sentinel()",
    "while": "while 1: lucid_sentinel()",
    "for": "for i in x: lucid_sentinel()",
    "if": "x = 1 if 1 else 2",
    "assert": "assert 0",
    "raise": "raise 1",
    "yield": "yield 1",
    "await": "await x",
    "semicolon": "x = 1; lucid_sentinel()",
    "backslash continuation": "x = 1 + \\\n2",
    # ----- strings and formatting ------------------------------------------------------
    "string": '"hello"',
    "f-string": 'f"{lucid_sentinel()}"',
    "format method": '"{0.__class__}".format(1)',
    "percent format": '"%s" % 1',
    "bytes": "b'\\x00'",
    "single quotes": "x = 'os'",
    # ----- comprehensions, containers, walrus ----------------------------------------
    "walrus": "(y := 3)",
    "list comprehension": "[lucid_sentinel() for i in 1]",
    "dict": "{1: 2}",
    "set": "{1}",
    "starred call": "x = [1, 2]\nsum(*x)",
    "double starred call": "x = 1\nsum(**x)",
    "tuple unpacking": "a, b = 1, 2",
    "augmented assignment": "x = 1\nx += 1",
    "chained assignment": "a = b = 1",
    "subscript assignment": "x = [1, 2]\nx[0] = 5",
    "attribute assignment": "x = [1, 2]\nx.T = 5",
    "call a variable": "x = 1\nx(1)",
    "call a call": "exp(1)(2)",
    "ellipsis value": "...",
    # ----- huge numbers and powers -----------------------------------------------------
    "power tower": "9**9**9",
    "huge literal exponent": "2**100000",
    "huge exponent variable": "x = 100000\n2**x",
    "huge exponent computed": "x = 2\nx ** (10 * 1000)",
    "huge literal": "1e999",
    "huge integer literal": "9" * 400,
    "hex literal": "0x41",
    "complex literal": "1j",
    "underscore literal": "1_000",
    "overflow in power": "10.0 ** 400",
    "overflow in exp": "exp(1000)",
    # ----- huge allocations -------------------------------------------------------------
    "huge randn": "randn(100000, 100000)",
    "huge broadcast": "randn(100000, 1) + randn(1, 100000)",
    "huge zeros": "zeros(1000, 1000, 1000)",
    "huge eye": "eye(100000)",
    "huge arange": "arange(1e12)",
    "huge linspace": "linspace(0, 1, 10000000000)",
    "computed size": "zeros(10**10)",
    "huge size literal": "randn(99999999999999999999999)",
    "negative size": "randn(-1)",
    "huge matmul": "x = randn(1000, 1000)\nx @ x",
    "huge broadcast_to": "broadcast_to(randn(1), (100000, 100000))",
    "huge reshape": "x = randn(1000)\nx.reshape(1000, 1000)",
    "total elements": "\n".join(f"x{i} = randn(1000, 1000)" for i in range(9)),
    "many full-size gradients": "x = randn(1000, 1000)\n" + " + ".join(["x.sum()"] * 10),
    # ----- characters --------------------------------------------------------------------
    "fullwidth name": "\uff45\uff58\uff50(1)",
    "fullwidth variable": "x = 1\n\uff58",
    "cyrillic a": "\u0430 = 1",
    "cyrillic a in a latin name": "b\u0430d = 1",
    "hangul filler name": "\u3164 = 1",
    "zero width space": "x\u200b = 1",
    "right-to-left override": "x = 1 # \u202e lucid_sentinel()",
    "no-break space": "x =\u00a01",
    "byte order mark": "\ufeffx = 1",
    "nul byte": "x = 1\x00",
    "nul only": "\x00",
    "escape sequence": "\x1b[31mx = 1",
    "lone carriage return": "x = 1\rlucid_sentinel()",
    "form feed": "x = 1\x0c",
    "surrogate": "x = 1 # \udc80",
    "emoji in a name": "x\U0001f600 = 1",
    "variation selector in a comment": "x = 1 # \u2764\ufe0f",
    # ----- depth and length --------------------------------------------------------------
    "300 parentheses": "(" * 300 + "1" + ")" * 300,
    "300 brackets": "[" * 300 + "1" + "]" * 300,
    "100000 minus signs": "-" * 100_000 + "1",
    "5000 minus signs": "-" * 5000 + "1",
    "nested calls": "tanh(" * 100 + "1" + ")" * 100,
    "power chain": "2**" * 500 + "2",
    "long sum": "1+" * 4000 + "1",
    "long line": "1" * 100_000,
    "many lines": "x=1\n" * 400,
    "many blank lines": "\n" * 1000 + "1",
    "unclosed brackets": "(" * 9000,
    "long comment": "#" * 20_000,
    "many syntax nodes": "x=[" + ",".join(["1"] * 4500) + "]",
    "many graph nodes": "x = 1\n" + "\n".join("x = " + " + ".join(["x"] * 60) for _ in range(20)),
}


@pytest.fixture
def sentinel(monkeypatch, tmp_path):
    """A builtin that records calls, and a file path that must never appear."""
    hits: list[int] = []
    monkeypatch.setattr(builtins, "lucid_sentinel", lambda *a, **k: hits.append(1), raising=False)
    target = tmp_path / "pwned"
    return hits, target


def test_the_attack_suite_is_large_enough():
    assert len(ATTACKS) >= 60


@pytest.mark.timeout(2)  # a generous guard against hangs; typical refusals take well under 10 ms
@pytest.mark.parametrize("name", list(ATTACKS))
def test_attack_is_refused_with_an_expr_error_and_runs_nothing(name, sentinel):
    hits, target = sentinel
    source = ATTACKS[name].replace("{path}", str(target))
    with pytest.raises(ExprError) as info:
        run(source)
    err = info.value
    assert err.kind != "internal", err.message
    assert err.line >= 1 and err.col >= 1 and err.message
    assert hits == []
    assert not target.exists()


@pytest.mark.parametrize("source", [
    "randn(100000, 100000)",
    "randn(100000, 1) + randn(1, 100000)",
    "x = randn(1000, 1000)\nx @ x",
    "broadcast_to(randn(1), (100000, 100000))",
])
def test_oversized_programs_are_refused_before_any_big_array_exists(source):
    tracemalloc.start()
    try:
        with pytest.raises(ExprError) as info:
            run(source)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert info.value.kind == "limit"
    assert peak < 20_000_000  # bytes; the refused arrays would need gigabytes


def test_limits_can_be_loosened_for_a_trusted_caller():
    source = "x = randn(1000, 1000)\nx @ x"
    with pytest.raises(ExprError):
        run(source)
    program = run(source, limits=Limits(max_matmul_work=2_000_000_000))
    assert program.output.shape == (1000, 1000)


@pytest.mark.timeout(10)
@pytest.mark.parametrize("source", [
    "-" * 100_000 + "1",
    "(" * 5_000 + "1" + ")" * 5_000,
    "[" * 5_000 + "1" + "]" * 5_000,
    "x = 1\nx" + ".T" * 20_000,
    "2" + "**2" * 20_000,
    "1" + "+1" * 50_000,
])
def test_deep_inputs_stay_clean_errors_even_with_loosened_limits(source):
    """With the text limits lifted, depth is still bounded without RecursionError or MemoryError escaping."""
    loose = Limits(max_source_chars=1_000_000, max_syntax_nodes=1_000_000)
    with pytest.raises(ExprError) as info:
        run(source, limits=loose)
    assert info.value.kind == "limit"
    assert "nested too deeply" in info.value.message


@pytest.mark.timeout(10)
def test_a_recklessly_high_depth_limit_still_gives_an_expr_error():
    reckless = Limits(max_source_chars=1_000_000, max_syntax_nodes=1_000_000, max_depth=1_000_000)
    with pytest.raises(ExprError) as info:
        run("(" * 20_000 + "1" + ")" * 20_000, limits=reckless)
    assert info.value.kind == "limit"


def test_the_package_never_calls_eval_exec_compile_or_dynamic_getattr():
    """A source-level guard: the language is evaluated through tables, never through Python itself."""
    import ast
    from pathlib import Path

    import lucid.expr

    forbidden = {"eval", "exec", "compile", "getattr", "setattr", "delattr", "__import__", "globals", "vars"}
    package = Path(lucid.expr.__file__).parent
    found = []
    for path in sorted(package.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in forbidden:
                found.append(f"{path.name}:{node.lineno} {node.func.id}")
    assert found == []
