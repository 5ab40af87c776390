"""lucid.torch speaks the reader's language: its refusals, a file's problems, its notes and torch ops' formulas.

Every message is a ``lucid.i18n.Message`` rendered where it is read, so one recording (or one refused file) reads
in English for one reader and in Korean for the next; names from the user's code and the file's field names
(``nodes[1].inputs``) stay as written.
"""
from __future__ import annotations

import json

import pytest

from tests.needs import require_torch

torch = require_torch()
import torch.nn.functional as F  # noqa: E402

from lucid.i18n import use_language  # noqa: E402
from lucid.torch import RecordingFileError, from_json, record, replay, to_json  # noqa: E402
from lucid.torch.capture import RecordError  # noqa: E402
from lucid.torch.data import NOTE_PASSES, note_text  # noqa: E402
from lucid.viz import explain  # noqa: E402


def test_a_refusal_reads_in_the_readers_language_with_the_users_op_in_it():
    x = torch.tensor([1.0, -2.0], requires_grad=True)
    with pytest.raises(RecordError) as refused:
        with record():
            y = x * 2.5
            y.mul_(3.0)
    assert str(refused.value).startswith("'mul_' changes a tensor in place inside the recorded graph")
    with use_language("ko"):
        assert str(refused.value).startswith("'mul_'는 기록 중인 그래프 안의 텐서를 제자리(in place)에서 바꿉니다")
        assert "`x = x + y`" in str(refused.value)


def test_a_backward_inside_the_block_is_refused_in_korean():
    x = torch.tensor([0.5, 1.5], requires_grad=True)
    with pytest.raises(RecordError) as refused:
        with record():
            (x * x).sum().backward()
    with use_language("ko"):
        assert str(refused.value) == ("`with record()` 블록 안에서 backward()를 호출했습니다. 기록기는 블록이 "
                                      "끝난 뒤에 일어나는 파이토치(PyTorch)의 역전파를 지켜봅니다. backward()는 블록이 "
                                      "끝난 뒤에 호출하세요")


def _file() -> dict:
    x = torch.tensor([0.5, -1.5], requires_grad=True)
    with record() as rec:
        y = (x * 2.0).sum()
    y.backward()
    return json.loads(to_json(rec.graph()))


def test_a_hostile_file_is_refused_in_korean_naming_the_field_as_the_file_spells_it():
    data = _file()
    data["nodes"][2]["inputs"] = [0, 5]  # node 2 (x * 2.0) may only use nodes 0 and 1
    with pytest.raises(RecordingFileError) as refused:
        from_json(json.dumps(data))
    assert str(refused.value) == "nodes[2].inputs: expected a whole number from 0 to 1"
    with use_language("ko"):
        assert str(refused.value) == "nodes[2].inputs: 0부터 1까지의 정수여야 합니다"
    data = _file()
    data["nodes"][0]["value"]["shape"] = [9]
    with use_language("ko"), pytest.raises(RecordingFileError, match=r"^nodes\[0\]\.value: 형상 \(9,\)에는 숫자 9개"):
        from_json(json.dumps(data))
    with use_language("ko"), pytest.raises(RecordingFileError, match="^파이토치\\(PyTorch\\) 역전파를 담은 lucid"):
        from_json(json.dumps({"format": "something else"}))


def test_a_recordings_note_reads_in_korean_and_an_unknown_note_stays_as_it_is():
    with use_language("ko"):
        assert note_text(NOTE_PASSES) == ("이 그래프에서 역전파가 두 번 이상 실행되었습니다. "
                                          "첫 번째 역전파를 보여 줍니다")
        assert note_text("a note from a newer lucid") == "a note from a newer lucid"


def test_torch_ops_lucid_does_not_know_are_explained_in_korean():
    torch.manual_seed(2)
    img = torch.randn(1, 1, 4, 4, requires_grad=True)
    with record(names={"img": img}) as rec:
        out = (torch.erf(F.max_pool2d(img, 2)) * torch.tensor([[[[1.5, -0.5], [0.25, 2.0]]]])).sum()
    out.backward()
    with use_language("ko"):
        _, trace = replay(rec.graph())
        texts = {trace.steps[k].node._op.describe(): explain(trace, k).text for k in range(1, len(trace.steps))
                 if trace.steps[k].node is not None}
    assert "= 각 창(window)에서 가장 큰 원소" in texts["max_pool2d"]
    assert "= erf(…) (파이토치(PyTorch)가 계산)" in texts["erf"]
    _, trace = replay(rec.graph())
    english = explain(trace, next(k for k, s in enumerate(trace.steps) if s.node is not None
                                  and s.node._op.describe() == "erf")).text
    assert "= erf(…) (computed by PyTorch)" in english
