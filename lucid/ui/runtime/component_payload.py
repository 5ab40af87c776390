"""A component's data encoded once: the player's 100-400 KB animation is not serialised again on every rerun.

Streamlit turns a v2 component's ``data`` dict into JSON on every script run, twice (the JSON the browser gets,
and a key-sorted copy that is hashed into the element's identity), although the player's animation is the
same for every rerun and for every student of a class on the same link. ``EncodedJSON`` is a plain dict that
also carries its JSON text, made by the caller from parts it keeps (the animation's text is made once per
animation); ``install()`` lets Streamlit's component code take that text instead of encoding the dict again.
The browser receives the very same bytes (``json.dumps`` of the dict, which ``tests`` check), so the player,
AppTest and every reader of the payload see no difference.

For the identity Streamlit hashes the key-sorted JSON only to tell apart components that have no key; the
player has one (``key_as_main_identity``: the key alone names it), so ``EncodedJSON`` hands over a digest of
its parts instead, which changes whenever the text does.
"""
from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from typing import Any

from lucid.ui.runtime import streamlit_internals


class EncodedJSON(dict):
    """A dict whose ``json.dumps`` (default separators) is already known: ``text``; ``digest`` names the text.

    Made from its first item, whose JSON (``first_text``) and a digest of it (``first_digest``) the caller
    keeps, and the other items (``rest``, small), encoded here. The dict holds the values themselves.
    """

    __slots__ = ("text", "digest")

    def __init__(self, first_key: str, first_value: Any, first_text: str, first_digest: str,
                 rest: dict[str, Any]) -> None:
        super().__init__({first_key: first_value, **rest})
        rest_text = json.dumps(rest)
        self.text, self.digest = _joined(first_key, first_text, first_digest, rest_text)


_JOINED: OrderedDict[tuple[str, str, str], tuple[str, str, str]] = OrderedDict()
_JOINED_LOCK = threading.Lock()
JOINED_KEPT = 16
"""Whole texts kept (the most recently made): every student opening one link gets the same player data, whose
100-400 KB text is then joined once, not copied three times per run."""


def _joined(first_key: str, first_text: str, first_digest: str, rest_text: str) -> tuple[str, str]:
    """The dict's JSON text and digest, from its first item's text (named by ``first_digest``) and the rest's."""
    key = (first_key, first_digest, rest_text)
    with _JOINED_LOCK:
        found = _JOINED.get(key)
        if found is not None and found[0] is first_text:  # the same text object: the same animation's
            _JOINED.move_to_end(key)
            return found[1], found[2]
    head = f"{json.dumps(first_key)}: {first_text}"
    text = "{" + head + (", " + rest_text[1:] if rest_text != "{}" else "}")
    digest = hashlib.blake2b(f"{first_digest}\n{rest_text}".encode(), digest_size=16).hexdigest()
    with _JOINED_LOCK:
        _JOINED[key] = (first_text, text, digest)
        _JOINED.move_to_end(key)
        while len(_JOINED) > JOINED_KEPT:
            _JOINED.popitem(last=False)
    return text, digest


_INSTALLED: list[bool] = []
_LOCK = threading.Lock()


def install() -> None:
    """Let Streamlit's v2 components take an ``EncodedJSON``'s text (once per process; other data as before)."""
    with _LOCK:
        if _INSTALLED:
            return
        main = streamlit_internals.bidi_component_main()
        mixin = main.BidiComponentMixin
        serialize = main.serialize_mixed_data
        identity = mixin._build_bidi_identity_kwargs

        def serialize_encoded(data: Any, proto: Any) -> None:
            if isinstance(data, EncodedJSON):
                proto.json = data.text
                return
            serialize(data, proto)

        def identity_encoded(self: Any, *, proto: Any, data: Any = None, **kwargs: Any) -> dict[str, Any]:
            if isinstance(data, EncodedJSON) and proto.WhichOneof("data") == "json":
                kinds = identity(self, proto=type(proto)(), data=None, **kwargs)  # the structural fields only
                kinds["json"] = data.digest
                return kinds
            return identity(self, proto=proto, data=data, **kwargs)

        main.serialize_mixed_data = serialize_encoded
        mixin._build_bidi_identity_kwargs = identity_encoded
        _INSTALLED.append(True)
