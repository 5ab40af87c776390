"""The Playground plays a recorded PyTorch pass (issue 31), driven by Streamlit's AppTest (no browser).

A ``.lucid`` file imported through the editor's popover, or the gallery's recorded MLP step, plays in the same
player with torch's steps and numbers; an oversized file is refused before it is read, a malformed one with the
field named; the program in the editor survives every refusal and comes back with Run or Close recording.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from lucid import gallery
from lucid.i18n import use_language
from lucid.session.inspector import full_array
from lucid.torch import from_json
from tests.class_pages import players
from tests.inspector_arrays import inspector_arrays

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "playground.py")
APP = str(ROOT / "app.py")
SHIPPED = gallery.RECORDINGS[0]
PROGRAM = "w = [0.5, -1.5]\nx = [2.0, 0.25]\ny = sum(tanh(w * x))\n"
"""The user's own program, typed before any file is imported: it must survive every refusal."""


def start(path: str = PAGE, **query) -> AppTest:
    at = AppTest.from_file(path, default_timeout=90)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    at.text_area(key="pg_source").set_value(PROGRAM).run()
    assert not at.exception
    return at


def player(at: AppTest) -> dict:
    (component,) = players(at)
    return json.loads(component.proto.json)


def opened_import(at: AppTest) -> AppTest:
    """Open the Import a PyTorch recording popover, as a click on it does (closed, it draws nothing inside)."""
    at.session_state["pg_recording_open"] = True
    at.run()
    assert not at.exception
    return at


def recording_uploaders(at: AppTest) -> list:
    return [u for u in at.file_uploader if u.key == "pg_recording_file"]


def upload(at: AppTest, name: str, data: bytes) -> AppTest:
    if not recording_uploaders(at):
        opened_import(at)
    at.file_uploader(key="pg_recording_file").set_value((name, data, "application/octet-stream")).run()
    assert not at.exception
    return at


def inspect(at: AppTest, label_part: str, step: int) -> tuple[str, str]:
    """(value, gradient) the node inspector shows for the node whose list entry contains ``label_part``."""
    at.session_state["pg_step"] = step  # the step the browser would report with a click on the node
    at.run()
    box = at.selectbox(key="pg_inspect")
    box.set_value(next(o for o in box.options if label_part in o)).run()
    value, gradient = inspector_arrays(at)[-2:]
    return value, gradient


def torch_step():
    """A fresh torch recording of the gallery's MLP (the shipped file's own script) with torch's tensors."""
    if os.environ.get("CI") == "true":
        import torch  # noqa: F401 - CI installs torch: these checks must run there
    pytest.importorskip("torch")
    spec = importlib.util.spec_from_file_location("record_torch_gallery", ROOT / "scripts" / "record_torch_gallery.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script.record_mlp_step()


def test_the_closed_import_popover_draws_nothing_inside_and_opening_it_shows_the_uploader():
    at = start()
    (popover,) = [p for p in at.get("popover") if p.proto.popover.label == "Import a PyTorch recording"]
    assert not popover.proto.popover.open
    assert not recording_uploaders(at) and not [c for c in at.caption if "Record a PyTorch step" in c.value]
    opened_import(at)
    (uploader,) = recording_uploaders(at)
    assert uploader.label == "Recording file (.lucid)" and uploader.proto.type == [".lucid"]
    assert uploader.proto.max_upload_size_mb == 8
    assert len([c for c in at.caption if c.value.startswith("Record a PyTorch step with lucid.torch")]) == 1


def test_an_uploader_holding_a_file_stays_drawn_when_the_popover_closes():
    at = upload(start(), "step.lucid", SHIPPED.data())
    at.session_state["pg_recording_open"] = False  # closed (a click outside it)
    at.run()
    at.run()
    assert not at.exception
    (uploader,) = recording_uploaders(at)
    assert uploader.value is not None and uploader.value.name == "step.lucid"
    assert any(c.value.startswith(":material/memory: Playing the PyTorch recording **step.lucid**") for c in at.caption)


def test_an_imported_recording_plays_torchs_steps_with_torchs_numbers(tmp_path):
    rec, model, loss = torch_step()
    data = rec.save(tmp_path / "step.lucid").read_bytes()
    n_steps = len(rec.graph().steps)
    at = upload(start(), "step.lucid", data)
    assert not at.error
    anim = player(at)["anim"]
    assert len(anim["titles"]) == n_steps == 8
    assert anim["titles"][0].startswith("Step 0 of 7")
    assert "fc1.weight" in anim["svg"] and "linear" in anim["svg"]
    assert any("Playing the PyTorch recording **step.lucid**" in c.value for c in at.caption)
    value, grad = inspect(at, "fc1.weight", n_steps - 1)
    assert value == full_array(model.fc1.weight.detach().double().numpy())
    assert grad == full_array(model.fc1.weight.grad.double().numpy())
    loss_value, loss_grad = inspect(at, "loss", n_steps - 1)
    assert loss_value == full_array(np.float64(loss.item())) and loss_grad == "1"
    assert at.text_area(key="pg_source").value == PROGRAM  # the program waits in the editor


def test_the_gallery_entry_plays_the_shipped_file_and_run_goes_back_to_the_program():
    at = start()
    graph = from_json(SHIPPED.data())
    picker = next(b for b in at.selectbox if b.label == "Gallery")
    picker.set_value(SHIPPED.title).run()
    assert not at.exception and not at.error
    assert len(player(at)["anim"]["titles"]) == len(graph.steps)
    assert next(b for b in at.selectbox if b.label == "Gallery").value == SHIPPED.title
    _, grad = inspect(at, "fc2.bias", len(graph.steps) - 1)
    fc2_bias = next(n for n in graph.nodes if n.name == "fc2.bias")
    assert grad == full_array(fc2_bias.grad) and np.abs(fc2_bias.grad).max() > 0
    at.button(key="pg_run").click().run()
    assert not any("Playing the PyTorch recording" in c.value for c in at.caption)
    assert "w" in player(at)["anim"]["svg"] and "fc1.weight" not in player(at)["anim"]["svg"]
    assert at.text_area(key="pg_source").value == PROGRAM


def test_an_oversized_file_is_refused_before_it_is_read_or_parsed(monkeypatch):
    import lucid.torch.analysis as played

    parsed = []
    monkeypatch.setattr(played, "from_json", lambda *a, **k: parsed.append(a) or pytest.fail("parsed"))
    at = upload(start(), "huge.lucid", b"[" * 8_000_001)
    assert parsed == []
    assert [e.value for e in at.error] == [
        "**This recording cannot be played:** the file is 8,000,001 bytes; a recording may be at most "
        "8,000,000 bytes"]
    assert at.text_area(key="pg_source").value == PROGRAM
    assert "w" in player(at)["anim"]["svg"]  # the program stays on screen


def test_a_malformed_file_is_refused_naming_the_field_and_the_program_stays():
    raw = json.loads(SHIPPED.data())
    raw["nodes"][3]["value"]["data"][2] = "seven"
    at = upload(start(), "broken.lucid", json.dumps(raw).encode())
    assert [e.value for e in at.error] == [
        "**This recording cannot be played:** nodes[3].value: every entry must be a number"]
    assert any(c.value == "The program in the editor is unchanged." for c in at.caption)
    assert at.text_area(key="pg_source").value == PROGRAM
    assert not any("Playing the PyTorch recording" in c.value for c in at.caption)
    upload(at, "not-json.lucid", b'{"format": "lucid-torch-recording", "version": 1, "nodes": [')
    assert at.error[0].value.startswith("**This recording cannot be played:** this is not a lucid recording "
                                        "(not JSON:")
    assert at.text_area(key="pg_source").value == PROGRAM


def test_a_refused_file_leaves_a_playing_recording_on_screen_and_close_brings_the_program_back():
    at = upload(start(), "good.lucid", SHIPPED.data())
    raw = json.loads(SHIPPED.data())
    raw["steps"][1]["parent"] = 0
    upload(at, "bad.lucid", json.dumps(raw).encode())
    assert at.error[0].value.startswith("**This recording cannot be played:** steps[1].parent: ")
    assert any("**good.lucid**" in c.value for c in at.caption)  # still playing the good file
    at.button(key="pg_recording_close").click().run()
    assert not any("Playing the PyTorch recording" in c.value for c in at.caption)
    assert not at.error and at.text_area(key="pg_source").value == PROGRAM
    assert player(at)["step"] == 0


def test_a_link_naming_the_gallery_recording_plays_it():
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.query_params["example"] = SHIPPED.slug
    at.run()
    assert not at.exception
    assert any("Playing the PyTorch recording **A small PyTorch MLP step**" in c.value for c in at.caption)
    assert len(player(at)["anim"]["changes"]) == len(from_json(SHIPPED.data()).steps)


def test_the_recorders_notes_are_shown_with_the_recording(tmp_path):
    raw = json.loads(SHIPPED.data())
    raw["notes"] = ["backward ran more than once through this graph; the first pass is shown"]
    at = upload(start(), "twice.lucid", json.dumps(raw).encode())
    assert not at.error
    notes = [c.value for c in at.caption if c.value.startswith(":material/info:")]
    assert notes == [":material/info: backward ran more than once through this graph; the first pass is shown"]


def test_a_file_name_is_shown_as_text_never_as_markdown():
    at = upload(start(), "[click](javascript:x)*bold*.lucid", SHIPPED.data())
    (caption,) = [c.value for c in at.caption if "Playing the PyTorch recording" in c.value]
    assert r"**\[click\]\(javascript\:x\)\*bold\*.lucid**" in caption


def test_korean_readers_import_refuse_and_play_in_korean():
    """Streamlit's test client formats a page's options in the test's thread: each run happens in Korean."""
    with use_language("ko"):
        at = AppTest.from_file(APP, default_timeout=90)
        at.query_params["lang"] = "ko"
        at.run()
        assert any(p.proto.popover.label == "파이토치(PyTorch) 기록 가져오기" for p in at.get("popover"))
        opened_import(at)
        assert at.file_uploader(key="pg_recording_file").label == "기록 파일(.lucid)"
        source = at.text_area(key="pg_source").value
        upload(at, "huge.lucid", b" " * 8_000_001)
        assert [e.value for e in at.error] == [
            "**이 기록은 재생할 수 없습니다:** 파일이 8,000,001바이트입니다. "
            "기록 파일은 최대 8,000,000바이트까지 받습니다"]
        assert any(c.value == "편집기의 프로그램은 그대로입니다." for c in at.caption)
        raw = json.loads(SHIPPED.data())
        raw["nodes"][3]["value"]["data"][2] = "seven"
        upload(at, "broken.lucid", json.dumps(raw).encode())  # the reason too is Korean, the field as the file has it
        assert [e.value for e in at.error] == [
            "**이 기록은 재생할 수 없습니다:** nodes[3].value: 모든 원소는 숫자여야 합니다"]
        upload(at, "step.lucid", SHIPPED.data())
        assert not at.error
        assert any(c.value.startswith(":material/memory: 파이토치(PyTorch) 기록 **step.lucid**") for c in at.caption)
        assert player(at)["anim"]["titles"][0].startswith("단계 0 / 7")
        assert at.button(key="pg_recording_close").label == "기록 닫기"
        assert at.text_area(key="pg_source").value == source


@pytest.mark.parametrize("module", ["player_view", "graph_view", "editor", "recording_view"])
def test_each_playground_module_imports_first_without_a_cycle(module):
    """The editor offers the recordings and the recording view plays them in the player: none of the four may
    need another half imported (whichever a test or page imports first)."""
    subprocess.run([sys.executable, "-c", f"import lucid.ui.playground.{module}"], cwd=ROOT, check=True,  # noqa: S603
                   timeout=120)
