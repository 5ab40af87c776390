"""A real ``redis-server`` for tests and benches: a free loopback port, a temp dir, stopped by its PID."""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator

from bench.streamlit_client import free_port


def available() -> bool:
    return shutil.which("redis-server") is not None


def require() -> None:
    """Skip without ``redis-server`` on a developer's machine; in CI (which installs it) fail loudly."""
    if available():
        return
    import pytest

    reason = "redis-server is not installed (scripts/setup_system.sh installs it)"
    if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
        pytest.fail(f"CI=true but {reason}", pytrace=False)
    pytest.skip(reason)


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """Start ``redis-server`` (no persistence) and yield its URL; it is stopped by PID on exit."""
    with redis_process() as (url, _process):
        yield url


@contextlib.contextmanager
def redis_process() -> Iterator[tuple[str, subprocess.Popen]]:
    """``redis_server``, yielding its process too (a bench stops and continues it: a hung Redis)."""
    port = free_port()
    with tempfile.TemporaryDirectory() as workdir:
        process = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", workdir, "--save", "",
             "--appendonly", "no", "--protected-mode", "yes"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            import redis

            client = redis.Redis(host="127.0.0.1", port=port)
            for _ in range(200):
                try:
                    if client.ping():
                        break
                except redis.ConnectionError:
                    time.sleep(0.05)
            else:
                raise RuntimeError("redis-server did not start")
            client.close()
            yield f"redis://127.0.0.1:{port}/0", process
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGCONT)  # a stopped redis-server does not act on SIGTERM
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
