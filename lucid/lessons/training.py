"""Training an MLP for the training page: the loop, the boundary grid, the graph, tensors vs scalars.

Everything here is plain library code the page calls and the tests pin: the
loop reports every step through a callback (the page draws its progress bar
and live loss curve from it), and the comparison trains the *same* network
(same initial weights) built from arrays and built from 0-d tensors, so the
two final losses agree and only the graph size and the time differ.
"""
from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from lucid._backend.grad_mode import no_grad
from lucid._func import binary_cross_entropy
from lucid._tensor.tensor import Tensor
from lucid.autograd.backward import topological_order
from lucid.autograd.trace import Trace, backward_trace
from lucid.data.dataset import Dataset, standardize
from lucid.i18n import _
from lucid.nn import MLP
from lucid.nn.reference import NumpyMLP
from lucid.nn.scalar import ScalarMLP
from lucid.optim import SGD, Adam, Optimizer
from lucid.viz.numbers import format_grid

OPTIMIZERS = ("SGD", "Adam")
StepCallback = Callable[[int, float], None]
ProgressCallback = Callable[[float, str], None]
"""``(fraction done in [0, 1], what is running)``: lets a page draw a progress bar for slow work."""


@dataclass(frozen=True)
class Prepared:
    """Train and test parts, standardised with the training part's mean and std; labels as columns."""

    Z: np.ndarray
    y: np.ndarray
    Z_test: np.ndarray
    y_test: np.ndarray
    mean: np.ndarray
    std: np.ndarray


def prepare(dataset: Dataset, test_share: float = 0.25, seed: int = 0) -> Prepared:
    """Shuffle, hold out ``test_share`` of the points, standardise both with the training statistics.

    Standardising matters: the file-chunk features differ in scale by 10×.
    """
    if not 0.0 <= test_share < 1.0:
        raise ValueError("test_share must lie in [0, 1)")
    order = np.random.default_rng(seed).permutation(dataset.n_samples)
    n_test = int(round(dataset.n_samples * test_share))
    test, train = order[:n_test], order[n_test:]
    Z, mean, std = standardize(dataset.X[train])
    return Prepared(Z, dataset.y[train].reshape(-1, 1), (dataset.X[test] - mean) / std,
                    dataset.y[test].reshape(-1, 1), mean, std)


def make_model(n_features: int, hidden: int, seed: int = 0, activation: str = "tanh") -> MLP:
    """``n_features → hidden → 1`` with a sigmoid output: the probability of label 1."""
    return MLP([n_features, hidden, 1], activation=activation, output_activation="sigmoid", seed=seed)


def make_optimizer(name: str, params: Sequence[Tensor], lr: float, momentum: float = 0.0) -> Optimizer:
    """``"SGD"`` (optionally with momentum) or ``"Adam"``, chosen from a fixed table."""
    if name == "SGD":
        return SGD(params, lr=lr, momentum=momentum)
    if name == "Adam":
        return Adam(params, lr=lr)
    raise ValueError(f"unknown optimizer {name!r}; choose one of {', '.join(OPTIMIZERS)}")


def bce_loss(model: MLP, Z: np.ndarray, y: np.ndarray) -> Tensor:
    """Mean binary cross-entropy of the model's probabilities: a fresh graph each call."""
    return binary_cross_entropy(model(Tensor(Z)), Tensor(y))


def fit(loss_fn: Callable[[], Tensor], optimizer: Optimizer, steps: int,
        on_step: StepCallback | None = None) -> list[float]:
    """``steps`` rounds of zero_grad → loss → backward → step; the loss before each update.

    ``on_step(step, loss)`` is called after every step (1-based) so a caller can
    draw progress while training runs.
    """
    losses = []
    for step in range(1, steps + 1):
        optimizer.zero_grad()
        loss = loss_fn()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if on_step is not None:
            on_step(step, losses[-1])
    return losses


@dataclass(frozen=True)
class TrainingRun:
    """One trained model and its loss before each update: all the page shows for one set of settings.

    Training is deterministic in its settings (data, optimizer, hidden size, learning rate, steps,
    seed), so a server keeps one run per setting and every session reads it (read-only).
    """

    model: MLP
    losses: list[float]

    def approx_bytes(self) -> int:
        """Bytes the run keeps alive: parameters and their last gradients, the losses, some overhead."""
        arrays = sum(p.data.nbytes + (p.grad.nbytes if p.grad is not None else 0) for p in self.model.parameters())
        return arrays + 32 * len(self.losses) + 4096


def train(prepared: Prepared, optimizer_name: str, hidden: int, lr: float, steps: int, seed: int = 0,
          on_step: StepCallback | None = None) -> TrainingRun:
    """A fresh ``make_model`` trained ``steps`` times on the prepared training part with the named optimizer."""
    model = make_model(prepared.Z.shape[1], hidden, seed)
    optimizer = make_optimizer(optimizer_name, model.parameters(), lr)
    losses = fit(lambda: bce_loss(model, prepared.Z, prepared.y), optimizer, steps, on_step)
    return TrainingRun(model, losses)


def predict(model: MLP, Z: np.ndarray) -> np.ndarray:
    """Probabilities of label 1, shape ``(n,)``, without building a graph."""
    with no_grad():
        return model(Tensor(Z)).data.reshape(-1)


def accuracy(model: MLP, Z: np.ndarray, y: np.ndarray) -> float:
    """Share of points whose rounded probability equals the label."""
    return float(np.mean((predict(model, Z) >= 0.5) == (np.asarray(y).reshape(-1) >= 0.5)))


@dataclass(frozen=True)
class Grid:
    """A square grid over the (standardised) 2-D plane and the model's probability at each point."""

    x1: np.ndarray  # (resolution,)
    x2: np.ndarray  # (resolution,)
    prob: np.ndarray  # (resolution, resolution), prob[i, j] at (x1[j], x2[i])


def decision_grid(model: MLP, Z: np.ndarray, resolution: int = 60, margin: float = 0.5) -> Grid:
    """Evaluate a 2-input model on a grid covering the data plus a margin, in one batch."""
    if Z.shape[1] != 2:
        raise ValueError("a decision boundary is drawn for 2-D data only")
    lo = Z.min(axis=0) - margin
    hi = Z.max(axis=0) + margin
    x1 = np.linspace(lo[0], hi[0], resolution)
    x2 = np.linspace(lo[1], hi[1], resolution)
    g1, g2 = np.meshgrid(x1, x2)
    prob = predict(model, np.column_stack([g1.ravel(), g2.ravel()])).reshape(resolution, resolution)
    return Grid(x1, x2, prob)


def training_step_graph(model: MLP, Z: np.ndarray, y: np.ndarray, batch: int = 4) -> Trace:
    """One training step's backward on the first ``batch`` points, recorded for drawing.

    ``trace.root`` is the loss. Built on a copy of the model (parameters named
    ``W1, b1, W2, …``) so drawing it never touches the trained model's weights
    or gradients.
    """
    twin = copy.deepcopy(model)
    for k, layer in enumerate(twin.layers, start=1):
        layer.weight.name = f"W{k}"
        if layer.bias is not None:
            layer.bias.name = f"b{k}"
    x = Tensor(Z[:batch], name="X")
    target = Tensor(y[:batch], name="y")
    loss = binary_cross_entropy(twin(x), target)
    loss.name = "loss"
    return backward_trace(loss)


def first_step_graph(n_features: int, hidden: int, seed: int, Z: np.ndarray, y: np.ndarray,
                     batch: int = 4) -> Trace:
    """The graph of training step 1: the network with its initial weights (``make_model`` with the seed the
    training started from), where the gradients are large enough to read.

    After training, the loss sits near a minimum where it is flat, so every gradient is close to zero
    (``gradient_table`` shows both); a student looking at that graph would see only tiny numbers.
    """
    return training_step_graph(make_model(n_features, hidden, seed), Z, y, batch)


def gradient_sizes(trace: Trace) -> dict[str, float]:
    """mean |grad| of each parameter (the named leaves that require grad) after the trace's backward pass."""
    final = trace.final_grads()
    return {str(t.name): float(np.abs(final[id(t)]).mean()) for t in trace.order
            if t._op is None and t.requires_grad and t.name and id(t) in final}


def gradient_table(first: Trace, trained: Trace) -> list[dict[str, str]]:
    """One row per parameter: mean |grad| at step 1 and after training, all numbers in ONE format.

    The numbers go through ``format_grid`` together, so the table never shows ``0.04392`` beside
    ``3.790e-4`` (plain decimals down to 1e-4; past that the whole table is in scientific notation).
    """
    early, late = gradient_sizes(first), gradient_sizes(trained)
    names = [n for n in early if n in late]
    texts = format_grid([early[n] for n in names] + [late[n] for n in names])
    return [{"parameter": n, "mean |grad| at step 1": texts[i], "mean |grad| after training": texts[len(names) + i]}
            for i, n in enumerate(names)]


def node_count(root: Tensor) -> int:
    """Nodes (tensors) in the graph that ``root`` was computed from, itself included."""
    return len(topological_order(root))


@dataclass(frozen=True)
class Twin:
    """One way to build the network: its graph size for one step, time and losses over the run."""

    name: str
    nodes: int | None
    seconds: float
    losses: list[float]

    @property
    def final_loss(self) -> float:
        return self.losses[-1]


@dataclass(frozen=True)
class Comparison:
    """The same network and data trained as arrays, as 0-d tensors and (for reference) as NumPy by hand."""

    samples: int
    steps: int
    hidden: int
    tensor: Twin
    scalar: Twin
    numpy: Twin

    @property
    def node_ratio(self) -> float:
        return self.scalar.nodes / self.tensor.nodes

    @property
    def time_ratio(self) -> float:
        return self.scalar.seconds / self.tensor.seconds

    @property
    def numpy_ratio(self) -> float:
        """How much lucid's tensor graph costs over hand-written NumPy."""
        return self.tensor.seconds / self.numpy.seconds if self.numpy.seconds > 0 else float("inf")


def _timed_fit(loss_fn: Callable[[], Tensor], optimizer: Optimizer, steps: int,
               on_step: StepCallback | None) -> tuple[list[float], float]:
    """``fit`` and its seconds, not counting the time spent in ``on_step`` (drawing progress is not training)."""
    spent = 0.0

    def timed(step: int, loss: float) -> None:
        nonlocal spent
        began = time.perf_counter()
        on_step(step, loss)
        spent += time.perf_counter() - began

    start = time.perf_counter()
    losses = fit(loss_fn, optimizer, steps, timed if on_step is not None else None)
    return losses, time.perf_counter() - start - spent


def compare_tensor_scalar(Z: np.ndarray, y: np.ndarray, hidden: int = 4, steps: int = 10, lr: float = 0.5,
                          samples: int = 32, seed: int = 0,
                          on_progress: ProgressCallback | None = None) -> Comparison:
    """Train one initial network three ways with plain SGD on the first ``samples`` points.

    Work is kept small on purpose: the scalar twin builds one node per multiply
    and add, hundreds of times more than the tensor graph. It still takes
    seconds at the largest settings, so ``on_progress(fraction, text)`` is called
    as the work advances (after each scalar step, which is nearly all of the
    time); the times reported leave out the time spent in it.
    """
    def report(fraction: float, text: str) -> None:
        if on_progress is not None:
            on_progress(min(1.0, max(0.0, fraction)), text)

    Z, y = Z[:samples], y[:samples]
    model = make_model(Z.shape[1], hidden, seed)
    scalar = ScalarMLP.from_mlp(model)
    reference = NumpyMLP(model.weights(), model.activation)

    report(0.0, _("Counting the nodes of one step…"))
    tensor_nodes = node_count(bce_loss(model, Z, y))
    scalar_nodes = node_count(scalar.bce_loss(Z, y))
    report(0.02, _("Training as tensors ({n} steps)…").format(n=steps))
    tensor_losses, tensor_seconds = _timed_fit(lambda: bce_loss(model, Z, y), SGD(model.parameters(), lr=lr),
                                               steps, None)

    def scalar_step(step: int, loss: float) -> None:  # the scalar twin is nearly all of the time
        report(0.05 + 0.93 * step / steps, _("Training as scalars: step {step} of {n}…").format(step=step, n=steps))

    report(0.05, _("Training as scalars: {n} nodes per step…").format(n=format(scalar_nodes, ",")))
    scalar_losses, scalar_seconds = _timed_fit(lambda: scalar.bce_loss(Z, y), SGD(scalar.parameters(), lr=lr),
                                               steps, scalar_step)

    report(0.99, _("Training with NumPy by hand…"))
    start = time.perf_counter()
    numpy_losses = []
    for _step in range(steps):
        loss, grads = reference.loss_and_grads(Z, y)
        reference.sgd_step(grads, lr)
        numpy_losses.append(loss)
    numpy_seconds = time.perf_counter() - start
    report(1.0, _("Done."))

    return Comparison(len(Z), steps, hidden,
                      Twin("tensors (arrays)", tensor_nodes, tensor_seconds, tensor_losses),
                      Twin("scalars (0-d tensors)", scalar_nodes, scalar_seconds, scalar_losses),
                      Twin("NumPy by hand", None, numpy_seconds, numpy_losses))
