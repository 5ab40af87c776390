"""The gradient detective: a program shown with one broken rule, found with as few node checks as possible.

A teacher picks a fault that changes this program's numbers (``lucid.practice.faults.applicable_targets``)
and shares a sealed link (``lucid.practice.detective_link``). The student's page opens the case against the
program's correct trace; the graph and the player then show ``case.trace``, the broken engine's numbers.
The student checks nodes (``lucid.practice.node_check``: each node counted once however often it is looked
at again) and names the culprit node and the mistake. The case is solved when both are right; the score is
the checks it took and the wrong accusations.

Plain state (no Streamlit): the page keeps a ``DetectiveCase`` in the session and asks it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from lucid.autograd import Trace
from lucid.i18n import L_, Message
from lucid.practice.detective_link import InvalidCase, open_case
from lucid.practice.faults import FAULTS, Target, applicable_targets, broken_trace, fault_by_slug
from lucid.practice.node_check import NodeCheck, check_node

__all__ = ["Accusation", "DetectiveCase", "MAX_ACCUSATIONS", "open_detective_case"]

MAX_ACCUSATIONS = 50
"""A case takes at most this many accusations (then it is shown as given up): a script cannot guess on."""


@dataclass(frozen=True)
class Accusation:
    """One named culprit: the node, the mistake, and which of the two was right."""

    index: int
    slug: str
    right_node: bool
    right_mistake: bool

    @property
    def solved(self) -> bool:
        return self.right_node and self.right_mistake

    def message(self) -> Message:
        if self.solved:
            return L_("Solved: that node's rule is the broken one, and that is the mistake.")
        if self.right_node:
            return L_("Right node, wrong mistake: this node is the culprit, but its rule is broken another way.")
        return L_("Not this node: its backward step is right. Check more nodes.")


@dataclass
class DetectiveCase:
    """One student's case: the planted fault (kept from them), the broken pass, their checks and accusations."""

    target: Target
    trace: Trace
    checks: dict[int, NodeCheck] = field(default_factory=dict)
    accusations: list[Accusation] = field(default_factory=list)

    @property
    def solved(self) -> bool:
        return any(a.solved for a in self.accusations)

    @property
    def checks_used(self) -> int:
        return len(self.checks)

    @property
    def gave_up(self) -> bool:
        return not self.solved and len(self.accusations) >= MAX_ACCUSATIONS

    def check(self, index: int) -> NodeCheck:
        """Check node ``index`` of the broken pass; a node already checked is not counted again."""
        if index not in self.checks:
            self.checks[index] = check_node(self.trace, index)
        return self.checks[index]

    def accuse(self, index: int, slug: str) -> Accusation | None:
        """Name node ``index`` and the mistake ``slug`` (a fault's slug); None once the case is closed."""
        if self.solved or self.gave_up or fault_by_slug(slug) is None or not 0 <= index < len(self.trace.order):
            return None
        accusation = Accusation(index, slug, index == self.target.index, slug == self.target.fault.slug)
        self.accusations.append(accusation)
        return accusation

    def score(self) -> Message:
        wrong = sum(1 for a in self.accusations if not a.solved)
        return L_("Solved with {checks} node checks and {wrong} wrong guesses.", checks=self.checks_used,
                  wrong=wrong)


def open_detective_case(token: object, source: str, secret: str | bytes, trace: Trace) -> DetectiveCase:
    """The case a link seals for this program, with its broken pass; ``InvalidCase`` when it does not fit.

    ``trace`` is the program's correct backward pass (it is read, never changed)."""
    target = open_case(token, source, secret)
    if not any(t.fault is target.fault and t.index == target.index for t in applicable_targets(
            trace, (target.fault,))):
        raise InvalidCase(L_("This detective link does not fit this program."))
    return DetectiveCase(target, broken_trace(trace, target))


def fault_choices() -> list[tuple[str, Message]]:
    """Every mistake a student may name, in catalogue order: (slug, title)."""
    return [(f.slug, f.title) for f in FAULTS]
