"""``run``: text in, ``Program`` (a graph of lucid Tensors) out, or an ``ExprError``.

The stages are: character and size checks, tokens, syntax tree, checked plan
(names, shapes and limits, nothing allocated), leaf data from one seeded
generator, evaluation through the engine. Whatever fails, and however it
fails, the caller sees an ``ExprError``.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from lucid._backend.grad_mode import enable_grad
from lucid._tensor.tensor import Tensor
from lucid.expr.batched import BatchedRunner, batched_path, batched_runner
from lucid.expr.compiler import Plan, compile_program
from lucid.expr.errors import ExprError
from lucid.expr.evaluate import execute, materialize
from lucid.expr.limits import BATCH_ELEMENTS, DEFAULT_LIMITS, OP_OVERHEAD_ELEMENTS, Limits
from lucid.expr.parser import parse
from lucid.expr.tokens import check_text, tokenize
from lucid.i18n import L_


class Program:
    """A program that has been run once.

    ``output`` is the last line's value (the root of the graph), ``variables``
    maps each assigned name to its tensor in order of first definition (a
    re-assigned name points at its latest value), and ``inputs`` are all the
    leaves that require grad, named or not, in the order they were created.
    """

    def __init__(self, source: str, plan: Plan, output: Tensor, variables: dict[str, Tensor],
                 inputs: list[Tensor]) -> None:
        self.source = source
        self.output = output
        self.variables = variables
        self.inputs = inputs
        self._plan = plan

    @property
    def limits(self) -> Limits:
        """The limits this program was checked against (the backward record is held to the same ones)."""
        return self._plan.limits

    @property
    def definitions(self) -> dict:
        """The ops the program defines with ``def``, by name (``lucid.expr.defined.Definition``; empty if none)."""
        return self._plan.definitions

    @property
    def trace_elements(self) -> int:
        """Elements its backward record is predicted to keep (``Limits.max_trace_elements`` bounds it)."""
        return self._plan.trace_elements

    def function(self) -> Callable[..., Tensor]:
        """The program as a function of its input leaves: ``f(*program.inputs)`` recomputes ``output``.

        It re-runs the checked plan (no parsing) with the given tensors standing
        for ``inputs`` positionally; constants and random draws keep the values
        of the first run, so equal inputs give equal results. Suitable for
        ``lucid.autograd.gradcheck(program.function(), program.inputs)``
        (a program that uses ``const(x)`` of an input on purpose blocks part
        of the gradient, so finite differences will rightly disagree there).
        """
        plan, count = self._plan, len(self.inputs)

        def evaluate(*leaves: Tensor) -> Tensor:
            if len(leaves) != count:
                raise TypeError(f"this program has {count} input tensor(s), got {len(leaves)}")
            return execute(plan, leaves, name_inputs=False)[0]

        return evaluate

    def batched_function(self, index: int, inputs: Sequence[Tensor] | None = None) -> BatchedRunner | None:
        """Many re-runs at once for input ``index``: stacked values ``(B, *shape)`` in, stacked outputs out.

        The other inputs keep the values of ``inputs`` (default: ``self.inputs``). None when an operation on
        that input's path would mix the re-runs (see ``lucid.expr.batched``); then use ``function()``.
        """
        return batched_runner(self._plan, list(self.inputs if inputs is None else inputs), index)

    @property
    def graph_nodes(self) -> int:
        """How many tensors the checker counted (leaves, constants and op results)."""
        return self._plan.graph_nodes

    @property
    def work(self) -> int:
        """Rough cost of one evaluation: the elements the checker counted plus the matrix multiply-adds.

        For budgeting re-runs: finite differences run ``function()`` twice per input number, so a
        program with few inputs but large constants can still cost seconds of CPU.
        """
        return self._plan.total_elements + self._plan.matmul_work

    @property
    def rerun_cost(self) -> int:
        """Cost of one re-run in element units, counting each op's fixed overhead as well as its elements.

        ``work`` alone calls a chain of a thousand scalar ops cheap; in time it is the costliest thing
        a small program can be. This is what finite-difference budgets multiply by the number of re-runs.
        """
        return self.work + OP_OVERHEAD_ELEMENTS * self._plan.graph_nodes

    @property
    def batch_rows(self) -> int:
        """Re-runs stacked in one batched pass: as many as fit ``BATCH_ELEMENTS`` (at least 2, one ± pair)."""
        return max(2, BATCH_ELEMENTS // max(1, self.work))

    def finite_difference_cost(self) -> int:
        """Cost of central differences for every input, in element units: two re-runs per input number.

        Inputs whose path allows it are re-run in batched passes (``batched_function``): every re-run
        still costs its elements, but the per-op overhead is paid once per pass, not once per re-run.
        """
        total = 0
        for index, leaf in enumerate(self.inputs):
            reruns = 2 * leaf.size
            path = batched_path(self._plan, index)
            if path is not None and path[self._plan.output]:
                passes = -(-reruns // self.batch_rows)
                total += reruns * self.work + passes * OP_OVERHEAD_ELEMENTS * self._plan.graph_nodes
            else:
                total += reruns * self.rerun_cost
        return total

    def __repr__(self) -> str:
        names = ", ".join(self.variables) or "-"
        return f"Program(output shape {self.output.shape}, variables: {names}, {len(self.inputs)} input(s))"


def predicted_cost(source: str, *, limits: Limits | None = None) -> int | None:
    """What running ``source`` and recording its backward pass will cost, in elements, before any of it runs.

    Parses and checks the program only (nothing is allocated): the elements of its tensors and gradients,
    the matrix multiply-adds, each op's fixed overhead (``OP_OVERHEAD_ELEMENTS``) and what the backward
    record keeps. ``None`` when the program does not check (running it will raise its ``ExprError``).
    A server uses it to keep cheap programs from queueing behind expensive ones.
    """
    limits = limits or DEFAULT_LIMITS
    if not isinstance(source, str) or len(source) > limits.max_source_chars:
        return None
    try:
        text = source.replace("\r\n", "\n")
        plan = compile_program(parse(tokenize(text, limits), text, limits), text, limits)
    except (ExprError, RecursionError):
        return None
    return plan.total_elements + plan.matmul_work + OP_OVERHEAD_ELEMENTS * plan.graph_nodes + plan.trace_elements


def run(source: str, *, seed: int = 0, limits: Limits | None = None) -> Program:
    """Parse, check and evaluate ``source``; raise ``ExprError`` for any problem at all.

    ``seed`` fixes the numbers of ``randn``/``rand``: the same source and seed
    always give the same program. ``limits`` defaults to ``Limits()``.
    """
    limits = limits or DEFAULT_LIMITS
    try:
        if not isinstance(source, str):
            raise ExprError(L_("the program must be text, not {type}",
                               type=type(source).__name__), kind="argument")
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
            raise ExprError(L_("the seed must be a non-negative integer, not {seed}",
                               seed=repr(seed)), kind="argument")
        if len(source) > limits.max_source_chars:
            check_text(source, limits)  # raises the "too long" error before any copying
        text = source.replace("\r\n", "\n")
        statements = parse(tokenize(text, limits), text, limits)
        plan = compile_program(statements, text, limits)
        inputs = materialize(plan, np.random.default_rng(int(seed)))
        with enable_grad():
            output, variables = execute(plan, inputs)
        return Program(source, plan, output, variables, inputs)
    except ExprError:
        raise
    except RecursionError:
        raise ExprError(L_("the program is nested too deeply to process"), kind="limit") from None
    except MemoryError:
        raise ExprError(L_("the program needs more memory than is available"), kind="limit") from None
    except Exception as exc:  # the promise: nothing but ExprError escapes
        raise ExprError(L_("internal error while running the program ({type}: {exc})",
                           type=type(exc).__name__, exc=exc),
                        kind="internal") from exc
