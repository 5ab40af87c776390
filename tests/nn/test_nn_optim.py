"""lucid.nn and lucid.optim: parameters are found in a fixed order, optimizers
make exactly the textbook updates, and a small model actually learns."""
import numpy as np
import pytest

import lucid
from lucid import Tensor
from lucid.nn import MLP, Linear, Module
from lucid.optim import SGD, Adam


def _quadratic_loss(p: Tensor) -> Tensor:
    """L = 0.5·p₀² + 2·p₁², so ∂L/∂p = [p₀, 4·p₁]."""
    return (p * p * Tensor([0.5, 2.0])).sum()


def _two_steps(opt, p):
    for _ in range(2):
        opt.zero_grad()
        _quadratic_loss(p).backward()
        opt.step()


# ----- Module / Linear / MLP ---------------------------------------------------
def test_mlp_parameters_come_in_layer_order_weight_then_bias():
    model = MLP([3, 4, 2], seed=1)
    names = [name for name, _ in model.named_parameters()]
    assert names == ["layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias"]
    assert [p.shape for p in model.parameters()] == [(3, 4), (4,), (4, 2), (2,)]
    assert model.num_parameters() == 12 + 4 + 8 + 2


def test_parameters_order_is_the_same_every_call():
    model = MLP([2, 3, 3, 1])
    assert [id(p) for p in model.parameters()] == [id(p) for p in model.parameters()]


def test_same_seed_same_weights_different_seed_different_weights():
    a, b, c = MLP([5, 2, 1], seed=3), MLP([5, 2, 1], seed=3), MLP([5, 2, 1], seed=4)
    for pa, pb in zip(a.parameters(), b.parameters()):
        np.testing.assert_array_equal(pa.data, pb.data)
    assert not np.array_equal(a.parameters()[0].data, c.parameters()[0].data)


def test_linear_init_lies_within_one_over_sqrt_fan_in():
    layer = Linear(16, 3, seed=0)
    assert np.all(np.abs(layer.weight.data) <= 0.25) and np.all(np.abs(layer.bias.data) <= 0.25)


def test_linear_without_bias_has_only_a_weight():
    layer = Linear(3, 2, bias=False, seed=0)
    assert [n for n, _ in layer.named_parameters()] == ["weight"]
    x = np.array([[1.0, -2.0, 0.5]])
    np.testing.assert_allclose(layer(x).data, x @ layer.weight.data)


def test_linear_forward_is_x_at_weight_plus_bias():
    layer = Linear(2, 3, seed=0)
    layer.weight.data[...] = [[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]]
    layer.bias.data[...] = [0.1, 0.2, 0.3]
    out = layer(Tensor([[2.0, 4.0], [1.0, -1.0]]))
    np.testing.assert_allclose(out.data, [[-1.9, 6.2, 6.3], [2.1, 1.7, 3.3]])


def test_linear_bias_gradient_sums_over_the_batch():
    layer = Linear(2, 2, seed=0)
    x = Tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
    upstream = np.array([[1.0, -2.0], [0.5, 3.0], [2.0, 1.0]])
    layer(x).backward(upstream)
    np.testing.assert_allclose(layer.bias.grad, [3.5, 2.0])
    np.testing.assert_allclose(layer.weight.grad, x.data.T @ upstream)


def test_mlp_activations_are_applied_between_layers_and_at_the_output():
    model = MLP([2, 2, 1], activation="relu", output_activation="sigmoid", seed=0)
    (w1, b1), (w2, b2) = model.weights()
    x = np.array([[0.3, -1.2], [2.0, 0.7]])
    expected = 1.0 / (1.0 + np.exp(-(np.maximum(x @ w1 + b1, 0.0) @ w2 + b2)))
    np.testing.assert_allclose(model(Tensor(x)).data, expected)


def test_mlp_rejects_an_unknown_activation_name():
    with pytest.raises(ValueError, match="unknown activation"):
        MLP([2, 1], activation="__class__")


def test_nested_modules_lists_and_dicts_are_searched_and_shared_parameters_listed_once():
    class Twin(Module):
        def __init__(self):
            self.encoder = Linear(2, 2, seed=0)
            self.heads = {"a": Linear(2, 1, seed=1), "b": Linear(2, 1, bias=False, seed=2)}
            self.tied = self.encoder.weight
            self.scale = Tensor(1.5, requires_grad=True)
            self.constant = Tensor([1.0, 2.0])  # no grad: not a parameter

        def forward(self, x):
            h = self.encoder(x)
            return self.heads["a"](h) + self.heads["b"](h) * self.scale

    names = [n for n, _ in Twin().named_parameters()]
    assert names == ["encoder.weight", "encoder.bias", "heads.a.weight", "heads.a.bias", "heads.b.weight", "scale"]


def test_module_zero_grad_clears_every_parameter_gradient():
    model = MLP([3, 2, 1], seed=0)
    model(Tensor([[1.0, -1.0, 2.0], [0.5, 0.2, -0.3]])).sum().backward()
    assert all(p.grad is not None for p in model.parameters())
    model.zero_grad()
    assert all(p.grad is None for p in model.parameters())


# ----- optimizers ------------------------------------------------------------------
def test_sgd_without_momentum_steps_against_the_gradient():
    p = Tensor([1.0, -2.0], requires_grad=True)
    _two_steps(SGD([p], lr=0.1), p)
    # step 1: g = [1, -8]   -> p = [0.9, -1.2];  step 2: g = [0.9, -4.8] -> p = [0.81, -0.72]
    np.testing.assert_allclose(p.data, [0.81, -0.72], rtol=0, atol=1e-15)


def test_sgd_momentum_matches_hand_computed_updates():
    p = Tensor([1.0, -2.0], requires_grad=True)
    opt = SGD([p], lr=0.1, momentum=0.9)
    _two_steps(opt, p)
    # step 1: g = [1, -8], v = g = [1, -8],                       p = [0.9, -1.2]
    # step 2: g = [0.9, -4.8], v = 0.9·[1, -8] + g = [1.8, -12], p = [0.9 − 0.18, −1.2 + 1.2]
    np.testing.assert_allclose(opt.velocity[0], [1.8, -12.0], atol=1e-14)
    np.testing.assert_allclose(p.data, [0.72, 0.0], atol=1e-14)


def test_adam_matches_hand_computed_updates():
    p = Tensor([1.0, -2.0], requires_grad=True)
    opt = Adam([p], lr=0.1, betas=(0.9, 0.999), eps=1e-8)
    opt.zero_grad()
    _quadratic_loss(p).backward()
    opt.step()
    # step 1: m̂ = g, v̂ = g², so the step is lr·sign(g) (up to eps): p = [0.9, -1.9]
    np.testing.assert_allclose(p.data, [0.9, -1.9], atol=1e-8)
    opt.zero_grad()
    _quadratic_loss(p).backward()
    opt.step()
    # step 2: g = [0.9, -7.6]; m = 0.9·[0.1, -0.8] + 0.1·g; v = 0.999·[0.001, 0.064] + 0.001·g²
    m, v = np.array([0.18, -1.48]), np.array([0.001809, 0.121696])
    np.testing.assert_allclose(opt.m[0], m, atol=1e-8)
    np.testing.assert_allclose(opt.v[0], v, atol=1e-8)
    expected = np.array([0.9, -1.9]) - 0.1 * (m / 0.19) / (np.sqrt(v / 0.001999) + 1e-8)
    np.testing.assert_allclose(p.data, expected, atol=1e-8)
    np.testing.assert_allclose(p.data, [0.80041223, -1.80016649], atol=1e-8)


def test_step_updates_in_place_and_records_no_graph():
    p = Tensor([1.0, -2.0], requires_grad=True)
    array = p.data
    opt = SGD([p], lr=0.5)
    _quadratic_loss(p).backward()
    opt.step()
    assert p.data is array
    assert p.is_leaf and p._prev == [] and p.requires_grad
    np.testing.assert_allclose(p.data, [0.5, 2.0])


def test_step_skips_parameters_without_a_gradient():
    used, unused = Tensor([1.0], requires_grad=True), Tensor([5.0], requires_grad=True)
    opt = Adam([used, unused], lr=0.1)
    (used * 3.0).sum().backward()
    opt.step()
    np.testing.assert_allclose(unused.data, [5.0])
    np.testing.assert_allclose(used.data, [0.9], atol=1e-8)


def test_optimizer_zero_grad_clears_gradients():
    p = Tensor([1.0, 2.0], requires_grad=True)
    opt = SGD([p], lr=0.1)
    _quadratic_loss(p).backward()
    np.testing.assert_allclose(p.grad, [1.0, 8.0])
    opt.zero_grad()
    assert p.grad is None


def test_optimizer_rejects_tensors_without_grad_and_bad_settings():
    with pytest.raises(TypeError):
        SGD([Tensor([1.0])], lr=0.1)
    with pytest.raises(ValueError):
        SGD([Tensor([1.0], requires_grad=True)], lr=0.0)
    with pytest.raises(ValueError):
        SGD([Tensor([1.0], requires_grad=True)], lr=0.1, momentum=1.0)
    shared = Tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="twice"):
        Adam([shared, shared])


# ----- learning ----------------------------------------------------------------------
def test_linear_regression_with_sgd_recovers_the_true_weights():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 2))
    y = x @ np.array([[2.0], [-3.0]]) + 0.5
    layer = Linear(2, 1, seed=0)
    opt = SGD(layer.parameters(), lr=0.1)
    for _ in range(300):
        opt.zero_grad()
        loss = lucid.mse_loss(layer(Tensor(x)), Tensor(y))
        loss.backward()
        opt.step()
    np.testing.assert_allclose(layer.weight.data.ravel(), [2.0, -3.0], atol=1e-6)
    np.testing.assert_allclose(layer.bias.data, [0.5], atol=1e-6)
    assert loss.item() < 1e-10


def test_mlp_with_adam_fits_a_nonlinear_function():
    rng = np.random.default_rng(1)
    x = rng.uniform(-2, 2, size=(50, 1))
    y = np.sin(x)
    model = MLP([1, 16, 1], activation="tanh", seed=0)
    opt = Adam(model.parameters(), lr=0.02)
    first = None
    for _ in range(400):
        opt.zero_grad()
        loss = lucid.mse_loss(model(Tensor(x)), Tensor(y))
        loss.backward()
        opt.step()
        first = loss.item() if first is None else first
    assert first > 0.1
    assert loss.item() < 0.01


# ----- the three twins of one MLP (array, NumPy by hand, scalars) ---------------------------
def _twins(seed=0, samples=6):
    from lucid.nn.data import toy_binary_data
    from lucid.nn.reference import NumpyMLP
    from lucid.nn.scalar import ScalarMLP

    x, y = toy_binary_data(samples, 3, seed=seed)
    model = MLP([3, 2, 1], activation="tanh", output_activation="sigmoid", seed=seed)
    return x, y, model, NumpyMLP(model.weights(), activation="tanh"), ScalarMLP.from_mlp(model)


def test_toy_data_has_the_requested_shape_and_binary_labels():
    from lucid.nn.data import toy_binary_data

    x, y = toy_binary_data(80, 5, seed=0)
    assert x.shape == (80, 5) and y.shape == (80, 1)
    assert set(np.unique(y)) == {0.0, 1.0}
    np.testing.assert_array_equal(toy_binary_data(80, 5, seed=0)[0], x)


def test_numpy_reference_gradients_equal_lucid_gradients():
    x, y, model, ref, _ = _twins()
    loss = lucid.binary_cross_entropy(model(Tensor(x)), Tensor(y))
    loss.backward()
    ref_loss, grads = ref.loss_and_grads(x, y)
    assert ref_loss == pytest.approx(loss.item(), rel=1e-14)
    flat = [g for pair in grads for g in pair]
    for p, g in zip(model.parameters(), flat):
        np.testing.assert_allclose(p.grad, g, rtol=1e-12, atol=1e-15)


def test_scalar_mlp_matches_the_array_mlp_value_and_gradients():
    x, y, model, _, scalar = _twins()
    np.testing.assert_allclose([o.item() for o in scalar(x[0].tolist())], model(Tensor(x[0])).data, rtol=1e-14)
    loss = lucid.binary_cross_entropy(model(Tensor(x)), Tensor(y))
    loss.backward()
    scalar_loss = scalar.bce_loss(x, y)
    scalar_loss.backward()
    assert scalar_loss.item() == pytest.approx(loss.item(), rel=1e-13)
    assert scalar.num_parameters() == model.num_parameters() == 3 * 2 + 2 + 2 * 1 + 1
    for layer, neurons in zip(model.layers, scalar.layers):
        for j, neuron in enumerate(neurons):
            np.testing.assert_allclose([w.grad for w in neuron.w], layer.weight.grad[:, j], rtol=1e-12, atol=1e-15)
            assert neuron.b.grad == pytest.approx(layer.bias.grad[j], rel=1e-12, abs=1e-15)


def test_the_scalar_graph_has_many_more_nodes_than_the_array_graph():
    x, y, model, _, scalar = _twins(samples=4)
    tensor_nodes = len(lucid.autograd.topological_order(
        lucid.binary_cross_entropy(model(Tensor(x)), Tensor(y))))
    scalar_nodes = len(lucid.autograd.topological_order(scalar.bce_loss(x, y)))
    assert tensor_nodes == 13  # x, W1, b1, @, +, tanh, W2, b2, @, +, σ, y, BCE
    # 11 weights; per sample 3 inputs, 2 hidden neurons of (3 ×, 3 +, tanh), an output neuron (2 ×, 2 +, σ)
    # and 9 BCE nodes; 3 + joining the 4 samples; × (−1/4) with its constant
    assert scalar_nodes == 11 + 4 * (3 + 2 * 7 + 5 + 9) + 3 + 2 == 140


def test_the_three_training_loops_agree_step_by_step():
    from lucid.nn.training import train_numpy, train_scalar, train_tensor

    x, y, model, ref, scalar = _twins(seed=2, samples=10)
    tensor_losses = train_tensor(model, x, y, steps=15, lr=0.5)
    numpy_losses = train_numpy(ref, x, y, steps=15, lr=0.5)
    scalar_losses = train_scalar(scalar, x, y, steps=15, lr=0.5)
    np.testing.assert_allclose(tensor_losses, numpy_losses, rtol=1e-12)
    np.testing.assert_allclose(scalar_losses, numpy_losses, rtol=1e-12)
    assert tensor_losses[-1] < tensor_losses[0]
    for (w, b), (rw, rb), (sw, sb) in zip(model.weights(), ref.weights, scalar.weights()):
        np.testing.assert_allclose(w, rw, rtol=1e-11)
        np.testing.assert_allclose(sw, rw, rtol=1e-11)
        np.testing.assert_allclose(b, rb, rtol=1e-11)
        np.testing.assert_allclose(sb, rb, rtol=1e-11)


def test_reference_mlp_rejects_an_unknown_activation():
    from lucid.nn.reference import NumpyMLP

    with pytest.raises(ValueError, match="unknown activation"):
        NumpyMLP([(np.zeros((2, 1)), np.zeros(1))], activation="softsign")
