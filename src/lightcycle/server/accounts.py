"""Player names and secrets: what a name may be, and secrets stored only as scrypt hashes.

An account is a name with a secret, claimed by the first login that gives a secret
(docs/server.md, "Accounts"). The secret is never stored: `hash_secret`, `verify_secret`
and `needs_rehash` live in `lightcycle.storage.passwords` (shared with the judge's users)
and are re-exported here: a salted scrypt hash that carries its own parameters, so the
cost can be raised later and the server stores a stronger hash at the next good login.

Names are compared without regard to case (``Alice`` and ``alice`` are one account): a
name that differs from another only by case would let one player pass for another on a
ladder page.
"""

from __future__ import annotations

import re

from lightcycle.storage.passwords import (
    MAX_SECRET,
    N,
    P,
    R,
    SecretError,
    _b64,
    _unb64,
    hash_secret,
    needs_rehash,
    verify_secret,
)

__all__ = [
    "MAX_SECRET",
    "NAME",
    "N",
    "P",
    "R",
    "SecretError",
    "_b64",
    "_unb64",
    "check_name",
    "check_secret",
    "hash_secret",
    "name_key",
    "needs_rehash",
    "verify_secret",
]

NAME = re.compile(r"[A-Za-z0-9_-]{1,16}")
"""A player name: 1-16 letters, digits, ``_`` or ``-`` (it is sent in the Scheme course's
one-line hello and shown on pages, so nothing that needs quoting)."""


def check_name(name: str) -> str:
    """``name`` if it is a valid player name.

    Raises:
        SecretError: naming the rule.
    """
    if not NAME.fullmatch(name):
        shown = name if len(name) <= 40 else name[:40] + "..."
        raise SecretError(f"bad name {shown!r}: use 1-16 letters, digits, _ or - (e.g. alice_2)")
    return name


def name_key(name: str) -> str:
    """The key names are unique by: case does not make two names different."""
    return name.lower()


def check_secret(secret: str) -> str:
    """``secret`` if it can be an account's secret.

    Raises:
        SecretError: empty or longer than `MAX_SECRET`.
    """
    if not secret:
        raise SecretError("empty secret: give a secret, or none to play anonymously")
    if len(secret) > MAX_SECRET:
        raise SecretError(f"secret longer than {MAX_SECRET} characters")
    return secret
