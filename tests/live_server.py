"""A real Streamlit server for a test, and a minimal client that speaks its websocket protocol.

``live_server`` starts ``streamlit run <script>`` (through ``tests/serve_counted.py`` when work is to be
counted) on a free loopback port in its own process group and always stops it. ``Tab`` is one browser tab
reduced to the protobuf messages it exchanges (``BackMsg`` out, ``ForwardMsg`` in): open a page, wait for
the run to finish, send any other ``BackMsg`` (``clear_cache``...). No browser, so these tests are cheap.
"""
from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COUNTED = Path(__file__).with_name("serve_counted.py")
START_SECONDS = 120


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:  # noqa: S310
            return r.read() == b"ok"
    except OSError:
        return False


@dataclass
class Server:
    port: int
    process: subprocess.Popen
    log: Path


def stop(process: subprocess.Popen) -> None:
    """SIGTERM the server's process group, SIGKILL what is left after 15 s; the leader is reaped."""
    if process.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        pass
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # the leader is reaped only below, so the group id is still ours
    process.wait()


@contextlib.contextmanager
def live_server(tmp_path: Path, script: str = "app.py", *, count_log: Path | None = None,
                env: dict[str, str] | None = None) -> Iterator[Server]:
    """``streamlit run script`` on a free loopback port; with ``count_log`` the server appends one line per
    call of the functions ``serve_counted.py`` counts."""
    port = free_port()
    launcher = [sys.executable, str(COUNTED), str(count_log)] if count_log else [sys.executable, "-m", "streamlit"]
    log = tmp_path / f"server-{port}.log"
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    with open(log, "wb") as out:
        process = subprocess.Popen(  # noqa: S603 - our own interpreter, script and options
            [*launcher, "run", script, "--server.headless", "true", "--server.address", "127.0.0.1",
             "--server.port", str(port), "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
            cwd=ROOT, env=full_env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + START_SECONDS
        while not healthy(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the Streamlit server did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
        yield Server(port, process, log)
    finally:
        stop(process)


class Tab:
    """One browser tab: a websocket to ``/_stcore/stream`` and the messages a browser would send."""

    def __init__(self, port: int, timeout: float = 180.0) -> None:
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
        from websockets.sync.client import connect

        self.BackMsg, self.ForwardMsg = BackMsg, ForwardMsg
        self.timeout = timeout
        self._closing = contextlib.ExitStack()
        self.ws = self._closing.enter_context(connect(f"ws://127.0.0.1:{port}/_stcore/stream",
                                                      subprotocols=["streamlit"], max_size=None,
                                                      open_timeout=timeout))
        self.query = ""
        self.buttons: dict[str, str] = {}  # label -> widget id, of the buttons the last runs showed
        self.texts: list[str] = []  # spinner texts and markdown the runs showed, in order

    def send(self, msg) -> None:
        self.ws.send(msg.SerializeToString())

    def open(self, page: str) -> None:
        """Run ``page`` (its url path) as the browser does when the tab opens it, with no widget changed."""
        msg = self.BackMsg()
        msg.rerun_script.query_string = self.query
        msg.rerun_script.page_script_hash = ""
        msg.rerun_script.page_name = page
        self.send(msg)

    def click(self, label: str) -> None:
        """Press the button labelled ``label`` (as shown by an earlier run), as the browser sends it."""
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        msg = self.BackMsg()
        msg.rerun_script.query_string = self.query
        msg.rerun_script.page_script_hash = ""
        msg.rerun_script.widget_states.widgets.append(WidgetState(id=self.buttons[label], trigger_value=True))
        self.send(msg)

    def until(self, seen: str) -> None:
        """Read messages until a spinner or text containing ``seen`` arrives (the run is still going)."""
        self._read(until_text=seen)

    def until_finished(self) -> list[str]:
        """Read messages until the script run ends; the texts of the exceptions it showed (none is good)."""
        return self._read()

    def _read(self, until_text: str | None = None) -> list[str]:
        errors = []
        deadline = time.monotonic() + self.timeout
        while True:
            raw = self.ws.recv(timeout=max(0.1, deadline - time.monotonic()))
            msg = self.ForwardMsg.FromString(raw)
            kind = msg.WhichOneof("type")
            if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                element = msg.delta.new_element
                what = element.WhichOneof("type")
                if what == "exception":
                    errors.append(f"{element.exception.type}: {element.exception.message}")
                elif what == "button":
                    self.buttons[element.button.label] = element.button.id
                elif what in ("spinner", "markdown"):
                    self.texts.append(getattr(element, what).text if what == "spinner" else element.markdown.body)
                    if until_text is not None and until_text in self.texts[-1]:
                        return errors
            elif kind == "page_info_changed":
                self.query = msg.page_info_changed.query_string
            elif kind == "script_finished" and msg.script_finished != self.ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                return errors

    def close(self) -> None:
        self._closing.close()

    def __enter__(self) -> Tab:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
