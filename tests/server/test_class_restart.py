"""A class survives its server: a real ``streamlit run`` is stopped and a second one started on the same data.

A teacher (a raw websocket client speaking the browser's protocol) starts a class and asks a question; a student
answers; the server stops (SIGTERM). A new server process on the same data folder (the default SQLite store), or
on the same Redis, resumes the class: the student's link (``room=`` and their ``me=``) shows the same program and
the open question with their answer, and the teacher's tab, handing back the token its session storage keeps
(``lucid.ui.live_class.teacher_key``), is the teacher again, with the answer counted.
"""
from __future__ import annotations

import json
import shutil
import urllib.parse

import pytest

from bench.streamlit_client import Run, Session, run_sync, server, session
from tests import redis_server

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="the player needs Graphviz's dot")
TIMEOUT = 90.0


def _component(run: Run, name: str):
    found = [c for c in run.of_type("bidi_component") if c.component_name == name]
    assert found, f"the run drew no {name}"
    return found[-1]


def _button(run: Run, label: str):
    found = [b for b in run.of_type("button") if b.label == label]
    assert found, f"no button {label!r} among {[b.label for b in run.of_type('button')]}"
    return found[-1]


def _click(s: Session, run: Run, label: str):
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    return WidgetState(id=_button(run, label).id, trigger_value=True)


def _query(s: Session) -> dict[str, str]:
    return dict(urllib.parse.parse_qsl(s.query))


async def _start_class_and_ask(port: int) -> tuple[str, str, str]:
    """A teacher starts a class on the default program and asks; a student answers. Returns code, token, me."""
    async with session(port, timeout=TIMEOUT) as teacher:
        first = await teacher.run(timeout=TIMEOUT)
        started = await teacher.run(_click(teacher, first, "Start a class"), timeout=TIMEOUT)
        code = _query(teacher)["room"]
        assert "teach" not in teacher.query
        token = json.loads(_component(started, "lucid_teacher_key").json)["token"]
        asked = await teacher.run(_click(teacher, started, "Ask the class"), timeout=TIMEOUT)
        assert any("Asked at step 1" in m for m in asked.markdown)
    async with session(port, query=f"room={code}", timeout=TIMEOUT) as student:
        joined = await student.run(timeout=TIMEOUT)
        assert any("Next step:" in m for m in joined.markdown)
        me = _query(student)["me"]
        answer_box = student.widget_id("text_input", "Your answer")
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        submit = next(b for b in joined.of_type("button") if b.label == "Submit")
        fragment = student.fragment_of.get(submit.id, "")
        await student.ws.send(student.fragment_message(
            fragment, student.set_text(answer_box, "0.5"), WidgetState(id=submit.id, trigger_value=True),
            auto=False))
        answered = await student.finish(TIMEOUT)
        assert any("Answer received" in a for a in answered.alerts), answered.alerts
    return code, token, me


async def _resume(port: int, code: str, token: str, me: str) -> None:
    async with session(port, query=f"room={code}&me={me}", timeout=TIMEOUT) as student:
        back = await student.run(timeout=TIMEOUT)
        assert back.player is not None and any("Next step:" in m for m in back.markdown)
        assert _query(student)["me"] == me  # the same student: their id is still the server's
    async with session(port, query=f"room={code}", timeout=TIMEOUT) as teacher:
        reloaded = await teacher.run(timeout=TIMEOUT)
        keeper = _component(reloaded, "lucid_teacher_key")
        assert json.loads(keeper.json)["ask"] is True
        handed = teacher.events(json.dumps([{"event": "token", "value": token}]), component_id=keeper.id)
        resumed = await teacher.run(handed, timeout=TIMEOUT)
        assert any("Asked at step 1" in m for m in resumed.markdown), resumed.markdown
        assert any("1 / " in m and "answered" in m for m in resumed.markdown), resumed.markdown


def test_a_class_resumes_after_a_restart_on_the_same_data_folder(tmp_path):
    env = {"LUCID_DATA_DIR": str(tmp_path)}
    with server(env=env, start_timeout=TIMEOUT) as first:
        code, token, me = run_sync(_start_class_and_ask(first.port))
    assert (tmp_path / "rooms.sqlite3").exists()
    with server(env=env, start_timeout=TIMEOUT) as second:
        run_sync(_resume(second.port, code, token, me))


def test_a_class_resumes_after_a_restart_on_the_same_redis(tmp_path):
    redis_server.require()
    with redis_server.redis_server() as url:
        env = {"LUCID_REDIS_URL": url, "LUCID_DATA_DIR": str(tmp_path / "unused")}
        with server(env=env, start_timeout=TIMEOUT) as first:
            code, token, me = run_sync(_start_class_and_ask(first.port))
        with server(env=env, start_timeout=TIMEOUT) as second:
            run_sync(_resume(second.port, code, token, me))
