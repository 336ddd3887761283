"""Passwords and secrets stored only as salted scrypt hashes, for every service that has accounts.

The game server's accounts (`lightcycle.server.accounts`) and the judge's users
(`lightcycle.judge`) both keep secrets here, so one hash format and one cost policy serve
both. A secret is never stored: `hash_secret` keeps a salted scrypt hash (the standard
library's ``hashlib.scrypt``, a memory-hard password hash) as one string that carries its
own parameters, ``scrypt$n=16384,r=8,p=1$SALT$HASH``, so the cost can be raised later: old
hashes still verify with the parameters written in them, and `needs_rehash` tells the
caller to store a stronger hash at the next good login.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

MAX_SECRET = 1024
"""The longest secret accepted, in characters (hashing a megabyte would be free work for
an attacker)."""

N, R, P = 2**14, 8, 1
"""The scrypt cost of new hashes: 16 MiB and tens of milliseconds a hash, the scrypt
paper's interactive-login parameters (the game server hashes on a thread, off its event
loop)."""

_SALT_BYTES = 16
_HASH_BYTES = 32
_PREFIX = "scrypt"


class SecretError(ValueError):
    """A name or secret that cannot be used; the message is one line for the client."""


def check_secret(secret: str) -> str:
    """``secret`` if it can be an account's secret.

    Raises:
        SecretError: empty or longer than `MAX_SECRET`.
    """
    if not secret:
        raise SecretError("empty secret: give a password")
    if len(secret) > MAX_SECRET:
        raise SecretError(f"secret longer than {MAX_SECRET} characters")
    return secret


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)


def _scrypt(secret: str, salt: bytes, n: int, r: int, p: int, length: int) -> bytes:
    return hashlib.scrypt(
        secret.encode("utf-8"),
        salt=salt,
        n=n,
        r=r,
        p=p,
        maxmem=256 * n * r * p + (1 << 20),
        dklen=length,
    )


def hash_secret(secret: str, *, n: int = N, r: int = R, p: int = P) -> str:
    """A salted scrypt hash of ``secret`` as ``scrypt$n=N,r=R,p=P$SALT$HASH`` (base64).

    Args:
        secret: the secret (checked with `check_secret`).
        n, r, p: scrypt's cost parameters (``n`` a power of two); the defaults are the
            server's current ones.

    Raises:
        SecretError: a secret that cannot be used.
    """
    check_secret(secret)
    salt = secrets.token_bytes(_SALT_BYTES)
    digest = _scrypt(secret, salt, n, r, p, _HASH_BYTES)
    return f"{_PREFIX}$n={n},r={r},p={p}${_b64(salt)}${_b64(digest)}"


def _parse(stored: str) -> tuple[int, int, int, bytes, bytes] | None:
    parts = stored.split("$")
    if len(parts) != 4 or parts[0] != _PREFIX:
        return None
    try:
        params = dict(item.split("=", 1) for item in parts[1].split(","))
        n, r, p = int(params["n"]), int(params["r"]), int(params["p"])
        salt, digest = _unb64(parts[2]), _unb64(parts[3])
    except (KeyError, ValueError):
        return None
    if n < 2 or n & (n - 1) or r < 1 or p < 1 or not salt or not digest:
        return None
    return n, r, p, salt, digest


def verify_secret(secret: str, stored: str) -> bool:
    """Whether ``secret`` is the one ``stored`` was made from.

    The comparison takes the same time wherever the first differing byte is
    (``hmac.compare_digest``). A stored string this module did not write never matches.
    """
    parsed = _parse(stored)
    if parsed is None or not secret or len(secret) > MAX_SECRET:
        return False
    n, r, p, salt, digest = parsed
    return hmac.compare_digest(_scrypt(secret, salt, n, r, p, len(digest)), digest)


def needs_rehash(stored: str, *, n: int = N, r: int = R, p: int = P) -> bool:
    """Whether ``stored`` was made with weaker parameters than the current ones."""
    parsed = _parse(stored)
    if parsed is None:
        return True
    sn, sr, sp, _, _ = parsed
    return sn < n or sr < r or sp < p
