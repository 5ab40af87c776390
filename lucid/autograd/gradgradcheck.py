"""Second-order gradient checking: the derivative of the gradient, against central differences.

``gradgradcheck(fn, inputs)`` treats the first-order gradient itself as a function,
``(x, u) ↦ ∂(Σ fn(x) · u)/∂x`` computed with ``grad(..., create_graph=True)``, and runs
``gradcheck`` on it: its backward (each op's ``vjp`` rule differentiated again) must agree with
central differences of the gradient, with respect to the inputs ``x`` and the upstream
gradient ``u``. Both ``u`` and the check's own upstream gradient are random, never all ones.
It also checks that the recorded gradient has the same values as the first-order pass.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from lucid._backend.grad_mode import enable_grad
from lucid._func import concatenate, reshape
from lucid._tensor.tensor import Tensor
from lucid.autograd.grad import grad
from lucid.autograd.gradcheck import GradcheckReport, gradcheck


@dataclass(frozen=True)
class GradGradReport:
    """How the recorded gradient and its own derivative compare with the references."""

    first_order_error: float  # recorded gradient vs. the NumPy first-order pass, max |difference|
    first_order_ok: bool
    second_order: GradcheckReport  # derivatives of the gradient vs. central differences

    @property
    def ok(self) -> bool:
        return self.first_order_ok and self.second_order.ok

    def __bool__(self) -> bool:
        return self.ok


def random_upstream(shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Values of both signs with magnitudes in [0.5, 1.5]: no upstream gradient of all ones."""
    rng = np.random.default_rng(seed)
    return rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)


def gradgradcheck(fn: Callable[..., Tensor], inputs: Sequence[Tensor], eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, seed: int = 0) -> GradGradReport:
    """Check ``fn``'s second derivatives (and its recorded first derivatives) for the inputs that require grad."""
    inputs = list(inputs)
    wanted = [i for i, t in enumerate(inputs) if t.requires_grad]
    if not wanted:
        raise ValueError("gradgradcheck needs at least one input that requires grad")
    with enable_grad():
        out = fn(*inputs)
    upstream = Tensor(random_upstream(out.shape, seed), requires_grad=True)

    def first_order(*args: Tensor) -> Tensor:
        *xs, u = args
        with enable_grad():  # gradcheck re-runs this under no_grad; the gradient needs the graph
            gs = grad(fn(*xs), [xs[i] for i in wanted], u, create_graph=True)
            return concatenate([reshape(g, -1) for g in gs])

    recorded = first_order(*inputs, upstream).data
    with enable_grad():
        plain = np.concatenate([g.data.reshape(-1) for g in grad(fn(*inputs), [inputs[i] for i in wanted],
                                                                  upstream.data)])
    error = float(np.max(np.abs(recorded - plain), initial=0.0))
    first_ok = bool(np.allclose(recorded, plain, atol=1e-12, rtol=1e-10))
    second = gradcheck(first_order, [*inputs, upstream], eps=eps, atol=atol, rtol=rtol, seed=seed + 2)
    return GradGradReport(error, first_ok, second)
