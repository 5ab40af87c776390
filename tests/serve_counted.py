"""Test launcher: ``python tests/serve_counted.py LOG run app.py [streamlit options]``.

Runs the real Streamlit server in this process, exactly as ``streamlit run`` would, after wrapping the
functions that do the app's shared heavy work so that each call appends its name to ``LOG``. A test then
reads work counts from outside the server (how many times the Train page's dataset, scalar graph and
comparison were computed), instead of guessing them from response times. The app itself is unchanged.
"""
from __future__ import annotations

import functools
import importlib
import sys
import threading
from pathlib import Path

COUNTED = {
    "lucid.data": "load",
    "lucid.lessons.training": "compare_tensor_scalar",
    "lucid.lessons.graph_sizes": "step_graphs",
}
"""module -> function: the pages import these by name, so replacing the module attribute before the
app's first run is enough."""


def count_calls(log: Path) -> None:
    lock = threading.Lock()
    for module_name, name in COUNTED.items():
        module = importlib.import_module(module_name)
        real = getattr(module, name)

        def counted(*args, __real=real, __name=name, **kwargs):
            with lock, open(log, "a", encoding="utf-8") as out:
                out.write(f"{__name}\n")
            return __real(*args, **kwargs)

        setattr(module, name, functools.wraps(real)(counted))


def counts(log: Path) -> dict[str, int]:
    """How many times each counted function ran so far."""
    found = {name: 0 for name in COUNTED.values()}
    for line in (log.read_text(encoding="utf-8").splitlines() if log.exists() else []):
        found[line] = found.get(line, 0) + 1
    return found


if __name__ == "__main__":
    sys.path[0] = str(Path(__file__).resolve().parents[1])  # the project, not tests/, as `streamlit run` has it
    count_calls(Path(sys.argv[1]))
    from streamlit.web import cli

    sys.argv = ["streamlit", *sys.argv[2:]]
    sys.exit(cli.main())
