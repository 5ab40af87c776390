"""Room codes a class can read off a projector, and teacher tokens nobody can guess or derive.

A code is 6 characters from an alphabet without look-alikes (no 0/O, 1/I/L, 2/Z, 5/S, 8/B): read aloud
or copied from a blurry screen, it is typed right. 25⁶ ≈ 244 million codes against at most a few hundred
live rooms. The teacher's token is 32 random bytes from ``secrets``, independent of the code: a student
who knows the code (it is in their link) learns nothing about the token. Only its SHA-256 is stored, and
it is compared in constant time.
"""
from __future__ import annotations

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


def new_student_id() -> str:
    """A student's own id in their link (``me=``): a reload is the same student, not one more."""
    return secrets.token_urlsafe(9)


_STUDENT = re.compile(r"^[A-Za-z0-9_-]{8,20}$")


def clean_student_id(text: object) -> str | None:
    return text if isinstance(text, str) and _STUDENT.match(text) else None
