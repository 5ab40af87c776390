"""Where ``dot`` puts things, for tests that prove every frame of an animation has one layout."""
from __future__ import annotations

import subprocess


def geometry(source: str) -> list[list[str]]:
    """Every node's position and size, every edge's spline and the bounding box, from ``dot -Tplain``."""
    plain = subprocess.run(["dot", "-Tplain"], input=source.encode(), capture_output=True, check=True,
                           timeout=60).stdout.decode()
    rows = []
    for line in plain.splitlines():
        f = line.split()
        if f[0] in ("graph", "node"):
            rows.append(f[:6])
        elif f[0] == "edge":
            rows.append(f[:4 + 2 * int(f[3])])
    return rows


def node_boxes(source: str) -> dict[str, tuple[str, ...]]:
    """Each node's name -> its x, y, width and height."""
    return {row[1]: tuple(row[2:6]) for row in geometry(source) if row[0] == "node"}
