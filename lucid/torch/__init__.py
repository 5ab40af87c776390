"""lucid.torch: step through PyTorch's own backward pass in lucid's player (optional extra ``[torch]``).

    with record(model) as rec:
        loss = F.cross_entropy(model(x), y)
    loss.backward()
    stepper(rec)          # or rec.save("step.lucid") for the Playground, rec.save_html(...)

``record`` notes each torch call and, during ``backward``, every gradient torch's engine sends, in its
order; ``replay`` draws that as a lucid graph and trace with torch's numbers. ``load`` reads a ``.lucid``
file (plain JSON, checked before use). Only ``record`` needs torch; ``load``/``replay`` do not.
Modules: ``capture`` (the recorder), ``data`` (the plain data and its file), ``playback`` (data → lucid).
"""
from lucid.torch.data import FileLimits, RecordedGraph, RecordingFileError, from_json, note_text, to_json

__all__ = ["FileLimits", "RecordedGraph", "RecordingFileError", "from_json", "load", "note_text", "record", "replay",
           "to_json"]


def record(*modules, names=None):  # noqa: D103 - documented in lucid.torch.capture.record
    from lucid.torch.capture import record as _record

    return _record(*modules, names=names)


def load(path):
    """A ``.lucid`` recording read from ``path``, checked (``RecordingFileError`` names what is wrong)."""
    from pathlib import Path

    from lucid.i18n import L_
    from lucid.torch.data import FileLimits

    p = Path(path)
    if p.stat().st_size > FileLimits().max_bytes:
        raise RecordingFileError(L_("the file is larger than {limit} bytes", limit=format(FileLimits().max_bytes, ",")))
    return from_json(p.read_bytes())


def replay(graph):
    """``(root, trace)`` of a recording: lucid's tensors drawn with torch's numbers."""
    from lucid.torch.playback import replay as _replay

    return _replay(graph)
