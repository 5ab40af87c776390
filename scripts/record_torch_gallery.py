"""Record the Playground's gallery step of a small PyTorch MLP as a ``.lucid`` file (package data).

The gallery entry "A small PyTorch MLP step" plays ``lucid/torch/recordings/mlp_step.lucid``: a 2-layer MLP
(3 → 4 → 3, tanh) with ``F.cross_entropy`` on a batch of 4, seeded, recorded with ``lucid.torch.record``.
The app plays the file without torch; ``tests/torch/test_torch_gallery_file.py`` re-records it with torch and
checks the shipped file's values and gradients equal torch's, so the file cannot go stale silently.
Run it from the project directory in an environment with torch:

    python scripts/record_torch_gallery.py
"""
from __future__ import annotations

import sys
from collections import OrderedDict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARGET = ROOT / "lucid" / "torch" / "recordings" / "mlp_step.lucid"
SEED = 31


def record_mlp_step():
    """``(recording, model, loss)`` of one seeded forward and backward pass of the gallery's MLP."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    from lucid.torch import record

    torch.manual_seed(SEED)
    model = nn.Sequential(OrderedDict(fc1=nn.Linear(3, 4), act=nn.Tanh(), fc2=nn.Linear(4, 3)))
    x = torch.randn(4, 3)
    y = torch.tensor([0, 2, 1, 2])
    with record(model, names={"x": x}) as rec:
        loss = F.cross_entropy(model(x), y)
    loss.backward()
    return rec, model, loss


def main() -> None:
    rec, _model, loss = record_mlp_step()
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    rec.save(TARGET)
    print(f"wrote {TARGET.relative_to(ROOT)}: loss {loss.item():.6f}, {len(rec.graph().steps)} steps")


if __name__ == "__main__":
    main()
