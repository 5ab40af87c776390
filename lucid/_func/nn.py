"""Neural-network functions: softmax family and losses, in numerically stable forms."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

import lucid._func as F  # the ops' differentiable rules (vjp/jvp) are written with lucid ops
from lucid._backend.core import Sample, binary_func_op, operation, unary_func_op
from lucid._func import _rules as R
from lucid._func._bindings import Language
from lucid._func._samples import uniform
from lucid._func.reduce import single_axis, stable_logsumexp
from lucid._func.unary import _stable_sigmoid
from lucid._tensor.tensor import Tensor, tensor_from_array


class softmax(operation):
    name, symbol, group = "softmax", "softmax", "neural network"
    summary, language, method = "e^x / Σ e^x along axis", Language("softmax", ("x", ("axis", "int", -1))), True
    formula = "outᵢ = e^aᵢ / Σⱼ e^aⱼ"
    derivatives = ("∂L/∂aᵢ = outᵢ (∂L/∂outᵢ − Σⱼ ∂L/∂outⱼ · outⱼ)",)
    samples = staticmethod(lambda rng: [Sample((uniform(rng, 3, 4),)), Sample((uniform(rng, 3, 4),), {"axis": 0})])

    def __init__(self, axis: int = -1) -> None:
        super().__init__(axis=axis)

    @unary_func_op()
    def forward(self, a: Tensor):
        axes = single_axis(self.params["axis"], a.ndim)  # a 0-d tensor is its own softmax: 1
        out = np.exp(a.data - stable_logsumexp(a.data, axes))
        return tensor_from_array(out), lambda g: (out * (g - np.sum(g * out, axis=axes, keepdims=True)),)

    def vjp(self, g, inputs, out):
        axes = single_axis(self.params["axis"], out.ndim)
        return (out * (g - F.sum(g * out, axis=axes, keepdims=True)),)

    def jvp(self, tangents, inputs, out):
        t, axes = tangents[0], single_axis(self.params["axis"], out.ndim)
        return out * (t - F.sum(t * out, axis=axes, keepdims=True))


class log_softmax(operation):
    name, symbol, group = "log_softmax", "log softmax", "neural network"
    summary, language, method = "x − logsumexp(x) along axis", Language("softmax", ("x", ("axis", "int", -1))), True
    formula = "outᵢ = aᵢ − ln Σⱼ e^aⱼ"
    derivatives = ("∂L/∂aᵢ = ∂L/∂outᵢ − softmax(a)ᵢ Σⱼ ∂L/∂outⱼ",)
    samples = staticmethod(lambda rng: [Sample((uniform(rng, 3, 4),)), Sample((uniform(rng, 5),))])

    def __init__(self, axis: int = -1) -> None:
        super().__init__(axis=axis)

    @unary_func_op()
    def forward(self, a: Tensor):
        axes = single_axis(self.params["axis"], a.ndim)
        out = a.data - stable_logsumexp(a.data, axes)
        return tensor_from_array(out), lambda g: (g - np.exp(out) * np.sum(g, axis=axes, keepdims=True),)

    def vjp(self, g, inputs, out):
        axes = single_axis(self.params["axis"], out.ndim)
        return (g - F.exp(out) * F.sum(g, axis=axes, keepdims=True),)

    def jvp(self, tangents, inputs, out):
        t, axes = tangents[0], single_axis(self.params["axis"], out.ndim)
        return t - F.sum(F.exp(out) * t, axis=axes, keepdims=True)


class mse_loss(operation):
    name, symbol, group, kind = "mse_loss", "MSE", "loss", "reduction"
    summary, language = "mean of (pred − target)²", Language("scalar_loss", ("pred", "target"))
    formula = "out = (1/N) Σᵢ (pᵢ − yᵢ)²"
    derivatives = ("∂out/∂pᵢ = 2(pᵢ − yᵢ)/N", "∂out/∂yᵢ = −2(pᵢ − yᵢ)/N")
    samples = staticmethod(lambda rng: [Sample((uniform(rng, 4, 2), uniform(rng, 4, 2))),
                                        Sample((uniform(rng, 4, 2), uniform(rng, 1, 2)))])

    @binary_func_op()
    def forward(self, p: Tensor, y: Tensor):
        diff = p.data - y.data
        n = diff.size
        return tensor_from_array(np.mean(diff * diff)), self.chain(lambda: (2.0 * diff / n, -2.0 * diff / n))

    def local(self, i, inputs, out):
        """∂out/∂p = 2(p − y)/N, and ∂out/∂y its negative."""
        diff = inputs[0] - inputs[1]
        return diff * (-2.0 / diff.size if i else 2.0 / diff.size)


class binary_cross_entropy(operation):
    name, symbol, group, kind = "binary_cross_entropy", "BCE", "loss", "reduction"
    summary = "BCE of probabilities in [0, 1] (apply sigmoid first)"
    language = Language("scalar_loss", ("prob", "target"))
    formula = "out = −(1/N) Σᵢ [yᵢ ln pᵢ + (1 − yᵢ) ln(1 − pᵢ)]   (each ln at least −100)"
    derivatives = ("∂out/∂pᵢ = (pᵢ − yᵢ) / (pᵢ(1 − pᵢ) N)", "∂out/∂yᵢ = (ln(1 − pᵢ) − ln pᵢ)/N")
    samples = staticmethod(lambda rng: [Sample((rng.uniform(0.1, 0.9, (6,)), rng.uniform(0, 1, (6,)))),
                                        Sample((rng.uniform(0.1, 0.9, (4, 1)), rng.integers(0, 2, (4, 1)) * 1.0))])
    log_floor = -100.0  # ln 0 = −∞ would make the loss infinite; PyTorch's floor, reached only below p ≈ 4e-44
    eps = 1e-12  # the least p(1 − p) the gradient divides by, as in PyTorch

    @binary_func_op()
    def forward(self, p: Tensor, y: Tensor):
        prob = p.data
        # probabilities only: a value outside [0, 1] (a logit, a label) is a mistake, not something to clamp
        if prob.size and not (prob.min() >= 0.0 and prob.max() <= 1.0):  # NaN fails both tests
            bad = prob[~((prob >= 0.0) & (prob <= 1.0))].reshape(-1)[0]
            raise ValueError(f"binary_cross_entropy needs probabilities in [0, 1], got {bad:g}; apply sigmoid "
                             "first, or give logits to binary_cross_entropy_with_logits")
        # no clamp of p itself: p = 1 − 10⁻¹⁵ keeps its exact loss (a clamp at 1 − 10⁻¹² gave 27.63 for
        # every p above it); only ln 0 itself is floored, and 0 · (−100) keeps a matching label's term 0
        with np.errstate(divide="ignore"):
            log_p = np.maximum(np.log(prob), self.log_floor)
            log_q = np.maximum(np.log1p(-prob), self.log_floor)
        terms = y.data * log_p + (1.0 - y.data) * log_q
        n = terms.size
        out = -(terms.sum() / n)  # the mean, without np.mean's Python-level overhead
        return tensor_from_array(out), self.chain(
            lambda: ((prob - y.data) / (np.maximum(prob * (1.0 - prob), self.eps) * n) if p.requires_grad else None,
                     (log_q - log_p) / n if y.requires_grad else None))

    def local(self, i, inputs, out):
        """∂out/∂p and ∂out/∂y (the same floors as the first-order pass)."""
        p, y = inputs
        n = math.prod(np.broadcast_shapes(p.shape, y.shape))
        if i == 0:
            return (p - y) / (F.maximum(p * (1.0 - p), self.eps) * n)
        return (F.maximum(F.log(1.0 - p), self.log_floor) - F.maximum(F.log(p), self.log_floor)) / n


class binary_cross_entropy_with_logits(operation):
    """BCE of ``sigmoid(z)`` computed from the logits ``z``: exact where ``sigmoid(z)`` rounds to 0 or 1."""

    name, symbol, group, kind = "binary_cross_entropy_with_logits", "BCE(logits)", "loss", "reduction"
    summary = "BCE of sigmoid(logits), computed from the logits: exact where the sigmoid saturates"
    language = Language("scalar_loss", ("logits", "target"))
    formula = "out = (1/N) Σᵢ [max(zᵢ, 0) − zᵢ·tᵢ + ln(1 + e^−|zᵢ|)]   (= BCE(σ(z), t), never overflowing)"
    derivatives = ("∂out/∂zᵢ = (σ(zᵢ) − tᵢ)/N", "∂out/∂tᵢ = −zᵢ/N")
    samples = staticmethod(lambda rng: [Sample((uniform(rng, 6, low=-4, high=4), rng.uniform(0, 1, (6,)))),
                                        Sample((uniform(rng, 4, 1, low=-4, high=4), rng.integers(0, 2, (4, 1)) * 1.0)),
                                        Sample((uniform(rng, 3, 2), rng.uniform(0, 1, (1, 2))))])

    @binary_func_op()
    def forward(self, z: Tensor, t: Tensor):
        logits, target = z.data, t.data
        # e^−|z| ≤ 1 never overflows; max(z, 0) − z·t is exact, so z = 40, t = 0 gives 40 + 4e-18 = 40
        terms = np.maximum(logits, 0.0) - logits * target + np.log1p(np.exp(-np.abs(logits)))
        n = terms.size
        out = terms.sum() / n

        def local():
            shape = terms.shape
            return (np.broadcast_to((_stable_sigmoid(logits) - target) / n, shape) if z.requires_grad else None,
                    np.broadcast_to(-logits / n, shape) if t.requires_grad else None)

        return tensor_from_array(out), self.chain(local)

    def local(self, i, inputs, out):
        """∂out/∂z = (σ(z) − t)/N and ∂out/∂t = −z/N."""
        z, t = inputs
        n = math.prod(np.broadcast_shapes(z.shape, t.shape))
        return -z / n if i else (F.sigmoid(z) - t) / n


class cross_entropy(operation):
    name, symbol, group, kind = "cross_entropy", "CE", "loss", "reduction"
    summary = "softmax cross-entropy of logits (N, C) and integer class targets"
    language = Language("cross_entropy", ("logits", ("targets", "targets")))
    formula = "out = −(1/N) Σᵢ log_softmax(zᵢ)[tᵢ]   (z: logits, t: integer targets)"
    derivatives = ("∂out/∂zᵢⱼ = (softmax(zᵢ)ⱼ − [j = tᵢ]) / N", "targets: no gradient")
    samples = staticmethod(lambda rng: [Sample((uniform(rng, 4, 3), np.array([0, 2, 1, 2]))),
                                        Sample((uniform(rng, 5), 3))])

    @unary_func_op()
    def forward(self, z: Tensor, targets: Any):
        t = np.asarray(targets.data if isinstance(targets, Tensor) else targets)
        if t.dtype.kind == "b":  # True/False are classes 1/0, never a mask over the rows
            t = t.astype(np.intp)
        elif t.dtype.kind == "f":
            if not np.all(t == np.round(t)):
                raise ValueError("cross_entropy targets must be integer class indices")
            t = t.astype(np.intp)
        logits = z.data if z.ndim == 2 else z.data[None, :]
        t = t.reshape(-1)
        if logits.shape[0] != t.size:
            raise ValueError(f"cross_entropy got {logits.shape[0]} rows of logits but {t.size} targets")
        if t.size and (t.min() < 0 or t.max() >= logits.shape[1]):
            raise ValueError(f"cross_entropy targets must lie in 0..{logits.shape[1] - 1}")
        self.params = {"targets": t}  # shown by describe(); the op has no other parameters
        logp = logits - stable_logsumexp(logits, (1,))
        rows = np.arange(t.size)
        n = t.size

        def grad_function(g: np.ndarray):
            grad = np.exp(logp)
            grad[rows, t] -= 1.0
            return ((g / n * grad).reshape(z.shape),)

        return tensor_from_array(-np.mean(logp[rows, t])), grad_function

    def local(self, i, inputs, out):
        """∂out/∂z = (softmax(z) − onehot(t))/N over rows ``(N, C)``, in z's own shape."""
        z, t = inputs[0], self.params["targets"]
        rows = z if z.ndim == 2 else F.reshape(z, (1, z.size))
        onehot = np.zeros(rows.shape)
        onehot[np.arange(t.size), t] = 1.0
        local = (F.softmax(rows, axis=1) - R.constant(onehot)) / t.size
        return local if z.ndim == 2 else F.reshape(local, z.shape)
