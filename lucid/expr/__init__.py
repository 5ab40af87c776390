"""A safe expression language: type a short program, get a graph of lucid Tensors.

    a = 1.3
    b = -0.7
    c = 0.45
    out = tanh(a*b + c**2) * sigmoid(a - c)     # '#' starts a comment

``run(source, seed=0, limits=None)`` returns a ``Program`` (``output``,
``variables``, ``inputs``, ``function()``) or raises ``ExprError`` with a
message, a 1-based ``line``/``col`` and a caret under the spot. Nothing else
ever escapes ``run``.

The language
    One statement per line: ``name = expression``, and the last line may be a
    bare expression; the last line's value is the output (root). Numbers,
    nested list literals ``[[1, 2], [3, 4]]``, the operators ``+ - * / ** @``
    (Python precedence: ``-x**2`` is ``-(x**2)``, ``**`` is right-associative),
    comparisons (only as the condition of ``where``), calls of the functions in
    ``FUNCTIONS``, the methods in ``METHODS`` (``x.sum(axis=0, keepdims=True)``,
    ``x.reshape(2, 3)``), the attribute ``x.T``, and indexing with literals
    (``x[0]``, ``x[:, 1]``, ``x[[0, 0]]``, ``x[..., None]``). Options such as
    ``axis=`` are literals, never computed. Constructors ``randn rand zeros ones
    full arange linspace eye`` take literal sizes and draw from one
    ``np.random.default_rng(seed)`` per run.

The leaf rule
    A value assigned directly to a name (``a = 1.3``, ``W = [[1, 2], [3, 4]]``,
    ``x = randn(3, 2)``) is a leaf that requires grad, and so is any list
    literal or constructor call inside an expression. A bare number inside a
    larger expression (the 2 in ``x*2``, ``c**2``) is a constant.
    ``const(...)`` makes anything constant: literals and constructors inside it
    do not require grad, and a computed value is copied out of the graph.

Names
    Every tensor bound by an assignment gets ``tensor.name`` set to the
    variable's name (the graph shows it). Re-binding an existing tensor
    (``y = x``) keeps the first name: the node is still drawn as ``x`` and
    ``variables["y"] is variables["x"]``. Re-assigning a name (``x = x + 1``)
    gives the new tensor the name too; ``variables`` keeps the name in its
    first position and points it at the latest value.

Errors
    ``ExprError.kind`` is one of ``character syntax name argument shape limit
    numeric internal`` (``internal`` would be a bug here, never the user's
    fault); ``caret_text()`` is just the source line and the caret under it.

Safety
    The text is tokenized and parsed by this package's own parser into a small
    syntax tree, checked, and evaluated through explicit tables; it is never
    passed to ``eval``/``exec``/``compile`` and no attribute is looked up by a
    name from the text. Only printable ASCII, tab and newline are accepted
    (Windows CR LF line endings are read as newlines).
    Sizes, depth, shapes and work are checked against ``Limits`` before any
    array is allocated; numeric overflow, division by zero and NaN are errors
    naming the operation.
"""
from lucid.expr.errors import ExprError
from lucid.expr.functions import ATTRIBUTES, BINARY_OPERATORS, FUNCTIONS, METHODS, FunctionSpec, Param
from lucid.expr.limits import DEFAULT_LIMITS, Limits
from lucid.expr.program import Program, run

__all__ = ["ATTRIBUTES", "BINARY_OPERATORS", "DEFAULT_LIMITS", "FUNCTIONS", "METHODS", "ExprError", "FunctionSpec",
           "Limits", "Param", "Program", "run"]
