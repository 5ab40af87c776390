"""Speak Streamlit's websocket protocol the way the browser does: a real server, sessions, reruns, component events.

The load benchmark, the real-server tests and the hostile-class test all need the same few moves, and
each must be exactly what a browser tab sends, or the server silently does something else (a rerun
that names its page by ``page_name`` instead of the ``page_script_hash`` the server gave the tab loses
the player's state, and the click it carries does nothing). What a tab sends was read off a real
Chromium session of this app:

- the first ``rerun_script`` names the page (``page_name``) and carries the query string, no widgets;
- every later one carries the ``page_script_hash`` of the page ``st.navigation`` ran (its ``navigation``
  message; a ``new_session`` may name the ``pages/`` file's own hash, and a rerun under that one is
  sent round through ``st.navigation`` again, losing the widgets' values), the query string the server
  last set (``page_info_changed``) and the widgets' values;
- the player writes the step on screen into the address bar (``?step=``) as soon as it is drawn, so the
  next rerun's query string carries it;
- a click in a component (Streamlit's v2 components) is one more widget state: the component's trigger
  id (``<internal prefix>_<component id>__events``) with ``json_trigger_value`` = a JSON list of
  ``{"event": name, "value": ...}``; the player's click names the animation it holds (``anim``), and the
  run it starts sends ``"anim": null`` (the player keeps the one it has).

``server()`` starts ``streamlit run app.py`` on a free loopback port (its own process group, always
stopped; optionally through a test's launcher, with more environment or under a memory cap); ``Session``
is one tab. Every wait is bounded. The benches and the real-server tests all use this one module.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PLAYER = "lucid_animation_player"
"""The player component's name (``lucid.ui.playground.clickable_graph``)."""


def run_sync(coroutine: Any) -> Any:
    """``asyncio.run``, on a thread of its own when this thread already runs an event loop.

    Playwright's sync API keeps a loop running in the main thread for as long as a browser is open
    (a test session's browser fixture, say), and ``asyncio.run`` refuses to start inside it: every test
    or bench that speaks to a server runs its coroutines through this.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthy(port: int) -> bool:
    """Whether the server on ``port`` answers its health check."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:  # noqa: S310
            return r.read() == b"ok"
    except OSError:
        return False


def cpu_seconds(pid: int) -> float:
    """User + system CPU of ``pid`` and of its children it has waited for (the ``dot`` runs)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    utime, stime, cutime, cstime = (int(fields[i]) for i in (11, 12, 13, 14))
    return (utime + stime + cutime + cstime) / ticks


def rss_mb(pid: int) -> tuple[float, float]:
    """Current (``VmRSS``) and peak (``VmHWM``) resident memory of ``pid`` in MB."""
    now = peak = 0.0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            now = int(line.split()[1]) / 1024
        elif line.startswith("VmHWM:"):
            peak = int(line.split()[1]) / 1024
    return now, peak


@dataclass
class Server:
    """A running ``streamlit run``: where it listens, its process (the group leader) and its output."""

    port: int
    process: subprocess.Popen
    log: Path | None = None

    @property
    def pid(self) -> int:
        return self.process.pid

    def output(self, last: int = 3000) -> str:
        """The end of the server's output (its tracebacks, if any), for a failure message."""
        return self.log.read_text(errors="replace")[-last:] if self.log is not None and self.log.exists() else ""


def stop(process: subprocess.Popen) -> None:
    """SIGTERM the server's process group, SIGKILL what is left after 15 s; the leader is reaped."""
    if process.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=15)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # the leader is reaped only below, so the group id is still ours
    process.wait()


def _address_space_cap(limit: int):
    """A ``preexec_fn`` that caps the server's (and its ``dot`` children's) address space at ``limit`` bytes."""
    def cap() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return cap


@contextlib.contextmanager
def server(script: str = "app.py", *, start_timeout: float = 120.0, log: Path | None = None,
           launcher: Sequence[str] = (), env: dict[str, str] | None = None, extra_args: tuple[str, ...] = (),
           memory_limit: int | None = None) -> Iterator[Server]:
    """``streamlit run script`` on a free loopback port, in its own process group; yields its ``Server``.

    Always stopped (``stop``). ``log`` keeps the server's output (its tracebacks, if any); ``launcher``
    replaces ``python -m streamlit`` (a test's counting launcher takes the same arguments); ``env`` is
    added to this process's environment; ``extra_args`` are more ``--option value`` pairs for
    ``streamlit run``; ``memory_limit`` caps the server's address space (``RLIMIT_AS``), in bytes.
    """
    port = free_port()
    command = [*(launcher or (sys.executable, "-m", "streamlit")), "run", script, "--server.headless", "true",
               "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
               "--server.fileWatcherType", "none", *extra_args]
    with open(log, "wb") if log is not None else contextlib.nullcontext(subprocess.DEVNULL) as out:
        process = subprocess.Popen(  # noqa: S603 - our own interpreter, script and options
            command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=_address_space_cap(memory_limit) if memory_limit else None)  # noqa: PLW1509
    running = Server(port, process, log)
    try:
        deadline = time.monotonic() + start_timeout
        while not healthy(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the Streamlit server did not start:\n{running.output()}")
            time.sleep(0.2)
        yield running
    finally:
        stop(process)


@dataclass
class Run:
    """What the server sent for one script run."""

    elements: list[Any] = field(default_factory=list)  # every new element (Element protos), in order
    expanders: list[Any] = field(default_factory=list)  # every expander block drawn (Block.Expandable protos)
    graph_at: float | None = None  # seconds from the request to the player's arrival
    seconds: float = 0.0  # from the request to the end of the run
    early: float | None = None  # from the request to the first part's end, when a rerun followed (st.rerun)
    fragment: bool = False  # a fragment's run (the rest of the page stays as the last full run drew it)

    def of_type(self, kind: str) -> list[Any]:
        return [getattr(e, kind) for e in self.elements if e.WhichOneof("type") == kind]

    @property
    def exceptions(self) -> list[str]:
        """Tracebacks the page showed (``st.exception`` / an uncaught error): there must be none."""
        return [f"{e.type}: {e.message}" for e in self.of_type("exception")]

    @property
    def markdown(self) -> list[str]:
        return [m.body for m in self.of_type("markdown")]

    @property
    def alerts(self) -> list[str]:
        """What ``st.warning`` / ``st.info`` / ``st.error`` said (a refusal's message, say)."""
        return [a.body for a in self.of_type("alert")]

    @property
    def player(self) -> Any | None:
        """The player component's proto, if the run drew it."""
        found = [c for c in self.of_type("bidi_component") if c.component_name == PLAYER]
        return found[-1] if found else None


class Session:
    """One browser tab, reduced to the messages it exchanges with the server."""

    def __init__(self, ws: Any, *, page: str = "playground", query: str = "") -> None:
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        self.ws = ws
        self.BackMsg, self.ForwardMsg = BackMsg, ForwardMsg
        self.page = page
        self.query = query
        self.page_script_hash = ""  # from the server's new_session message, as the browser keeps it
        self.widgets: dict[str, Any] = {}  # widget id -> WidgetState sent with every rerun (like the browser)
        self.last: Run | None = None
        self.auto_reruns: dict[str, float] = {}  # fragment id -> seconds (``st.fragment(run_every=…)``)
        self.fragment_of: dict[str, str] = {}  # widget id -> the fragment drawing it (its events rerun only that)

    def rerun_message(self, *extra: Any) -> bytes:
        """The ``rerun_script`` BackMsg the browser would send now, with ``extra`` widget states added."""
        msg = self.BackMsg()
        rerun = msg.rerun_script
        rerun.query_string = self.query
        if self.page_script_hash:
            rerun.page_script_hash = self.page_script_hash
        else:  # the first request of a tab names its page (the root only redirects to the Playground)
            rerun.page_name = self.page
        for state in self.widgets.values():
            rerun.widget_states.widgets.append(state)
        for state in extra:
            rerun.widget_states.widgets.append(state)
        return msg.SerializeToString()

    def fragment_message(self, fragment_id: str, *extra: Any, auto: bool = True) -> bytes:
        """The ``rerun_script`` of one fragment: its ``run_every`` timer firing (``auto``), or a widget in it
        (``extra``: a button, a component's event), which the browser reruns alone."""
        msg = self.BackMsg.FromString(self.rerun_message(*extra))
        msg.rerun_script.fragment_id = fragment_id
        msg.rerun_script.is_auto_rerun = auto
        return msg.SerializeToString()

    async def clear_cache(self) -> None:
        """Streamlit's ``clear_cache`` BackMsg, which any client may send (the browser's "Clear cache" menu)."""
        msg = self.BackMsg()
        msg.clear_cache = True
        await self.ws.send(msg.SerializeToString())

    async def rerun(self, *extra: Any) -> None:
        await self.ws.send(self.rerun_message(*extra))

    async def run(self, *extra: Any, timeout: float = 120.0) -> Run:
        """Send a rerun and read the server's answer until that run ends."""
        await self.rerun(*extra)
        return await self.finish(timeout)

    async def finish(self, timeout: float = 120.0) -> Run:
        """Read messages until the script run ends (a run stopped early for a rerun is followed by that rerun)."""
        start = time.perf_counter()
        run = Run()
        while True:
            raw = await asyncio.wait_for(self.ws.recv(), timeout=timeout)
            msg = self.ForwardMsg.FromString(raw)
            kind = msg.WhichOneof("type")
            if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                element = msg.delta.new_element
                run.elements.append(element)
                widget = getattr(getattr(element, element.WhichOneof("type") or "", None), "id", "")
                if widget and isinstance(widget, str) and msg.delta.fragment_id:
                    self.fragment_of[widget] = msg.delta.fragment_id
                if (run.graph_at is None and element.WhichOneof("type") == "bidi_component"
                        and element.bidi_component.component_name == PLAYER):
                    run.graph_at = time.perf_counter() - start
            elif kind == "delta" and msg.delta.WhichOneof("type") == "add_block":
                if msg.delta.add_block.WhichOneof("type") == "expandable":
                    run.expanders.append(msg.delta.add_block.expandable)
            elif kind == "new_session":
                self.page_script_hash = msg.new_session.page_script_hash or self.page_script_hash
            elif kind == "navigation":  # st.navigation names the page it ran: the browser keeps that hash
                self.page_script_hash = msg.navigation.page_script_hash or self.page_script_hash
            elif kind == "page_info_changed":
                self.query = msg.page_info_changed.query_string
            elif kind == "auto_rerun":  # the browser then reruns that fragment on its own timer
                self.auto_reruns[msg.auto_rerun.fragment_id] = msg.auto_rerun.interval
            elif kind == "script_finished":
                if msg.script_finished == self.ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    run.elements.clear()  # the rerun that follows draws the page again (widget ids may differ)
                    if run.early is None:
                        run.early = time.perf_counter() - start
                    continue
                run.seconds = time.perf_counter() - start
                run.fragment = msg.script_finished == self.ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
                self.last = run
                self._mirror_player_step(run)
                return run

    def _mirror_player_step(self, run: Run) -> None:
        """The player writes the step on screen into the address bar (``?step=``, ``history.replaceState``)
        as soon as it is drawn, so the browser's next rerun carries it: do the same."""
        if run.player is None:
            return
        data = json.loads(run.player.json)
        if not data.get("share_url"):
            return
        pairs = [(k, v) for k, v in urllib.parse.parse_qsl(self.query, keep_blank_values=True) if k != "step"]
        self.query = urllib.parse.urlencode([*pairs, ("step", str(data.get("step", 0)))])

    def widget_id(self, kind: str, label: str) -> str:
        """The id of the widget of type ``kind`` (``text_area``, ``selectbox``…) labelled ``label`` in the last run."""
        assert self.last is not None, "no run yet"
        found = [proto.id for proto in self.last.of_type(kind) if proto.label == label]
        if not found:
            raise LookupError(f"no {kind} labelled {label!r} on the page")
        return found[-1]

    def set_text(self, widget_id: str, value: str) -> Any:
        """Type ``value`` into a text widget: kept and sent with every later rerun, like the browser does."""
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        state = WidgetState(id=widget_id, string_value=value)
        self.widgets[widget_id] = state
        return state

    def open_expander(self, label: str, expanded: bool = True) -> Any:
        """Unfold (or fold) the keyed expander labelled ``label`` in the last run, as a click on its header does:
        its state is kept and sent with every later rerun, like the browser's."""
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        assert self.last is not None, "no run yet"
        found = [e.id for e in self.last.expanders if e.label == label and e.id]
        if not found:
            raise LookupError(f"no keyed expander labelled {label!r} on the page")
        state = WidgetState(id=found[-1], bool_value=expanded)
        self.widgets[found[-1]] = state
        return state

    def player_id(self) -> str:
        assert self.last is not None and self.last.player is not None, "the last run drew no player"
        return self.last.player.id

    def player_data(self) -> dict[str, Any]:
        """What the page gave the player (its JSON ``data``)."""
        assert self.last is not None and self.last.player is not None, "the last run drew no player"
        return json.loads(self.last.player.json)

    def events(self, payload: str, component_id: str | None = None) -> Any:
        """The component trigger carrying ``payload`` (raw JSON text, as the browser would send it)."""
        from streamlit.proto.WidgetStates_pb2 import WidgetState
        from streamlit.runtime.state.session_state import STREAMLIT_INTERNAL_KEY_PREFIX

        cid = component_id or self.player_id()
        return WidgetState(id=f"{STREAMLIT_INTERNAL_KEY_PREFIX}_{cid}__events", json_trigger_value=payload)

    def click(self, node: str, step: int, *, program: str | None = None) -> Any:
        """A click on ``node`` at trace step ``step`` in the player, exactly as its JavaScript reports it
        (with the id of the animation the player holds, so the run it starts does not send it again)."""
        data = self.player_data()
        value = {"node": node, "step": step, "program": program or data["program_id"]}
        if data.get("anim_id") is not None:  # as the script's JSON leaves out an id it does not have
            value["anim"] = data["anim_id"]
        return self.events(json.dumps([{"event": "node", "value": value}], separators=(",", ":")))


@contextlib.asynccontextmanager
async def session(port: int, *, query: str = "", page: str = "playground",
                  timeout: float = 120.0) -> AsyncIterator[Session]:
    """A tab's websocket to the server on ``port`` (no message sent yet)."""
    import websockets

    async with websockets.connect(f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"],
                                  max_size=None, open_timeout=timeout, ping_interval=None) as ws:
        yield Session(ws, page=page, query=query)
