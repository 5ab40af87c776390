"""Every private part of Streamlit the app reaches into, in one module, with a check of their shape.

The app wraps five of Streamlit's internals (the rerun request of a session, the widget values it keeps, a
session's connect/close, the runtime's stop, a component's data encoding) and reads a few more (the script
run's context, the page manager).
Private parts change without notice between releases, so they are named here only: the other modules ask this
one, and ``shape_problems()`` lists what a new Streamlit no longer has. ``tests/ui/test_streamlit_internals.py``
fails loudly on any problem, and ``pyproject.toml`` allows only the releases in ``TESTED``.

Imports are inside the functions: importing this module costs nothing and imports no Streamlit.
"""
from __future__ import annotations

import gc
import inspect
import threading
from collections.abc import Callable
from typing import Any

TESTED = ("1.67.0",)
"""Streamlit releases whose internals ``shape_problems()`` has found as the app uses them."""


def client_state_class() -> Any:
    """The protobuf of one rerun request a browser sends (its widget values, page, fragment)."""
    from streamlit.proto.ClientState_pb2 import ClientState

    return ClientState


def widget_states_class() -> Any:
    from streamlit.proto.WidgetStates_pb2 import WidgetStates

    return WidgetStates


def session_state_class() -> Any:
    """``SessionState``, whose ``set_widgets_from_proto`` takes every widget value a browser sends."""
    from streamlit.runtime.state.session_state import SessionState

    return SessionState


def app_session() -> tuple[Any, Any]:
    """``AppSession`` (one browser tab's session) and its ``AppSessionState`` enum."""
    from streamlit.runtime.app_session import AppSession, AppSessionState

    return AppSession, AppSessionState


def script_runner_module() -> Any:
    """The module whose ``exec_func_with_error_handling`` runs every script run."""
    from streamlit.runtime.scriptrunner import script_runner

    return script_runner


def script_runner_event() -> Any:
    from streamlit.runtime.scriptrunner.script_runner import ScriptRunnerEvent

    return ScriptRunnerEvent


def stop_exception() -> type[BaseException]:
    """What a script run raises to end itself without an error on the page."""
    from streamlit.runtime.scriptrunner_utils.exceptions import StopException

    return StopException


def script_request_type() -> Any:
    from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType

    return ScriptRequestType


def script_run_context() -> Any:
    """The context of the script run on this thread, or None (no run, bare mode, a Streamlit that moved it)."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
    except ImportError:
        return None
    return get_script_run_ctx(suppress_warning=True)


def session_id() -> str | None:
    """This browser session's id, or None outside a script run."""
    ctx = script_run_context()
    return ctx.session_id if ctx is not None else None


def run_cursors() -> Any:
    """A value new at every script run (the run's cursors dict, replaced by ``ScriptRunContext.reset``)."""
    ctx = script_run_context()
    return ctx.cursors if ctx is not None else None


def runtime_classes() -> tuple[Any, Any] | None:
    """``Runtime`` and its ``RuntimeState`` enum, or None where Streamlit lacks them."""
    try:
        from streamlit.runtime import Runtime
        from streamlit.runtime.runtime import RuntimeState
    except ImportError:
        return None
    return Runtime, RuntimeState


def pages_manager() -> Any:
    """``PagesManager``, whose ``uses_pages_directory`` says a page opened without ``st.navigation``."""
    from streamlit.runtime.pages_manager import PagesManager

    return PagesManager


def api_exception() -> type[Exception]:
    from streamlit.errors import StreamlitAPIException

    return StreamlitAPIException


def script_requests_classes() -> tuple[Any, Any]:
    """``ScriptRequests`` (a run's pending stop or rerun) and ``RerunData`` (what a rerun carries)."""
    from streamlit.runtime.scriptrunner_utils.script_requests import RerunData, ScriptRequests

    return ScriptRequests, RerunData


def script_run_context_class() -> Any:
    from streamlit.runtime.scriptrunner_utils.script_run_context import ScriptRunContext

    return ScriptRunContext


def starlette_class() -> Any:
    """The web framework class of Streamlit's server (``starlette.applications.Starlette``)."""
    from starlette.applications import Starlette

    return Starlette


def server_app_factory() -> Any:
    """The function that makes the running server's application: present means the server is Starlette's."""
    from streamlit.web.server.starlette.starlette_app import create_starlette_app

    return create_starlette_app


_route_lock = threading.Lock()
_apps: list[Any] = []
_looked: list[bool] = []


def find_server_app() -> Any | None:
    """The running server's Starlette application, found once per process among the live objects (Streamlit keeps
    it only in its server's locals), or None: bare mode, tests, several or none found.

    ``app.py`` calls it on the process's first script run, before the warm-up or a class starts a thread, for two
    reasons. ``gc.get_objects()`` holds a reference to every object, and a tuple another thread is building at that
    moment then cannot be resized: its import fails with ``SystemError`` (seen: Altair's, half imported for good).
    And once the warm-up has frozen the heap (``gc.freeze``) the list leaves the frozen objects out, the server's
    application among them.
    """
    with _route_lock:
        if not _looked:
            _looked.append(True)
            try:
                cls = starlette_class()
            except ImportError:
                return None
            found = [o for o in gc.get_objects() if type(o) is cls]
            if len(found) == 1:
                _apps.append(found[0])
        return _apps[0] if _apps else None


def add_route(path: str, endpoint: Callable[..., Any], name: str) -> bool:
    """Serve ``endpoint`` (an async Starlette endpoint) at ``path`` under ``server.baseUrlPath``, ahead of
    Streamlit's own routes (so it may take a path the static route would serve). Once per process; False when
    there is no running Starlette server to add it to (the caller then keeps to what Streamlit serves)."""
    app = find_server_app()
    with _route_lock:
        if app is None:
            return False
        routes = app.router.routes
        if any(getattr(r, "name", None) == name for r in routes):
            return True
        import streamlit as st
        from starlette.routing import Route

        base = str(st.get_option("server.baseUrlPath") or "").strip("/")
        full = "/" + "/".join(p for p in (base, path.strip("/")) if p)
        routes.insert(0, Route(full, endpoint, methods=["GET"], name=name))
        return True


def bidi_component_main() -> Any:
    """The module of ``st.components.v2``'s component call: its ``serialize_mixed_data`` (the data's JSON) and
    ``BidiComponentMixin._build_bidi_identity_kwargs`` (what names the element), which ``component_payload``
    wraps."""
    from streamlit.components.v2.bidi_component import main

    return main


def _has(owner: Callable[[], Any], *names: str) -> Callable[[], list[str]]:
    """Attributes of a class (methods, class attributes, properties)."""
    def check() -> list[str]:
        obj = owner()
        return [f"{obj.__name__}.{n}" for n in names if not hasattr(obj, n)]
    return check


def _made(owner: Callable[[], Any], *names: str) -> Callable[[], list[str]]:
    """Attributes of a fresh instance (made with no arguments)."""
    def check() -> list[str]:
        obj = owner()()
        return [f"{type(obj).__name__}().{n}" for n in names if not hasattr(obj, n)]
    return check


def _sets(owner: Callable[[], Any], method: str, *attributes: str) -> Callable[[], list[str]]:
    """Instance attributes the app reads, found in the source of the method that sets them."""
    def check() -> list[str]:
        cls = owner()
        try:
            source = inspect.getsource(getattr(cls, method))
        except (AttributeError, OSError, TypeError):
            return [f"{cls.__name__}.{method}"]
        return [f"{cls.__name__}().{a}" for a in attributes if f"self.{a}" not in source]
    return check


def _takes(owner: Callable[[], Any], method: str, *parameters: str) -> Callable[[], list[str]]:
    def check() -> list[str]:
        cls = owner()
        try:
            names = inspect.signature(getattr(cls, method)).parameters
        except (AttributeError, TypeError, ValueError):
            return [f"{cls.__name__}.{method}"]
        return [f"{cls.__name__}.{method}({p})" for p in parameters if p not in names]
    return check


def _members(owner: Callable[[], Any], *names: str) -> Callable[[], list[str]]:
    def check() -> list[str]:
        enum = owner()
        return [f"{enum.__name__}.{n}" for n in names if n not in enum.__members__]
    return check


def _fields(owner: Callable[[], Any], *names: str) -> Callable[[], list[str]]:
    """Fields of a protobuf message or a dataclass."""
    def check() -> list[str]:
        cls = owner()
        descriptor = getattr(cls, "DESCRIPTOR", None)
        have = set(descriptor.fields_by_name) if descriptor is not None else set(
            getattr(cls, "__dataclass_fields__", {}))
        return [f"{cls.__name__}.{n}" for n in names if n not in have]
    return check


#: What the app reads or replaces, each with the check that it is still there.
SHAPE: dict[str, Callable[[], list[str]]] = {
    "the rerun gate wraps a session's rerun requests and script events": _has(
        lambda: app_session()[0], "_handle_rerun_script_request", "_handle_scriptrunner_event_on_event_loop",
        "handle_backmsg_exception"),
    "the rerun gate reads a session's runner, state and event loop": _sets(
        lambda: app_session()[0], "__init__", "_scriptrunner", "_state", "_event_loop"),
    "the rerun gate gets each request's client state": _takes(
        lambda: app_session()[0], "_handle_rerun_script_request", "client_state"),
    "the rerun gate knows a session shutting down": _members(lambda: app_session()[1], "SHUTDOWN_REQUESTED"),
    "the rerun gate sees runs end": _members(
        script_runner_event, "SCRIPT_STOPPED_WITH_SUCCESS", "SCRIPT_STOPPED_WITH_COMPILE_ERROR",
        "FRAGMENT_STOPPED_WITH_SUCCESS", "SHUTDOWN"),
    "the rerun gate merges two client states": _fields(
        client_state_class, "fragment_id", "is_auto_rerun", "context_info", "page_script_hash", "widget_states"),
    "run slots wrap every script run": _has(script_runner_module, "exec_func_with_error_handling"),
    "cancelling reads a run's pending request": _made(lambda: script_requests_classes()[0], "_state",
                                                      "_rerun_data"),
    "cancelling reads what a rerun carries": _fields(lambda: script_requests_classes()[1], "fragment_id_queue",
                                                     "is_fragment_scoped_rerun"),
    "cancelling knows stop and rerun requests": _members(script_request_type, "STOP", "RERUN", "CONTINUE"),
    "the browser gate filters every widget value": _has(session_state_class, "set_widgets_from_proto"),
    "the browser gate reads the registered widget kinds": lambda: [
        n for n in ("SessionState()._new_widget_state.widget_metadata",)
        if not hasattr(getattr(session_state_class()(), "_new_widget_state", None), "widget_metadata")],
    "the session lifecycle tells the rooms": _has(
        lambda: runtime_classes()[0], "connect_session", "disconnect_session", "close_session", "exists",
        "_instance", "_get_async_objs", "state"),
    "the shutdown watchdog knows a stopping runtime": _members(lambda: runtime_classes()[1], "STOPPING", "STOPPED"),
    "a deep link is sent through the navigation": _has(pages_manager, "uses_pages_directory"),
    "an encoded component payload is taken as it is": _has(bidi_component_main, "serialize_mixed_data",
                                                            "BidiComponentMixin"),
    "an encoded component payload names the element": _takes(
        lambda: bidi_component_main().BidiComponentMixin, "_build_bidi_identity_kwargs", "proto", "data"),
    "a page reads its run's session, cursors and requests": _fields(
        script_run_context_class, "session_id", "cursors", "script_requests"),
    "run slots tell a fragment's run from a page's": _fields(script_run_context_class, "fragment_ids_this_run"),
    "the room feed's held reads are a route added to the server's Starlette application": lambda: [
        *[f"streamlit.web.server.starlette.starlette_app.{n}" for n in ("create_starlette_app",)
          if not callable(server_app_factory())],
        *[f"Starlette().router.{n}" for n in ("routes",)
          if not isinstance(getattr(starlette_class()().router, n, None), list)]],
}


def shape_problems() -> list[str]:
    """What the app uses that this Streamlit no longer has (empty when every internal is where it was)."""
    problems = []
    for purpose, check in SHAPE.items():
        try:
            missing = check()
        except Exception as err:  # noqa: BLE001 - a moved module or class is itself the finding
            missing = [f"{type(err).__name__}: {err}"]
        problems += [f"{purpose}: {m}" for m in missing]
    return problems
