"""A detective case as a link: which rule is broken travels sealed, so the student cannot read or forge it.

The case (a fault and the node it is planted at) is bound to the program's text and sealed with the
server's secret:

- **unreadable**: the 3 bytes of the case are XORed with a keystream HMAC-SHA-256(secret, "ks" · nonce ·
  sha256(program)); a fresh 8-byte nonce per link, so two links for the same case look unrelated;
- **unforgeable**: a 12-byte tag HMAC-SHA-256(secret, "tag" · nonce · sealed case · sha256(program)),
  compared in constant time, so a changed byte, another program or another server's link is refused;
- **bounded**: a link longer than ``MAX_TOKEN_CHARS``, not of the exact decoded length, or not the one canonical
  spelling of its bytes (base64's spare bits in the last character) is refused before any HMAC is computed.

The token is URL-safe base64 without padding (31 characters).
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets

from lucid.i18n import L_
from lucid.practice.faults import FAULTS, Fault, Target

__all__ = ["MAX_TOKEN_CHARS", "InvalidCase", "open_case", "seal_case"]

MAX_TOKEN_CHARS = 64
_NONCE, _CASE, _TAG = 8, 3, 12
_LENGTH = _NONCE + _CASE + _TAG


class InvalidCase(ValueError):
    """A detective link that is not one this server sealed for this program (its message says so in words)."""


def _key(secret: str | bytes) -> bytes:
    return secret.encode("utf-8") if isinstance(secret, str) else bytes(secret)


def _digest(source: str) -> bytes:
    return hashlib.sha256(source.encode("utf-8", "surrogatepass")).digest()


def _mac(secret: bytes, label: bytes, *parts: bytes) -> bytes:
    return hmac.new(secret, label + b"".join(parts), hashlib.sha256).digest()


def seal_case(target: Target, source: str, secret: str | bytes) -> str:
    """The link token for ``target`` planted in the program ``source``."""
    code = FAULTS.index(target.fault)
    if not 0 <= target.index < 1 << 16:
        raise ValueError("a detective case names a node below 65536")
    case = bytes([code]) + target.index.to_bytes(2, "big")
    key, nonce, digest = _key(secret), secrets.token_bytes(_NONCE), _digest(source)
    stream = _mac(key, b"lucid-detective-ks", nonce, digest)[:_CASE]
    sealed = bytes(a ^ b for a, b in zip(case, stream))
    tag = _mac(key, b"lucid-detective-tag", nonce, sealed, digest)[:_TAG]
    return base64.urlsafe_b64encode(nonce + sealed + tag).decode("ascii").rstrip("=")


def open_case(token: object, source: str, secret: str | bytes) -> Target:
    """The case a token seals for ``source``; ``InvalidCase`` for anything this server did not seal for it."""
    if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_CHARS:
        raise InvalidCase(L_("This detective link is not complete: copy the whole link from the teacher."))
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        raise InvalidCase(L_("This detective link is not complete: copy the whole link from the teacher.")) from None
    if len(raw) != _LENGTH or base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=") != token:
        # the wrong length, or not the one spelling of these bytes (the last character's spare bits changed)
        raise InvalidCase(L_("This detective link is not complete: copy the whole link from the teacher."))
    key, digest = _key(secret), _digest(source)
    nonce, sealed, tag = raw[:_NONCE], raw[_NONCE:_NONCE + _CASE], raw[_NONCE + _CASE:]
    if not hmac.compare_digest(tag, _mac(key, b"lucid-detective-tag", nonce, sealed, digest)[:_TAG]):
        raise InvalidCase(L_("This detective link was not made on this server for this program."))
    stream = _mac(key, b"lucid-detective-ks", nonce, digest)[:_CASE]
    case = bytes(a ^ b for a, b in zip(sealed, stream))
    code, index = case[0], int.from_bytes(case[1:], "big")
    if code >= len(FAULTS):
        raise InvalidCase(L_("This detective link was not made on this server for this program."))
    fault: Fault = FAULTS[code]
    return Target(fault, index)
