"""Check backward against float64 central finite differences.

The output is reduced to a scalar ``L = Σ out · w`` with an upstream gradient
``w`` that is random by default: with all-ones upstream gradients the classic
shape-matching bugs (reshape instead of sum, repeated reductions) stay hidden.

Finite differences re-run the function twice per input number, which on a
shared server can be the most expensive thing a page does. So the loop can be
stopped from outside: ``should_stop`` is polled before every re-run (a page
passes one that turns true when its session reruns or leaves) and ``deadline``
(a ``time.monotonic()`` value) ends it with a message a person can read.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from lucid._backend.grad_mode import no_grad
from lucid._tensor.tensor import Tensor
from lucid.i18n import L_


class GradcheckCancelled(Exception):
    """``should_stop`` turned true: whoever asked for the check no longer wants it (nothing to show)."""


class GradcheckTimeLimit(ValueError):
    """The finite differences ran past their deadline; the message says how far they got."""


StopCheck = Callable[[], bool]
BatchedRunner = Callable[[np.ndarray], np.ndarray]
"""Many re-runs in one call: the input's values stacked ``(B, *shape)`` in, the outputs ``(B, *out)`` out."""


@dataclass(frozen=True)
class InputReport:
    """How one input's analytic gradient compares with the numerical one."""

    index: int
    name: str | None
    analytic: np.ndarray
    numerical: np.ndarray
    max_abs_error: float
    max_rel_error: float
    ok: bool


@dataclass(frozen=True)
class GradcheckReport:
    inputs: list[InputReport]
    upstream: np.ndarray

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.inputs)

    def __bool__(self) -> bool:
        return self.ok


def relative_error(analytic: np.ndarray, numerical: np.ndarray, floor: float = 1e-3) -> np.ndarray:
    """|a - n| / max(|a|, |n|, floor) per element.

    The ``floor`` keeps a true zero gradient honest: autodiff gives ~1e-17 there
    and finite differences ~1e-10 of noise, and dividing by either would report a
    "relative error" of 1 for two answers that agree. Below ``floor`` in
    magnitude the error is therefore measured absolutely.
    """
    scale = np.maximum(np.maximum(np.abs(analytic), np.abs(numerical)), floor)
    return np.abs(analytic - numerical) / scale


def _poll(should_stop: StopCheck | None, deadline: float | None) -> None:
    """Raise if the caller has gone away or the time is up."""
    if should_stop is not None and should_stop():
        raise GradcheckCancelled()
    if deadline is not None and time.monotonic() > deadline:
        raise GradcheckTimeLimit(L_("The finite differences were stopped at their time limit: re-running this "
                                    "program twice for every input number is too slow for a shared server. Try "
                                    "fewer input numbers or fewer operations."))


def batched_numerical_grad(run: BatchedRunner, target: Tensor, upstream: np.ndarray, eps: float = 1e-6, *,
                           rows_per_pass: int = 256, should_stop: StopCheck | None = None,
                           deadline: float | None = None) -> np.ndarray:
    """Central differences for ``target`` with many re-runs per call of ``run``.

    Row ``2j`` holds the input with element ``i_j`` set to ``x + eps``, row ``2j + 1`` to ``x - eps``,
    every other element as it is: the same perturbed inputs, one by one, as ``numerical_grad`` makes.
    """
    base = np.asarray(target.data, dtype=np.float64).reshape(-1)
    grad = np.zeros(base.size)
    pairs = max(1, rows_per_pass // 2)
    for start in range(0, base.size, pairs):
        _poll(should_stop, deadline)
        index = np.arange(start, min(base.size, start + pairs))
        rows = np.repeat(base[None, :], 2 * index.size, axis=0)
        rows[0::2][np.arange(index.size), index] = base[index] + eps
        rows[1::2][np.arange(index.size), index] = base[index] - eps
        out = np.asarray(run(rows.reshape((rows.shape[0],) + target.shape)))
        totals = (out * upstream).reshape(rows.shape[0], -1).sum(axis=1)
        grad[index] = (totals[0::2] - totals[1::2]) / (2 * eps)
    return grad.reshape(target.shape)


def numerical_grad(fn: Callable[..., Tensor], inputs: Sequence[Tensor], index: int,
                   upstream: np.ndarray, eps: float = 1e-6, *, should_stop: StopCheck | None = None,
                   deadline: float | None = None) -> np.ndarray:
    """∂(Σ fn(inputs) · upstream)/∂inputs[index] by central differences.

    Raises ``GradcheckCancelled`` as soon as ``should_stop()`` is true and
    ``GradcheckTimeLimit`` past ``deadline`` (both polled before each pair of re-runs).
    """
    target = inputs[index]
    flat = target.data.reshape(-1)  # a view: perturbing it perturbs the input
    grad = np.zeros(flat.size)
    with no_grad():
        for i in range(flat.size):
            _poll(should_stop, deadline)
            old = flat[i]
            try:
                flat[i] = old + eps
                plus = float(np.sum(fn(*inputs).data * upstream))
                flat[i] = old - eps
                minus = float(np.sum(fn(*inputs).data * upstream))
            finally:  # a re-run that raises must not leave the caller's input nudged
                flat[i] = old
            grad[i] = (plus - minus) / (2 * eps)
    return grad.reshape(target.shape)


def gradcheck(fn: Callable[..., Tensor], inputs: Sequence[Tensor], eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, grad_output: np.ndarray | str | None = "random", seed: int = 0,
              should_stop: StopCheck | None = None, time_limit: float | None = None,
              batched: Callable[[int, Sequence[Tensor]], BatchedRunner | None] | None = None,
              rows_per_pass: int = 256) -> GradcheckReport:
    """Compare ``fn``'s backward with central differences for every input that requires grad.

    ``grad_output``: ``"random"`` (default, fixed by ``seed``), ``None`` for ones,
    or an explicit array of the output's shape. ``should_stop`` and ``time_limit``
    (seconds for the whole check) end a long check early, see ``numerical_grad``.
    ``batched(i, inputs)`` may offer a runner that does ``rows_per_pass`` re-runs for input ``i`` at once
    (``Program.batched_function``); inputs it returns None for are re-run one at a time.
    """
    deadline = None if time_limit is None else time.monotonic() + time_limit
    inputs = [t if t.data.flags.writeable and t.data.flags.c_contiguous
              else Tensor(np.ascontiguousarray(t.data), requires_grad=t.requires_grad, name=t.name)
              for t in inputs]
    for t in inputs:
        t.grad = None
    out = fn(*inputs)
    if isinstance(grad_output, str):
        upstream = np.random.default_rng(seed).uniform(0.5, 1.5, out.shape) * \
            np.random.default_rng(seed + 1).choice([-1.0, 1.0], out.shape)
    elif grad_output is None:
        upstream = np.ones(out.shape)
    else:
        upstream = np.asarray(grad_output, dtype=np.float64)
    out.backward(upstream)
    reports = []
    for i, t in enumerate(inputs):
        if not t.requires_grad:
            continue
        analytic = np.zeros(t.shape) if t.grad is None else np.array(t.grad)
        runner = batched(i, inputs) if batched is not None else None
        if runner is not None:
            numerical = batched_numerical_grad(runner, t, upstream, eps, rows_per_pass=rows_per_pass,
                                               should_stop=should_stop, deadline=deadline)
        else:
            numerical = numerical_grad(fn, inputs, i, upstream, eps, should_stop=should_stop, deadline=deadline)
        abs_err = np.abs(analytic - numerical)
        rel = relative_error(analytic, numerical)
        reports.append(InputReport(i, t.name, analytic, numerical,
                                   float(abs_err.max(initial=0.0)), float(rel.max(initial=0.0)),
                                   bool(np.allclose(analytic, numerical, atol=atol, rtol=rtol))))
    return GradcheckReport(reports, upstream)
