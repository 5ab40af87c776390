"""Record a PyTorch computation and its backward pass, without changing either.

Forward: a ``TorchFunctionMode`` sees each torch call the user's code makes (``torch.tanh``, ``x @ w``,
``F.linear``, ``F.cross_entropy``) at the level they wrote it; calls inside a call run with the mode
off, so one call is one node. Global module hooks say which ``nn.Module`` each call ran in. Only calls
whose result carries a ``grad_fn`` become nodes; everything else (``no_grad`` work, ``detach``, integer
tensors) enters the graph as a leaf. The calls run exactly as without the recorder (same function, same
arguments), so every number is the one torch computes anyway.

Backward: a hook on every autograd node reachable from the recorded results notes, in the order torch's
engine runs them, the gradients each node sent along each of its edges. A call that torch implements
with several autograd nodes (``linear`` is ``addmm`` and a transpose) is one node here: its gradient to
an input is what its own autograd nodes sent to that input's node. The hooks only read.
"""
from __future__ import annotations

import contextlib
import itertools
import sys
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch  # noqa: E402  (lucid.torch is the optional extra that needs torch)
from torch.overrides import TorchFunctionMode

from lucid.torch.data import OP_NAME, Node, RecordedGraph, Step

#: Calls whose number arguments are operands (``x * 2``): those numbers are drawn as constants.
ARITHMETIC = frozenset({"add", "__add__", "__radd__", "sub", "__sub__", "__rsub__", "rsub", "mul", "__mul__",
                        "__rmul__", "div", "__truediv__", "__rtruediv__", "true_divide", "pow", "__pow__",
                        "__rpow__", "maximum", "minimum", "where"})
#: Method and attribute reads that are not computations.
_SKIP = frozenset({"__get__", "__set__", "size", "dim", "numel", "__len__", "__repr__", "__format__", "item",
                   "tolist", "retain_grad", "register_hook", "backward", "__bool__", "__index__", "__int__",
                   "__float__", "requires_grad_", "__setstate__", "__reduce_ex__", "__deepcopy__", "data_ptr",
                   "stride", "is_contiguous", "type", "__hash__", "__contains__"})


class RecordError(RuntimeError):
    """Something the recorder cannot show truthfully; the message says what to write instead."""


def _op_name(func: Any) -> str:
    name = getattr(func, "__name__", "") or type(func).__name__
    return name if OP_NAME.fullmatch(name) else "op"


def _is_inplace(name: str) -> bool:
    return (name.endswith("_") and not name.endswith("__")) or name.startswith("__i") and name.endswith("__")


def _param(v: Any, depth: int = 0) -> Any:
    """A non-tensor argument as plain data (``dim=1``, ``kernel_size=(2, 2)``), or ``repr`` text when it is not."""
    if v is None or isinstance(v, (bool, int, float)):
        return v
    if isinstance(v, slice):
        return {"slice": [_param(v.start), _param(v.stop), _param(v.step)]}
    if v is Ellipsis:
        return "..."
    if isinstance(v, torch.Tensor) and not v.requires_grad and v.numel() <= 1024 and not v.is_floating_point():
        return v.tolist()  # class targets, an index tensor
    if isinstance(v, (list, tuple, torch.Size)) and depth < 2 and len(v) <= 1024:
        return [_param(x, depth + 1) for x in v]
    if isinstance(v, (str, torch.dtype)):
        return str(v)[:64]
    return type(v).__name__


@dataclass
class _Call:
    op: str
    args: list[Any]  # per positional argument: a tensor, a number operand, or a parameter
    params: dict[str, Any]
    out: torch.Tensor
    module: tuple[str, ...]


class _Mode(TorchFunctionMode):
    def __init__(self, recorder: Recorder) -> None:
        super().__init__()
        self.recorder = recorder

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        name = _op_name(func)
        if name == "__get__":  # a property such as x.T or x.mT: named by the property
            name = _op_name(getattr(func, "__self__", func))
        if name not in _SKIP:
            self.recorder.saw(name, args, kwargs, out)
        return out


@dataclass
class Recorder:
    """The state of one ``record()`` block; ``graph()`` turns it into plain data after ``backward``."""

    calls: list[_Call] = field(default_factory=list)
    module_stack: list[str] = field(default_factory=list)
    names: dict[int, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    keep: list[Any] = field(default_factory=list)  # tensors of the block, alive while the recording is

    def saw(self, name: str, args: tuple, kwargs: dict, out: Any) -> None:
        results = [out] if isinstance(out, torch.Tensor) else [
            o for o in (out if isinstance(out, (tuple, list)) else ()) if isinstance(o, torch.Tensor)]
        differentiable = [o for o in results if o.grad_fn is not None]
        if not differentiable:
            return
        if _is_inplace(name):
            raise RecordError(f"'{name}' changes a tensor in place inside the recorded graph, so the values before "
                              f"it are gone and the picture would be wrong: write it out of place "
                              f"(x = x + y instead of x += y, torch.relu(x) instead of x.relu_())")
        if len(differentiable) > 1:
            raise RecordError(f"'{name}' returns {len(differentiable)} tensors that need gradients (split, chunk, "
                              f"unbind): the recorder draws one result per call; index the tensor instead "
                              f"(x[:, :2], x[:, 2:])")
        out_tensor = differentiable[0]
        flat: list[Any] = []
        for a in args:
            if isinstance(a, (list, tuple)) and a and all(isinstance(x, torch.Tensor) for x in a):
                flat.extend(a)  # torch.cat([a, b]), torch.stack(...)
            else:
                flat.append(a)
        self.calls.append(_Call(name, flat, {k: _param(v) for k, v in kwargs.items()}, out_tensor,
                                tuple(self.module_stack)))
        self.keep.append(out_tensor)

    # module hooks: the path of the module whose forward is running
    def enter(self, module: Any, _inputs: Any) -> None:
        self.module_stack.append(self._module_name(module))

    def leave(self, _module: Any, _inputs: Any, _output: Any) -> None:
        if self.module_stack:
            self.module_stack.pop()

    def _module_name(self, module: Any) -> str:
        inside = bool(self.module_stack)
        for owner_name, owner in self._owners:
            for child_name, child in owner.named_modules():
                if child is module:
                    if not child_name:
                        return owner_name
                    return child_name.rsplit(".", 1)[-1] if inside else child_name
        return type(module).__name__

    _owners: list[tuple[str, Any]] = field(default_factory=list)

    def name_from(self, scope: dict[str, Any]) -> None:
        """Names for tensors and modules the user's variables hold (``loss``, ``model`` → ``fc1.weight``)."""
        for var, value in scope.items():
            if var.startswith("_"):
                continue
            if isinstance(value, torch.nn.Module):
                if all(m is not value for _, m in self._owners):
                    self._owners.append((var, value))
                for pname, p in value.named_parameters():
                    self.names.setdefault(id(p), pname)
            elif isinstance(value, torch.Tensor):
                self.names.setdefault(id(value), var)


def _array(t: torch.Tensor) -> np.ndarray:
    """torch's numbers as float64 (exact for float16/32/64): what the player shows."""
    return t.detach().to("cpu").to(torch.float64).numpy().copy()


class Recording:
    """The handle ``with record() as rec`` gives: the graph and, after ``backward()``, torch's gradients.

    ``graph()`` is the plain data (``lucid.torch.data``); ``save(path)`` writes it as a ``.lucid`` file;
    ``stepper(rec)`` (``lucid.viz``) plays it; ``animation()``, ``save_gif(path)`` and ``save_html(path)``
    export it.
    """

    def __init__(self, recorder: Recorder, hooks: list[Any]) -> None:
        self._recorder = recorder
        self._backward_hooks: list[Any] = []
        self._events: list[tuple[int, Any, tuple, tuple]] = []
        self._counter = itertools.count()
        self._autograd_nodes: list[Any] = []
        self._module_hooks = hooks
        self._graph: RecordedGraph | None = None
        self._passes = 0

    # -- backward capture ---------------------------------------------------------------------------
    def _watch(self) -> None:
        seen: set[Any] = set()
        stack = [c.out.grad_fn for c in self._recorder.calls]
        while stack:
            fn = stack.pop()
            if fn is None or fn in seen:
                continue
            seen.add(fn)
            self._autograd_nodes.append(fn)
            self._backward_hooks.append(fn.register_hook(self._hook(fn)))
            stack.extend(next_fn for next_fn, _ in fn.next_functions)

    def _hook(self, fn: Any) -> Any:
        def note(grad_inputs: tuple, grad_outputs: tuple) -> None:
            self._events.append((next(self._counter), fn, tuple(grad_inputs), tuple(grad_outputs)))
        return note

    def remove_hooks(self) -> None:
        for h in self._backward_hooks:
            h.remove()
        self._backward_hooks.clear()

    # -- the plain data -------------------------------------------------------------------------------
    def graph(self) -> RecordedGraph:
        """The recorded forward graph and torch's backward steps as plain data (after ``backward()``)."""
        if self._graph is None:
            if not self._events:
                raise RecordError("no backward pass was recorded: call loss.backward() (or torch.autograd.grad) "
                                  "on a result of the recorded block after the 'with record()' block")
            self._graph = _build(self._recorder, self._events)
            self.remove_hooks()
        return self._graph

    def save(self, path: Any) -> Any:
        """Write the recording as a ``.lucid`` file (JSON: plain numbers and names) that the Playground plays."""
        from pathlib import Path

        from lucid.torch.data import to_json

        target = Path(path)
        target.write_text(to_json(self.graph()), encoding="utf-8")
        return target

    def replay(self) -> Any:
        """``(root, trace)``: the lucid drawing of this recording with torch's numbers (``lucid.torch.playback``)."""
        from lucid.torch.playback import replay

        return replay(self.graph())

    def animation(self, **options: Any) -> Any:
        """The player's animation of the recorded pass (``lucid.viz.player.animation.Animation``)."""
        from lucid.notebook.widget import animate
        from lucid.notebook.widget import record as as_recording

        return animate(as_recording(self), **options)

    def save_gif(self, path: Any, **options: Any) -> Any:
        """The whole pass as an animated GIF (needs Graphviz's ``dot``)."""
        from lucid.viz import stepper

        return stepper(self).save_gif(path, **options)

    def save_html(self, path: Any, **options: Any) -> Any:
        """One self-contained HTML file of the player that steps offline in any browser (``lucid.viz.save_html``:
        ``lang``, ``step``, ``style``, ... as the stepper's); no anywidget needed. Returns the path."""
        from lucid.viz import save_html

        return save_html(self, path, **options)


def _boundary_key(t: torch.Tensor) -> tuple[Any, int] | None:
    """The autograd edge a tensor's gradient arrives on: its ``grad_fn`` and output slot (leaves: None)."""
    return None if t.grad_fn is None else (t.grad_fn, t.output_nr)


def _build(rec: Recorder, events: list[tuple[int, Any, tuple, tuple]]) -> RecordedGraph:
    nodes: list[Node] = []
    of_tensor: dict[int, int] = {}  # id(torch tensor) -> node id
    by_edge: dict[tuple[Any, int], int] = {}  # (grad_fn, output_nr) -> node id of the tensor it made
    leaf_by_acc: dict[int, int] = {}  # id(leaf tensor) -> node id (their AccumulateGrad nodes carry .variable)
    kept: list[Any] = []

    def leaf(value: Any) -> int:
        if isinstance(value, torch.Tensor):
            if id(value) in of_tensor:
                return of_tensor[id(value)]
            node = Node(len(nodes), "leaf", _array(value), bool(value.requires_grad),
                        name=rec.names.get(id(value)))
            of_tensor[id(value)] = node.id
            kept.append(value)
            if value.requires_grad and value.grad_fn is None:
                leaf_by_acc[id(value)] = node.id
            elif value.grad_fn is not None:
                by_edge[(value.grad_fn, value.output_nr)] = node.id
        else:
            node = Node(len(nodes), "leaf", np.asarray(float(value), dtype=np.float64), False)
        nodes.append(node)
        return node.id

    calls: list[tuple[_Call, int]] = []
    for call in rec.calls:
        inputs: list[int] = []
        params = dict(call.params)
        for k, a in enumerate(call.args):
            if isinstance(a, torch.Tensor) and (a.requires_grad or a.is_floating_point()):
                inputs.append(leaf(a))
            elif isinstance(a, (int, float)) and not isinstance(a, bool) and call.op in ARITHMETIC:
                inputs.append(leaf(a))
            else:
                params[f"arg{k}"] = _param(a)
        node = Node(len(nodes), "op", _array(call.out), True, op=call.op, inputs=inputs, params=params,
                    name=rec.names.get(id(call.out)), module=call.module)
        nodes.append(node)
        of_tensor[id(call.out)] = node.id
        by_edge[(call.out.grad_fn, call.out.output_nr)] = node.id
        calls.append((call, node.id))

    first = {}  # autograd node -> its first event
    for event in events:
        first.setdefault(event[1], event)
    # the root: the recorded result whose autograd node torch ran first
    candidates = [(first[c.out.grad_fn][0], nid, c) for c, nid in calls if c.out.grad_fn in first]
    if not candidates:
        raise RecordError("the backward pass did not start from a result of the recorded block")
    _, root, root_call = min(candidates, key=lambda x: x[0])
    passes = sum(1 for e in events if e[1] is root_call.out.grad_fn)
    notes = list(rec.notes)
    if passes > 1:
        notes.append(f"backward ran {passes} times through this graph; the first pass is shown")
    cutoff = next((e[0] for e in events if e[1] is root_call.out.grad_fn and e[0] > first[root_call.out.grad_fn][0]),
                  None)
    events = [e for e in events if cutoff is None or e[0] < cutoff]
    ran = {e[1]: e for e in events}

    seed_grad = ran[root_call.out.grad_fn][3][root_call.out.output_nr]
    nodes[root].upstream = _array(seed_grad) if seed_grad is not None else None
    steps = [Step(None, 0, root, nodes[root].upstream if nodes[root].upstream is not None
                  else np.ones_like(nodes[root].value))]

    # each recorded call's own autograd nodes, and the edges out of them into other nodes' tensors
    pending: list[tuple[int, int, int, int, np.ndarray]] = []  # (event order, edge order, node, slot, grad)
    for call, nid in calls:
        fn = call.out.grad_fn
        if fn not in ran:
            continue
        up = ran[fn][3][call.out.output_nr]
        nodes[nid].upstream = None if up is None else _array(up)
        slots_of: dict[int, list[int]] = {}
        for slot, parent in enumerate(nodes[nid].inputs):
            slots_of.setdefault(parent, []).append(slot)
        contributions: dict[int, list[tuple[int, int, Any]]] = {}
        seen: set[Any] = set()
        stack = [fn]
        while stack:
            g = stack.pop()
            if g in seen:
                continue
            seen.add(g)
            for e, (next_fn, nr) in enumerate(g.next_functions):
                if next_fn is None:
                    continue
                variable = getattr(next_fn, "variable", None)
                target = (leaf_by_acc.get(id(variable)) if variable is not None else by_edge.get((next_fn, nr)))
                if target is not None and target in slots_of:
                    grads = ran[g][2] if g in ran else ()
                    if e < len(grads) and grads[e] is not None:
                        contributions.setdefault(target, []).append((ran[g][0], e, grads[e]))
                elif target is None and variable is None:
                    stack.append(next_fn)  # torch's own inner node of this call (linear's transpose)
        for parent, found in contributions.items():
            slots = slots_of[parent]
            found.sort(key=lambda x: (x[0], x[1]))
            if len(found) == len(slots):  # x * x: one edge per use, one step per use
                for slot, (order, e, g) in zip(slots, found):
                    pending.append((order, e, nid, slot, _array(g)))
            else:
                total = sum(_array(g) for _, _, g in found)
                pending.append((found[-1][0], found[-1][1], nid, slots[0], total))
    pending.sort(key=lambda p: (p[0], p[1]))
    for _, _, nid, slot, g in pending:
        parent = nodes[nid].inputs[slot]
        if g.shape != nodes[parent].value.shape:
            g = np.broadcast_to(g, nodes[parent].value.shape).copy() if g.size == 1 else g
        steps.append(Step(nid, slot, parent, g))
    for tensor_id, nid in leaf_by_acc.items():
        t = next((t for t in kept if id(t) == tensor_id), None)
        if t is not None and t.grad is not None:
            nodes[nid].grad = _array(t.grad)
    return RecordedGraph(nodes, root, steps, notes, torch.__version__)


@contextlib.contextmanager
def record(*modules: Any, names: dict[str, Any] | None = None):
    """Record the torch calls of the block; after it, ``loss.backward()`` fills in torch's gradients.

    ``modules``: models whose parameter names (``fc1.weight``) name the graph's leaves, found in the
    caller's variables too; ``names``: more names, ``{"x": x}``. Nothing of the computation changes.
    """
    recorder = Recorder()
    caller = sys._getframe(2).f_locals if sys._getframe(2) is not None else {}
    recorder.name_from(dict(caller))
    for m in modules:
        recorder.name_from({type(m).__name__.lower(): m})  # a model no variable of the caller holds
    pre = torch.nn.modules.module.register_module_forward_pre_hook(recorder.enter)
    post = torch.nn.modules.module.register_module_forward_hook(recorder.leave)
    rec = Recording(recorder, [pre, post])
    try:
        with _Mode(recorder):
            yield rec
    finally:
        pre.remove()
        post.remove()
        frame = sys._getframe(2)
        if frame is not None:
            recorder.name_from(dict(frame.f_locals))
        if names:
            recorder.name_from(dict(names))
    rec._watch()
