"""Ops of two tensors (with NumPy broadcasting; shape matching sums it away)."""
from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numpy as np

import lucid._func as F  # the ops' differentiable rules (vjp/jvp) are written with lucid ops
from lucid._backend.core import Sample, binary_func_op, func_op, masked_product, operation
from lucid._func import _rules as R
from lucid._func._samples import distinct, positive, uniform
from lucid._tensor.tensor import Tensor, tensor_from_array


def _broadcast_pairs(rng: np.random.Generator, maker=uniform, maker_b=None) -> list[Sample]:
    """Same shapes, a bias row, a column, a scalar: the broadcasting cases that bite."""
    mb = maker_b or maker
    return [Sample((maker(rng, 3, 4), mb(rng, 3, 4))), Sample((maker(rng, 3, 4), mb(rng, 1, 4))),
            Sample((maker(rng, 3, 1), mb(rng, 3, 4))), Sample((maker(rng, 2, 3), mb(rng))),
            Sample((maker(rng, 4), mb(rng, 2, 3, 4)))]


class add(operation):
    name, symbol, group = "add", "+", "arithmetic"
    formula, derivatives = "out = a + b", ("∂out/∂a = 1", "∂out/∂b = 1")
    samples = staticmethod(_broadcast_pairs)
    local_rule = staticmethod(lambda a, b, out: (np.ones(out.shape), np.ones(out.shape)))

    @binary_func_op()
    def forward(self, a: Tensor, b: Tensor):
        out = a.data + b.data
        return tensor_from_array(out), lambda g: (g if a.requires_grad else None, g if b.requires_grad else None)

    def vjp(self, g, inputs, out):
        return g, g

    def jvp(self, tangents, inputs, out):
        return R.tangent_sum(out.shape, *tangents)


class sub(operation):
    name, symbol, group = "sub", "−", "arithmetic"
    formula, derivatives = "out = a − b", ("∂out/∂a = 1", "∂out/∂b = −1")
    samples = staticmethod(_broadcast_pairs)
    local_rule = staticmethod(lambda a, b, out: (np.ones(out.shape), np.full(out.shape, -1.0)))

    @binary_func_op()
    def forward(self, a: Tensor, b: Tensor):
        out = a.data - b.data
        return tensor_from_array(out), lambda g: (g if a.requires_grad else None, -g if b.requires_grad else None)

    def vjp(self, g, inputs, out):
        return g, -g

    def jvp(self, tangents, inputs, out):
        ta, tb = tangents
        return R.tangent_sum(out.shape, ta, None if tb is None else -tb)


class mul(operation):
    name, symbol, group = "mul", "×", "arithmetic"
    formula, derivatives = "out = a · b", ("∂out/∂a = b", "∂out/∂b = a")
    samples = staticmethod(_broadcast_pairs)
    local_rule = staticmethod(lambda a, b, out: (np.broadcast_to(b.data, out.shape),
                                                 np.broadcast_to(a.data, out.shape)))

    @binary_func_op()
    def forward(self, a: Tensor, b: Tensor):
        out = a.data * b.data
        # upstream · b equals upstream · broadcast(b) elementwise; skipping the
        # broadcast copies and the unneeded side keeps the per-op cost small
        return tensor_from_array(out), lambda g: (g * b.data if a.requires_grad else None,
                                       g * a.data if b.requires_grad else None)

    def vjp(self, g, inputs, out):
        a, b = inputs
        return g * b if a.requires_grad else None, g * a if b.requires_grad else None

    def jvp(self, tangents, inputs, out):
        (a, b), (ta, tb) = inputs, tangents
        return R.tangent_sum(out.shape, None if ta is None else ta * b, None if tb is None else a * tb)


class div(operation):
    name, symbol, group = "div", "÷", "arithmetic"
    formula, derivatives = "out = a / b", ("∂out/∂a = 1/b", "∂out/∂b = −a/b² = −out/b")
    samples = staticmethod(lambda rng: _broadcast_pairs(rng, uniform, positive))

    @binary_func_op()
    def forward(self, a: Tensor, b: Tensor):
        out = a.data / b.data
        # ∂out/∂b as −(a/b)/b, not −a/(b·b): b·b under- or overflows at extreme b (b = 1e-200 gives
        # −1e-200/0 = −inf, so b / b got grad −inf where 1/b − (b/b)/b = 1e200 − 1e200 = 0 exactly)
        return tensor_from_array(out), self.chain(
            lambda: (np.broadcast_to(1.0 / b.data, out.shape) if a.requires_grad else None,
                     -out / b.data if b.requires_grad else None))

    def vjp(self, g, inputs, out):
        a, b = inputs
        return g / b if a.requires_grad else None, g * (-out / b) if b.requires_grad else None

    def jvp(self, tangents, inputs, out):
        (_, b), (ta, tb) = inputs, tangents
        return R.tangent_sum(out.shape, None if ta is None else ta / b, None if tb is None else tb * (-out / b))


def _pow_base_derivative(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """∂(aᵇ)/∂a = b·aᵇ⁻¹, taking its limit 0 where b = 0 (aᵇ is then the constant 1).

    Written out, ``0 · 0⁻¹`` is NaN at a = 0; as in PyTorch the removable point
    gets its limit, while a real singularity (``0.5 · 0⁻⁰·⁵``) stays infinite.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        da = b * a ** (b - 1.0)
    zero_exponent = b == 0
    return np.where(zero_exponent, 0.0, da) if zero_exponent.any() else da


def _pow_exponent_derivative(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> np.ndarray:
    """∂(aᵇ)/∂b = aᵇ·ln a, taking its limit 0 where a = 0 and b ≥ 0 (``0 · −∞`` written out).

    With b > 0 the limit of aᵇ·ln a as a → 0⁺ is 0; at b = 0 the function 0ᵇ is
    flat on the right, and PyTorch gives 0 there as well. For b < 0, aᵇ·ln a
    really does diverge and keeps its −∞.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        db = out * np.log(a)
    removable = (a == 0) & (b >= 0)
    return np.where(removable, 0.0, db) if removable.any() else db


class pow(operation):
    name, symbol, group = "pow", "**", "arithmetic"
    formula = "out = aᵇ"
    derivatives = ("∂out/∂a = b·aᵇ⁻¹  (0 where b = 0)", "∂out/∂b = aᵇ·ln a  (0 where a = 0 and b ≥ 0)")
    samples = staticmethod(lambda rng: _broadcast_pairs(rng, positive, uniform)
                           + [Sample((uniform(rng, 3, 2), 3.0)), Sample((positive(rng, 4), 0.5))])

    @binary_func_op()
    def forward(self, a: Tensor, b: Tensor):
        out = a.data ** b.data
        shape = out.shape

        def local():
            return (np.broadcast_to(_pow_base_derivative(a.data, b.data), shape),
                    _pow_exponent_derivative(a.data, b.data, out) if b.requires_grad else None)

        return tensor_from_array(out), self.chain(local)

    @staticmethod
    def _base_derivative(a: Tensor, b: Tensor) -> Tensor:
        """b·aᵇ⁻¹ as lucid ops, 0 where b = 0 (see ``_pow_base_derivative``)."""
        zero = np.broadcast_to(b.data == 0, np.broadcast_shapes(a.shape, b.shape))
        if not zero.any():
            return b * a ** (b - 1.0)
        safe_a = F.where(R.constant(zero), 1.0, a)  # the blocked elements never see 0⁻¹
        return R.select(~zero, b * safe_a ** (b - 1.0))

    @staticmethod
    def _exponent_derivative(a: Tensor, b: Tensor, out: Tensor) -> Tensor:
        """aᵇ·ln a as lucid ops, 0 where a = 0 and b ≥ 0 (see ``_pow_exponent_derivative``)."""
        removable = (a.data == 0) & (b.data >= 0)
        if not removable.any():
            return out * F.log(a)
        removable = np.broadcast_to(removable, out.shape)
        return R.select(~removable, out * F.log(F.where(R.constant(removable), 1.0, a)))

    def vjp(self, g, inputs, out):
        a, b = inputs
        return (g * self._base_derivative(a, b) if a.requires_grad else None,
                g * self._exponent_derivative(a, b, out) if b.requires_grad else None)

    def jvp(self, tangents, inputs, out):
        (a, b), (ta, tb) = inputs, tangents
        return R.tangent_sum(out.shape, None if ta is None else ta * self._base_derivative(a, b),
                             None if tb is None else tb * self._exponent_derivative(a, b, out))


# For two matrices ``np.dot`` is ``@`` to the bit (both hand the product to the same BLAS routine)
# with a quarter less call overhead, which is most of a small matrix product's cost.
_dot = np.dot


class matmul(operation):
    name, symbol, group = "matmul", "@", "linear algebra"
    formula = "out = a @ b   (outᵢⱼ = Σₖ aᵢₖ bₖⱼ)"
    derivatives = ("∂L/∂a = ∂L/∂out @ bᵀ", "∂L/∂b = aᵀ @ ∂L/∂out")
    samples = staticmethod(lambda rng: [
        Sample((uniform(rng, 3, 4), uniform(rng, 4, 2))), Sample((uniform(rng, 4), uniform(rng, 4, 2))),
        Sample((uniform(rng, 3, 4), uniform(rng, 4))), Sample((uniform(rng, 4), uniform(rng, 4))),
        Sample((uniform(rng, 2, 3, 4), uniform(rng, 4, 2))), Sample((uniform(rng, 3, 4), uniform(rng, 2, 4, 5)))])

    @binary_func_op()
    def forward(self, a: Tensor, b: Tensor):
        A, B = a.data, b.data
        matrices = A.ndim == 2 and B.ndim == 2  # read once: each ``ndim`` is an attribute lookup in C

        def grad_function(g: np.ndarray):
            ga = gb = None  # only the inputs that need a gradient get one
            if matrices:  # the common case: plain transposes, no Python wrappers
                if a.requires_grad:
                    ga = _dot(g, B.T)
                if b.requires_grad:
                    gb = _dot(A.T, g)
                return ga, gb
            A2 = A[None, :] if A.ndim == 1 else A  # 1-D operands: a row on the left, a column on the right
            B2 = B[:, None] if B.ndim == 1 else B
            G = g[..., None] if B.ndim == 1 else g
            G = np.expand_dims(G, -2) if A.ndim == 1 else G
            if a.requires_grad:
                ga = G @ B2.swapaxes(-1, -2)
                ga = ga[..., 0, :] if A.ndim == 1 else ga
            if b.requires_grad:
                gb = A2.swapaxes(-1, -2) @ G
                gb = gb[..., :, 0] if B.ndim == 1 else gb
            return ga, gb

        return tensor_from_array(_dot(A, B) if matrices else A @ B), grad_function

    def vjp(self, g, inputs, out):
        a, b = inputs
        ga = gb = None
        if a.ndim == 2 and b.ndim == 2:
            return (g @ F.transpose(b) if a.requires_grad else None,
                    F.transpose(a) @ g if b.requires_grad else None)
        a2 = F.unsqueeze(a, 0) if a.ndim == 1 else a  # 1-D operands: a row on the left, a column on the right
        b2 = F.unsqueeze(b, 1) if b.ndim == 1 else b
        g2 = F.unsqueeze(g, -1) if b.ndim == 1 else g
        g2 = F.unsqueeze(g2, -2) if a.ndim == 1 else g2
        if a.requires_grad:
            ga = g2 @ F.swapaxes(b2, -1, -2)
            ga = F.squeeze(ga, -2) if a.ndim == 1 else ga
        if b.requires_grad:
            gb = F.swapaxes(a2, -1, -2) @ g2
            gb = F.squeeze(gb, -1) if b.ndim == 1 else gb
        return ga, gb

    def jvp(self, tangents, inputs, out):
        (a, b), (ta, tb) = inputs, tangents
        return R.tangent_sum(out.shape, None if ta is None else ta @ b, None if tb is None else a @ tb)


class _pick(operation):
    """maximum and minimum: the output is one input or the other, so the gradient goes to the one picked (half
    each at a tie); the other side is blocked, selected and never multiplied (never inf · 0)."""

    beats: ClassVar[Callable[[np.ndarray, np.ndarray], np.ndarray]]  # where a is the one picked over b

    def _shares(self, a: Tensor, b: Tensor) -> tuple[np.ndarray, np.ndarray]:
        wa = np.where(type(self).beats(a.data, b.data), 1.0, np.where(a.data == b.data, 0.5, 0.0))
        return wa, 1.0 - wa

    def _grad_function(self, a: Tensor, b: Tensor):
        def local():
            return self._shares(a, b)

        def grad_function(g: np.ndarray):
            wa, wb = local()
            return (masked_product(g, wa) if a.requires_grad else None,
                    masked_product(g, wb) if b.requires_grad else None)
        return self.select(local, grad_function)

    def vjp(self, g, inputs, out):
        (a, b), (wa, wb) = inputs, self._shares(*inputs)
        return (R.weighted_select(wa, g) if a.requires_grad else None,
                R.weighted_select(wb, g) if b.requires_grad else None)

    def jvp(self, tangents, inputs, out):
        (ta, tb), (wa, wb) = tangents, self._shares(*inputs)
        return R.tangent_sum(out.shape, None if ta is None else R.weighted_select(wa, ta),
                             None if tb is None else R.weighted_select(wb, tb))


class maximum(_pick):
    name, symbol, group = "maximum", "max", "elementwise"
    formula, derivatives = "out = max(a, b)", ("∂out/∂a = 1 if a > b (½ if a = b)", "∂out/∂b = 1 if b > a (½ if a = b)")
    samples = staticmethod(lambda rng: [Sample((distinct(rng, 3, 4), distinct(rng, 3, 4) + 0.1)),
                                        Sample((distinct(rng, 3, 4), distinct(rng, 1, 4) + 0.1))])
    beats = staticmethod(np.greater)

    @binary_func_op()
    def forward(self, a: Tensor, b: Tensor):
        return tensor_from_array(np.maximum(a.data, b.data)), self._grad_function(a, b)


class minimum(_pick):
    name, symbol, group = "minimum", "min", "elementwise"
    formula, derivatives = "out = min(a, b)", ("∂out/∂a = 1 if a < b (½ if a = b)", "∂out/∂b = 1 if b < a (½ if a = b)")
    samples = staticmethod(lambda rng: [Sample((distinct(rng, 3, 4), distinct(rng, 3, 4) + 0.1)),
                                        Sample((distinct(rng, 2, 1), distinct(rng, 2, 3) + 0.1))])
    beats = staticmethod(np.less)

    @binary_func_op()
    def forward(self, a: Tensor, b: Tensor):
        return tensor_from_array(np.minimum(a.data, b.data)), self._grad_function(a, b)


class where(operation):
    name, symbol, group = "where", "where", "elementwise"
    formula = "out = a where cond else b"
    derivatives = ("cond: no gradient", "∂out/∂a = 1 where cond else 0", "∂out/∂b = 0 where cond else 1")
    samples = staticmethod(lambda rng: [Sample((np.array([[True, False, True], [False, False, True]]),
                                                uniform(rng, 2, 3), uniform(rng, 1, 3)))])

    @func_op(3)
    def forward(self, cond: Tensor, a: Tensor, b: Tensor):
        mask = cond.data
        if mask.dtype != np.bool_:
            raise ValueError("where needs a True/False condition, such as a comparison (where(x > 0, x, 0)), "
                             f"not {mask.dtype.name} numbers")
        shape = np.broadcast_shapes(mask.shape, a.shape, b.shape)
        chosen = np.broadcast_to(mask, shape)

        def local():
            picked = chosen.astype(np.float64)
            return None, picked, 1.0 - picked

        # select, don't multiply: the branch not taken gets 0 even when the upstream is ±inf or NaN
        return tensor_from_array(np.where(mask, a.data, b.data)), self.select(
            local, lambda g: (None, np.where(chosen, g, 0.0) if a.requires_grad else None,
                              np.where(chosen, 0.0, g) if b.requires_grad else None))

    def vjp(self, g, inputs, out):
        chosen, a, b = inputs[0].data, inputs[1], inputs[2]
        return None, R.select(chosen, g) if a.requires_grad else None, R.select(~chosen, g) if b.requires_grad else None

    def jvp(self, tangents, inputs, out):
        _, ta, tb = tangents
        picked = F.where(inputs[0], 0.0 if ta is None else ta, 0.0 if tb is None else tb)
        return R.broadcast_like(picked, out.shape)


class _comparison(operation):
    """Comparisons give boolean tensors that never carry a gradient."""

    group = "comparison"
    derivatives = ("no gradient",)
    compare = staticmethod(np.equal)

    @binary_func_op(has_gradient=False)
    def forward(self, a: Tensor, b: Tensor):
        return tensor_from_array(self.compare(a.data, b.data)), lambda g: (None, None)


class eq(_comparison):
    name, symbol, formula, compare = "eq", "==", "out = (a == b)", staticmethod(np.equal)


class ne(_comparison):
    name, symbol, formula, compare = "ne", "!=", "out = (a != b)", staticmethod(np.not_equal)


class lt(_comparison):
    name, symbol, formula, compare = "lt", "<", "out = (a < b)", staticmethod(np.less)


class le(_comparison):
    name, symbol, formula, compare = "le", "≤", "out = (a ≤ b)", staticmethod(np.less_equal)


class gt(_comparison):
    name, symbol, formula, compare = "gt", ">", "out = (a > b)", staticmethod(np.greater)


class ge(_comparison):
    name, symbol, formula, compare = "ge", "≥", "out = (a ≥ b)", staticmethod(np.greater_equal)

