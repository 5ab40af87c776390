"""A ``.lucid`` file plays in the app without torch: the Playground's analysis of a recording (issue 31).

Nothing here needs torch: the file is plain data, and ``lucid.torch.analysis`` builds the Playground's
``Analysis`` from it with lucid alone (checked in a fresh interpreter that never imports torch).
"""
from __future__ import annotations

import fnmatch
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

from lucid import gallery
from lucid.torch import RecordingFileError, from_json
from lucid.torch.analysis import SOURCE_PREFIX, analyze_recording, check_size, is_recording, shared_recording
from lucid.viz import explain

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = gallery.RECORDINGS[0]


def test_playing_a_file_imports_no_torch():
    code = ("import sys\nfrom lucid import gallery\nfrom lucid.torch.analysis import analyze_recording\n"
            "a = analyze_recording(gallery.RECORDINGS[0].data())\n"
            "print(a.n_steps, any(m == 'torch' or m.startswith('torch.') for m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,  # noqa: S603
                          check=True)
    assert done.stdout.split() == ["8", "False"]


def test_a_recording_becomes_an_analysis_the_playground_reads():
    data = SHIPPED.data()
    graph = from_json(data)
    analysis = analyze_recording(data)
    assert is_recording(analysis) and analysis.source.startswith(SOURCE_PREFIX)
    assert analysis.n_steps == len(graph.steps) == 8 and analysis.n_tensors == 9 and analysis.n_ops == 4
    assert analysis.output is analysis.program.output and analysis.output.name == "loss"
    assert analysis.program.inputs == [] and analysis.program.definitions == {}
    np.testing.assert_array_equal(analysis.output.data, graph.nodes[graph.root].value)
    fc1 = next(n for n in graph.nodes if n.name == "fc1.weight")
    final = next(s for s in analysis.trace.steps if s.is_final and s.parent.name == "fc1.weight")
    np.testing.assert_array_equal(final.accumulated, fc1.grad)
    assert [explain(analysis.trace, k).text for k in range(analysis.n_steps)]
    assert shared_recording(data) is shared_recording(data)  # one analysis per file per server process


def test_equal_files_share_a_source_and_different_ones_do_not():
    data = SHIPPED.data()
    other = json.loads(data)
    other["nodes"][0]["value"]["data"][0] += 0.5
    a, b = analyze_recording(data), analyze_recording(json.dumps(other).encode())
    assert a.source == analyze_recording(bytes(data)).source != b.source


def test_sizes_are_refused_by_the_byte_count_alone():
    check_size(8_000_000)
    with pytest.raises(RecordingFileError, match=r"the file is 8,000,001 bytes; a recording may be at most 8,000,000"):
        check_size(8_000_001)


def test_a_file_whose_arrays_contradict_each_other_is_refused_as_a_recording_error():
    raw = json.loads(SHIPPED.data())
    raw["nodes"][1]["value"] = {"shape": [2], "data": [1.0, 2.0]}  # fc1.weight no longer fits linear's input
    with pytest.raises(RecordingFileError):
        analyze_recording(json.dumps(raw).encode())


def test_the_wheel_carries_the_gallery_recording():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = project["tool"]["setuptools"]["package-data"]["lucid"]
    assert any(fnmatch.fnmatch(SHIPPED.file, p.replace("**/", "*")) for p in patterns)
    assert (ROOT / "lucid" / SHIPPED.file).is_file()
