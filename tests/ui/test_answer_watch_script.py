"""The teacher's answer watcher (``lucid/ui/live_class/answer_watch.js``), run by Node against a stand-in page: each
held read names the count the page has and the room's teacher key in its header, the count it reads goes into the
panel's "3 / 20" at once (before any script run), and the first change after a draw asks for one rerun of the panel.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from lucid.ui.live_class import room_push, room_watch
from tests.viz.test_player_files import node_or_skip

SCRIPT = Path(room_watch.__file__).parent / room_watch.ANSWER_SCRIPT_FILE
FEED = "/app/static/rooms/ACD347.json"

HARNESS = """
const m = await import(process.argv[1]);
const { replies, data, kept } = JSON.parse(process.argv[2]);
globalThis.Node = { TEXT_NODE: 3 };
const text = { nodeType: 3, nodeValue: `${data.answered} / 20` };  // what the panel's run drew
const strong = { childNodes: [text], firstChild: text };
const column = { querySelector: (sel) => sel === '[data-testid="stMarkdownContainer"] strong' ? strong : null };
globalThis.document = { querySelector: (sel) => sel === data.count ? column : null };
const requests = [];
globalThis.fetch = (url, options) => {
  requests.push({ url, headers: options.headers });
  const reply = replies.shift();
  if (!reply) {  // no more answers: held until the watcher goes
    return new Promise((_, fail) => options.signal.addEventListener('abort', () => fail(new Error('aborted'))));
  }
  return Promise.resolve({ ok: reply[0] === 200, json: async () => reply[1] });
};
const triggers = [];
const parentElement = kept ? { lucidAnswers: kept } : {};
const stop = m.default({ data, setTriggerValue: (name, value) => triggers.push([name, value]), parentElement });
const first = text.nodeValue;  // on the page as the watcher is drawn, before any read answered
await new Promise((done) => setTimeout(done, 100));
stop();
console.log(JSON.stringify({ first, text: text.nodeValue, triggers, requests,
                             kept: parentElement.lucidAnswers ?? null }));
"""


def watch(replies: list, *, seen: int = 2, answered: int = 2, words: str | None = "{answered} / {students}",
          kept: dict | None = None, tmp_path: Path) -> dict:
    node = node_or_skip()
    module = tmp_path / "answer_watch.mjs"
    module.write_text(SCRIPT.read_text(encoding="utf-8"), encoding="utf-8")
    data = {"feed": FEED, "seen": seen, "key": "k" * 32, "q": "q1", "answered": answered,
            "count": ".st-key-pg_row_count", "words": words, "header": room_push.KEY_HEADER}
    done = subprocess.run([node, "--input-type=module", "-e", HARNESS, module.as_uri(),  # noqa: S603
                           json.dumps({"replies": replies, "data": data, "kept": kept})],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def tally(version: int, answered: int, q: str = "q1", students: int = 20) -> list:
    return [200, {"answers": version, "q": q, "answered": answered, "students": students}]


def test_a_count_read_goes_into_the_panel_at_once_and_asks_for_one_rerun(tmp_path):
    got = watch([tally(3, 3), tally(5, 5)], tmp_path=tmp_path)
    assert got["text"] == "5 / 20"  # the second answer too, before the rerun it asked for came back
    assert got["triggers"] == [["answers", 3]]  # one rerun per draw of the watcher, however many answers came
    assert [r["url"] for r in got["requests"]] == [f"{FEED}?answers=2", f"{FEED}?answers=3", f"{FEED}?answers=5"]
    assert all(r["headers"] == {"X-Lucid-Teacher": "k" * 32} for r in got["requests"])  # the key: never in the URL
    assert got["kept"]["answers"] == 5


def test_a_read_held_to_its_end_changes_nothing_and_the_watcher_reads_again(tmp_path):
    got = watch([[200, {"answers": 2}], tally(3, 3)], tmp_path=tmp_path)
    assert got["text"] == "3 / 20" and got["triggers"] == [["answers", 3]]
    assert [r["url"] for r in got["requests"]][:2] == [f"{FEED}?answers=2", f"{FEED}?answers=2"]


def test_another_rounds_count_or_fewer_than_drawn_is_not_written_but_still_reruns_the_panel(tmp_path):
    other = watch([tally(3, 9, q="q0")], tmp_path=tmp_path)
    assert other["text"] == "2 / 20" and other["triggers"] == [["answers", 3]]
    fewer = watch([tally(3, 1)], answered=2, tmp_path=tmp_path)
    assert fewer["text"] == "2 / 20" and fewer["triggers"] == [["answers", 3]]
    silent = watch([tally(3, 3)], words=None, tmp_path=tmp_path)  # a language whose count has no bold part
    assert silent["text"] == "2 / 20" and silent["triggers"] == [["answers", 3]]


def test_the_count_is_written_in_the_pages_words(tmp_path):
    got = watch([tally(3, 3, students=25)], words="{students}명 중 {answered}명", tmp_path=tmp_path)
    assert got["text"] == "25명 중 3명"


def test_a_refused_read_stops_the_watcher_and_the_panels_timer_goes_on(tmp_path):
    got = watch([[403, {}]], tmp_path=tmp_path)
    assert got["text"] == "2 / 20" and got["triggers"] == [] and len(got["requests"]) == 1


def test_a_newer_count_read_before_the_panels_run_is_put_back_at_once(tmp_path):
    kept = {"answers": 6, "q": "q1", "answered": 6, "students": 20}
    got = watch([], seen=4, answered=4, kept=kept, tmp_path=tmp_path)
    assert got["first"] == "6 / 20" and got["triggers"] == []  # the run drew 4 of the 6 the teacher already saw
    older = watch([], seen=7, answered=7, kept=kept, tmp_path=tmp_path)
    assert older["first"] == "7 / 20"  # the run counted more than was kept: its count stays
