"""Is the student's rule right? Each ``d f / d p`` of a defined op against central differences of its formula.

The rule of a defined op (``lucid.expr.defined``) is what the backward pass uses, right or wrong; this module
says which. For every parameter it compares, element by element, the rule's value with the float64 central
difference of the op's own formula (every op a program defines is elementwise, so one difference per
parameter gives the whole local derivative), first at the values the program itself gave the op, then at
random probe points, some of them of shapes that broadcast. At the broadcasting points it also runs the
engine's own backward step (upstream ⊙ rule, summed back to each input's shape) with a non-unit upstream
gradient and compares that with central differences of ``Σ upstream ⊙ f``.

The first failure of each parameter says where (the program's values or a probe point, the element, every
parameter's value there), the expected and the given number, and, when the error over all the points checked
has a known shape, a hint: a constant factor, a flipped sign, the input written where the op's output belongs
(or the other way round), or the rule of another parameter. A rule that is infinite or NaN where the formula
has a derivative is a failure; an element where the formula itself is undefined or has no derivative (a kink)
is skipped and counted. Nothing here raises on a student's rule.
"""
from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from lucid._backend.core import match_shape
from lucid._backend.grad_mode import no_grad
from lucid._tensor.tensor import Tensor
from lucid.expr.defined import Definition, defined_op, evaluate
from lucid.expr.limits import OP_OVERHEAD_ELEMENTS
from lucid.expr.program import Program
from lucid.i18n import L_, LN_, Message

RTOL, ATOL = 1e-4, 1e-6
"""How close a rule must be to the central difference (which is good to about 1e-9 here)."""
STEP = 1e-6
"""Central-difference step, scaled by each element's magnitude; ten times it tells a kink from a slope."""
MAX_PROGRAM_ELEMENTS = 100_000
"""A call of the op in the program with more elements than this is checked at probe points only."""
BROADCAST_SHAPES = ((2, 3), (3,), (2, 1), (1, 3), ())
"""Shapes the probe points give the parameters in turn, so every broadcasting case meets the rule."""

CHECK_BUDGET = 500_000_000
"""Work one op's check may cost, in element units (``lucid.expr.limits.OP_OVERHEAD_ELEMENTS`` per operation
plus its elements): a tenth to a third of a second (measured: a 600-operation formula of 60 parameters
checked at four points costs 4.3 × 10⁹ units and 0.8 to 2.5 s on a loaded two-core machine). A server checks
every program a student runs, so a huge formula must not take it seconds: points past the budget are left
out, and the verdict says so."""

HINTS = ("sign", "factor", "input_for_output", "output_for_input", "other_param")


@dataclass(frozen=True)
class Failure:
    """Where one rule is wrong: the first element that fails, and what the errors everywhere have in common."""

    op: str
    param: str
    kind: str
    """``wrong`` (a different number), ``nonfinite`` (inf or NaN where the formula has a derivative) or
    ``gradient`` (the backward step with broadcasting disagrees although the rule's values agree)."""
    where: str
    """``program`` (the values this program gave the op) or ``probe`` (a random point)."""
    element: tuple[int, ...]
    """The element, as an index of the op's output at that point (every parameter broadcast to it)."""
    at: dict[str, float]
    """Every parameter's value at that element (and ``out``, the op's result there)."""
    expected: float
    given: float
    shapes: dict[str, tuple[int, ...]]
    hint: str | None = None
    factor: float | None = None
    other: str | None = None
    """For the hint ``other_param``: the parameter whose derivative the rule is."""


@dataclass(frozen=True)
class OpVerdict:
    """The check of one defined op: a failure per wrong rule (none: every rule agrees)."""

    op: str
    params: tuple[str, ...]
    failures: tuple[Failure, ...] = ()
    points: int = 0
    elements: int = 0
    skipped: int = 0
    """Elements not checked: the formula is undefined there or has no derivative (a kink)."""
    left_out: int = 0
    """Points not checked because the check's work budget (``CHECK_BUDGET``) was spent."""

    @property
    def ok(self) -> bool:
        """Every rule agrees wherever it was checked, and it was checked somewhere."""
        return not self.failures and self.points > 0


@dataclass
class _Evidence:
    """What one parameter's rule gave at every valid element checked so far, beside what was expected."""

    given: list[np.ndarray] = field(default_factory=list)
    expected: list[np.ndarray] = field(default_factory=list)
    swapped_in: list[np.ndarray] = field(default_factory=list)  # the rule with the input replaced by out
    swapped_out: list[np.ndarray] = field(default_factory=list)  # the rule with out replaced by the input
    others: dict[int, list[np.ndarray]] = field(default_factory=dict)  # other parameters' expected values
    first: Failure | None = None


class _Op:
    """A definition made runnable at any shapes (its formulas are elementwise, so shape-agnostic at runtime)."""

    def __init__(self, definition: Definition) -> None:
        self.definition = definition
        self.call = defined_op(definition, definition.forward, definition.rule_formulas)

    def f(self, arrays: Sequence[np.ndarray]) -> np.ndarray:
        """The formula's values, NaN where it is undefined (never raises)."""
        shape = np.broadcast_shapes(*(np.shape(a) for a in arrays))
        try:
            with no_grad(), np.errstate(all="ignore"):
                out = evaluate(self.definition.forward, [Tensor(np.asarray(a, dtype=np.float64)) for a in arrays],
                               checked=False)
            return np.array(np.broadcast_to(np.asarray(out.data, dtype=np.float64), shape))
        except Exception:  # noqa: BLE001 - a formula undefined here is skipped, not raised
            return np.full(shape, np.nan)

    def rule(self, i: int, arrays: Sequence[np.ndarray], out: np.ndarray) -> np.ndarray:
        return self.call.rule_values(arrays, out, only=i)[i]


def _central(op: _Op, arrays: list[np.ndarray], i: int, out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """∂f/∂(parameter i) at every element of the broadcast arrays by a central difference, and where the
    formula has a derivative at all: both one-sided differences agree (|x| at 0 has a central difference of 0
    but no derivative)."""
    x = arrays[i]
    h = STEP * np.maximum(1.0, np.abs(x))
    plus, minus = list(arrays), list(arrays)
    plus[i], minus[i] = x + h, x - h
    up, down = op.f(plus), op.f(minus)
    with np.errstate(all="ignore"):
        central = (up - down) / (2 * h)
        forward, backward = (up - out) / h, (out - down) / h
        smooth = np.abs(forward - backward) <= 1e-3 * (1.0 + np.abs(central))
    return central, np.isfinite(out) & np.isfinite(central) & np.isfinite(forward) & np.isfinite(backward) & smooth


def _close(given: np.ndarray, expected: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.abs(given - expected) <= ATOL + RTOL * np.abs(expected)


def _element(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(k) for k in np.unravel_index(flat, shape)) if shape else ()


def _check_point(op: _Op, arrays: list[np.ndarray], where: str, evidence: list[_Evidence]) -> tuple[int, int]:
    """Compare every rule at one point; returns (elements checked, elements skipped)."""
    params = op.definition.params
    shape = np.broadcast_shapes(*(np.shape(a) for a in arrays))
    full = [np.array(np.broadcast_to(np.asarray(a, dtype=np.float64), shape)) for a in arrays]
    out = op.f(full)
    differences = [_central(op, full, i, out) for i in range(len(full))]
    expected = [d[0] for d in differences]
    checked = skipped = 0
    for i, name in enumerate(params):
        valid = differences[i][1]
        checked += int(valid.sum())
        skipped += int((~valid).sum())
        given = op.rule(i, full, out)
        finite = np.isfinite(given)
        bad = valid & (~finite | ~_close(np.where(finite, given, 0.0), expected[i]))
        ev = evidence[i]
        keep = valid & finite
        ev.given.append(given[keep])
        ev.expected.append(expected[i][keep])
        swapped = list(full)
        swapped[i] = out
        ev.swapped_in.append(op.rule(i, swapped, out)[keep])
        ev.swapped_out.append(op.rule(i, full, full[i])[keep])
        for j in range(len(full)):
            if j != i:
                ev.others.setdefault(j, []).append(expected[j][keep])
        if ev.first is None and bad.any():
            flat = int(np.flatnonzero(bad.reshape(-1))[0])
            at = {p: float(full[k].reshape(-1)[flat]) for k, p in enumerate(params)}
            at["out"] = float(out.reshape(-1)[flat])
            g = float(given.reshape(-1)[flat])
            ev.first = Failure(op.definition.name, name, "wrong" if np.isfinite(g) else "nonfinite", where,
                               _element(flat, shape), at, float(expected[i].reshape(-1)[flat]), g,
                               {p: tuple(np.shape(a)) for p, a in zip(params, arrays)})
    return checked, skipped


def _check_backward(op: _Op, arrays: list[np.ndarray], rng: np.random.Generator, evidence: list[_Evidence]) -> None:
    """The engine's own backward step at a broadcasting point, with a non-unit upstream gradient, against
    central differences of Σ upstream ⊙ f for every element of every input (in the input's own shape)."""
    params = op.definition.params
    shape = np.broadcast_shapes(*(np.shape(a) for a in arrays))
    upstream = rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)
    with np.errstate(all="ignore"):
        tensors = [Tensor(np.array(a, dtype=np.float64), requires_grad=True) for a in arrays]
        try:
            out = op.call(tensors)
            raw = out._grad_fn(upstream)
        except Exception:  # noqa: BLE001 - the point-by-point check reports what is wrong with the rule
            return
        for i, name in enumerate(params):
            if evidence[i].first is not None or raw[i] is None:
                continue
            given = match_shape(raw[i], np.shape(arrays[i]))[0]
            x = np.asarray(arrays[i], dtype=np.float64)
            for flat in range(x.size):
                h = STEP * max(1.0, abs(float(x.reshape(-1)[flat])))
                moved = []
                for sign in (1.0, -1.0):
                    y = x.copy().reshape(-1)
                    y[flat] += sign * h
                    args = list(arrays)
                    args[i] = y.reshape(x.shape)
                    moved.append(float(np.sum(upstream * op.f(args))))
                expected = (moved[0] - moved[1]) / (2 * h)
                value = float(np.asarray(given).reshape(-1)[flat])
                if not np.isfinite(expected):
                    continue
                if not np.isfinite(value) or not _close(np.array(value), np.array(expected)):
                    index = _element(flat, tuple(np.shape(arrays[i])))
                    evidence[i].first = Failure(op.definition.name, name, "gradient", "probe", index,
                                                {}, expected, value, {p: tuple(np.shape(a))
                                                                      for p, a in zip(params, arrays)})
                    break


def _hint(ev: _Evidence, params: Sequence[str]) -> tuple[str | None, float | None, str | None]:
    """The known shape of a rule's error over every valid element checked: sign, factor, swap, other rule."""
    if not ev.given:
        return None, None, None
    given, expected = np.concatenate(ev.given), np.concatenate(ev.expected)
    if given.size == 0:
        return None, None, None
    swapped_in, swapped_out = np.concatenate(ev.swapped_in), np.concatenate(ev.swapped_out)
    if np.all(_close(given, expected)):  # wrong only where it is not finite: no pattern to name
        return None, None, None
    if np.all(_close(-given, expected)):
        return "sign", -1.0, None
    big = np.abs(expected) > 1e-3
    if big.sum() >= 3:
        with np.errstate(all="ignore"):
            ratio = given[big] / expected[big]
        middle = float(np.median(ratio))
        if np.isfinite(middle) and middle != 0 and np.all(np.abs(ratio - middle) <= 1e-4 * abs(middle)) \
                and abs(middle - 1) > 1e-4:
            return "factor", middle, None
    with np.errstate(all="ignore"):
        if np.all(np.isfinite(swapped_in)) and np.all(_close(swapped_in, expected)) \
                and not np.all(_close(swapped_in, given)):
            return "input_for_output", None, None
        if np.all(np.isfinite(swapped_out)) and np.all(_close(swapped_out, expected)) \
                and not np.all(_close(swapped_out, given)):
            return "output_for_input", None, None
    for j, parts in ev.others.items():
        other = np.concatenate(parts)
        if other.shape == given.shape and np.all(_close(given, other)):
            return "other_param", None, params[j]
    return None, None, None


def _program_points(definition: Definition, roots: Iterable[Tensor]) -> list[list[np.ndarray]]:
    """The inputs of every call of the op in the graphs of ``roots`` (each call once)."""
    points, seen = [], set()
    stack = list(roots)
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        op = t._op
        if isinstance(op, defined_op) and op.definition is definition and t.size <= MAX_PROGRAM_ELEMENTS:
            points.append([np.asarray(p.data, dtype=np.float64) for p in t._prev])
        stack.extend(t._prev)
    return points


def _probe_points(n_params: int, rng: np.random.Generator) -> list[tuple[list[np.ndarray], bool]]:
    """(arrays, broadcasts) for the random points: signed values, positive values (log and sqrt live there),
    and shapes that broadcast against each other."""
    points = [([rng.uniform(-2.0, 2.0, (5,)) for _ in range(n_params)], False),
              ([rng.uniform(0.2, 2.0, (5,)) for _ in range(n_params)], False)]
    for offset in range(2):
        shapes = [BROADCAST_SHAPES[(k + offset) % len(BROADCAST_SHAPES)] for k in range(n_params)]
        if n_params == 1:
            shapes = [BROADCAST_SHAPES[offset]]
        points.append(([rng.uniform(0.3, 1.5, s) * rng.choice([-1.0, 1.0], s) for s in shapes], True))
    return points


def check_definition(definition: Definition, roots: Iterable[Tensor] = (), seed: int = 0) -> OpVerdict:
    """Check every rule of one defined op at the program's values (calls found under ``roots``) and at probes."""
    op = _Op(definition)
    params = definition.params
    evidence = [_Evidence() for _ in params]
    rng = np.random.default_rng(seed)
    points = elements = skipped = left_out = 0
    budget = [CHECK_BUDGET]

    def affordable(arrays: list[np.ndarray], backward: bool) -> bool:
        """Charge one point's work to the budget (a point that does not fit is left out and counted)."""
        n = int(np.prod(np.broadcast_shapes(*(np.shape(a) for a in arrays))))
        per_f = _ops(definition.forward) * (n + OP_OVERHEAD_ELEMENTS)
        per_rule = max((_ops(r) for r in definition.rule_formulas), default=0) * (n + OP_OVERHEAD_ELEMENTS)
        cost = per_f + len(params) * (3 * per_f + 3 * per_rule)
        if backward:
            cost += sum(2 * int(np.size(a)) for a in arrays) * per_f
        if cost > budget[0]:
            return False
        budget[0] -= cost
        return True

    for arrays in _program_points(definition, roots):
        if not affordable(arrays, False):
            left_out += 1
            continue
        done, missed = _check_point(op, arrays, "program", evidence)
        points, elements, skipped = points + 1, elements + done, skipped + missed
    for arrays, broadcasts in _probe_points(len(params), rng):
        if not affordable(arrays, broadcasts):
            left_out += 1
            continue
        done, missed = _check_point(op, arrays, "probe", evidence)
        points, elements, skipped = points + 1, elements + done, skipped + missed
        if broadcasts:
            _check_backward(op, arrays, rng, evidence)
    failures = []
    for ev in evidence:
        if ev.first is None:
            continue
        hint, factor, other = _hint(ev, params)
        f = ev.first
        failures.append(Failure(f.op, f.param, f.kind, f.where, f.element, f.at, f.expected, f.given, f.shapes,
                                hint, factor, other))
    return OpVerdict(definition.name, tuple(params), tuple(failures), points, elements, skipped, left_out)


def _ops(formula) -> int:
    """Operations one evaluation of a formula runs (its plan's instructions that are not leaves)."""
    return 1 + sum(1 for ins in formula.plan.instrs if ins.kind != "leaf")


def check_program(program: Program) -> list[OpVerdict]:
    """A verdict for every op the program defines, in the order of their definitions.

    Kept with the program (programs are shared by every session of a server, and so is their check): a page
    that reruns asks again for free. The check is a few hundred evaluations of small formulas.
    """
    with _LOCK:
        known = _VERDICTS.get(program)
    if known is not None:
        return known
    verdicts = [check_definition(d, [program.output, *program.variables.values()])
                for d in program.definitions.values()]
    with _LOCK:
        _VERDICTS[program] = verdicts
    return verdicts


_VERDICTS: weakref.WeakKeyDictionary[Program, list[OpVerdict]] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


# ----- what a person reads ----------------------------------------------------------------------------------

def _num(x: float) -> str:
    if not np.isfinite(x):
        return "NaN" if np.isnan(x) else ("∞" if x > 0 else "−∞")
    return f"{x:.6g}"


def _at(failure: Failure) -> str:
    parts = [f"{p} = {_num(v)}" for p, v in failure.at.items() if p != "out"]
    return ", ".join(parts)


def describe(failure: Failure) -> Message:
    """One sentence: which rule, where, expected vs given."""
    rule = f"d {failure.op} / d {failure.param}"
    if failure.kind == "gradient":
        return L_("{rule}: the backward step sends {given} to element {element} of {param} (shape {shape}), but "
                  "central differences of the formula give {expected}", rule=rule, given=_num(failure.given),
                  element=list(failure.element), param=failure.param, shape=failure.shapes.get(failure.param),
                  expected=_num(failure.expected))
    where = L_("at the program's values") if failure.where == "program" else L_("at a probe point")
    element: Message | str = ""
    if failure.element:
        shapes = list(failure.shapes.values())
        broadcast = any(shape != shapes[0] for shape in shapes)  # the index is the result's, not every input's
        element = L_(", element {element} of the op's result", element=list(failure.element)) if broadcast \
            else L_(", element {element}", element=list(failure.element))
    if failure.kind == "nonfinite":
        return L_("{rule} is wrong {where}{element} ({at}): your rule gives {given}, but the formula has the "
                  "derivative {expected} there", rule=rule, where=where, element=element, at=_at(failure),
                  given=_num(failure.given), expected=_num(failure.expected))
    return L_("{rule} is wrong {where}{element} ({at}): expected {expected} (central differences of the formula), "
              "your rule gives {given}", rule=rule, where=where, element=element, at=_at(failure),
              expected=_num(failure.expected), given=_num(failure.given))


def hint_text(failure: Failure) -> Message | None:
    """What the error has in common everywhere, in words (None when it has no known shape)."""
    hint = _hint_words(failure)
    return None if hint is None else L_("Hint: {hint}", hint=hint)


def _hint_words(failure: Failure) -> Message | None:
    if failure.hint == "sign":
        return L_("Your rule is the right value with the opposite sign everywhere: check a minus sign.")
    if failure.hint == "factor":
        factor = format(failure.factor, ".4g")
        return L_("Your rule is {factor} times the right value everywhere: a constant factor is missing or extra.",
                  factor=factor)
    if failure.hint == "input_for_output":
        return L_("Your rule would be right with out (the op's result) where you wrote {param}: the derivative "
                  "is written in terms of the output.", param=failure.param)
    if failure.hint == "output_for_input":
        return L_("Your rule would be right with {param} where you wrote out: use the input there, not the "
                  "op's result.", param=failure.param)
    if failure.hint == "other_param":
        return L_("Your rule is the derivative with respect to {other}, not {param}.", other=failure.other,
                  param=failure.param)
    return None


def summary(verdict: OpVerdict) -> Message:
    """The verdict of one op in a line."""
    if not verdict.failures and not verdict.points:
        return L_("{op}: its rules were not checked: the formula is too costly to check on a shared server.",
                  op=verdict.op)
    if verdict.ok:
        return LN_("{op}: every rule agrees with central differences of its formula ({n} element checked, at "
                   "the program's values and at random points).",
                   "{op}: every rule agrees with central differences of its formula ({n} elements checked, at "
                   "the program's values and at random points).", verdict.elements, op=verdict.op)
    wrong = ", ".join(f"d {verdict.op} / d {f.param}" for f in verdict.failures)
    return LN_("{op}: the rule {wrong} disagrees with central differences of its formula; the graph steps with your "
               "rule as written, so the gradients it sends are wrong too.",
               "{op}: the rules {wrong} disagree with central differences of its formula; the graph steps with your "
               "rules as written, so the gradients they send are wrong too.", len(verdict.failures), op=verdict.op,
               wrong=wrong)


def left_out_text(verdict: OpVerdict) -> Message | None:
    """Why some points were not checked (None when every point was)."""
    if not verdict.left_out:
        return None
    return LN_("{n} point was not checked: the formula is too costly to check everywhere on a shared server.",
               "{n} points were not checked: the formula is too costly to check everywhere on a shared server.",
               verdict.left_out)


def skipped_text(verdict: OpVerdict) -> Message | None:
    if not verdict.skipped:
        return None
    return LN_("{n} element was not checked: the formula is undefined there or has no derivative (a kink).",
               "{n} elements were not checked: the formula is undefined there or has no derivative (a kink).",
               verdict.skipped)
