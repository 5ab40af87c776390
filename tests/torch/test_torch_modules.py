"""A recorded ``nn.Module`` collapses into one box per module, the way lucid's large graphs collapse.

The recorder notes which module each call ran in and which module holds each parameter; the replay tags both
with the module's path (``model`` → ``model.0``), so the collapsed view (``lucid.viz.graph.collapse``) draws
``model.0`` as one box holding linear's node, ``0.weight`` and ``0.bias``, and a click opens it.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from tests.needs import require, require_torch

torch = require_torch()
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from lucid.torch import RecordingFileError, from_json, record, replay, to_json  # noqa: E402
from lucid.viz.graph.collapse import CollapsedView, toggle  # noqa: E402
from lucid.viz.graph.dot import to_dot  # noqa: E402


def _mlp(depth: int, seed: int = 11):
    torch.manual_seed(seed)
    layers: list[nn.Module] = []
    for _ in range(depth):
        layers += [nn.Linear(4, 4), nn.Tanh()]
    model = nn.Sequential(*layers, nn.Linear(4, 3))
    x = torch.randn(5, 4)
    y = torch.tensor([0, 2, 1, 1, 0])
    with record(model, names={"x": x}) as rec:
        loss = F.cross_entropy(model(x), y)
    loss.backward()
    return model, rec


def _names(view: CollapsedView, key: str) -> list[str]:
    """What a box holds: its tensors by name, an unnamed result by its op."""
    group = view.hierarchy.groups[key]
    return [view.order[k].name or view.order[k]._op.describe() for k in group.members]


def test_each_module_is_a_box_holding_its_calls_and_its_parameters():
    model, rec = _mlp(2)
    root, trace = replay(rec.graph())
    view = CollapsedView(root, trace, ())
    assert view.hierarchy.source == "tags"
    top = [view.group_of_unit(u).key if u.startswith("g") else view.order[int(u[1:])].name for u in view.units]
    assert top == ["x", "model", "loss"]  # the input and the loss are outside the model
    assert view.hierarchy.groups["model"].children == [f"model/model.{i}" for i in range(5)]
    assert _names(view, "model/model.0") == ["0.weight", "0.bias", "linear"]
    assert _names(view, "model/model.1") == ["tanh"]
    assert _names(view, "model/model.4") == ["4.weight", "4.bias", "linear"]
    assert [view.hierarchy.groups[f"model/model.{i}"].label for i in range(5)] == [f"model.{i}" for i in range(5)]


def test_a_click_opens_a_module_box_and_a_click_on_its_header_closes_it():
    model, rec = _mlp(2)
    root, trace = replay(rec.graph())
    closed = CollapsedView(root, trace, ())
    model_box = closed.hierarchy.groups["model"].id
    opened = toggle(closed, (), model_box)
    assert opened == {"model"}
    view = CollapsedView(root, trace, opened)
    boxes = [view.group_of_unit(u).label for u in view.units if u.startswith("g")]
    assert boxes == ["model.0", "model.1", "model.2", "model.3", "model.4"]
    layer0 = view.hierarchy.groups["model/model.0"].id
    inside = CollapsedView(root, trace, toggle(view, opened, layer0))
    drawn = {inside.order[int(u[1:])].name or inside.order[int(u[1:])]._op.describe()
             for u in inside.units if u.startswith("t")}
    assert {"0.weight", "0.bias", "linear"} <= drawn  # model.0 is open: its nodes are drawn on their own
    assert "model/model.1" not in inside.expanded  # the other layers stay boxes
    assert toggle(inside, inside.expanded, layer0) == {"model"}  # its header closes it again


def test_the_gradient_leaves_a_closed_module_box_once_per_edge_out_of_it():
    model, rec = _mlp(2)
    root, trace = replay(rec.graph())
    view = CollapsedView(root, trace, {"model"})
    layer2 = view.hierarchy.groups["model/model.2"].id
    leaving = [c for c in view.steps if c.unit == layer2]
    assert len(leaving) == 1  # linear → its weight, its bias and its input: one collapsed step out of the box
    step = leaving[0]
    reached = [trace.steps[k].parent.name for k in range(step.first, step.last + 1)]
    assert {"2.bias", "2.weight"} <= set(reached) and len(reached) == 3  # and the box's input, tanh's result
    assert step.targets == (view.hierarchy.groups["model/model.1"].id,)
    final = {s.parent.name: s.accumulated for s in trace.steps if s.is_final and s.parent.name}
    for name, p in model.named_parameters():  # the boxes change what is drawn, not the numbers
        np.testing.assert_array_equal(final[name], p.grad.double().numpy())


def test_a_deep_recorded_model_is_drawn_collapsed_by_module_as_a_large_lucid_graph_is():
    model, rec = _mlp(80)  # 161 modules, 325 tensors: past the node cap of the full drawing
    root, trace = replay(rec.graph())
    graph = to_dot(root, trace, 0)
    assert "lucid-collapsed" in graph.graph_attr["class"].split()
    view = CollapsedView(root, trace, ())
    model_group = view.hierarchy.groups["model"]
    assert model_group.size == len(trace.order) - 2  # everything but the input x and the loss
    blocks = [view.hierarchy.groups[k] for k in model_group.children]
    assert 1 < len(blocks) <= 12 and blocks[0].label == "model.0 … model.13"  # siblings in blocks, as lucid does
    assert all(view.hierarchy.groups[k].label.startswith("model.") for k in blocks[0].children)


def test_the_module_paths_travel_in_a_saved_recording():
    _, rec = _mlp(1)
    again = from_json(to_json(rec.graph()))
    modules = {n.name: n.module for n in again.nodes if n.name}
    assert modules["0.weight"] == ("model", "0") and modules["2.bias"] == ("model", "2")
    root, trace = replay(again)
    assert _names(CollapsedView(root, trace, ()), "model/model.0") == ["0.weight", "0.bias", "linear"]


def test_in_the_notebook_a_click_on_a_module_box_opens_it_and_its_header_closes_it():
    require("anywidget", "the notebook extra")
    from lucid.viz import stepper

    model, rec = _mlp(80)
    player = stepper(rec, step=5)
    assert player.animation.collapsed["box_ids"] == ["g0"]  # x, the model in one box, the loss
    assert player.title() == "322 steps inside model"

    player._on_message(player, {"kind": "inspect", "node": "g0", "step": 5}, [])  # what a click on the box sends
    opened = player.animation.collapsed
    assert opened["expanded"] == ["model"] and opened["boxes"] == 12  # blocks of layers, as lucid's own graphs
    assert player.data["anim"] == player.animation.to_json() and player.step == 5  # redrawn, at the same step
    assert player.title() == "14 steps inside model.154 … model.160; gradient leaves model.154 … model.160 for " \
                             "model.140 … model.153"
    block = opened["box_ids"][0]
    player._on_message(player, {"kind": "inspect", "node": block, "step": 5}, [])
    assert player.animation.collapsed["expanded"] == ["model", "model/model.0 … model.13"]

    player._on_message(player, {"kind": "inspect", "node": "g0", "step": 5}, [])  # the model's header: closed
    assert player.animation.collapsed["expanded"] == [] and player.animation.collapsed["box_ids"] == ["g0"]
    assert not player.open_box("g99999") and not player.open_box("t3")  # no such group; not a box
    final = {s.parent.name: s.accumulated for s in player._rec.trace.steps if s.is_final and s.parent.name}
    np.testing.assert_array_equal(final["0.weight"], model[0].weight.grad.double().numpy())


@pytest.mark.parametrize("name", ["a/b", "", "model 0", "x" * 65])
def test_a_file_whose_module_name_could_break_the_boxes_is_refused(name):
    _, rec = _mlp(1)
    data = json.loads(to_json(rec.graph()))
    data["nodes"][1]["module"] = ["model", name]
    with pytest.raises(RecordingFileError, match=r"^nodes\[1\]\.module: "):
        from_json(json.dumps(data))
