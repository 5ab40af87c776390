"""Elementwise ops of one tensor: each is its forward and its local derivative."""
from __future__ import annotations

import numpy as np

import lucid._func as F  # the ops' differentiable rules (vjp/jvp) are written with lucid ops
from lucid._backend.core import Sample, masked_product, operation, unary_func_op
from lucid._func import _rules as R
from lucid._func._bindings import UNARY, Language
from lucid._func._samples import away_from_zero, positive, uniform
from lucid._tensor.tensor import Tensor, tensor_from_array

_FLOAT64 = np.dtype(np.float64)
# The 1 of ``1 − out²``, ``1 − σ`` and ``1/(1 + e⁻ˣ)`` as a 0-d float64 array, for float64 operands only:
# NumPy 2 converts a Python float on every ufunc call (about 150 ns, a tenth of a small op), a 0-d array
# it takes as it is. Same bits (1.0 is exact and the arithmetic stays float64). For any other dtype the
# Python float stays: it is "weak" and keeps float32 float32, where a float64 array would widen it.
_ONE = np.array(1.0)
_ONE.flags.writeable = False


_array, _ndarray = np.array, np.ndarray


def _neg_grad(g: np.ndarray) -> tuple[np.ndarray]:
    """``neg``'s gradient function: one module-level function, so a call makes no closure."""
    return (-g,)


def _neg_grad_0d(g: np.ndarray) -> tuple[np.ndarray]:
    """``neg``'s gradient function for a 0-d float64 input, whose upstream is a 0-d float64 array.

    ``-g`` on a 0-d array runs NumPy's scalar path and returns a NumPy scalar, which backward then
    turns back into an array: negating the Python float and making the 0-d array directly costs
    about a third of that, with the same bits (negation is exact). Anything else takes ``-g``.
    """
    if g.__class__ is _ndarray and not g.ndim and g.dtype is _FLOAT64:
        return (_array(-g.item()),)
    return (-g,)


def _stable_sigmoid(x: np.ndarray) -> np.ndarray:
    """σ(x) without overflow for any x.

    ``1 / (1 + e⁻ˣ)`` is accurate to the last bit for every x where e⁻ˣ is
    finite, so it is used whenever no element is below -700 (four ufuncs);
    otherwise the two-branch form whose exponent is never positive. The
    smallest element is found by ``argmin`` and read with ``item``: a third of
    ``np.minimum.reduce``'s cost on a batch, and a NaN (which ``argmin`` picks)
    fails the test and takes the careful branch, as it did before. An empty
    array (``argmin`` refuses it) takes the careful branch too.
    """
    try:
        safe = x.item(x.argmin()) > -700.0
    except ValueError:  # an empty array has no smallest element
        safe = False
    if safe:
        e = np.exp(-x)  # a fresh array: the two steps that follow reuse it (same bits as 1/(1 + e))
        if e.__class__ is not np.ndarray:  # a 0-d x: NumPy computes on scalars
            return 1.0 / (1.0 + e)
        one = _ONE if e.dtype is _FLOAT64 else 1.0  # see ``_ONE``
        e += one
        return np.divide(one, e, out=e)
    e = np.exp(-np.abs(x))  # never overflows: exponent ≤ 0
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


class neg(operation):
    name, symbol, group = "neg", "neg", "arithmetic"
    kind = "elementwise"
    summary, language = "−x (same as unary minus)", UNARY
    formula, derivatives = "out = −a", ("∂out/∂a = −1",)
    samples = staticmethod(lambda rng: [Sample((uniform(rng, 3, 4),))])

    @unary_func_op()
    def forward(self, a: Tensor):
        x = a.data
        if not x.ndim and x.dtype is _FLOAT64:  # a 0-d float64, such as a loss: see ``_neg_grad_0d``
            return tensor_from_array(_array(-x.item())), _neg_grad_0d
        return tensor_from_array(-x), _neg_grad

    def local(self, i, inputs, out):
        return -1.0


class exp(operation):
    name, symbol, group = "exp", "exp", "elementwise"
    kind = "elementwise"
    summary, language, method = "eˣ elementwise", UNARY, True
    formula, derivatives = "out = eᵃ", ("∂out/∂a = eᵃ = out",)
    samples = staticmethod(lambda rng: [Sample((uniform(rng, 2, 3),))])

    @unary_func_op()
    def forward(self, a: Tensor):
        out = np.exp(a.data)
        return tensor_from_array(out), self.chain(lambda: (out,))

    def local(self, i, inputs, out):
        return out


class log(operation):
    name, symbol, group = "log", "log", "elementwise"
    kind = "elementwise"
    summary, language, method = "natural logarithm", UNARY, True
    formula, derivatives = "out = ln a", ("∂out/∂a = 1/a",)
    samples = staticmethod(lambda rng: [Sample((positive(rng, 2, 3),))])

    @unary_func_op()
    def forward(self, a: Tensor):
        x = a.data
        # upstream · (1/a) in one ufunc; its values as defaults, not a closure: see ``binary.add``
        return tensor_from_array(np.log(x)), lambda g, x=x: (g / x,)

    def local(self, i, inputs, out):
        return 1.0 / inputs[0]


class sqrt(operation):
    name, symbol, group = "sqrt", "√", "elementwise"
    kind = "elementwise"
    summary, language, method = "square root", UNARY, True
    formula, derivatives = "out = √a", ("∂out/∂a = 1/(2√a)",)
    samples = staticmethod(lambda rng: [Sample((positive(rng, 3),))])

    @unary_func_op()
    def forward(self, a: Tensor):
        out = np.sqrt(a.data)
        return tensor_from_array(out), self.chain(lambda: (0.5 / out,))

    def local(self, i, inputs, out):
        return 0.5 / out


class abs(operation):
    name, symbol, group = "abs", "|·|", "elementwise"
    kind = "elementwise"
    summary, language, method = "absolute value", UNARY, True
    formula, derivatives = "out = |a|", ("∂out/∂a = sign(a)  (0 at a = 0)",)
    samples = staticmethod(lambda rng: [Sample((away_from_zero(rng, 3, 2),))])

    @unary_func_op()
    def forward(self, a: Tensor):
        x = a.data
        # 0 at a = 0 is a blocked branch (the subgradient 0, as relu's at 0): selected, never inf · 0
        return tensor_from_array(np.abs(x)), self.select(lambda: (np.sign(x),),
                                                         lambda g: (masked_product(g, np.sign(x)),))

    def local(self, i, inputs, out):
        return R.Weights(np.sign(inputs[0].data))


class sin(operation):
    name, symbol, group = "sin", "sin", "elementwise"
    kind = "elementwise"
    summary, language, method = "sine", UNARY, True
    formula, derivatives = "out = sin a", ("∂out/∂a = cos a",)
    samples = staticmethod(lambda rng: [Sample((uniform(rng, 4),))])

    @unary_func_op()
    def forward(self, a: Tensor):
        return tensor_from_array(np.sin(a.data)), self.chain(lambda: (np.cos(a.data),))

    def local(self, i, inputs, out):
        return F.cos(inputs[0])


class cos(operation):
    name, symbol, group = "cos", "cos", "elementwise"
    kind = "elementwise"
    summary, language, method = "cosine", UNARY, True
    formula, derivatives = "out = cos a", ("∂out/∂a = −sin a",)
    samples = staticmethod(lambda rng: [Sample((uniform(rng, 4),))])

    @unary_func_op()
    def forward(self, a: Tensor):
        return tensor_from_array(np.cos(a.data)), self.chain(lambda: (-np.sin(a.data),))

    def local(self, i, inputs, out):
        return -F.sin(inputs[0])


class tanh(operation):
    name, symbol, group = "tanh", "tanh", "activation"
    kind = "elementwise"
    summary, language, method = "hyperbolic tangent", UNARY, True
    formula, derivatives = "out = tanh a", ("∂out/∂a = 1 − tanh²a = 1 − out²",)
    samples = staticmethod(lambda rng: [Sample((uniform(rng, 3, 2),))])

    @unary_func_op()
    def forward(self, a: Tensor):
        out = np.tanh(a.data)
        one = _ONE if out.dtype is _FLOAT64 else 1.0  # see ``_ONE``
        # its values as defaults, not a closure: see ``binary.add``
        return tensor_from_array(out), lambda g, one=one, out=out: (g * (one - out * out),)

    def local(self, i, inputs, out):
        return 1.0 - out * out


class sigmoid(operation):
    name, symbol, group = "sigmoid", "σ", "activation"
    kind = "elementwise"
    summary, language, method = "logistic 1/(1 + e⁻ˣ)", UNARY, True
    formula, derivatives = "out = 1/(1 + e⁻ᵃ)", ("∂out/∂a = σ(a)(1 − σ(a)) = out(1 − out)",)
    samples = staticmethod(lambda rng: [Sample((uniform(rng, 3, 2, low=-4, high=4),))])

    @unary_func_op()
    def forward(self, a: Tensor):
        out = _stable_sigmoid(a.data)
        one = _ONE if out.dtype is _FLOAT64 else 1.0  # see ``_ONE``
        # its values as defaults, not a closure: see ``binary.add``
        return tensor_from_array(out), lambda g, one=one, out=out: (g * (out * (one - out)),)

    def local(self, i, inputs, out):
        return out * (1.0 - out)


class relu(operation):
    name, symbol, group = "relu", "ReLU", "activation"
    kind = "elementwise"
    summary, language, method = "max(x, 0)", UNARY, True
    formula, derivatives = "out = max(a, 0)", ("∂out/∂a = 1 if a > 0 else 0",)
    samples = staticmethod(lambda rng: [Sample((away_from_zero(rng, 3, 4),))])

    @unary_func_op()
    def forward(self, a: Tensor):
        x = a.data
        # select, don't multiply: a blocked element gets 0 even when its upstream is ±inf or NaN
        return tensor_from_array(np.maximum(x, 0.0)), self.select(lambda: ((x > 0).astype(np.float64),),
                                                                  lambda g: (np.where(x > 0, g, 0.0),))

    def local(self, i, inputs, out):
        return R.Weights(inputs[0].data > 0)


class leaky_relu(operation):
    name, symbol, group = "leaky_relu", "LReLU", "activation"
    kind = "elementwise"
    summary, method = "x if x > 0 else slope·x", True
    language = Language("same", ("x", ("slope", "float", 0.01)))
    formula, derivatives = "out = a if a > 0 else slope·a", ("∂out/∂a = 1 if a > 0 else slope",)
    samples = staticmethod(lambda rng: [Sample((away_from_zero(rng, 3, 4),), {"slope": 0.1})])

    def __init__(self, slope: float = 0.01) -> None:
        super().__init__(slope=float(slope))

    @unary_func_op()
    def forward(self, a: Tensor):
        slope, x = self.params["slope"], a.data
        out = tensor_from_array(np.where(x > 0, x, slope * x))
        local = lambda: (np.where(x > 0, 1.0, slope),)  # noqa: E731
        if slope == 0:  # relu: the negative side is a blocked branch, selected (never inf · 0)
            return out, self.select(local, lambda g: (np.where(x > 0, g, 0.0),))
        return out, self.chain(local)

    def local(self, i, inputs, out):
        return R.Weights(np.where(inputs[0].data > 0, 1.0, self.params["slope"]))


class softplus(operation):
    name, symbol, group = "softplus", "softplus", "activation"
    kind = "elementwise"
    summary, language, method = "ln(1 + eˣ)", UNARY, True
    formula, derivatives = "out = ln(1 + eᵃ)", ("∂out/∂a = σ(a)",)
    samples = staticmethod(lambda rng: [Sample((uniform(rng, 5, low=-4, high=4),))])

    @unary_func_op()
    def forward(self, a: Tensor):
        x = a.data
        out = np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0.0)
        return tensor_from_array(out), self.chain(lambda: (_stable_sigmoid(x),))

    def local(self, i, inputs, out):
        return F.sigmoid(inputs[0])


class clip(operation):
    name, symbol, group = "clip", "clip", "elementwise"
    kind = "elementwise"
    summary, method = "x limited to [low, high]", True
    language = Language("same", ("x", ("low", "float or None", None), ("high", "float or None", None)))
    formula, derivatives = "out = min(max(a, low), high)", ("∂out/∂a = 1 if low ≤ a ≤ high else 0",)
    samples = staticmethod(lambda rng: [Sample((np.array([-1.7, -0.6, 0.2, 0.9, 1.8]),),
                                               {"low": -1.0, "high": 1.0})])

    def __init__(self, low: float | None = None, high: float | None = None) -> None:
        super().__init__(low=low, high=high)

    @unary_func_op()
    def forward(self, a: Tensor):
        low, high = self.params["low"], self.params["high"]
        inside = self._inside(a.data)
        return tensor_from_array(np.clip(a.data, low, high)), self.select(
            lambda: (inside.astype(np.float64),), lambda g: (np.where(inside, g, 0.0),))

    def _inside(self, x: np.ndarray) -> np.ndarray:
        low, high = self.params["low"], self.params["high"]
        inside = np.ones(x.shape, dtype=bool)
        if low is not None:
            inside &= x >= low
        if high is not None:
            inside &= x <= high
        return inside

    def local(self, i, inputs, out):
        return R.Weights(self._inside(inputs[0].data))
