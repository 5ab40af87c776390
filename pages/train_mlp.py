"""Train an MLP page: pick data and settings, watch the loss fall, see the boundary and the graph.

Thin over ``lucid.lessons.training`` and ``lucid.data``; the shared runs live in ``lucid.ui.lesson_pages.lesson_cache``
(the server's warm-up computes the default settings' before anyone asks: ``lucid.ui.runtime.warmup``). Altair and
pandas are imported where the charts are drawn, so the page is drawn while the warm-up still loads them.
"""
from __future__ import annotations

import numpy as np
import streamlit as st

from lucid.i18n import N_, _, format_percent
from lucid.lessons.training import (
    OPTIMIZERS,
    Prepared,
    TrainingRun,
    accuracy,
    decision_grid,
    first_step_graph,
    gradient_table,
    make_model,
    node_count,
    predict,
    prepare,
    train,
    training_step_graph,
)
from lucid.nn import MLP
from lucid.ui.lesson_pages import lesson_cache
from lucid.ui.lesson_pages.large_graph_view import graph_image, scalar_step_section
from lucid.ui.lesson_pages.lesson_cache import TRAIN_DEFAULTS, dataset
from lucid.ui.playground.playground_link import open_in_playground, training_step_program
from lucid.ui.projector import lesson_pages as page_classroom
from lucid.ui.runtime import warmup
from lucid.ui.runtime.entry import ensure_navigation
from lucid.ui.runtime.process_cache import holds

ensure_navigation()
page_classroom.apply_page_style()  # Classroom mode: 20 px type (charts: see page_classroom.chart)

LEARNING_RATES = [0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0]
DATASETS = lesson_cache.DATASETS
DEFAULT_NAME, DEFAULT_OPTIMIZER, DEFAULT_HIDDEN, DEFAULT_LR, DEFAULT_STEPS, DEFAULT_SEED = TRAIN_DEFAULTS


def boundary_chart(model: MLP, prepared: Prepared):
    import altair as alt
    import pandas as pd

    grid = decision_grid(model, prepared.Z, resolution=60)
    g1, g2 = np.meshgrid(grid.x1, grid.x2)
    step1, step2 = grid.x1[1] - grid.x1[0], grid.x2[1] - grid.x2[0]
    cells = pd.DataFrame({"x1": g1.ravel() - step1 / 2, "x1b": g1.ravel() + step1 / 2,
                          "x2": g2.ravel() - step2 / 2, "x2b": g2.ravel() + step2 / 2, "p": grid.prob.ravel()})
    heat = alt.Chart(cells).mark_rect(opacity=0.55, strokeWidth=0).encode(
        x=alt.X("x1:Q", title=_("x₁ (standardised)"), scale=alt.Scale(domain=[grid.x1[0], grid.x1[-1]], nice=False)),
        x2="x1b:Q",
        y=alt.Y("x2:Q", title=_("x₂ (standardised)"), scale=alt.Scale(domain=[grid.x2[0], grid.x2[-1]], nice=False)),
        y2="x2b:Q",
        color=alt.Color("p:Q", title=_("P(label 1)"), scale=alt.Scale(domain=[0, 1], scheme="redblue", reverse=True)),
    )
    points = pd.concat([
        pd.DataFrame({"x1": prepared.Z[:, 0], "x2": prepared.Z[:, 1], "label": prepared.y[:, 0],
                      "part": _("train")}),
        pd.DataFrame({"x1": prepared.Z_test[:, 0], "x2": prepared.Z_test[:, 1], "label": prepared.y_test[:, 0],
                      "part": _("test")}),
    ])
    dots = alt.Chart(points).mark_point(filled=True, size=40, stroke="black", strokeWidth=0.6).encode(
        x="x1:Q", y="x2:Q",
        color=alt.Color("label:N", scale=alt.Scale(range=["#2b6cb0", "#c53030"]), title=_("label")),
        shape=alt.Shape("part:N", title=_("part"),
                        scale=alt.Scale(domain=[_("train"), _("test")], range=["circle", "triangle-up"])),
        tooltip=[alt.Tooltip("label:N", title=_("label")), alt.Tooltip("part:N", title=_("part"))],
    )
    return (heat + dots).properties(height=420)


def features_chart(model: MLP, prepared: Prepared, names: list[str], fx: int, fy: int):
    """Held-out points on two raw features, coloured by label, crosses where the model is wrong."""
    import altair as alt
    import pandas as pd

    prob = predict(model, prepared.Z_test)
    raw = prepared.Z_test * prepared.std + prepared.mean
    frame = pd.DataFrame({"x": raw[:, fx], "y": raw[:, fy], "label": prepared.y_test[:, 0].astype(int),
                          "p": prob, "correct": (prob >= 0.5) == (prepared.y_test[:, 0] >= 0.5)})
    return alt.Chart(frame).mark_point(filled=True).encode(
        x=alt.X("x:Q", title=_(names[fx]), scale=alt.Scale(zero=False)),
        y=alt.Y("y:Q", title=_(names[fy]), scale=alt.Scale(zero=False)),
        color=alt.Color("label:N", title=_("label"), scale=alt.Scale(range=["#2b6cb0", "#c53030"])),
        shape=alt.Shape("correct:N", title=_("correct"),
                        scale=alt.Scale(domain=[True, False], range=["circle", "cross"])),
        size=alt.condition("datum.correct", alt.value(50), alt.value(200)),
        tooltip=[alt.Tooltip("label:N", title=_("label")), alt.Tooltip("p:Q", title=_("P(label 1)"), format=".3f"),
                 alt.Tooltip("correct:N", title=_("correct"))],
    ).properties(height=380)


st.title(_("Train an MLP"))
st.write(_("A network with one hidden layer (tanh) and a sigmoid output, trained on binary cross-entropy with "
           "lucid's autodiff. Pick the data and the settings, then train."))

c1, c2, c3 = st.columns(3)
name = c1.selectbox(_("dataset"), DATASETS, index=DATASETS.index(DEFAULT_NAME), key="train_dataset", format_func=_)
optimizer_name = c2.radio(_("optimizer"), OPTIMIZERS, index=OPTIMIZERS.index(DEFAULT_OPTIMIZER), horizontal=True,
                          key="train_optimizer")
hidden = c3.slider(_("hidden units"), 2, 32, DEFAULT_HIDDEN, key="train_hidden")
c4, c5, c6 = st.columns(3)
lr = c4.select_slider(_("learning rate"), LEARNING_RATES, value=DEFAULT_LR, key="train_lr")
steps = c5.slider(_("steps"), 10, 1000, DEFAULT_STEPS, step=10, key="train_steps")
seed = c6.number_input(_("seed (initial weights)"), 0, 1000, DEFAULT_SEED, key="train_seed")

ds = dataset(name)
prepared = prepare(ds)
st.caption(_("**{name}**: {description}. {train} points for training, {test} held out for testing; share of "
             "label 1: {share}.").format(name=_(ds.name), description=ds.description, train=len(prepared.Z),
                                         test=len(prepared.Z_test), share=format_percent(ds.positive_share)))

clicked = st.button(_("Train"), type="primary", key="train_button")
progress = st.progress(0.0, text=_("press Train"))
curve = st.empty()



def loss_curve(losses: list[float]) -> None:
    curve.altair_chart(page_classroom.loss_curve(losses), width="stretch")


def progress_text(step: int, steps: int, loss: float) -> str:
    return _("step {step} / {steps} · loss {loss}").format(step=step, steps=steps, loss=f"{loss:.4f}")


def live(steps: int):
    """An ``on_step`` that makes the progress bar and the loss curve follow a training (the curve is redrawn ten
    times: each redraw builds a whole chart, and forty of them cost seconds)."""
    bar_every, curve_every = max(1, steps // 40), max(1, steps // 10)
    seen: list[float] = []

    def on_step(step: int, loss: float) -> None:
        seen.append(loss)
        if step % bar_every == 0 or step == steps:
            progress.progress(step / steps, text=progress_text(step, steps, loss))
        if step % curve_every == 0 or step == steps:
            loss_curve(seen)

    return on_step


def train_live(name: str, optimizer_name: str, hidden: int, lr: float, steps: int, seed: int) -> TrainingRun:
    """Train while the progress bar and the loss curve follow."""
    return train(prepare(dataset(name)), optimizer_name, hidden, lr, steps, seed, live(steps))


def comparison_bar():
    """The comparison's progress bar, opened only when this session computes it."""
    bar = st.progress(0.0, text=_("Training the same network as tensors and as scalars…"))
    return (lambda done, text: bar.progress(done, text=text)), bar.empty


settings = (name, optimizer_name, hidden, lr, steps, int(seed))
# the server has just started and is preparing exactly these settings: draw the page, fill in the run
waiting = warmup.pending("train_mlp") and settings == TRAIN_DEFAULTS and not clicked
if waiting:
    warmup.fill_in_later("train_mlp")
    run = None
else:
    # Train trains again in front of the class (same settings, same numbers); otherwise the shared run is shown
    with lesson_cache.reporting(on_step=live(steps)):  # a run nobody computed yet is trained live, here
        run = (train_live(*settings) if clicked and holds(lesson_cache.trained, *settings)
               else lesson_cache.trained(*settings))


def show_run(run: TrainingRun) -> None:
    """The trained network: its numbers, what it learned, the graph of one step, the scalar step."""
    import pandas as pd

    model, losses = run.model, run.losses
    progress.progress(1.0, text=progress_text(steps, steps, losses[-1]))
    loss_curve(losses)

    m1, m2, m3, m4 = st.columns(4)
    m1.metric(_("first loss"), f"{losses[0]:.4f}")
    m2.metric(_("final loss"), f"{losses[-1]:.4f}", delta=f"{losses[-1] - losses[0]:.4f}", delta_color="inverse")
    m3.metric(_("train accuracy"), f"{accuracy(model, prepared.Z, prepared.y):.1%}")
    m4.metric(_("test accuracy"), f"{accuracy(model, prepared.Z_test, prepared.y_test):.1%}")

    st.header(_("What the network learned"))
    if ds.n_features == 2:
        st.write(_("Colour is the model's probability of label 1 on a grid; the white band is the 0.5 boundary. "
                   "Circles are training points, triangles held-out test points."))
        st.altair_chart(page_classroom.chart(boundary_chart(model, prepared)), width="stretch")
    else:
        st.write(_("The data has {n} features, so there is no plane to colour. Held-out points on two features of "
                   "your choice (label 1: zlib gets the chunk below {share}), crosses where the model is "
                   "wrong:").format(n=ds.n_features, share=format_percent(0.30)))
        f1, f2 = st.columns(2)
        names = list(ds.feature_names)
        fx = names.index(f1.selectbox(_("horizontal"), names, index=0, key="train_fx", format_func=_))
        fy = names.index(f2.selectbox(_("vertical"), names, index=3, key="train_fy", format_func=_))
        st.altair_chart(page_classroom.chart(features_chart(model, prepared, names, fx, fy)), width="stretch")

    st.header(_("The graph of one training step"))
    # step 1 (the initial weights): after training the loss is flat, so the trained network's gradients are tiny
    step_trace = first_step_graph(ds.n_features, hidden, int(seed), prepared.Z, prepared.y, batch=4)
    text_col, graph_col = st.columns([1, 2])
    with text_col:
        st.write(_("Step 1 of training: a batch of 4 points through the network with its initial weights and the "
                   "loss, after backward: **{nodes} nodes**, whatever the hidden size ({hidden} here) or the batch "
                   "size, because every node is a whole array.").format(nodes=node_count(step_trace.root),
                                                                        hidden=hidden))
        st.markdown("\n".join("- " + _(line) for line in (
            N_("`X` (4×features) and `y` are constants: no gradient."),
            N_("`W1, b1, W2, b2` are the leaves the optimizer updates with their `grad`."),
            N_("`b1` and `b2` are broadcast over the batch, so their gradients are sums over its rows."),
            N_("One step = this forward pass, one backward pass along every edge, one optimizer update."))))
        st.write(_("Why step 1: a trained network sits near a minimum of the loss, where the loss is flat, so its "
                   "gradients are close to zero. The same batch, mean |grad| of each parameter:"))
        grad_table = pd.DataFrame(gradient_table(step_trace,
                                                 training_step_graph(model, prepared.Z, prepared.y, batch=4)))
        headings = {key: _(key) for key in (N_("parameter"), N_("mean |grad| at step 1"),
                                            N_("mean |grad| after training"))}
        st.dataframe(grad_table.rename(columns=headings), hide_index=True, key="train_grad_sizes")
    with graph_col:
        graph_image(lesson_cache.step_dot(step_trace), _(
            "Graph of one training step on 4 rows of the data: the constants X and y, the parameters W1, b1, W2 "
            "and b2, and the loss, each node with its gradient."))
        open_in_playground(training_step_program(prepared.Z[:4], prepared.y[:4],
                                                 make_model(ds.n_features, hidden, int(seed)).weights()),
                           key="train_open")

    scalar_step_section(int(seed))


if run is not None:
    show_run(run)

st.header(_("Tensors vs scalars: why frameworks work on arrays"))
st.write(_("The same network from the same initial weights, built once from arrays and once from 0-d tensors "
           "(one node per multiply and add, as in micrograd), trained with plain SGD on the same points. "
           "Small on purpose: the scalar version is slow."))
k1, k2, k3 = st.columns(3)
cmp_samples = k1.slider(_("points"), 8, 80, lesson_cache.COMPARE_SAMPLES, step=8, key="cmp_samples")
cmp_steps = k2.slider(_("steps"), 1, 30, lesson_cache.COMPARE_STEPS, key="cmp_steps")
cmp_hidden = k3.slider(_("hidden units"), 2, 8, lesson_cache.compare_hidden(hidden), key="cmp_hidden")
cmp_settings = (name, cmp_hidden, lesson_cache.COMPARE_LR, cmp_steps, cmp_samples)
if warmup.pending("train_mlp") and cmp_settings == (
        DEFAULT_NAME, lesson_cache.compare_hidden(DEFAULT_HIDDEN), lesson_cache.COMPARE_LR,
        lesson_cache.COMPARE_STEPS, lesson_cache.COMPARE_SAMPLES):
    warmup.fill_in_later("train_mlp")
    st.stop()
with lesson_cache.reporting(open_progress=comparison_bar):  # a setting nobody computed yet: under a bar, here
    cmp = lesson_cache.comparison(*cmp_settings)
time_label = _("time for {steps} steps").format(steps=cmp.steps)
left, middle, right = st.columns(3)
with left:
    st.subheader(_("tensors"))
    st.metric(_("nodes per step"), f"{cmp.tensor.nodes:,}")
    st.metric(time_label, f"{cmp.tensor.seconds * 1000:.1f} ms")
    st.metric(_("final loss"), f"{cmp.tensor.final_loss:.6f}")
with middle:
    st.subheader(_("scalars"))
    st.metric(_("nodes per step"), f"{cmp.scalar.nodes:,}")
    st.metric(time_label, f"{cmp.scalar.seconds * 1000:.1f} ms")
    st.metric(_("final loss"), f"{cmp.scalar.final_loss:.6f}")
with right:
    st.subheader(_("ratio"))
    st.metric(_("nodes: scalars / tensors"), f"{cmp.node_ratio:,.0f}×")
    st.metric(_("time: scalars / tensors"), f"{cmp.time_ratio:,.0f}×")
    st.metric(_("time: tensors / NumPy by hand"), f"{cmp.numpy_ratio:,.1f}×")
st.caption(_("{points} points, {hidden} hidden units, {steps} SGD steps at lr 0.5. Both versions end at the same "
             "loss (difference {difference}): the math is identical, only the bookkeeping differs. Times are "
             "measured once per setting on this machine.").format(
    points=cmp.samples, hidden=cmp.hidden, steps=cmp.steps,
    difference=f"{abs(cmp.scalar.final_loss - cmp.tensor.final_loss):.1e}"))
st.caption(_("What the time ratio includes: the scalar version pays Python's cost for every single number (an "
             "object and a gradient closure per multiply and add), which any scalar engine pays: lucid's scalar "
             "version takes at most about twice as long as a lean micrograd-style engine on the same network "
             "(bench/bench_mlp.py, scalar/micro). So the ratio measures vectorisation: one NumPy call per layer "
             "instead of one Python call per number."))
