"""The teacher's answer count, pushed through the room feed's route on a real server: a read of the count is held
until a student's answer is stored and answers with the round's numbers; it needs the room's teacher key, which only
the teacher's page is given; a student's page never sees the key, and a read without it (or with another) is
refused at once, before anything is held."""
from __future__ import annotations

import json
import threading
import urllib.error
import urllib.parse
import urllib.request

from bench.streamlit_client import run_sync, server, session
from lucid.ui.live_class import room_push

WATCHER = "lucid_answer_watch"


def _button(s, label: str):
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    found = [b.id for b in s.last.of_type("button") if b.label == label]
    return WidgetState(id=found[-1], trigger_value=True)


def _get(url: str, key: str | None = None, timeout: float = 30) -> tuple[int, dict | None]:
    request = urllib.request.Request(url, headers={room_push.KEY_HEADER: key} if key is not None else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as r:  # noqa: S310 - loopback
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as err:
        return err.code, None


async def _a_class_asked(teacher) -> tuple[str, dict]:
    """The teacher's page starts a class on its program and asks a question: the room's code and what the
    teacher's answer watcher was given (its feed address, key, the count seen)."""
    await teacher.run(timeout=90)
    await teacher.run(_button(teacher, "Start a class"), timeout=90)
    code = dict(urllib.parse.parse_qsl(teacher.query))["room"]
    await teacher.run(timeout=90)
    asked = await teacher.run(_button(teacher, "Ask the class"), timeout=90)
    (watcher,) = [c for c in asked.of_type("bidi_component") if c.component_name == WATCHER]
    return code, json.loads(watcher.json)


def test_the_count_reaches_the_teacher_alone_and_a_students_answer_wakes_the_held_read(tmp_path):
    seen: dict = {}

    async def scenario(port: int) -> None:
        async with session(port, query="example=scalar", timeout=90) as teacher:
            code, data = await _a_class_asked(teacher)
            base = f"http://127.0.0.1:{port}{data['feed']}"
            other = "ACD347" if code != "ACD347" else "ACD349"  # a room code nobody opened
            seen.update(code=code, data=data, refused={
                "no key": _get(f"{base}?answers=0")[0],
                "another key": _get(f"{base}?answers=0", "x" * 32)[0],
                "the key, in the address": _get(f"{base}?answers=0&key={data['key']}")[0],
                "the key of this room for another room": _get(
                    f"http://127.0.0.1:{port}{data['feed'].replace(code, other)}?answers=0", data["key"])[0]})
            held: dict = {}
            reader = threading.Thread(target=lambda: held.update(got=_get(f"{base}?answers={data['seen']}",
                                                                          data["key"])))
            reader.start()
            reader.join(1.0)
            seen["held"] = reader.is_alive()  # nobody answered yet: the read waits
            async with session(port, query=f"room={code}", timeout=90) as student:
                runs = [await student.run(timeout=90)]
                box = student.widget_id("text_input", "Your answer")
                submit = _button(student, "Submit")
                await student.ws.send(student.fragment_message(student.fragment_of[submit.id],
                                                               student.set_text(box, "-0.5"), submit, auto=False))
                runs.append(await student.finish(90))
                reader.join(30)
                seen["answer"] = held.get("got")
                seen["student"] = b"".join(e.SerializeToString() for run in runs for e in run.elements)
                seen["drawn"] = [c.component_name for run in runs for c in run.of_type("bidi_component")]
                seen["received"] = any("Answer received" in a for a in runs[-1].alerts)
                panel = await teacher.run(timeout=90)  # the student still there (a closed tab leaves the count)
                seen["panel"] = [m for m in panel.markdown if "answered" in m]

    with server(env={"LUCID_DATA_DIR": str(tmp_path)}) as running:
        run_sync(scenario(running.port))
    data = seen["data"]
    assert data["feed"].endswith(f"/{seen['code']}.json") and len(data["key"]) == 32
    assert data["seen"] == 0 and data["answered"] == 0 and data["words"] == "{answered} / {students}"
    assert data["header"] == "X-Lucid-Teacher" and data["count"] == ".st-key-pg_row_count"
    assert seen["refused"] == {"no key": 403, "another key": 403, "the key, in the address": 403,
                               "the key of this room for another room": 403}
    assert seen["held"] and seen["received"]
    status, body = seen["answer"]
    # the answer's way to the teacher: its count, numbers only (never the value -0.5, never who gave it)
    assert status == 200 and body == {"answers": 1, "q": data["q"], "answered": 1, "students": 1}
    assert WATCHER not in seen["drawn"] and data["key"].encode() not in seen["student"]
    assert any(line.startswith("**1 / 1** answered") for line in seen["panel"])  # the run agrees


def test_with_two_processes_an_answer_taken_by_the_other_wakes_the_teachers_held_read(tmp_path):
    """Two servers share rooms through Redis; the teacher is on the first, the student on the second: the
    teacher's held count read answers with the student's answer, told over the relay, not on the panel's timer."""
    from tests import redis_server

    redis_server.require()
    seen: dict = {}

    async def teacher_side(port: int, other_port: int) -> None:
        async with session(port, query="example=scalar", timeout=90) as teacher:
            code, data = await _a_class_asked(teacher)
            held: dict = {}
            url = f"http://127.0.0.1:{port}{data['feed']}?answers={data['seen']}"
            reader = threading.Thread(target=lambda: held.update(got=_get(url, data["key"])))
            reader.start()
            async with session(other_port, query=f"room={code}", timeout=90) as student:
                await student.run(timeout=90)
                box = student.widget_id("text_input", "Your answer")
                submit = _button(student, "Submit")
                await student.ws.send(student.fragment_message(student.fragment_of[submit.id],
                                                               student.set_text(box, "-0.5"), submit, auto=False))
                await student.finish(90)
                reader.join(30)
                seen.update(data=data, answer=held.get("got"))

    with redis_server.redis_server() as redis_url:
        env = {"LUCID_REDIS_URL": redis_url}
        with server(env={**env, "LUCID_DATA_DIR": str(tmp_path / "one")}) as one, \
                server(env={**env, "LUCID_DATA_DIR": str(tmp_path / "two")}) as two:
            run_sync(teacher_side(one.port, two.port))
    status, body = seen["answer"]
    assert status == 200 and body == {"answers": 1, "q": seen["data"]["q"], "answered": 1, "students": 1}
