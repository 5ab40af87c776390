"""Backward pass, its step-by-step trace, grad mode and gradient checking."""
from lucid._backend.grad_mode import enable_grad, is_grad_enabled, no_grad
from lucid.autograd.backward import backward, topological_order
from lucid.autograd.gradcheck import GradcheckReport, InputReport, gradcheck, numerical_grad
from lucid.autograd.trace import Trace, TraceStep, backward_trace

__all__ = ["GradcheckReport", "InputReport", "Trace", "TraceStep", "backward", "backward_trace",
           "enable_grad", "gradcheck", "is_grad_enabled", "no_grad", "numerical_grad", "topological_order"]
