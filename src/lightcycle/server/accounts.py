"""Player names and secrets: what a name may be, and secrets stored only as scrypt hashes.

An account is a name with a secret, claimed by the first login that gives a secret
(docs/server.md, "Accounts"). The secret is never stored: `hash_secret`, `verify_secret`
and `needs_rehash` live in `lightcycle.storage.passwords` (shared with the judge's users)
and are re-exported here: a salted scrypt hash that carries its own parameters, so the
cost can be raised later and the server stores a stronger hash at the next good login.

Names are compared without regard to case (``Alice`` and ``alice`` are one account): a
name that differs from another only by case would let one player pass for another on a
ladder page. A name is any printable text (the Scheme course sends its name as a whole
line, spaces and all), so pages escape it and links quote it.
"""

from __future__ import annotations

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
    "MAX_NAME_LENGTH",
    "MAX_SECRET",
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

MAX_NAME_LENGTH = 40
"""Longest player name: room for the names the Scheme course's clients send (``Scheme
Test Client``), short enough for a ladder row."""

RESERVED_PREFIX = "builtin:"
"""Names of the built-in fill bots (``builtin:medium``), which are rated under that name:
no player may take one and play on a bot's rating."""


def check_name(name: str) -> str:
    """``name`` if it is a valid player name.

    A name is the Scheme course's name line, trimmed: any printable text of 1-40
    characters, spaces inside included (``Scheme Test Client``), no control character
    (the Scheme port's TAB separates a name from its secret, so no name can hold one),
    no space at either end (the course trims them), and not a built-in bot's name.

    Raises:
        SecretError: naming the rule.
    """
    shown = name if len(name) <= 40 else name[:40] + "..."
    rule = (
        f"a name is 1-{MAX_NAME_LENGTH} printable characters, spaces inside allowed "
        "(e.g. Scheme Test Client)"
    )
    if not name or len(name) > MAX_NAME_LENGTH:
        raise SecretError(f"bad name {shown!r}: {rule}")
    bad = next((c for c in name if not c.isprintable()), None)
    if bad is not None:
        raise SecretError(
            f"bad name {shown!r}: it holds the unprintable character U+{ord(bad):04X}; {rule}"
        )
    if name != name.strip():
        raise SecretError(f"bad name {shown!r}: no space at its start or end; {rule}")
    if name_key(name).startswith(RESERVED_PREFIX):
        raise SecretError(f"bad name {shown!r}: {RESERVED_PREFIX}... names the built-in bots")
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
