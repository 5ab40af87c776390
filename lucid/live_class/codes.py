"""Room codes a class can read off a projector, and teacher tokens nobody can guess or derive.

A code is 6 characters from an alphabet without look-alikes (no 0/O, 1/I/L, 2/Z, 5/S, 8/B): read aloud
or copied from a blurry screen, it is typed right. 25⁶ ≈ 244 million codes against at most a few hundred
live rooms. The teacher's token is 32 random bytes from ``secrets``, independent of the code: a student
who knows the code (it is in their link) learns nothing about the token. Only its SHA-256 is stored, and
it is compared in constant time.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets

ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
CODE_LENGTH = 6
_CODE = re.compile(f"^[{ALPHABET}]{{{CODE_LENGTH}}}$")


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def clean_code(text: object) -> str | None:
    """A code from a URL or a typed box (case and spaces forgiven), or None when it cannot be one."""
    if not isinstance(text, str) or len(text) > 40:
        return None
    code = re.sub(r"[\s-]", "", text).upper()
    return code if _CODE.match(code) else None


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def token_matches(token: object, stored_hash: str) -> bool:
    """Whether ``token`` is the room's teacher token (constant time; anything not a short string is not)."""
    if not isinstance(token, str) or not token or len(token) > 100 or not isinstance(stored_hash, str):
        return False
    return hmac.compare_digest(token_hash(token), stored_hash)


STUDENT_RANDOM_CHARS = 11
STUDENT_SIGNATURE_CHARS = 16
_STUDENT = re.compile(f"^[A-Za-z0-9_-]{{{STUDENT_RANDOM_CHARS + STUDENT_SIGNATURE_CHARS}}}$")


def _signature(secret: str, code: str, random_part: str) -> str:
    mac = hmac.new(secret.encode(), f"student:{code}:{random_part}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode()[:STUDENT_SIGNATURE_CHARS]


def new_student_id(code: str, secret: str) -> str:
    """A student's id in room ``code``, issued by the server: random, then signed with the server's secret.

    It sits in the student's link (``me=``), so a reload is the same student, not one more; a client cannot
    make one up (``student_id_valid`` checks the signature), so every student in a room was issued by the
    server to one browser session, and one room's id is worth nothing in another.
    """
    random_part = secrets.token_urlsafe(8)[:STUDENT_RANDOM_CHARS]
    return random_part + _signature(secret, code, random_part)


def student_id_valid(text: object, code: str, secret: str) -> bool:
    """Whether ``text`` is an id this server issued for room ``code`` (constant time)."""
    if not isinstance(text, str) or not _STUDENT.match(text):
        return False
    random_part, signature = text[:STUDENT_RANDOM_CHARS], text[STUDENT_RANDOM_CHARS:]
    return hmac.compare_digest(signature, _signature(secret, code, random_part))


def address_key(address: object) -> str:
    """A client address as rooms keep it: a short hash, never the address itself (it is personal data)."""
    text = address if isinstance(address, str) and address else "unknown"
    return hashlib.sha256(f"lucid-address:{text}".encode()).hexdigest()[:16]
