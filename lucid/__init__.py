"""lucid: a small, exact NumPy autodiff engine built to be looked at.

``Tensor`` holds data and gradient; every op is an ``operation`` subclass in
``lucid._func`` registered with its symbol and formulas; ``Tensor.backward``
runs reverse mode; ``lucid.autograd.backward_trace`` records every step of it.
"""
from lucid import _func
from lucid._backend.core import REGISTRY, _check_is_tensor, _match_grad_shape, _set_tensor_grad
from lucid._backend.grad_mode import enable_grad, is_grad_enabled, no_grad
from lucid._tensor.bind import bind as _bind
from lucid._tensor.tensor import Tensor

# every op's public function (``lucid.add``, ``lucid.softplus``...), made from its class by the bindings
# (``lucid/_func/_bindings.py``), which also add an op registered later here and to ``__all__``
globals().update({_name: getattr(_func, _name) for _name in _func.__all__})
_bind()

from lucid import autograd  # noqa: E402  (needs the bound Tensor)

__all__ = ["REGISTRY", "Tensor", "_check_is_tensor", "_match_grad_shape", "_set_tensor_grad", "autograd",
           "enable_grad", "is_grad_enabled", "no_grad"]
__all__ += _func.__all__  # the ops' names (one per op and alias), kept in step by the bindings
__all__.sort()
