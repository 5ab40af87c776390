"""Ops of two tensors (with NumPy broadcasting; shape matching sums it away)."""
from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numpy as np

import lucid._func as F  # the ops' differentiable rules (vjp/jvp) are written with lucid ops
from lucid._backend.core import Sample, binary_func_op, func_op, masked_product, operation
from lucid._func import _rules as R
from lucid._func._bindings import BINARY, Language
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
    summary, language = "a + b", BINARY
    formula, derivatives = "out = a + b", ("∂out/∂a = 1", "∂out/∂b = 1")
    samples, kind = staticmethod(_broadcast_pairs), "elementwise"

    @binary_func_op()
    def forward(self, a: Tensor, b: Tensor):
        out = a.data + b.data
        # The gradient function gets what it reads as defaults, not from a closure: a closure makes a cell per
        # captured name on every call (with two names, about a third of the op's bookkeeping); defaults are one
        # tuple. Callers pass the upstream only; the hot ops below do the same.
        return tensor_from_array(out), lambda g, a=a, b=b: (g if a.requires_grad else None,
                                                            g if b.requires_grad else None)

    def local(self, i, inputs, out):
        return 1.0


class sub(operation):
    name, symbol, group = "sub", "−", "arithmetic"
    summary, language = "a − b", BINARY
    formula, derivatives = "out = a − b", ("∂out/∂a = 1", "∂out/∂b = −1")
    samples, kind = staticmethod(_broadcast_pairs), "elementwise"

    @binary_func_op()
    def forward(self, a: Tensor, b: Tensor):
        out = a.data - b.data
        return tensor_from_array(out), lambda g, a=a, b=b: (g if a.requires_grad else None,
                                                            -g if b.requires_grad else None)

    def local(self, i, inputs, out):
        return -1.0 if i else 1.0


class mul(operation):
    name, symbol, group = "mul", "×", "arithmetic"
    summary, language = "a · b", BINARY
    formula, derivatives = "out = a · b", ("∂out/∂a = b", "∂out/∂b = a")
    samples, kind = staticmethod(_broadcast_pairs), "elementwise"

    @binary_func_op()
    def forward(self, a: Tensor, b: Tensor):
        out = a.data * b.data
        # upstream · b equals upstream · broadcast(b) elementwise; skipping the
        # broadcast copies and the unneeded side keeps the per-op cost small
        return tensor_from_array(out), lambda g, a=a, b=b: (g * b.data if a.requires_grad else None,
                                                            g * a.data if b.requires_grad else None)

    def local(self, i, inputs, out):
        return inputs[1 - i]  # ∂(a·b)/∂a = b, ∂(a·b)/∂b = a


class div(operation):
    name, symbol, group = "div", "÷", "arithmetic"
    summary, language = "a / b", BINARY
    formula, derivatives = "out = a / b", ("∂out/∂a = 1/b", "∂out/∂b = −a/b² = −out/b")
    samples, kind = staticmethod(lambda rng: _broadcast_pairs(rng, uniform, positive)), "elementwise"

    @binary_func_op()
    def forward(self, a: Tensor, b: Tensor):
        out = a.data / b.data
        # ∂out/∂b as −(a/b)/b, not −a/(b·b): b·b under- or overflows at extreme b (b = 1e-200 gives
        # −1e-200/0 = −inf, so b / b got grad −inf where 1/b − (b/b)/b = 1e200 − 1e200 = 0 exactly)
        return tensor_from_array(out), self.chain(
            lambda: (np.broadcast_to(1.0 / b.data, out.shape) if a.requires_grad else None,
                     -out / b.data if b.requires_grad else None))

    def local(self, i, inputs, out):
        b = inputs[1]
        return -out / b if i else 1.0 / b


class pow(operation):
    name, symbol, group = "pow", "**", "arithmetic"
    summary, language, method = "a ** b", BINARY, True
    formula = "out = aᵇ"
    derivatives = ("∂out/∂a = b·aᵇ⁻¹  (0 where b = 0)", "∂out/∂b = aᵇ·ln a  (0 where a = 0 and b ≥ 0)")
    samples = staticmethod(lambda rng: _broadcast_pairs(rng, positive, uniform)
                           + [Sample((uniform(rng, 3, 2), 3.0)), Sample((positive(rng, 4), 0.5))])
    kind = "elementwise"

    @binary_func_op()
    def forward(self, a: Tensor, b: Tensor):
        out = a.data ** b.data
        return tensor_from_array(out), R.chain_from_rule(self, (a, b), out)  # the rule's special cases, once

    def local(self, i, inputs, out):
        """∂(aᵇ)/∂a = b·aᵇ⁻¹ and ∂(aᵇ)/∂b = aᵇ·ln a, each with its removable point at its limit 0.

        Written out, ``0 · 0⁻¹`` is NaN at a = 0 where b = 0 (aᵇ is then the constant 1), and aᵇ·ln a is
        ``0 · −∞`` at a = 0 where b ≥ 0 (aᵇ·ln a → 0 as a → 0⁺ for b > 0; at b = 0 the function 0ᵇ is flat
        on the right). As in PyTorch those points get their limit, while a real singularity
        (``0.5 · 0⁻⁰·⁵``, or ln a with b < 0) stays infinite. The blocked elements are selected away and
        never see ``0⁻¹`` or ``ln 0``.
        """
        a, b = inputs
        if i == 0:
            return R.at_limit_zero(b.data == 0, a, lambda a: b * a ** (b - 1.0), out.shape)
        return R.at_limit_zero((a.data == 0) & (b.data >= 0), a, lambda a: out * F.log(a), out.shape)


# For two matrices ``np.dot`` is ``@`` to the bit (both hand the product to the same BLAS routine)
# with a quarter less call overhead, which is most of a small matrix product's cost.
_dot = np.dot


class matmul(operation):
    name, symbol, group, kind = "matmul", "@", "linear algebra", "bilinear"
    summary, language, method = "matrix product a @ b", Language("matmul", ("a", "b")), True
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

        def grad_function(g: np.ndarray, A=A, B=B, matrices=matrices, a=a, b=b):  # defaults: see ``add``
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



class _pick(operation):
    """maximum and minimum: the output is one input or the other, so the gradient goes to the one picked (half
    each at a tie); the other side is blocked, selected and never multiplied (never inf · 0)."""

    beats: ClassVar[Callable[[np.ndarray, np.ndarray], np.ndarray]]  # where a is the one picked over b
    kind = "elementwise"

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

    def local(self, i, inputs, out):
        return R.Weights(self._shares(*inputs)[i])


class maximum(_pick):
    name, symbol, group = "maximum", "max", "elementwise"
    summary, language, method = "elementwise larger of a and b", BINARY, True
    formula, derivatives = "out = max(a, b)", ("∂out/∂a = 1 if a > b else 0  (½ if a = b)",
                                                 "∂out/∂b = 1 if b > a else 0  (½ if a = b)")
    samples = staticmethod(lambda rng: [Sample((distinct(rng, 3, 4), distinct(rng, 3, 4) + 0.1)),
                                        Sample((distinct(rng, 3, 4), distinct(rng, 1, 4) + 0.1))])
    beats = staticmethod(np.greater)

    @binary_func_op()
    def forward(self, a: Tensor, b: Tensor):
        return tensor_from_array(np.maximum(a.data, b.data)), self._grad_function(a, b)


class minimum(_pick):
    name, symbol, group = "minimum", "min", "elementwise"
    summary, language, method = "elementwise smaller of a and b", BINARY, True
    formula, derivatives = "out = min(a, b)", ("∂out/∂a = 1 if a < b else 0  (½ if a = b)",
                                                 "∂out/∂b = 1 if b < a else 0  (½ if a = b)")
    samples = staticmethod(lambda rng: [Sample((distinct(rng, 3, 4), distinct(rng, 3, 4) + 0.1)),
                                        Sample((distinct(rng, 2, 1), distinct(rng, 2, 3) + 0.1))])
    beats = staticmethod(np.less)

    @binary_func_op()
    def forward(self, a: Tensor, b: Tensor):
        return tensor_from_array(np.minimum(a.data, b.data)), self._grad_function(a, b)


class where(operation):
    name, symbol, group, kind = "where", "where", "elementwise", "elementwise"
    summary = "a where cond holds, else b"
    language = Language("broadcast", (("cond", "condition"), "a", "b"))
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

    def local(self, i, inputs, out):
        chosen = inputs[0].data
        return None if i == 0 else R.Weights(chosen if i == 1 else ~chosen)


class _comparison(operation):
    """Comparisons give boolean tensors that never carry a gradient."""

    group = "comparison"
    derivatives = ("no gradient",)
    language = BINARY
    compare = staticmethod(np.equal)

    @binary_func_op(has_gradient=False)
    def forward(self, a: Tensor, b: Tensor):
        return tensor_from_array(self.compare(a.data, b.data)), lambda g: (None, None)


class eq(_comparison):
    name, symbol, formula, compare = "eq", "==", "out = (a == b)", staticmethod(np.equal)
    summary = "a == b as True/False (only for where's condition)"


class ne(_comparison):
    name, symbol, formula, compare = "ne", "!=", "out = (a != b)", staticmethod(np.not_equal)
    summary = "a != b as True/False (only for where's condition)"


class lt(_comparison):
    name, symbol, formula, compare = "lt", "<", "out = (a < b)", staticmethod(np.less)
    summary = "a < b as True/False (only for where's condition)"


class le(_comparison):
    name, symbol, formula, compare = "le", "≤", "out = (a ≤ b)", staticmethod(np.less_equal)
    summary = "a <= b as True/False (only for where's condition)"


class gt(_comparison):
    name, symbol, formula, compare = "gt", ">", "out = (a > b)", staticmethod(np.greater)
    summary = "a > b as True/False (only for where's condition)"


class ge(_comparison):
    name, symbol, formula, compare = "ge", "≥", "out = (a ≥ b)", staticmethod(np.greater_equal)
    summary = "a >= b as True/False (only for where's condition)"

