"""What every attack program shares: its arguments and the one line it reports per attack.

An attack program tries something a hostile bot would try and writes to stderr, for each
attempt, one line the tests read back::

    ATTACK <name> WORKED <detail>     the host let it happen
    ATTACK <name> BLOCKED <detail>    refused; the detail names the errno (or the signal)

and ``ATTACK-END`` when it has finished. Arguments are ``key=value`` words (the
environment may be wiped by the sandbox, so nothing is passed through it). Every attempt
is bounded in count, size and time, so a program run without the sandbox cannot harm the
host: at worst it leaves a file or a process that the test removes.

Standard library only, Python 3.11: this file is copied into the bot's own folder.
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys
from collections.abc import Callable

_LIBC: ctypes.CDLL | None = None


def libc() -> ctypes.CDLL:
    """The C library, with ``errno`` kept for `ctypes.get_errno`."""
    global _LIBC
    if _LIBC is None:
        _LIBC = ctypes.CDLL(None, use_errno=True)
    return _LIBC


def args() -> dict[str, str]:
    """The ``key=value`` words given after the program's name."""
    out: dict[str, str] = {}
    for word in sys.argv[1:]:
        key, _, value = word.partition("=")
        out[key] = value
    return out


def report(name: str, worked: bool, detail: object = "") -> None:
    """Write one ``ATTACK`` line to stderr (flushed at once: the bot may be killed next)."""
    text = " ".join(str(detail).split())[:200]
    sys.stderr.write(f"ATTACK {name} {'WORKED' if worked else 'BLOCKED'} {text}\n")
    sys.stderr.flush()


def say(text: str) -> None:
    """Write one progress line (``ATTACK <name> READY ...``) to stderr, flushed."""
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def errno_name(code: int) -> str:
    """``EACCES`` for 13; the number itself for an unknown code."""
    return errno.errorcode.get(code, str(code))


def blocked(name: str, exc: BaseException) -> None:
    """Report an attempt refused with ``exc`` (the errno's name when it has one)."""
    if isinstance(exc, OSError) and exc.errno is not None:
        report(name, False, f"{errno_name(exc.errno)} {exc.strerror or ''}")
    else:
        report(name, False, f"{type(exc).__name__} {exc}")


def attempt(name: str, action: Callable[[], str]) -> None:
    """Run ``action``: WORKED with what it returns, BLOCKED with the error it raises."""
    try:
        detail = action()
    except Exception as exc:  # any refusal counts as blocked; the detail says which
        blocked(name, exc)
    else:
        report(name, True, detail)


def syscall(number: int, *arguments: int | bytes | None) -> int:
    """A raw system call; raises `OSError` with its errno when it returns -1."""
    c_args = [ctypes.c_long(a) if isinstance(a, int) else a for a in arguments]
    result = int(libc().syscall(ctypes.c_long(number), *c_args))
    if result == -1:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return result


def run(main: Callable[[dict[str, str]], None]) -> None:
    """Run an attack program's ``main`` with its arguments, then say ``ATTACK-END``.

    With ``linger=1`` the program then waits for the end of its input, so the test can look
    at its processes from the host while it is still there.
    """
    a = args()
    main(a)
    say("ATTACK-END")
    if a.get("linger") == "1":
        sys.stdin.read()
