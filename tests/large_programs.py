"""Programs whose graphs are past the Playground's 400-node cap, so it draws them collapsed into boxes."""
from __future__ import annotations


def scalar_mlp_source(samples: int = 10, inputs: int = 3, hidden: int = 4) -> str:
    """A 3 → 4 tanh → 1 network on ``samples`` points, written out one scalar at a time as the design notes
    write it: every weight a named scalar, every sample's neurons a line each (about 55 nodes a sample)."""
    lines = []
    for j in range(hidden):
        for i in range(inputs):
            lines.append(f"w{j}_{i} = {((j * inputs + i) * 37 % 19 - 9) / 10}")
        lines.append(f"b{j} = {(j * 7 % 5 - 2) / 10}")
    for j in range(hidden):
        lines.append(f"v{j} = {(j * 5 % 7 - 3) / 5}")
    lines.append("c = 0.1")
    for s in range(samples):
        xs = [((s * 3 + i * 5) % 11 - 5) / 4 for i in range(inputs)]
        for j in range(hidden):
            terms = " + ".join(f"w{j}_{i} * {x}" for i, x in enumerate(xs))
            lines.append(f"h{s}_{j} = tanh({terms} + b{j})")
        lines.append(f"y{s} = " + " + ".join(f"v{j} * h{s}_{j}" for j in range(hidden)) + " + c")
        lines.append(f"e{s} = (y{s} - {((s * 7) % 9 - 4) / 4}) ** 2")
    lines.append("loss = (" + " + ".join(f"e{s}" for s in range(samples)) + f") / {samples}")
    return "\n".join(lines) + "\n"
