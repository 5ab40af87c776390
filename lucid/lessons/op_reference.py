"""The op reference, generated from ``lucid.REGISTRY``, with a live gradcheck per op.

``check_op`` runs every registry sample of one op through ``gradcheck``
(float64 central differences, random non-ones upstream gradient); the Op
reference page and ``tests/lessons/test_op_reference.py`` both call it, so what
the page shows as ✓ is exactly what the test asserts.

The registry's text (formulas, derivative rules, group names) is English where it has words. ``reference_rows``
gives it as registered; ``translated_rows`` gives it in the current language: each text with words is a
message of the Korean catalog (``lessons.po``), and ``registry_texts`` lists what needs one (a test checks it).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import lucid
from lucid._backend.core import REGISTRY, OpSpec, Sample
from lucid._tensor.tensor import Tensor
from lucid.autograd.gradcheck import gradcheck
from lucid.i18n import N_, _


def op_function(name: str) -> Callable[..., Tensor]:
    """The public function of a registered op (``lucid.add`` for ``"add"``).

    Only names that are registry keys are looked up, never free text.
    """
    if name not in REGISTRY:
        raise KeyError(f"{name!r} is not a registered op")
    fn = getattr(lucid, REGISTRY[name].name, None)
    if not callable(fn):
        raise KeyError(f"op {name!r} has no public function lucid.{name}")
    return fn


def sample_inputs(sample: Sample) -> tuple[list[Tensor], Callable[[Callable[..., Tensor]], Callable[..., Tensor]]]:
    """Split a sample into differentiable inputs and a function of them.

    Float ndarrays (also inside a list argument, as for ``concatenate``)
    become Tensors that require grad; everything else (integer targets,
    boolean conditions, indices) is passed through unchanged. Returns
    ``(inputs, bind)`` where ``bind(fn)`` gives ``run(*inputs)``.
    """
    inputs: list[Tensor] = []
    template: list[tuple[str, Any]] = []
    for arg in sample.args:
        if isinstance(arg, list):
            slots = []
            for item in arg:
                inputs.append(Tensor(np.array(item, dtype=np.float64), requires_grad=True))
                slots.append(len(inputs) - 1)
            template.append(("list", slots))
        elif isinstance(arg, np.ndarray) and arg.dtype.kind == "f":
            inputs.append(Tensor(arg.copy(), requires_grad=True))
            template.append(("tensor", len(inputs) - 1))
        else:
            template.append(("raw", arg))

    def bind(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
        def run(*tensors: Tensor) -> Tensor:
            args = [[tensors[j] for j in value] if kind == "list" else tensors[value] if kind == "tensor"
                    else value for kind, value in template]
            return fn(*args, **sample.kwargs)
        return run

    return inputs, bind


@dataclass(frozen=True)
class OpCheck:
    """Gradcheck of all of one op's samples: the worst error over every input element."""

    name: str
    samples: int
    inputs_checked: int
    max_abs_error: float
    max_rel_error: float
    ok: bool | None  # None: the op has no gradient (comparisons)
    error: str = ""

    @property
    def status(self) -> str:
        """The gradcheck verdict as a key (English, starting with ✓, ✗ or —); show it through ``_``."""
        if self.ok is None:
            return N_("— no gradient")
        return N_("✓ passes") if self.ok else N_("✗ FAILS")


def check_samples(name: str, fn: Callable[..., Tensor], samples: Sequence[Sample], seed: int = 0) -> OpCheck:
    """Gradcheck ``fn`` on each sample; a crash counts as a failure with its message."""
    worst_abs = worst_rel = 0.0
    checked = 0
    ok = True
    try:
        for sample in samples:
            inputs, bind = sample_inputs(sample)
            report = gradcheck(bind(fn), inputs, seed=seed)
            for item in report.inputs:
                checked += 1
                worst_abs = max(worst_abs, item.max_abs_error)
                worst_rel = max(worst_rel, item.max_rel_error)
                ok = ok and item.ok
    except Exception as err:  # a crashing op is a failing op, shown on the page
        return OpCheck(name, len(samples), checked, worst_abs, worst_rel, False, f"{type(err).__name__}: {err}")
    return OpCheck(name, len(samples), checked, worst_abs, worst_rel, ok and checked > 0)


def check_op(name: str, seed: int = 0) -> OpCheck:
    """Run every registry sample of op ``name`` (drawn with ``seed``) through ``gradcheck``."""
    spec = REGISTRY[name]
    if spec.samples is None:
        return OpCheck(name, 0, 0, 0.0, 0.0, None)
    return check_samples(name, op_function(name), spec.samples(np.random.default_rng(seed)), seed)


def check_all(seed: int = 0, names: Sequence[str] | None = None) -> dict[str, OpCheck]:
    """``check_op`` for every registered op (or the given ones), by name."""
    return {name: check_op(name, seed) for name in (names or sorted(REGISTRY))}


def reference_rows(specs: Sequence[OpSpec] | None = None) -> list[dict[str, str]]:
    """One row per op, grouped and sorted: name, symbol, group, forward and derivative formulas."""
    specs = list(REGISTRY.values()) if specs is None else list(specs)
    specs.sort(key=lambda s: (s.group, s.name))
    return [{"op": s.name, "symbol": s.symbol, "group": s.group, "forward": s.formula,
             "derivatives": "\n".join(s.derivatives)} for s in specs]


#: Words the registry's formulas use as notation (functions and parameter names), not prose. Conditions
#: (``1 if a > 0 else 0``, ``0 where b = 0``) count as prose: a Korean sentence orders them differently.
NOTATION = frozenset({"out", "max", "min", "sign", "cos", "sin", "tanh", "ln", "log", "exp", "softmax", "log_softmax",
                      "reshape", "shape", "slope", "low", "high", "cond", "zeros", "axis", "index", "logits", "BCE"})
_WORD = re.compile(r"[A-Za-z_]{2,}")


def has_prose(text: str) -> bool:
    """Whether a registry text has words a reader must understand (not just symbols and notation)."""
    return any(word not in NOTATION for word in _WORD.findall(text))


def registry_texts(specs: Sequence[OpSpec] | None = None) -> list[str]:
    """Every group name, formula and derivative rule of the registry that has prose: each needs a translation."""
    specs = list(REGISTRY.values()) if specs is None else list(specs)
    texts = [s.group for s in specs] + [t for s in specs for t in (s.formula, *s.derivatives) if has_prose(t)]
    return list(dict.fromkeys(texts))


def translated_rows(specs: Sequence[OpSpec] | None = None) -> list[dict[str, str]]:
    """``reference_rows`` with the formulas and rules in the current language (``group`` stays the English key)."""
    rows = reference_rows(specs)
    for row in rows:
        row["forward"] = _(row["forward"]) if has_prose(row["forward"]) else row["forward"]
        row["derivatives"] = "\n".join(_(t) if has_prose(t) else t for t in row["derivatives"].split("\n"))
    return rows
