"""lucid: a small, exact NumPy autodiff engine built to be looked at.

``Tensor`` holds data and gradient; every op is an ``operation`` subclass in
``lucid._func`` registered with its symbol and formulas; ``Tensor.backward``
runs reverse mode; ``lucid.autograd.backward_trace`` records every step of it.
"""
from lucid._backend.core import REGISTRY, _check_is_tensor, _match_grad_shape, _set_tensor_grad
from lucid._backend.grad_mode import enable_grad, is_grad_enabled, no_grad
from lucid._func import (
    abs,
    add,
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    broadcast_to,
    clip,
    concatenate,
    cos,
    cross_entropy,
    div,
    eq,
    exp,
    expand_dims,
    ge,
    getitem,
    gt,
    le,
    leaky_relu,
    log,
    log_softmax,
    logsumexp,
    lt,
    matmul,
    max,
    maximum,
    mean,
    min,
    minimum,
    mse_loss,
    mul,
    ne,
    neg,
    pow,
    relu,
    reshape,
    sigmoid,
    sin,
    softmax,
    softplus,
    sqrt,
    squeeze,
    stack,
    sub,
    sum,
    swapaxes,
    tanh,
    transpose,
    unsqueeze,
    var,
    where,
)
from lucid._tensor.bind import bind as _bind
from lucid._tensor.tensor import Tensor

_bind()

from lucid import autograd  # noqa: E402  (needs the bound Tensor)

__all__ = [
    "REGISTRY", "Tensor", "_check_is_tensor", "_match_grad_shape", "_set_tensor_grad", "abs", "add",
    "autograd", "binary_cross_entropy", "binary_cross_entropy_with_logits", "broadcast_to", "clip",
    "concatenate", "cos", "cross_entropy", "div",
    "enable_grad", "eq", "exp", "expand_dims", "ge", "getitem", "gt", "is_grad_enabled", "le", "leaky_relu",
    "log", "log_softmax", "logsumexp", "lt", "matmul", "max", "maximum", "mean", "min", "minimum",
    "mse_loss", "mul", "ne", "neg", "no_grad", "pow", "relu", "reshape", "sigmoid", "sin", "softmax",
    "softplus", "sqrt", "squeeze", "stack", "sub", "sum", "swapaxes", "tanh", "transpose", "unsqueeze",
    "var", "where",
]
