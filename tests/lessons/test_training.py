"""Training lesson: the loop lowers the loss, and the scalar-built twin lands on the same loss."""
import numpy as np
import pytest

import lucid
from lucid.data import file_chunks, load, spirals, two_moons
from lucid.lessons.training import (
    OPTIMIZERS,
    accuracy,
    bce_loss,
    compare_tensor_scalar,
    decision_grid,
    first_step_graph,
    fit,
    gradient_table,
    make_model,
    make_optimizer,
    node_count,
    predict,
    prepare,
    training_step_graph,
)
from lucid.viz import format_number


def test_prepare_holds_out_a_test_part_standardised_with_training_statistics():
    ds = two_moons(n=100, seed=0)
    p = prepare(ds, test_share=0.2, seed=1)
    assert p.Z.shape == (80, 2) and p.y.shape == (80, 1)
    assert p.Z_test.shape == (20, 2) and p.y_test.shape == (20, 1)
    np.testing.assert_allclose(p.Z.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(p.Z.std(axis=0), 1.0)
    # every original point is in exactly one part, mapped by the same (mean, std)
    back = np.vstack([p.Z, p.Z_test]) * p.std + p.mean
    assert sorted(map(tuple, np.round(back, 9))) == sorted(map(tuple, np.round(ds.X, 9)))
    assert p.y.sum() + p.y_test.sum() == ds.y.sum()


def test_prepare_rejects_a_test_share_of_everything():
    with pytest.raises(ValueError, match="test_share"):
        prepare(two_moons(), test_share=1.0)


def test_make_optimizer_knows_sgd_and_adam_only():
    params = make_model(2, 3).parameters()
    assert OPTIMIZERS == ("SGD", "Adam")
    assert isinstance(make_optimizer("SGD", params, 0.1, momentum=0.9), lucid.optim.SGD)
    assert isinstance(make_optimizer("Adam", params, 0.01), lucid.optim.Adam)
    with pytest.raises(ValueError, match="unknown optimizer"):
        make_optimizer("RMSprop", params, 0.1)


@pytest.mark.parametrize("optimizer,lr", [("SGD", 0.5), ("Adam", 0.05)])
def test_training_lowers_the_loss_and_reports_every_step(optimizer, lr):
    p = prepare(two_moons(n=120, seed=2))
    model = make_model(2, 8, seed=0)
    seen = []
    losses = fit(lambda: bce_loss(model, p.Z, p.y), make_optimizer(optimizer, model.parameters(), lr), 150,
                 on_step=lambda step, loss: seen.append((step, loss)))
    assert len(losses) == 150
    assert seen == list(zip(range(1, 151), losses))
    assert losses[-1] < 0.5 * losses[0]
    assert accuracy(model, p.Z, p.y) > 0.85
    assert accuracy(model, p.Z_test, p.y_test) > 0.8


def test_spirals_need_a_hidden_layer_that_adam_can_train():
    p = prepare(spirals(n=200, seed=0))
    model = make_model(2, 24, seed=1)
    losses = fit(lambda: bce_loss(model, p.Z, p.y), make_optimizer("Adam", model.parameters(), 0.05), 400)
    assert losses[-1] < 0.35 < losses[0]
    assert accuracy(model, p.Z, p.y) > 0.85


def test_the_file_chunk_label_is_learnable_from_the_five_features():
    p = prepare(file_chunks(n_chunks=240, seed=0))
    model = make_model(5, 8, seed=0)
    losses = fit(lambda: bce_loss(model, p.Z, p.y), make_optimizer("Adam", model.parameters(), 0.05), 200)
    assert losses[-1] < 0.6 * losses[0]
    majority = max(p.y_test.mean(), 1 - p.y_test.mean())
    assert accuracy(model, p.Z_test, p.y_test) > majority


def test_decision_grid_covers_the_data_and_matches_predict():
    p = prepare(two_moons(n=60, seed=0))
    model = make_model(2, 4, seed=0)
    grid = decision_grid(model, p.Z, resolution=7, margin=0.25)
    assert grid.prob.shape == (7, 7)
    assert grid.x1[0] == pytest.approx(p.Z[:, 0].min() - 0.25) and grid.x2[-1] == pytest.approx(p.Z[:, 1].max() + 0.25)
    corner = predict(model, np.array([[grid.x1[6], grid.x2[2]]]))[0]
    assert grid.prob[2, 6] == pytest.approx(corner)
    assert ((grid.prob > 0) & (grid.prob < 1)).all()


def test_decision_grid_refuses_more_than_two_features():
    with pytest.raises(ValueError, match="2-D"):
        decision_grid(make_model(5, 3), np.zeros((4, 5)))


def test_one_step_graph_is_drawn_from_a_copy_with_named_parameters():
    p = prepare(two_moons(n=40, seed=0))
    model = make_model(2, 3, seed=0)
    before = [w.data.copy() for w in model.parameters()]
    trace = training_step_graph(model, p.Z, p.y, batch=4)
    loss = trace.root
    order = lucid.autograd.topological_order(loss)
    assert [id(t) for t in trace.order] == [id(t) for t in order] and loss.name == "loss"
    names = {t.name for t in order if t.name}
    assert {"X", "y", "W1", "b1", "W2", "b2", "loss"} <= names
    assert next(t for t in order if t.name == "X").shape == (4, 2)
    assert all(t.grad is not None for t in order if t.name in {"W1", "b1", "W2", "b2"})
    assert all(w.grad is None for w in model.parameters())  # the trained model is untouched
    for w, old in zip(model.parameters(), before):
        np.testing.assert_array_equal(w.data, old)
    # X@W1, +b1, tanh, @W2, +b2, sigmoid, BCE: 7 ops over 6 leaves
    assert node_count(loss) == 13


def test_scalar_and_tensor_twins_reach_the_same_loss_with_far_bigger_graphs():
    p = prepare(load("file chunks"))
    comparison = compare_tensor_scalar(p.Z, p.y, hidden=3, steps=5, lr=0.5, samples=12)
    assert comparison.samples == 12 and comparison.steps == 5
    np.testing.assert_allclose(comparison.scalar.losses, comparison.tensor.losses, rtol=1e-10)
    np.testing.assert_allclose(comparison.numpy.losses, comparison.tensor.losses, rtol=1e-10)
    assert comparison.tensor.losses[-1] < comparison.tensor.losses[0]
    assert comparison.tensor.nodes == 13
    # per sample: 5 input constants xᵢ shared by the first layer, 3 hidden neurons × (5 ×, 5 +, tanh) = 33,
    # the output neuron (3 ×, 3 +, σ) = 7, the loss term y·log p + (1−y)·log(1−p) = 9 (3 constants, 2 log,
    # 2 ×, −, +): 54 × 12 samples = 648; + 11 additions summing the terms, + the constant −1/12 and its ×,
    # + 22 parameters = 683
    assert comparison.scalar.nodes == 683
    assert comparison.node_ratio == comparison.scalar.nodes / comparison.tensor.nodes
    assert comparison.time_ratio == comparison.scalar.seconds / comparison.tensor.seconds


def test_the_step_graph_is_training_step_1_whose_gradients_are_readable():
    p = prepare(two_moons(n=100, seed=0), seed=0)
    first = first_step_graph(2, 3, 0, p.Z, p.y, batch=4)
    # the same network the training starts from: its plain backward gives the same parameter gradients
    model = make_model(2, 3, 0)
    bce_loss(model, p.Z[:4], p.y[:4]).backward()
    final = first.final_grads()
    by_name = {t.name: final[id(t)] for t in first.order if t.name in {"W1", "b1", "W2", "b2"}}
    for name, w in zip(["W1", "b1", "W2", "b2"], model.parameters()):
        np.testing.assert_allclose(by_name[name], w.grad, rtol=1e-12)
    trained = make_model(2, 3, 0)
    fit(lambda: bce_loss(trained, p.Z, p.y), make_optimizer("Adam", trained.parameters(), 0.1), 400)
    table = gradient_table(first, training_step_graph(trained, p.Z, p.y, batch=4))
    assert table == [
        {"parameter": "W1", "mean |grad| at step 1": "0.04829", "mean |grad| after training": "0.003088"},
        {"parameter": "b1", "mean |grad| at step 1": "0.04930", "mean |grad| after training": "0.003631"},
        {"parameter": "W2", "mean |grad| at step 1": "0.1637", "mean |grad| after training": "0.001955"},
        {"parameter": "b2", "mean |grad| at step 1": "0.1379", "mean |grad| after training": "0.002080"},
    ]
    assert table[2]["mean |grad| at step 1"] == format_number(np.abs(model.parameters()[2].grad).mean())


def test_the_gradient_table_has_one_number_format():
    def trace_with_gradient(g: float):
        w = lucid.Tensor([1.0, -1.0], requires_grad=True, name="W")
        loss = (w * lucid.Tensor([g, -g])).sum()
        return lucid.autograd.backward_trace(loss)

    # plain decimals from 1e-4 up: 0.4622 beside 0.006015, never beside 6.015e-3
    assert gradient_table(trace_with_gradient(0.4622), trace_with_gradient(6.015e-3)) == [
        {"parameter": "W", "mean |grad| at step 1": "0.4622", "mean |grad| after training": "0.006015"}]
    # one number below 1e-4 turns the whole table scientific, written as on a blackboard
    assert gradient_table(trace_with_gradient(0.4622), trace_with_gradient(2.2e-7)) == [
        {"parameter": "W", "mean |grad| at step 1": "4.622 × 10⁻¹", "mean |grad| after training": "2.200 × 10⁻⁷"}]
