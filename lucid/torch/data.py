"""A recorded PyTorch backward pass as plain data: what ``record`` captures and what a ``.lucid`` file holds.

One model for both, so the notebook and the app play a recording through the same code (``replay``),
whether it was just captured or read from a file someone uploaded. The file is JSON: numbers, strings
and lists, never pickle or code. ``from_json`` treats it as hostile: the size is checked before parsing,
then every count, name, shape, reference and number is checked before anything is built from it.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lucid.i18n import L_, N_, Message, _

FORMAT = "lucid-torch-recording"
VERSION = 1


@dataclass(frozen=True)
class FileLimits:
    """What a recording may hold: a file past these is refused before it is built into a graph."""

    max_bytes: int = 8_000_000
    max_nodes: int = 600
    max_steps: int = 2_000
    max_elements: int = 400_000  # all arrays together
    max_ndim: int = 6
    max_name: int = 64
    max_params: int = 12


#: What a recording's ``notes`` may say, in English in the data (a file says the same in every language):
#: ``note_text`` shows one in the reader's language.
NOTE_PASSES = N_("backward ran more than once through this graph; the first pass is shown")
NOTE_CREATE_GRAPH = N_("the first pass built its gradients as a graph (create_graph=True): its numbers are shown; "
                       "a pass through those gradients (double backward) is not drawn")
NOTE_STALE_GRAD = N_("a leaf's .grad holds more than this pass sent it (another backward pass added to it, or it was "
                     "not zeroed): the player shows this pass's total there, not the .grad")


def note_text(note: str) -> str:
    """A recording's note in the reader's language (a note this lucid does not know, from a file, as it is)."""
    return _(note)


#: An op name as torch spells its functions (``mul``, ``__rsub__``, ``max_pool2d``, ``linear``).
OP_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,47}")
#: A module's name in a node's path (``model``, ``0``, ``fc1``, ``모델``): no slash, which separates the boxes
#: of a collapsed drawing (``model/model.0``), and no blank.
MODULE_NAME = re.compile(r"[^/\s]{1,64}")
#: Keys of an op's parameters (``dim``, ``keepdim``, ``kernel_size``, ``arg1``).
PARAM_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,31}")


class RecordingFileError(ValueError):
    """A ``.lucid`` file that is not a recording this version can play; the message says what is wrong.

    Its message is a ``lucid.i18n.Message`` (``str(err)`` in the reader's language), naming the field it got
    wrong (``nodes[3].value``) as the file spells it.
    """


@dataclass
class Node:
    """One tensor of the recorded forward pass.

    ``kind`` is ``"leaf"`` (a tensor the recording did not make: a parameter, an input, a constant) or
    ``"op"`` (made by the torch call ``op`` from the nodes ``inputs`` in argument order, with the
    non-tensor arguments in ``params``). ``module`` is the path of the ``nn.Module`` whose forward made
    it (``("0",)`` for the first layer of a Sequential), ``upstream`` the gradient torch's engine brought
    to this node's output, ``grad`` a leaf's ``.grad`` after the pass.
    """

    id: int
    kind: str
    value: np.ndarray
    requires_grad: bool
    op: str = ""
    inputs: list[int] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)
    name: str | None = None
    module: tuple[str, ...] = ()
    upstream: np.ndarray | None = None
    grad: np.ndarray | None = None


@dataclass
class Step:
    """One gradient torch's engine sent from node ``node`` into its ``slot``-th input (``node`` None: the seed)."""

    node: int | None
    slot: int
    parent: int
    contribution: np.ndarray


@dataclass
class RecordedGraph:
    """Nodes in forward order (every input before its user), the root and the steps in torch's order."""

    nodes: list[Node]
    root: int
    steps: list[Step]
    notes: list[str] = field(default_factory=list)
    torch_version: str = ""

    def node(self, node_id: int) -> Node:
        return self.nodes[node_id]

    def replay(self) -> Any:
        """``(root, trace)``: this recording as lucid's tensors with torch's numbers (``lucid.torch.playback``)."""
        from lucid.torch.playback import replay

        return replay(self)


def _encode_array(a: np.ndarray | None) -> Any:
    if a is None:
        return None
    flat = [v if math.isfinite(v) else repr(v) for v in np.asarray(a, dtype=np.float64).ravel().tolist()]
    return {"shape": list(a.shape), "data": flat}


def _encode_param(v: Any) -> Any:
    if isinstance(v, dict) and set(v) == {"slice"}:
        return v
    if isinstance(v, (list, tuple)):
        return [_encode_param(x) for x in v]
    return v


def to_json(graph: RecordedGraph) -> str:
    """The recording as the JSON text of a ``.lucid`` file."""
    nodes = [{"id": n.id, "kind": n.kind, "op": n.op, "inputs": n.inputs,
              "params": {k: _encode_param(v) for k, v in n.params.items()}, "name": n.name,
              "module": list(n.module), "requires_grad": n.requires_grad, "value": _encode_array(n.value),
              "upstream": _encode_array(n.upstream), "grad": _encode_array(n.grad)} for n in graph.nodes]
    steps = [{"node": s.node, "slot": s.slot, "parent": s.parent, "contribution": _encode_array(s.contribution)}
             for s in graph.steps]
    return json.dumps({"format": FORMAT, "version": VERSION, "torch": graph.torch_version, "root": graph.root,
                       "notes": graph.notes, "nodes": nodes, "steps": steps}, separators=(",", ":"))


class _Reader:
    """Checks one parsed file field by field; every refusal names the field (``nodes[3].value``)."""

    def __init__(self, limits: FileLimits) -> None:
        self.limits = limits
        self.elements = 0

    def fail(self, where: str, what: Message) -> RecordingFileError:
        return RecordingFileError(L_("{where}: {what}", where=where, what=what))

    def integer(self, v: Any, where: str, low: int, high: int) -> int:
        if type(v) is not int or not low <= v <= high:
            raise self.fail(where, L_("expected a whole number from {low} to {high}", low=low, high=high))
        return v

    def text(self, v: Any, where: str, pattern: re.Pattern | None = None, optional: bool = False) -> str | None:
        if v is None and optional:
            return None
        if not isinstance(v, str) or len(v) > self.limits.max_name or not v.isprintable():
            raise self.fail(where, L_("expected printable text of at most {n} characters", n=self.limits.max_name))
        if pattern is not None and not pattern.fullmatch(v):
            raise self.fail(where, L_("{value} is not a valid name", value=repr(v)))
        return v

    def array(self, v: Any, where: str, optional: bool = False) -> np.ndarray | None:
        if v is None and optional:
            return None
        if not isinstance(v, dict) or set(v) != {"shape", "data"}:
            raise self.fail(where, L_("expected an array: an object with a shape list and a data list"))
        shape, data = v["shape"], v["data"]
        if not isinstance(shape, list) or len(shape) > self.limits.max_ndim:
            raise self.fail(where, L_("the shape must be a list of at most {n} sizes", n=self.limits.max_ndim))
        dims = [self.integer(d, f"{where}.shape", 0, self.limits.max_elements) for d in shape]
        size = math.prod(dims)
        self.elements += size
        if self.elements > self.limits.max_elements:
            raise self.fail(where, L_("the recording holds more than {n} numbers",
                                      n=format(self.limits.max_elements, ",")))
        if not isinstance(data, list) or len(data) != size:
            raise self.fail(where, L_("the shape {shape} needs {size} numbers", shape=tuple(dims), size=size))
        numbers = []
        for x in data:
            if type(x) in (int, float):
                numbers.append(float(x))
            elif x in ("nan", "inf", "-inf"):
                numbers.append(float(x))
            else:
                raise self.fail(where, L_("every entry must be a number"))
        return np.array(numbers, dtype=np.float64).reshape(dims)

    def param(self, v: Any, where: str, depth: int = 0) -> Any:
        if v is None or type(v) in (bool, int, float):
            if type(v) is float and not math.isfinite(v):
                raise self.fail(where, L_("a parameter must be finite"))
            if type(v) is int and abs(v) > 10**9:
                raise self.fail(where, L_("a parameter is out of range"))
            return v
        if isinstance(v, str):
            return self.text(v, where)
        if isinstance(v, dict) and set(v) == {"slice"} and isinstance(v["slice"], list) and len(v["slice"]) == 3:
            return {"slice": [self.param(x, where, depth + 1) for x in v["slice"]]}
        if isinstance(v, list) and depth < 2 and len(v) <= 1024:
            return [self.param(x, where, depth + 1) for x in v]
        raise self.fail(where, L_("a parameter must be a number, a short text or a short list of them"))


def from_json(text: str | bytes, limits: FileLimits = FileLimits()) -> RecordedGraph:
    """A recording read from a ``.lucid`` file, checked completely; raises ``RecordingFileError`` otherwise."""
    size = len(text)
    if size > limits.max_bytes:
        raise RecordingFileError(L_("the file is {size} bytes; a recording may be at most {limit}",
                                    size=format(size, ","), limit=format(limits.max_bytes, ",")))
    try:
        raw = json.loads(text)
    except (ValueError, RecursionError) as err:
        raise RecordingFileError(L_("this is not a lucid recording (not JSON: {error})", error=str(err))) from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise RecordingFileError(L_("this is not a lucid recording of a PyTorch backward pass"))
    if raw.get("version") != VERSION:
        raise RecordingFileError(L_("recording version {got} is not one this lucid plays (version {version})",
                                    got=repr(raw.get("version")), version=VERSION))
    r = _Reader(limits)
    nodes_raw, steps_raw = raw.get("nodes"), raw.get("steps")
    if not isinstance(nodes_raw, list) or not 1 <= len(nodes_raw) <= limits.max_nodes:
        raise r.fail("nodes", L_("expected a list of 1 to {n} nodes", n=limits.max_nodes))
    if not isinstance(steps_raw, list) or not 1 <= len(steps_raw) <= limits.max_steps:
        raise r.fail("steps", L_("expected a list of 1 to {n} steps", n=limits.max_steps))
    nodes: list[Node] = []
    for i, n in enumerate(nodes_raw):
        at = f"nodes[{i}]"
        if not isinstance(n, dict):
            raise r.fail(at, L_("expected an object"))
        if n.get("id") != i:
            raise r.fail(f"{at}.id", L_("expected {i}: nodes are listed in order", i=i))
        kind = n.get("kind")
        if kind not in ("leaf", "op"):
            raise r.fail(f"{at}.kind", L_("expected \"leaf\" or \"op\""))
        inputs = n.get("inputs", [])
        if not isinstance(inputs, list) or len(inputs) > 16 or (kind == "op") != bool(inputs) and kind == "leaf":
            raise r.fail(f"{at}.inputs", L_("expected a list of at most 16 earlier nodes (none for a leaf)"))
        inputs = [r.integer(j, f"{at}.inputs", 0, i - 1) for j in inputs]
        params = n.get("params", {})
        if not isinstance(params, dict) or len(params) > limits.max_params:
            raise r.fail(f"{at}.params", L_("expected at most {n} parameters", n=limits.max_params))
        params = {r.text(k, f"{at}.params", PARAM_KEY): r.param(v, f"{at}.params.{k}") for k, v in params.items()}
        module = n.get("module", [])
        if not isinstance(module, list) or len(module) > 8:
            raise r.fail(f"{at}.module", L_("expected a list of at most 8 module names"))
        value = r.array(n.get("value"), f"{at}.value")
        requires = n.get("requires_grad")
        if type(requires) is not bool:
            raise r.fail(f"{at}.requires_grad", L_("expected true or false"))
        node = Node(i, kind, value, requires, op=r.text(n.get("op", ""), f"{at}.op", OP_NAME) if kind == "op" else "",
                    inputs=inputs, params=params, name=r.text(n.get("name"), f"{at}.name", optional=True),
                    module=tuple(r.text(m, f"{at}.module", MODULE_NAME) for m in module),
                    upstream=r.array(n.get("upstream"), f"{at}.upstream", optional=True),
                    grad=r.array(n.get("grad"), f"{at}.grad", optional=True))
        for name, a in (("upstream", node.upstream), ("grad", node.grad)):
            if a is not None and a.shape != value.shape:
                raise r.fail(f"{at}.{name}", L_("the shape {shape} differs from the value's {value}",
                                                shape=a.shape, value=value.shape))
        nodes.append(node)
    root = r.integer(raw.get("root"), "root", 0, len(nodes) - 1)
    steps: list[Step] = []
    for k, s in enumerate(steps_raw):
        at = f"steps[{k}]"
        if not isinstance(s, dict):
            raise r.fail(at, L_("expected an object"))
        node_id = s.get("node")
        if k == 0:
            if node_id is not None:
                raise r.fail(f"{at}.node", L_("the first step is the seed (node null)"))
            parent = r.integer(s.get("parent"), f"{at}.parent", root, root)
            slot = 0
        else:
            node_id = r.integer(node_id, f"{at}.node", 0, len(nodes) - 1)
            if nodes[node_id].kind != "op":
                raise r.fail(f"{at}.node", L_("a gradient flows out of an op's node, not a leaf"))
            slot = r.integer(s.get("slot"), f"{at}.slot", 0, len(nodes[node_id].inputs) - 1)
            parent = r.integer(s.get("parent"), f"{at}.parent", 0, len(nodes) - 1)
            if nodes[node_id].inputs[slot] != parent:
                raise r.fail(f"{at}.parent", L_("node {node}'s input {slot} is node {other}", node=node_id, slot=slot,
                                                      other=nodes[node_id].inputs[slot]))
        contribution = r.array(s.get("contribution"), f"{at}.contribution")
        if contribution.shape != nodes[parent].value.shape:
            raise r.fail(f"{at}.contribution", L_("the shape {shape} differs from node {parent}'s {value}",
                                                  shape=contribution.shape, parent=parent,
                                                  value=nodes[parent].value.shape))
        steps.append(Step(node_id, slot, parent, contribution))
    notes = raw.get("notes", [])
    if not isinstance(notes, list) or len(notes) > 8 or not all(isinstance(x, str) and len(x) <= 300 for x in notes):
        raise r.fail("notes", L_("expected at most 8 short notes"))
    version = raw.get("torch", "")
    return RecordedGraph(nodes, root, steps, list(notes), r.text(version, "torch") if version else "")
