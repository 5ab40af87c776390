"""Backward pass, its step-by-step trace, grad mode and gradient checking; derivatives of derivatives
(``grad(..., create_graph=True)``, ``gradgradcheck``) and forward mode (``jvp``, ``forward_trace``)."""
from lucid._backend.grad_mode import enable_grad, is_grad_enabled, no_grad
from lucid.autograd.backward import backward, topological_order
from lucid.autograd.forward import Jacobian, hvp, jacobian, jvp, push_tangents, vjp
from lucid.autograd.forward_trace import ForwardTrace, TangentStep, forward_trace
from lucid.autograd.grad import grad
from lucid.autograd.gradcheck import GradcheckReport, InputReport, gradcheck, numerical_grad
from lucid.autograd.gradgradcheck import GradGradReport, gradgradcheck
from lucid.autograd.trace import Trace, TraceStep, backward_trace

__all__ = ["ForwardTrace", "GradGradReport", "GradcheckReport", "InputReport", "Jacobian", "TangentStep", "Trace",
           "TraceStep", "backward", "backward_trace", "enable_grad", "forward_trace", "grad", "gradcheck",
           "gradgradcheck", "hvp", "is_grad_enabled", "jacobian", "jvp", "no_grad", "numerical_grad",
           "push_tangents", "topological_order", "vjp"]
