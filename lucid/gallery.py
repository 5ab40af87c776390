"""Ready-made programs a teacher can pick from, each with the one thing it teaches.

Plain data (no Streamlit): the Playground and the Gradient check page show the
same list, the tests run every example, and a shared link can name one by slug.
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

from lucid.i18n import N_


@dataclass(frozen=True)
class Example:
    """One gallery entry: ``slug`` for URLs, a ``title``, the ``lesson`` in one sentence, the program text.

    ``title`` and ``lesson`` are the English text (marked for the catalogs); pages show them through ``_``."""

    slug: str
    title: str
    lesson: str
    source: str


EXAMPLES: tuple[Example, ...] = (
    Example(
        "scalar", N_("Scalar expression"),
        N_("Every operation is a node, and a, b and c collect gradient along every path that leads to the output."),
        "a = 1.3\n"
        "b = -0.7\n"
        "c = 0.45\n"
        "out = tanh(a*b + c**2) * sigmoid(a - c) + log(b*b + 1)\n",
    ),
    Example(
        "cs231n-circuit", N_("CS231n: f = (x + y) * z"),
        N_("A multiply gate swaps its inputs' values into their gradients and an add gate copies its gradient, "
        "so ∂f/∂x = ∂f/∂y = z = -4 and ∂f/∂z = x + y = 3."),
        "x = -2.0\n"
        "y = 5.0\n"
        "z = -4.0\n"
        "q = x + y\n"
        "f = q * z\n",
    ),
    Example(
        "cs231n-sigmoid", N_("CS231n: a sigmoid neuron, gate by gate"),
        N_("The sigmoid built from its gates (neg, exp, +1, 1/x) backpropagates to the same gradient as the "
        "closed form σ(1 - σ) = 0.1966, which then splits over the weights and inputs."),
        "w0 = 2.0\n"
        "x0 = -1.0\n"
        "w1 = -3.0\n"
        "x1 = -2.0\n"
        "w2 = -3.0\n"
        "f = 1 / (1 + exp(-(w0*x0 + w1*x1 + w2)))\n",
    ),
    Example(
        "neuron", N_("A single neuron"),
        N_("A neuron is a weighted sum plus a bias through tanh: each weight's gradient is its input times tanh's "
           "slope."),
        "x = [0.5, -1.2, 2.0]\n"
        "w = [0.3, 0.8, -0.5]\n"
        "b = 0.1\n"
        "z = sum(x * w) + b\n"
        "out = tanh(z)\n",
    ),
    Example(
        "used-twice", N_("x*x: a node used twice"),
        N_("When a node feeds an op twice, both contributions are added (+=), so d(x*x)/dx = 2x = 6, not 3."),
        "x = 3.0\n"
        "y = x * x\n",
    ),
    Example(
        "bias-broadcast", N_("A bias broadcast over a batch"),
        N_("Broadcasting copies the bias to every row, so its gradient is the sum of the rows' gradients."),
        "X = randn(4, 3)\n"
        "b = [0.1, -0.2, 0.3]\n"
        "H = tanh(X + b)\n"
        "loss = sum(H * H)\n",
    ),
    Example(
        "reduction", N_("A reduction"),
        N_("Summing over an axis sends the same upstream gradient back to every element that was summed."),
        "A = randn(3, 4)\n"
        "s = A.sum(axis=0)\n"
        "out = sum(s * s) / 4\n",
    ),
    Example(
        "softmax-ce", N_("Softmax + cross-entropy"),
        N_("Through softmax and the log, the gradient at the logits comes out as "
        "(softmax(logits) - one-hot targets) / batch size."),
        "logits = randn(4, 3)\n"
        "Y = const([[1, 0, 0], [0, 0, 1], [0, 1, 0], [0, 0, 1]])\n"
        "p = softmax(logits, axis=1)\n"
        "loss = -sum(Y * log(p)) / 4\n",
    ),
    Example(
        "mlp", N_("A 2-layer MLP on a batch"),
        N_("Backprop through a network is the chain rule applied layer by layer: "
        "matmuls pass gradients through transposed weights."),
        "x = const(randn(6, 3))\n"
        "W1 = randn(3, 4)\n"
        "b1 = zeros(4)\n"
        "h = tanh(x @ W1 + b1)\n"
        "W2 = randn(4, 1)\n"
        "b2 = zeros(1)\n"
        "y = h @ W2 + b2\n"
        "t = const(randn(6, 1))\n"
        "loss = mean((y - t) ** 2)\n",
    ),
    Example(
        "mse", N_("Mean squared error"),
        N_("The gradient of the mean squared error is 2·(prediction - target)/N: big misses get big gradients."),
        "pred = [2.5, 0.0, 2.1, 7.8]\n"
        "target = const([3.0, -0.5, 2.0, 7.5])\n"
        "loss = mean((pred - target) ** 2)\n",
    ),
    Example(
        "residual", N_("A residual connection"),
        N_("A skip connection hands its gradient straight through, added to whatever the branch sends back."),
        "x = 0.8\n"
        "w = -1.5\n"
        "branch = tanh(w * x)\n"
        "r = x + branch\n"
        "out = r * r\n",
    ),
    Example(
        "div-pow", N_("A division/power chain"),
        N_("Quotient and power rules chain: each step multiplies the upstream gradient by its own local derivative."),
        "x = 2.0\n"
        "y = 0.5\n"
        "q = x ** 3 / (y + 1)\n"
        "r = q ** 0.5\n"
        "out = r / x\n",
    ),
    Example(
        "relu-gate", N_("ReLU gates the gradient"),
        N_("ReLU passes the gradient where its input was positive and blocks it (zero) everywhere else."),
        "x = [-1.5, -0.2, 0.3, 2.0]\n"
        "y = relu(x)\n"
        "weights = const([1.0, 2.0, 3.0, 4.0])\n"
        "out = sum(y * weights)\n",
    ),
    Example(
        "sigmoid-saturation", N_("Saturating sigmoid"),
        N_("Far from zero the sigmoid is flat, so almost no gradient gets through: the vanishing gradient."),
        "x = [-6.0, -1.0, 0.0, 1.0, 6.0]\n"
        "s = sigmoid(x)\n"
        "out = sum(s)\n",
    ),
    Example(
        "fused-ce", N_("Fused cross-entropy"),
        N_("cross_entropy takes logits and integer class targets in one numerically stable op, "
        "so the whole loss is a single node."),
        "logits = randn(4, 3)\n"
        "targets = const([0, 2, 1, 2])\n"
        "loss = cross_entropy(logits, targets)\n",
    ),
    Example(
        "matmul", N_("Matrix product"),
        N_("For C = A @ B the gradients are upstream @ Bᵀ for A and Aᵀ @ upstream for B: shapes tell you the order."),
        "A = randn(2, 3)\n"
        "B = randn(3, 2)\n"
        "C = A @ B\n"
        "out = sum(C * C)\n",
    ),
    Example(
        "gradient-penalty", N_("A gradient penalty"),
        N_("grad(loss, x) is a value built from the backward pass (the purple nodes), so a penalty on its size "
           "is differentiated again: w gets gradient from the loss and from the penalty on ∂loss/∂x."),
        "x = [0.5, -1.0, 2.0]\n"
        "w = [0.3, 0.8, -0.5]\n"
        "loss = tanh(sum(x * w))\n"
        "g = grad(loss, x)\n"
        "penalty = sum(g * g)\n"
        "out = loss + 0.1 * penalty\n",
    ),
    Example(
        "hessian-vector", N_("A Hessian-vector product"),
        N_("H·v is the gradient of (∇f · v): two backward passes and no Hessian, here H·v = [5, -11] for "
           "f = x₀³ + x₁³ + x₀x₁ at x = (0.5, -1) and v = (1, 2)."),
        "x = [0.5, -1.0]\n"
        "f = sum(x ** 3) + x[0] * x[1]\n"
        "g = grad(f, x)\n"
        "v = const([1.0, 2.0])\n"
        "hv = grad(sum(g * v), x)\n",
    ),
    Example(
        "reverse-3-to-1", N_("Forward vs reverse: three inputs, one output"),
        N_("For f: ℝ³ → ℝ one backward pass gives all three partial derivatives, while forward mode needs "
           "three passes (one per input), so reverse mode wins."),
        "x = [0.5, -1.0, 2.0]\n"
        "f = sum(sin(x) * x)\n",
    ),
    Example(
        "forward-1-to-3", N_("Forward vs reverse: one input, three outputs"),
        N_("For p: ℝ → ℝ³ one forward pass (ṫ = 1) gives all three derivatives, while reverse mode needs three "
           "backward passes (one per output; the pass shown adds them up), so forward mode wins."),
        "t = 0.5\n"
        "p = stack([cos(t), sin(t), t * t])\n",
    ),
    Example(
        "korean-mlp", N_("An MLP with Korean names"),
        N_("Names may be Korean (가중치, 편향): the graph, the explanations and the links show them as typed, and "
           "the gradients are exactly those of the same program with ASCII names."),
        "# 한국어 이름의 2층 MLP\n"
        "입력 = const([[0.5, -1.0], [1.5, 2.0]])\n"
        "가중치1 = [[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]\n"
        "편향1 = [0.01, 0.02, 0.03]\n"
        "은닉 = tanh(입력 @ 가중치1 + 편향1)\n"
        "가중치2 = [[0.7], [-0.8], [0.9]]\n"
        "편향2 = [0.1]\n"
        "출력 = 은닉 @ 가중치2 + 편향2\n"
        "손실 = mean(출력 * 출력)\n",
    ),
    Example(
        "own-op-swish", N_("Your own op: swish and its derivative"),
        N_("def defines an op of your own and d swish / d x its local derivative: the graph draws one swish node, "
           "the backward pass multiplies by your rule, and the page checks the rule against central differences "
           "(change the rule to see where it fails)."),
        "# an op of your own: its formula, then its local derivative (a rule may also use out, its result)\n"
        "def swish(x) = x * sigmoid(x)\n"
        "d swish / d x = sigmoid(x) * (1 + x * (1 - sigmoid(x)))\n"
        "w = [0.5, -1.0, 2.0]\n"
        "a = 1.5\n"
        "b = [0.1, -0.3, 0.2]\n"
        "y = sum(swish(w * a + b))\n",
    ),
)

DEFAULT: Example = EXAMPLES[0]

_BY_SLUG = {e.slug: e for e in EXAMPLES}


def by_slug(slug: str) -> Example | None:
    """The example with this slug, or None (slugs come from URLs, so unknown ones are normal)."""
    return _BY_SLUG.get(slug)


def find_source(source: str) -> Example | None:
    """The example whose program is exactly ``source`` (ignoring surrounding blank space), if any."""
    wanted = source.strip()
    return next((e for e in EXAMPLES if e.source.strip() == wanted), None)


@dataclass(frozen=True)
class RecordingExample:
    """A gallery entry that plays a recorded PyTorch pass (a ``.lucid`` file shipped in the package).

    ``file`` is the path inside the ``lucid`` package; ``title`` and ``lesson`` as for ``Example``."""

    slug: str
    title: str
    lesson: str
    file: str

    def data(self) -> bytes:
        """The file's bytes (read from the installed package, so a wheel plays it too)."""
        return resources.files("lucid").joinpath(self.file).read_bytes()


RECORDINGS: tuple[RecordingExample, ...] = (
    RecordingExample(
        "torch-mlp", N_("A small PyTorch MLP step"),
        N_("PyTorch's own backward pass of a 2-layer MLP with cross_entropy, in the order its engine ran it: "
           "each linear layer sends one gradient to its bias, its weight and its input."),
        "torch/recordings/mlp_step.lucid",
    ),
)


def recording_by_title(title: str) -> RecordingExample | None:
    """The recorded entry with this (English) title, if any."""
    return next((r for r in RECORDINGS if r.title == title), None)


def recording_by_slug(slug: object) -> RecordingExample | None:
    """The recorded entry a link names (``example=torch-mlp``), or None (slugs come from URLs)."""
    return next((r for r in RECORDINGS if r.slug == slug), None)
