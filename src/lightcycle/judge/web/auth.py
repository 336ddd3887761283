"""Who is asking: the cookie-signing key, sessions, CSRF tokens and the form checks of accounts.

Sessions are Starlette's signed cookies (itsdangerous): the cookie holds the user's id and
the session's CSRF token, signed with a key that never leaves the judge's machine, so a
student can read but not forge it. The key lives in a file made on first start with mode
0600 (`load_secret_key`): a key made afresh at each start would log everyone out at every
restart, and one in the contest file would end up in a course's git repository.

Every form carries the session's CSRF token in a hidden field and every POST compares it
(`csrf_ok`): a page of another site can make a student's browser post to the judge with
the student's cookie, but cannot read the token out of the judge's pages.
"""

from __future__ import annotations

import hmac
import os
import re
import secrets
import stat
from pathlib import Path
from typing import Any

KEY_BYTES = 32
"""The cookie-signing key's length: 256 bits, beyond any guessing."""

EMAIL = re.compile(
    r"(?=.{6,254}$)"  # a whole address fits the SMTP limit
    r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"  # dot-atoms
    r"@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+"  # domain labels
    r"(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})"  # a top-level domain
)
"""An email address as a sign-up form takes it: a real address's shape (RFC 5322's
dot-atom local part, a domain of host-name labels, a top-level domain), so no markup or
quoting (``"><script>...@x.edu``) becomes an account name. The judge sends no mail: the
address is a login name the instructor can recognise. Quoted local parts and non-ASCII
addresses are refused (write an internationalised domain in its ``xn--`` form)."""

MIN_PASSWORD = 8
"""The shortest password the sign-up form accepts."""

MAX_PASSWORD = 1024
"""The longest (scrypt would hash a megabyte for free for an attacker)."""


class KeyFileError(RuntimeError):
    """The key file cannot be made or read; the message is one line for the instructor."""


def load_secret_key(path: Path) -> bytes:
    """The cookie-signing key in ``path``, made (random, mode 0600) if the file is missing.

    A key file that others may read is made 0600: whoever reads it can sign a cookie
    that says "admin".

    Raises:
        KeyFileError: the file cannot be made or read, or holds too short a key.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    except OSError as exc:
        raise KeyFileError(f"cannot make the key file {path}: {exc.strerror}") from None
    else:
        with os.fdopen(fd, "wb") as out:
            out.write(secrets.token_bytes(KEY_BYTES))
    try:
        if stat.S_IMODE(path.stat().st_mode) & 0o077:
            path.chmod(0o600)
        key = path.read_bytes()
    except OSError as exc:
        raise KeyFileError(f"cannot read the key file {path}: {exc.strerror}") from None
    if len(key) < 16:
        raise KeyFileError(
            f"the key file {path} holds {len(key)} bytes: delete it to make a new one"
        )
    return key


def csrf_token(session: dict[str, Any]) -> str:
    """The session's CSRF token, made on first use."""
    token = session.get("csrf")
    if not isinstance(token, str) or not token:
        token = secrets.token_urlsafe(24)
        session["csrf"] = token
    return token


def csrf_ok(session: dict[str, Any], sent: object) -> bool:
    """Whether ``sent`` is the session's token (compared in constant time)."""
    token = session.get("csrf")
    return (
        isinstance(token, str)
        and bool(token)
        and isinstance(sent, str)
        and hmac.compare_digest(token.encode(), sent.encode())
    )


def log_in(session: dict[str, Any], user_id: int) -> None:
    """Start a fresh session for ``user_id``: a new CSRF token, nothing kept from before
    (a token planted before the log-in must not survive it)."""
    session.clear()
    session["user_id"] = user_id
    csrf_token(session)


def check_email(email: str) -> str | None:
    """The problem with ``email`` as a login, or None."""
    if not EMAIL.fullmatch(email):
        return "give an email address, like jane@example.edu"
    return None


def check_password(password: str) -> str | None:
    """The problem with ``password`` as a new password, or None."""
    if len(password) < MIN_PASSWORD:
        return f"choose a password of at least {MIN_PASSWORD} characters"
    if len(password) > MAX_PASSWORD:
        return f"choose a password of at most {MAX_PASSWORD} characters"
    return None
