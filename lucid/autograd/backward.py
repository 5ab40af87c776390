"""The backward pass: topological order with an explicit stack, then each node's
``_backward_op`` in reverse order.

A recursive sort dies near Python's recursion limit (~1,000 nodes deep); this
one walks a 100,000-node chain in linear time. Nodes are marked visited when
pushed, so a node reached along many paths is processed exactly once.

Two entry points run the same pass: ``backward`` (returns the full order and
can record every edge for ``backward_trace``) and ``run_backward`` (what
``Tensor.backward`` calls: it walks only the op results and applies each
node's gradient function inline in ``_propagate``, the engine's hot path).
"""
from __future__ import annotations

import sys
from typing import Any

import numpy as np

from lucid._backend.core import _FLOAT64, Recorder, _grad_dtype, _set_tensor_grad, match_shape, push_gradient
from lucid._tensor.tensor import Tensor


def topological_order(root: Tensor) -> list[Tensor]:
    """Every node reachable from ``root``, each after all of its inputs (``root`` last).

    Depth-first with an explicit stack of nodes and, in step with it, an iterator
    over each node's inputs (resumed where it stopped when the walk returns to
    the node). It runs on every backward, so the loop keeps its names local.
    """
    order: list[Tensor] = []
    visited = {id(root)}
    seen, mark, finish, _id = visited.__contains__, visited.add, order.append, id
    nodes = [root]
    parents = [iter(root._prev)]  # in step with ``nodes``: where each node's walk over its inputs stands
    push_node, push_parents = nodes.append, parents.append
    while parents:
        for parent in parents[-1]:
            key = _id(parent)
            if not seen(key):
                mark(key)
                if parent._prev:
                    push_node(parent)
                    push_parents(iter(parent._prev))
                    break
                finish(parent)  # a leaf (or constant) is finished as soon as it is seen
        else:
            finish(nodes.pop())
            parents.pop()
    return order


def _operation_order(root: Tensor) -> list[Tensor]:
    """``topological_order(root)`` without the leaves: the nodes whose gradients flow on.

    The same walk, so the same relative order of the op results (the leaves never
    change where the walk goes), but a leaf costs one attribute test instead of a
    set lookup and an append. ``Tensor.backward`` uses it; the trace keeps the full order.

    It also empties each op result's gradient as it first reaches it (``root``'s
    included), so no old value flows twice, without a second loop over the order.
    """
    order: list[Tensor] = []
    root.grad = None
    # The set holds the tensors themselves: a Tensor hashes by identity in C (``object.__hash__``),
    # and two live objects never share that hash, so membership never calls the elementwise ``==``.
    # ``order.append``, ``visited.add`` and the stacks' appends are called as methods, not kept as bound
    # methods in locals: Python 3.11 runs a list's ``append`` method call without a call at all.
    visited = {root}
    nodes = [root]
    parents = [iter(root._prev)]
    while parents:
        for parent in parents[-1]:
            prev = parent._prev
            if prev and parent not in visited:
                visited.add(parent)
                parent.grad = None
                nodes.append(parent)
                parents.append(iter(prev))
                break
        else:
            order.append(nodes.pop())
            parents.pop()
    return order


def seed_gradient(root: Tensor, grad: Any = None) -> np.ndarray:
    """The gradient that starts the pass: ones of the root's shape unless given."""
    if grad is None:
        shape = root.data.shape
        return np.array(1.0, dtype=_grad_dtype(root)) if not shape else np.ones(shape, dtype=_grad_dtype(root))
    seed = np.asarray(grad.data if isinstance(grad, Tensor) else grad, dtype=np.float64)
    if seed.shape != root.shape:
        raise ValueError(f"seed gradient has shape {seed.shape} but the output has shape {root.shape}")
    return seed


def _propagate(order: list[Tensor]) -> None:
    """Every node's gradient pushed to its parents, in reverse topological order (no recording).

    ``order`` holds op results only (``_operation_order``). Once a node has pushed
    its gradient, nothing reads that gradient again (every consumer came before
    it), so its gradient is released right there unless it asked to
    ``retain_grad()``: the pass needs no separate release loop.

    The same steps as ``push_gradient`` (shape matching, then accumulation
    in float64), inlined because this loop is the engine's hot path.
    A float64 array of its parent's shape (nearly every gradient) takes a few lines,
    and so does a bias's batch sum; any other goes through ``match_shape`` and
    ``_set_tensor_grad``, as in ``push_gradient``. Two savings on top, neither
    visible to a caller:

    - an intermediate tensor's first gradient is *borrowed* rather than copied.
      Nothing writes into a gradient in place (accumulation makes a new array),
      and an intermediate's gradient is released at the end of the pass.
    - a leaf (or a tensor that asked to ``retain_grad()``) keeps a gradient the
      grad function has just made without copying it, when that array is its own
      memory (``base is None``) and nothing else refers to it: CPython's
      reference count is then 4 (the grad function's returned sequence, the
      tuple ``zip`` keeps for its next item, the loop variable and
      ``getrefcount``'s own argument). Any other array is copied, as
      ``_set_tensor_grad`` does, so two tensors never share a gradient array.
    """
    ndarray, float64, f64, array, add_reduce = np.ndarray, np.float64, _FLOAT64, np.array, np.add.reduce
    refcount = sys.getrefcount
    for node in reversed(order):
        upstream = node.grad
        if upstream is None:  # no gradient reached this node (every path to it was cut)
            continue
        for parent, raw in zip(node._prev, node._grad_fn(upstream)):
            if raw is None or not parent.requires_grad:
                continue
            data = parent.data
            if raw.__class__ is ndarray:
                # every gradient is float64 (``_grad_dtype``): one dtype read, against the constant, instead
                # of the parent's too (a parent whose data was set to float32 by hand still gets float64)
                if raw.dtype is not f64:  # another dtype (a grad function's int or float32 array): the general rule
                    _set_tensor_grad(parent, match_shape(raw, data.shape)[0])
                    continue
                shape, data_shape = raw.shape, data.shape  # each read makes a tuple: read once, test twice
                if shape != data_shape:
                    if len(shape) == len(data_shape) + 1 and shape[1:] == data_shape:
                        # a bias over a batch: ``match_shape``'s first case, without the call; the sum is a
                        # fresh array that only this loop holds, so the parent owns it without a check
                        raw = add_reduce(raw, 0)
                        current = parent.grad
                        if current is None:
                            parent.grad = raw
                        else:
                            total = current + raw
                            parent.grad = total if total.__class__ is ndarray else np.asarray(
                                total.data if total.__class__ is Tensor else total)
                    else:  # a broadcast input: the general rule, fresh array
                        _set_tensor_grad(parent, match_shape(raw, data_shape)[0])
                    continue
            elif raw.__class__ is float64 and data.__class__ is ndarray and data.dtype is f64 and not data.ndim:
                raw = array(raw)  # a 0-d result's gradient, decayed to a NumPy scalar by its ufunc
            else:  # a Python number, another scalar type, a gradient of another shape: the general rule
                _set_tensor_grad(parent, match_shape(raw, data.shape)[0])
                continue
            current = parent.grad
            if current is not None:
                total = current + raw  # a new array: an array someone kept never changes
                # 0-d sums decay to NumPy scalars; a ``.grad`` left as a Tensor by backward(create_graph=True)
                # makes a Tensor sum, kept here as its values
                parent.grad = total if total.__class__ is ndarray else np.asarray(
                    total.data if total.__class__ is Tensor else total)
            elif (parent._op is None or parent._retain_grad) and (raw.base is not None or refcount(raw) > 4):
                parent.grad = raw.copy()  # a gradient the caller keeps must be its own array
            else:
                parent.grad = raw
        if not node._retain_grad:
            node.grad = None


def run_backward(root: Tensor, grad: Any = None, create_graph: bool = False) -> None:
    """Reverse-mode pass from this tensor; leaves' ``grad`` accumulate.

    This function *is* ``Tensor.backward`` (bound by ``lucid``): ``backward(root, grad)``'s
    pass without building the full order to return. ``create_graph=True`` records the pass
    itself (``lucid.autograd.grad``): each leaf's ``.grad`` is then a Tensor with a graph.
    """
    if create_graph:
        from lucid.autograd.grad import backward_with_graph  # imports this module

        backward_with_graph(root, grad)
        return
    if not root.requires_grad:
        raise RuntimeError("backward() needs an output that requires grad "
                           "(no input of this expression requires grad)")
    data = root.data
    if grad is None and root._op is not None and data.dtype is _FLOAT64 and not data.ndim:
        # the usual call, ``loss.backward()`` on a float64 scalar loss: ``seed_gradient``'s ones, made here
        order = _operation_order(root)  # the walk also empties the op results' old gradients
        root.grad = np.array(1.0)  # a fresh array that nothing else holds: no copy needed
        _propagate(order)  # releases the op results' gradients as it goes
        return
    seed = seed_gradient(root, grad)
    if root._op is not None:  # an op result: the walk also empties the op results' old gradients
        order = _operation_order(root)
        if grad is None:
            root.grad = seed  # a fresh array of ones that nothing else holds: no copy needed
        else:
            _set_tensor_grad(root, seed)
        _propagate(order)  # releases the op results' gradients as it goes
    else:  # a leaf: its gradient accumulates, nothing else to do
        _set_tensor_grad(root, seed)


def backward(root: Tensor, grad: Any = None, record: Recorder | None = None) -> list[Tensor]:
    """Run the backward pass from ``root``; returns the forward topological order.

    ``record(node, parent, slot, upstream, raw, matched, summed_axes)`` is called
    for every gradient that flows along an edge, in order (see ``backward_trace``).
    """
    if not root.requires_grad:
        raise RuntimeError("backward() needs an output that requires grad "
                           "(no input of this expression requires grad)")
    seed = seed_gradient(root, grad)
    order = topological_order(root)
    for node in order:  # non-leaf gradients start empty so old values never flow twice
        if node._op is not None:
            node.grad = None
    if grad is None and root._op is not None:
        root.grad = seed  # a fresh array of ones that nothing else holds: no copy needed
    else:
        _set_tensor_grad(root, seed)
    if record is None:
        _propagate([node for node in order if node._grad_fn is not None])  # it takes op results only
    else:
        for node in reversed(order):
            if node._grad_fn is not None and node.grad is not None:
                push_gradient(node, record)
    for node in order:
        if node._op is not None and not node._retain_grad:
            node.grad = None
    return order
