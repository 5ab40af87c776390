"""``lucid.viz.stepper``: the backward pass as a notebook widget, checked without a browser (issue 20).

The CS231n circuit ``f = (x + y) * z`` at x = -2, y = 5, z = -4: q = 3, f = -12, and the chain rule gives
grad z = q = 3, grad q = z = -4, grad x = grad y = -4, in five steps (the seed, then one per edge).
"""
import importlib.util
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from lucid import Tensor
from lucid.expr import run
from lucid.viz import StepperError, stepper
from lucid.viz import player as player_files

if importlib.util.find_spec("anywidget") is None:  # found, not imported: anywidget (and ipywidgets) take a second
    pytest.skip("anywidget is not installed", allow_module_level=True)  # to import, paid by the first widget made
traitlets = pytest.importorskip("traitlets")
needs_dot = pytest.mark.usefixtures("require_dot")

CIRCUIT = "x = -2.0\ny = 5.0\nz = -4.0\nq = x + y\nf = q * z\n"


@pytest.fixture
def require_dot():
    import shutil

    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")


def circuit() -> tuple[Tensor, Tensor, Tensor, Tensor]:
    x, y, z = (Tensor(v, requires_grad=True) for v in (-2.0, 5.0, -4.0))
    x.name, y.name, z.name = "x", "y", "z"
    q = x + y
    q.name = "q"
    f = q * z
    f.name = "f"
    return x, y, z, f


def svg_texts(svg: str) -> list[str]:
    return [t.replace("\xa0", " ").replace("−", "-").strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]


@needs_dot
def test_a_tensor_after_backward_plays_its_pass_and_keeps_its_gradients():
    x, y, z, f = circuit()
    f.backward()
    w = stepper(f)
    assert w.n_steps == 5
    assert w.step == 0
    assert [w.title(k) for k in range(5)] == [
        "Step 0 of 4: seed grad f = 1", "Step 1 of 4: f → q through ×", "Step 2 of 4: f → z through ×",
        "Step 3 of 4: q → x through +", "Step 4 of 4: q → y through +"]
    # showing the pass replays it from zero and leaves the notebook's numbers as they were (not doubled)
    assert (float(x.grad), float(y.grad), float(z.grad)) == (-4.0, -4.0, 3.0)
    assert f.grad is None


@needs_dot
def test_the_widget_ships_the_player_files_and_the_whole_animation_once():
    _, _, _, f = circuit()
    f.backward()
    w = stepper(f, classroom=True, direction="LR")
    assert w._esm == player_files.script()
    assert w._css == player_files.stylesheet()
    data = w.data
    assert len(data["anim"]["titles"]) == 5
    assert len(data["anim"]["explanations"]) == 5
    assert data["anim"]["svg"].startswith("<svg")
    assert data["embedded"] is True and data["share_url"] is False
    assert data["whole_graph"] is True and data["min_text_px"] == 18  # classroom sizing, as in the app
    from lucid.notebook.widget import KEYS_HELP  # imports anywidget and IPython: only where a widget is made

    assert data["keys_help"] == KEYS_HELP
    assert json.loads(json.dumps(data)) == data  # plain JSON: what travels to the browser
    assert "⇒ grad z= 3.000" in re.sub(r"<[^>]+>", "", data["anim"]["explanations"][2])


@needs_dot
def test_step_is_synced_both_ways():
    _, _, _, f = circuit()
    f.backward()
    w = stepper(f, step=3)
    assert w.step == 3
    assert w.get_state("step") == {"step": 3}  # what the browser is sent
    w.step = 1  # Python moves the picture
    assert w.get_state("step") == {"step": 1}
    assert w.title() == "Step 1 of 4: f → q through ×"
    seen = []
    w.observe(lambda change: seen.append(change["new"]), "step")
    w.set_state({"step": 4})  # what the comm does with the step the browser writes back
    assert w.step == 4 and seen == [4]
    assert w.title() == "Step 4 of 4: q → y through +"


@needs_dot
def test_a_step_outside_the_pass_is_refused_with_its_range():
    _, _, _, f = circuit()
    f.backward()
    w = stepper(f)
    for bad in (5, -1):
        with pytest.raises(StepperError, match="outside this backward pass: its steps go from 0 to 4"):
            w.step = bad
    for bad in ("2", 1.5, None):
        with pytest.raises(traitlets.TraitError, match="expected an int"):
            w.step = bad
    assert w.step == 0
    with pytest.raises(StepperError, match="outside this backward pass: its steps go from 0 to 4"):
        stepper(f, step=9)


@needs_dot
def test_save_svg_writes_the_frame_of_the_step_on_screen(tmp_path):
    _, _, _, f = circuit()
    f.backward()
    w = stepper(f)
    first = w.save_svg(tmp_path / "first.svg")
    w.step = 4
    last = w.save_svg(tmp_path / "last.svg")
    for path in (first, last):
        assert ET.parse(path).getroot().tag == "{http://www.w3.org/2000/svg}svg"
    first_texts, last_texts = svg_texts(first.read_text()), svg_texts(last.read_text())
    assert "grad  3.000 final" in last_texts  # z's gradient, arrived
    assert "grad -4.000 final" in last_texts  # x, y and q
    assert not any(t.startswith("grad  3.000") for t in first_texts)  # at the seed only f has a gradient
    assert w.save_svg(tmp_path / "two.svg", step=2).read_text() == w.animation.frame_svg(2)


@needs_dot
def test_save_gif_writes_one_frame_per_step(tmp_path):
    PIL = pytest.importorskip("PIL.Image")
    _, _, _, f = circuit()
    f.backward()
    path = stepper(f).save_gif(tmp_path / "pass.gif", frame_ms=500)
    assert path.read_bytes()[:6] == b"GIF89a"
    with PIL.open(path) as gif:
        assert gif.n_frames == 5


@needs_dot
def test_a_click_on_a_node_shows_its_facts_at_the_step_of_the_click():
    _, _, _, f = circuit()
    f.backward()
    w = stepper(f)
    w._on_message(w, {"kind": "inspect", "node": "t3", "step": 4}, [])  # z, at the last step
    assert "t3 · z" in w.inspection
    assert "Gradient (final)" in w.inspection and "<pre>3</pre>" in w.inspection
    assert "<pre>-4</pre>" in w.inspection  # its value
    w._on_message(w, {"kind": "inspect", "node": "t3", "step": 1}, [])  # before the gradient reached it
    assert "not reached yet at this step" in w.inspection
    details = w.inspect("op4", step=4)  # the op that made f: its formula and local derivatives
    assert details.op == "×" and details.derivatives
    assert "Local derivatives" in w.inspection


@needs_dot
def test_clicks_the_player_never_sends_are_ignored():
    _, _, _, f = circuit()
    f.backward()
    w = stepper(f)
    w.inspect("t0")
    before = w.inspection
    for bad in ({"kind": "inspect", "node": "t99", "step": 0}, {"kind": "inspect", "node": "<b>", "step": 0},
                {"kind": "inspect", "node": "t1", "step": 5}, {"kind": "inspect", "node": "t1", "step": True},
                {"kind": "other", "node": "t1", "step": 0}, ["inspect"], None):
        w._on_message(w, bad, [])
    assert w.inspection == before
    with pytest.raises(StepperError, match="no node 't99' in this graph: nodes are t0 to t4"):
        w.inspect("t99")


@needs_dot
def test_a_program_source_or_a_program_plays_with_its_own_names():
    w = stepper(CIRCUIT)
    assert w.n_steps == 5
    assert w.title(2) == "Step 2 of 4: f → z through ×"
    w2 = stepper(run(CIRCUIT), step=4, style="circuit")
    assert w2.step == 4
    assert w2.data["anim"]["svg"] != w.data["anim"]["svg"]  # the circuit style draws wires


def test_bad_arguments_are_refused_with_what_to_pass_instead():
    x, _, _, f = circuit()
    takes = re.escape("takes a Tensor (after backward()), a lucid.expr program source string")
    with pytest.raises(StepperError, match=takes):
        stepper([1, 2, 3])
    with pytest.raises(StepperError, match="does not require a gradient"):
        stepper(Tensor(np.ones(3)))
    with pytest.raises(StepperError, match="style must be one of circuit, standard, not 'fancy'"):
        stepper(f, style="fancy")
    with pytest.raises(StepperError, match="direction must be 'TB'"):
        stepper(f, direction="up")
    with pytest.raises(StepperError, match="zoom must be"):
        stepper(f, zoom=0)
    with pytest.raises(StepperError, match="seconds"):
        stepper(f, seconds=0)
    with pytest.raises(StepperError, match="the program does not run:\n.*line 1") as err:
        stepper("x = 2 +")
    assert "^" in str(err.value)  # the caret under the spot
    with pytest.raises(StepperError, match="nothing in this program requires a gradient"):
        stepper("const(2.0) * const(3.0)")
    assert x.grad is None  # a refused call never ran a backward pass


def test_import_lucid_works_without_anywidget_and_stepper_says_what_to_install():
    code = ("import sys; sys.modules['anywidget'] = None\n"
            "import lucid, lucid.viz\n"
            "from lucid import Tensor\n"
            "try:\n"
            "    lucid.viz.stepper(Tensor([1.0], requires_grad=True).sum())\n"
            "except lucid.viz.StepperError as err:\n"
            "    print(err)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)  # noqa: S603
    assert done.returncode == 0, done.stderr
    assert "needs anywidget: `pip install anywidget`" in done.stdout  # what really installs (issue 29)


@needs_dot
def test_a_pass_too_costly_to_animate_even_collapsed_is_refused_with_the_limit(monkeypatch):
    from lucid.viz.player import animation_cost

    too_much = animation_cost.AnimationWork(4_000, 900, 10 * animation_cost.MAX_ANIMATION_WORK)
    monkeypatch.setattr(animation_cost, "full_work", lambda root, trace: too_much)
    monkeypatch.setattr(animation_cost, "collapsed_work", lambda view: too_much)
    _, _, _, f = circuit()
    with pytest.raises(StepperError, match=r"Animating its 4,000 backward steps would take about 10\.0× the "
                                           r"animation limit"):
        stepper(f)
