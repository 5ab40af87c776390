"""The Playground plays a recorded PyTorch pass (an uploaded ``.lucid`` file, or the gallery's) with its player.

A file is hostile: its size is checked before a byte is read, then ``lucid.torch.from_json`` checks every field
before anything is built (``lucid.torch.analysis``); a refusal is a message under the uploader naming the field,
and whatever was on screen stays (the program in the editor is never touched). Once accepted, the session keeps
the file's bytes (``<key>_recording``) and the analysis comes from the programs' shared cache, so the same
player, explanations, node inspector, legend and exports play it. Running a program (Run, Ctrl+Enter, a gallery
program) or Close recording goes back to the program.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import streamlit as st

from lucid import gallery
from lucid.gallery import RecordingExample
from lucid.i18n import L_, Message, _, format_integer, text
from lucid.session.analysis import Analysis
from lucid.torch.analysis import shared_recording
from lucid.torch.data import FileLimits, RecordingFileError, note_text
from lucid.ui.playground.keys import keys

LIMITS = FileLimits()
UPLOAD_MB = -(-LIMITS.max_bytes // (1 << 20))
"""The browser's own cap on the uploader (whole MB, at least ``max_bytes``); the server checks the exact size."""


_MARKDOWN = re.compile(r"([\\`*_{}\[\]()<>#+!|~$:-])")


def plain_name(name: str) -> str:
    """A file's name as literal text in Markdown (a name is the uploader's text: no links, no emphasis)."""
    printable = "".join(ch for ch in str(name)[:120] if ch.isprintable())
    return _MARKDOWN.sub(r"\\\1", printable)


@dataclass(frozen=True)
class Played:
    """The recording a session plays: the file's bytes and its name (a file name, or a gallery entry's title)."""

    data: bytes
    name: str
    example: RecordingExample | None = None


def current(key: str) -> Played | None:
    """The recording on screen, or None when the program is."""
    played = st.session_state.get(keys(key).recording)
    return played if isinstance(played, Played) else None


def _start(key: str, played: Played) -> None:
    st.session_state[keys(key).recording] = played
    st.session_state[keys(key).recording_error] = None
    st.session_state[keys(key).step] = 0


def close(key: str) -> None:
    """Back to the program (the Close recording button, and any run of the editor)."""
    if st.session_state.pop(keys(key).recording, None) is not None:
        st.session_state[keys(key).step] = 0
    st.session_state[keys(key).recording_error] = None


def load_example(key: str, example: RecordingExample) -> None:
    """The gallery's recorded entry: play its shipped file."""
    _start(key, Played(example.data(), example.title, example))


def open_linked(key: str, entering: bool) -> None:
    """A link naming the gallery's recording (``?example=torch-mlp``) plays it when the page is entered."""
    example = gallery.recording_by_slug(st.query_params.get("example"))
    if entering and example is not None and current(key) is None:
        load_example(key, example)


def refusal(upload: Any) -> Message | str | None:
    """Why ``upload`` (a Streamlit ``UploadedFile``) cannot be played, or None once it is in the shared cache.

    The size is checked first, from the upload's metadata: an oversized file is never read or parsed. The
    reason is rendered where it is shown (a ``Message``): an upload's callback runs before the page sets the
    reader's language.
    """
    size = int(getattr(upload, "size", 0))
    if size > LIMITS.max_bytes:
        return L_("the file is {size} bytes; a recording may be at most {limit} bytes",
                  size=format_integer(size), limit=format_integer(LIMITS.max_bytes))
    try:
        shared_recording(upload.getvalue(), LIMITS)
    except RecordingFileError as err:  # its Message is rendered where it is shown, in the reader's language
        return err.args[0] if err.args else str(err)
    return None


def _on_upload(key: str) -> None:
    upload = st.session_state.get(keys(key).recording_file)
    if upload is None:  # the file was removed from the uploader: what is on screen stays
        return
    problem = refusal(upload)
    if problem is not None:
        st.session_state[keys(key).recording_error] = problem
        return
    _start(key, Played(upload.getvalue(), str(upload.name)[:120]))


def import_panel(key: str) -> None:
    """Under the editor: a popover to import a ``.lucid`` file, the recording playing, and any refusal."""
    played = current(key)
    pick, close_col = st.columns([3, 2], vertical_alignment="center")
    with pick, st.popover(_("Import a PyTorch recording"), icon=":material/upload_file:", width="stretch",
                          key=keys(key).recording_open, on_change="rerun") as box:
        # Closed, it draws nothing inside (opening it runs the page again); an uploader that holds a file stays
        # drawn, so the file is still listed in it when the popover is opened again.
        if box.open or st.session_state.get(keys(key).recording_file) is not None:
            _import_form(key)
    if played is not None:
        close_col.button(_("Close recording"), key=keys(key).recording_close, icon=":material/close:",
                         on_click=close, args=(key,), width="stretch",
                         help=_("Back to the program in the editor (Run does the same)."))
    error = st.session_state.get(keys(key).recording_error)
    if error:
        st.error(_("**This recording cannot be played:** {error}").format(error=text(error)),
                 icon=":material/error:")
        st.caption(_("The program in the editor is unchanged."))


def _import_form(key: str) -> None:
    """What the import popover holds: how to record a step, and the file uploader."""
    st.caption(_("Record a PyTorch step with lucid.torch (`with record(model) as rec:` … `loss.backward()`), "
                 "save it with `rec.save(\"step.lucid\")` and open the file here: the Playground steps "
                 "through PyTorch's own backward pass with PyTorch's numbers. PyTorch is not needed to "
                 "play a file."))
    st.file_uploader(_("Recording file (.lucid)"), type=["lucid"], key=keys(key).recording_file,
                     max_upload_size=UPLOAD_MB, on_change=_on_upload, args=(key,),
                     help=_("Plain JSON written by rec.save(); at most {n} bytes.").format(
                         n=format_integer(LIMITS.max_bytes)))


def recorded_analysis(key: str) -> Analysis | None:
    """The analysis of the recording on screen (None: the program is on screen)."""
    played = current(key)
    if played is None:
        return None
    try:
        return shared_recording(played.data, LIMITS)
    except RecordingFileError as err:  # checked when it came in: only a changed lucid could refuse it now
        close(key)
        st.session_state[keys(key).recording_error] = err.args[0] if err.args else str(err)
        return None


def play(key: str, analysis: Analysis, view: Any) -> None:
    """The recording in the Playground's player (no link, no class: a file is not in the page's URL)."""
    # Imported here: player_view imports the editor (through graph_view), which imports this module.
    from lucid.ui.playground.player_view import backward_stepper

    played = current(key)
    shown = keys(key).shown
    if st.session_state.get(shown) != (analysis.source, analysis.seed):
        st.session_state[shown] = (analysis.source, analysis.seed)  # a program shown next opens at its seed
        st.session_state[keys(key).step] = 0
    graph = analysis.program.recording
    name = _(played.example.title) if played is not None and played.example is not None else (
        plain_name(played.name) if played is not None else "")
    version = _(" (PyTorch {version})").format(version=graph.torch_version) if graph.torch_version else ""
    st.caption(_(":material/memory: Playing the PyTorch recording **{name}**{version}: the values, gradients and "
                 "step order are PyTorch's own. The program in the editor waits: Run it, or Close recording, to "
                 "go back to it.").format(name=name, version=version))
    for note in graph.notes:  # what the recorder noticed (a second backward pass, create_graph, an old .grad)
        st.caption(":material/info: " + note_text(note))
    backward_stepper(key, analysis, view.options, seconds=view.seconds_per_step, classroom=view.classroom,
                     zoom=view.zoom, share_url=False)
