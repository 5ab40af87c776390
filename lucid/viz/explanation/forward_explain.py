"""Words and arithmetic for each step of forward mode (``lucid.autograd.forward_trace``).

The counterpart of ``explain`` for the backward pass, with the arithmetic line first: a node's
tangent is its inputs' tangents times its local derivatives, added (``ẏ = ∂y/∂a ⊙ ȧ + ∂y/∂b ⊙ ḃ``).
A tangent is written with a dot over a one-letter name (``ẋ``) and as ``tangent(name)`` otherwise.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

from lucid._tensor.tensor import Tensor
from lucid.autograd.forward_trace import ForwardTrace, TangentStep
from lucid.i18n import N_, _, ngettext
from lucid.viz.explanation.opinfo import spec_of
from lucid.viz.graph.naming import display_names
from lucid.viz.numbers import format_array

ELEMENTWISE_GROUPS = ("arithmetic", "elementwise", "activation")

#: The forward rule (jvp) of each op that is not elementwise, in the notation of the explanations:
#: ``ȧ`` is the input's tangent, ``out`` the op's result. Rules with words are marked for the catalogs
#: and shown through ``_``; the ones that are only notation read the same in every language.
FORWARD_RULES = {
    "matmul": "ȧ @ b + a @ ḃ",
    "sum": N_("Σ ȧ over the axis"), "mean": N_("the mean of ȧ over the axis"),
    "max": N_("ȧ at the largest element (split evenly on ties)"),
    "min": N_("ȧ at the smallest element (split on ties)"),
    "var": N_("Σ 2(a − ā)/N · ȧ over the axis"), "logsumexp": N_("Σ softmax(a) · ȧ over the axis"),
    "softmax": "out ⊙ (ȧ − Σ out · ȧ)", "log_softmax": "ȧ − Σ softmax(a) · ȧ",
    "reshape": N_("ȧ reshaped the same way"), "transpose": N_("ȧ with the same axes permuted"),
    "swapaxes": N_("ȧ with the same axes swapped"), "squeeze": N_("ȧ without the same axes"),
    "unsqueeze": N_("ȧ with the same new axis"), "broadcast_to": N_("ȧ copied the same way"),
    "concatenate": N_("the inputs' tangents joined the same way (0 for an input that does not move)"),
    "stack": N_("the inputs' tangents stacked the same way (0 for an input that does not move)"),
    "getitem": N_("ȧ at the same index"),
    "mse_loss": "Σ 2(p − y)/N · (ṗ − ẏ)",
    "binary_cross_entropy": "Σ (p − y)/(p(1 − p)N) · ṗ + Σ (ln(1 − p) − ln p)/N · ẏ",
    "binary_cross_entropy_with_logits": "Σ (σ(z) − t)/N · ż − Σ z/N · ṫ",
    "cross_entropy": "Σ (softmax(z) − onehot(t))/N · ż",
}


def dotted(name: str) -> str:
    """``ẋ`` for a one-letter name, ``tangent(name)`` for any other (a dot over ``loss`` reads badly)."""
    if len(name) == 1 and name.isalpha():
        return unicodedata.normalize("NFC", name + "\u0307")  # one character where Unicode has it (ẋ, ẏ, ḟ)
    return f"tangent({name})"


def _numbers(values: np.ndarray | None) -> str:
    return "0" if values is None else format_array(values, shape=False).replace("\n", " ")


@dataclass(frozen=True)
class ForwardStepText:
    """One step, explained: the arithmetic line, then sentences a person reads."""

    title: str
    arithmetic: str
    lines: tuple[str, ...]


def _forward_text(symbol: str, inputs: list[str], spec) -> str:
    """``x × w`` for the binary arithmetic ops, ``−a`` for neg, ``tanh(t4)`` for the others."""
    if spec is not None and spec.group == "arithmetic":
        if len(inputs) == 2:
            return f"{inputs[0]} {symbol} {inputs[1]}"
        if spec.name == "neg":
            return f"−{inputs[0]}"
    return f"{symbol}({', '.join(inputs)})"


class ForwardExplainer:
    """Names every node of one trace the way the graph does, and explains its steps."""

    def __init__(self, trace: ForwardTrace) -> None:
        self.trace = trace
        names = display_names(trace.order, trace.root)
        self._names = {id(t): n for t, n in zip(trace.order, names)}

    def name(self, tensor: Tensor) -> str:
        return self._names.get(id(tensor), "?")

    def seed_text(self) -> ForwardStepText:
        """Step 0: the direction chosen, before any node has moved."""
        parts = [f"{dotted(self.name(t))} = {_numbers(self.trace.seeds[id(t)])}"
                 for t in self.trace.order if id(t) in self.trace.seeds]
        arithmetic = "; ".join(parts)
        return ForwardStepText(
            _("Step 0: choose a direction"), arithmetic,
            (_("Forward mode asks how every value changes when the inputs move along this direction. "
               "Each input's tangent is what it moves by; every other input stays put (tangent 0)."),
             _("Each step computes one node's tangent from its inputs' tangents, in the order the values "
               "were computed, so one pass gives the output's directional derivative.")))

    def step_text(self, index: int) -> ForwardStepText:
        """Step ``index`` (1-based, like the player): one node's tangent, with its arithmetic first."""
        step = self.trace.steps[index - 1]
        node, op = step.node, step.node._op
        out = self.name(node)
        inputs = [self.name(p) for p in node._prev]
        spec = spec_of(node)
        elementwise = spec is not None and spec.group in ELEMENTWISE_GROUPS
        locals_ = op.local_derivatives() if elementwise else None
        lines = [_("Forward: {name} = {formula}.").format(name=out, formula=_forward_text(op.describe(), inputs,
                                                                                            spec))]
        if locals_ is not None:
            arithmetic = self._elementwise(step, out, inputs, locals_)
            rule = f"{dotted(out)} = " + " + ".join(
                f"∂{out}/∂{name} ⊙ {dotted(name)}" for name, d, t in zip(inputs, locals_, step.input_tangents)
                if d is not None and t is not None)
            lines.append(_("Tangent rule: {rule}: each moving input's tangent times the local derivative (the chain "
                           "rule, pushed forward).").format(rule=rule))
        else:
            symbol = op.describe()
            moving = [f"{dotted(n)} = {_numbers(t)}" for n, t in zip(inputs, step.input_tangents) if t is not None]
            arithmetic = _("{tangent} = {op} pushed forward on {inputs} → {value}").format(
                tangent=dotted(out), op=symbol, inputs=", ".join(moving), value=_numbers(step.tangent))
            rule = FORWARD_RULES.get(spec.name) if spec is not None else None
            if rule:
                lines.append(_("Tangent rule: {op} is not elementwise, so its forward rule (jvp) applies its local "
                               "derivatives to the inputs' tangents as a whole: {rule}.").format(
                    op=symbol, rule=f"{dotted(out)} = {_(rule)}"))
            else:
                lines.append(_("Tangent rule: {op} is not elementwise, so its forward rule (jvp) applies its local "
                               "derivatives to the inputs' tangents as a whole.").format(op=symbol))
        if spec is not None and spec.derivatives:
            # the registry's rules in the reader's language, as the Op reference shows them ("" is no message)
            rules = "; ".join(_(text) if text else text for text in spec.derivatives)
            if locals_ is not None:
                lines.append(_("Local derivatives (the rule of {symbol}): {rules}.").format(symbol=spec.symbol,
                                                                                          rules=rules))
            else:
                lines.append(_("Its backward rule, for comparison ({symbol}): {rules}.").format(symbol=spec.symbol,
                                                                                              rules=rules))
        still = [n for n, t in zip(inputs, step.input_tangents) if t is None]
        if still:
            lines.append(ngettext("{names} does not move along this direction (tangent 0), so its term drops.",
                                  "{names} do not move along this direction (tangent 0), so their terms drop.",
                                  len(still)).format(names=", ".join(still)))
        lines.append(_("{tangent} = {value}: how much {name} moves per unit step along the direction.").format(
            tangent=dotted(out), value=_numbers(step.tangent), name=out))
        moving = dict.fromkeys(dotted(n) for n, t in zip(inputs, step.input_tangents) if t is not None)
        title = _("Step {index} of {count}: {tangent} from {inputs}").format(
            index=index, count=len(self.trace.steps), tangent=dotted(out), inputs=", ".join(moving))
        return ForwardStepText(title, arithmetic, tuple(lines))

    def _elementwise(self, step: TangentStep, out: str, inputs: list[str], locals_) -> str:
        terms = [(d, t) for d, t in zip(locals_, step.input_tangents) if d is not None and t is not None]
        numbers = " + ".join(f"{_numbers(np.asarray(d))} ⊙ {_numbers(t)}" for d, t in terms)
        symbols = " + ".join(f"∂{out}/∂{n} ⊙ {dotted(n)}" for n, d, t in zip(inputs, locals_, step.input_tangents)
                             if d is not None and t is not None)
        return f"{dotted(out)} = {symbols}: {numbers} → {_numbers(step.tangent)}"
