"""lucid.viz.player.animation: one layout per program, per-step changes that rebuild every frame exactly."""
from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET

import pytest

from lucid import gallery, viz
from lucid.autograd import backward_trace
from lucid.expr import run
from lucid.viz.player.animation import SVG_NS, Animation, _coordinate, build_animation, step_html

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot")

GEOMETRY = {"d", "points", "x", "y", "cx", "cy", "rx", "ry", "transform", "width", "height"}
NUM = re.compile(r"-?\d+(?:\.\d+)?")


def program(source: str):
    p = run(source, seed=0)
    return p.output, backward_trace(p.output)


def _shift(el: ET.Element) -> tuple[float, float]:
    m = NUM.findall(el.get("transform") or "")
    return (float(m[0]), float(m[1])) if el.get("transform", "").startswith("translate") and len(m) >= 2 else (0, 0)


def looks(svg: str) -> dict[str, tuple]:
    """Per node/edge: its class, and every drawn part as (tag, style attributes, text, absolute numbers)."""
    root = ET.fromstring(svg)
    out = {}
    for g in root.iter(f"{{{SVG_NS}}}g"):
        cls = (g.get("class") or "").split()
        if not cls or cls[0] not in ("node", "edge"):
            continue
        parts = []

        def walk(el, dx, dy):
            sx, sy = _shift(el)
            dx, dy = dx + sx, dy + sy
            for c in el:
                tag = c.tag.rsplit("}", 1)[-1]
                if tag == "title":
                    continue
                if tag in ("g", "a"):
                    walk(c, dx, dy)
                    continue
                style = tuple(sorted((k, v) for k, v in c.attrib.items() if k not in GEOMETRY))
                nums = []
                for key in ("points", "d", "x", "y", "cx", "cy"):
                    vals = [float(v) for v in NUM.findall(c.get(key) or "")]
                    if key in ("points", "d"):
                        vals = [v + (dx if i % 2 == 0 else dy) for i, v in enumerate(vals)]
                    elif key in ("x", "cx"):
                        vals = [v + dx for v in vals]
                    elif key in ("y", "cy"):
                        vals = [v + dy for v in vals]
                    nums.extend(vals)
                parts.append((tag, style, c.text, tuple(nums)))

        walk(g, 0.0, 0.0)
        out[g.get("id")] = (" ".join(cls), parts)
    return out


def assert_same_picture(rebuilt: str, real: str) -> None:
    a, b = looks(rebuilt), looks(real)
    assert a.keys() == b.keys()
    for eid in a:
        (cls_a, parts_a), (cls_b, parts_b) = a[eid], b[eid]
        assert cls_a == cls_b, eid
        assert [p[:3] for p in parts_a] == [p[:3] for p in parts_b], eid
        for pa, pb in zip(parts_a, parts_b):
            assert pa[3] == pytest.approx(pb[3], abs=0.02), eid


@pytest.mark.parametrize("slug", ["used-twice", "mlp", "scalar", "reduction", "relu-gate"])
@pytest.mark.parametrize("direction", ["TB", "LR"])
def test_every_step_rebuilt_from_one_layout_matches_its_own_dot_render(slug, direction):
    root, trace = program(gallery.by_slug(slug).source)
    anim = build_animation(root, trace, direction=direction)
    assert anim.n_steps == len(trace.steps)
    for k in range(anim.n_steps):
        real = viz.to_svg(viz.to_dot(root, trace, k, direction=direction)).decode()
        assert_same_picture(anim.frame_svg(k), real)


def test_large_graph_mode_with_clusters_rebuilds_every_frame():
    lines = [f"p{i} = {0.1 * (i + 1)}" for i in range(12)]
    lines.append("out = " + " + ".join(f"p{i} * p{(i + 1) % 12}" for i in range(12)))
    root, trace = program("\n".join(lines))
    anim = build_animation(root, trace, large=True)
    for k in (0, 1, anim.n_steps // 2, anim.n_steps - 1):
        assert_same_picture(anim.frame_svg(k), viz.to_svg(viz.to_dot(root, trace, k, large=True)).decode())


def test_each_step_names_the_current_node_and_the_flowing_edge():
    root, trace = program("x = 3.0\ny = x * x")  # t0 = x, op1 = ×, t1 = y
    anim = build_animation(root, trace)
    assert anim.current == ["t1", "t0", "t0"]
    assert anim.edge == [None, "e1_0", "e1_1"]
    assert anim.changes[0] == []
    # step 1 changes the current node, its source, the op and two edges; nothing else is sent
    changed = {anim.variants[v][0] for v in anim.changes[1]}
    assert changed == {"t0", "t1", "op1", "o1", "e1_0"}
    assert "current" in anim.variants[next(v for v in anim.changes[1] if anim.variants[v][0] == "t0")][1]


def test_gradient_text_of_the_step_is_in_the_rebuilt_frame():
    root, trace = program("x = 3.0\ny = x * x")
    anim = build_animation(root, trace)
    def texts(step: int) -> str:
        return "".join(ET.fromstring(anim.frame_svg(step)).itertext()).replace("\xa0", " ")

    assert "grad 3.000 partial" in texts(1) and "6.000" not in texts(1)
    assert "grad 6.000 final" in texts(2)


def test_contributions_stay_on_their_edges_in_the_rebuilt_frames():
    root, trace = program("x = -1.5\ny = x * x")
    anim = build_animation(root, trace)

    def note(step: int, edge: str) -> str:
        group = next(g for g in ET.fromstring(anim.frame_svg(step)).iter(f"{{{SVG_NS}}}g") if g.get("id") == edge)
        return "".join(t.text or "" for t in group.iter(f"{{{SVG_NS}}}text")).replace("\xa0", " ").strip()

    assert (note(1, "e1_0"), note(1, "e1_1")) == ("◀ grad += −1.500", "")
    assert (note(2, "e1_0"), note(2, "e1_1")) == ("◀ grad += −1.500", "◀ grad += −1.500")  # both parts on screen
    assert anim.titles[2] == "Step 2 of 2: y → x through ×"
    assert "grad x = −1.500 + (−1.500) = −3.000" in anim.explanations[2]


@pytest.mark.parametrize("preset", ["default", "circuit"])
def test_keeping_edge_notes_adds_no_variants(preset):
    """Per step only what changes: an edge has at most three looks (pending, flowing, flowed), whatever the length."""
    root, trace = program(gallery.by_slug("mlp").source)
    anim = build_animation(root, trace, direction="TB", preset=preset)
    per_element: dict[str, int] = {}
    for element, _, _ in anim.variants:
        per_element[element] = per_element.get(element, 0) + 1
    edges = {e: n for e, n in per_element.items() if e.startswith(("e", "o"))}
    assert edges and max(edges.values()) <= 2  # step 0 draws "pending"; then flowing (or active), then flowed
    assert all(len(c) <= 12 for c in anim.changes)  # a step changes a handful of elements, never every edge


def test_a_node_look_is_placed_in_its_own_numbers_the_same_as_the_laid_out_node_where_its_shape_is():
    """A node's looks carry the laid-out node's coordinates themselves (no translation around them): a look with
    the same parts as the drawn node has the very same geometry text, so the player rewrites only colours and text."""
    root, trace = program(gallery.by_slug("mlp").source)
    anim = build_animation(root, trace, direction="LR")
    drawn = {g.get("id"): g for g in ET.fromstring(anim.svg).iter(f"{{{SVG_NS}}}g")}

    def parts(group):
        return [(el.tag, {k: el.get(k) for k in ("points", "d", "x", "y", "cx", "cy") if el.get(k) is not None})
                for el in group.iter() if el is not group and el.tag != f"{{{SVG_NS}}}title"]

    nodes = [v for v in anim.variants if v[0] in drawn and "node" in drawn[v[0]].get("class", "").split()]
    assert len(nodes) == 45  # of the 82 looks of the lesson's MLP, the nodes' (the rest are edges)
    assert not any("translate(" in inner for _, _, inner in nodes)
    same = 0
    for eid, _cls, inner in nodes:
        look = ET.fromstring(f'<g xmlns="{SVG_NS}" xmlns:xlink="http://www.w3.org/1999/xlink">{inner}</g>')
        mine, base = parts(look), parts(drawn[eid])
        if [t for t, _ in mine] == [t for t, _ in base]:
            assert mine == base, eid  # same parts: the same numbers, written the same way
            same += 1
    assert same == 17  # the others gain parts (a gradient's grid appears) and are rebuilt in the browser


def test_coordinates_are_written_as_graphviz_writes_them():
    assert [_coordinate(v) for v in (274.0, -204.9, 3816 + 180.5, -0.001, 0.0, 12.345, -1.5 + 1.5)] == [
        "274", "-204.9", "3996.5", "0", "0", "12.35", "0"]


@pytest.mark.parametrize("slug", ["scalar", "mlp"])
def test_a_whole_backward_pass_costs_one_dot_run(slug, monkeypatch):
    from lucid.viz.export import pictures

    root, trace = program(gallery.by_slug(slug).source)
    runs = []
    real = pictures.render
    monkeypatch.setattr(pictures, "render", lambda source, fmt, **k: runs.append(fmt) or real(source, fmt, **k))
    anim = build_animation(root, trace, direction="TB")
    assert anim.n_steps == len(trace.steps) > 1 and anim.variants
    assert runs == ["svg"]  # the layout and every variant of every step: one process


def test_the_frames_of_one_pass_build_the_graphs_structure_once(monkeypatch):
    from lucid.viz.graph import dot, state

    root, trace = program(gallery.by_slug("mlp").source)
    before = build_animation(root, trace, direction="TB").to_json()
    calls = {"model": 0, "grads": 0, "edges": 0}

    def counted(name, real):
        def call(*args, **kwargs):
            calls[name] += 1
            return real(*args, **kwargs)
        return call

    monkeypatch.setattr(dot, "build_model", counted("model", dot.build_model))
    monkeypatch.setattr(dot, "grads_over_trace", counted("grads", state.grads_over_trace))
    monkeypatch.setattr(dot, "edge_steps", counted("edges", state.edge_steps))
    anim = build_animation(root, trace, direction="TB")
    assert anim.n_steps == len(trace.steps) == 12
    assert calls == {"model": 1, "grads": 1, "edges": 1}  # once for the 12 frames, not once per frame
    assert anim.to_json() == before
    viz.to_dot(root, trace, 3, direction="TB")
    viz.to_dot(root, trace, 4, direction="TB")  # a frame drawn alone builds its own
    assert calls == {"model": 3, "grads": 3, "edges": 3}


def test_payload_is_json_and_far_smaller_than_one_svg_per_step():
    root, trace = program(gallery.by_slug("mlp").source)
    anim = build_animation(root, trace, direction="TB")
    payload = json.dumps(anim.to_json())
    assert json.loads(payload)["changes"] == anim.changes
    every_frame = sum(len(viz.to_svg(viz.to_dot(root, trace, k, direction="TB"))) for k in range(anim.n_steps))
    assert anim.payload_bytes() < every_frame / 2


def test_user_names_are_escaped_in_svg_and_explanations():
    root, trace = program("a_lt = 2.0\nb_gt = a_lt * 3")
    anim = build_animation(root, trace)
    for k in range(anim.n_steps):
        ET.fromstring(anim.frame_svg(k))  # well-formed XML at every step
    assert "<script" not in json.dumps(anim.to_json())


class _Expl:
    title = "Step 1: <b>x</b> & y"
    text = "Step 1: <b>x</b> & y\n∂out/∂x += <img src=x onerror=alert(1)> & <b>\n  line two"


def test_explanation_fallback_escapes_user_text_and_keeps_lines():
    out = step_html(_Expl())
    assert "<img" not in out and "&lt;img" in out and "&amp; &lt;b&gt;" in out
    assert "Step 1" not in out  # the title travels apart
    assert "pre-wrap" in out and "\n  line two" in out


def test_a_program_without_gradients_is_one_picture_without_steps():
    p = run("x = const(2.0)\ny = x * 3", seed=0)
    anim = build_animation(p.output, None)
    assert isinstance(anim, Animation) and anim.n_steps == 0
    assert anim.svg.startswith("<svg") and 'id="t0"' in anim.svg
