"""The server's own lines on the wire: hellos, welcomes, errors and framed messages.

Everything a client sends before its game is parsed here, strictly: a hello with an
unknown key, a wrong type or an over-long value is refused with one line that names the
field and says what is expected, because a client that guesses wrong should learn why at
once rather than be ignored. Game bytes themselves are the protocol codecs' business
(`lightcycle.protocols`); this module only frames them for ``framed`` clients.

Pure functions of bytes, so every message is tested without a socket.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

MAX_NAME = 64
"""Longest name or queue accepted on the wire (the lobby applies its own name rules)."""
MAX_SECRET = 256
MAX_TOKEN = 128

_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


class WireError(ValueError):
    """A client line that breaks the server's own protocol; ``str(exc)`` is the one line
    sent back to the client."""


@dataclass(frozen=True)
class Hello:
    """A client's first line on the jsonl port (see docs/server.md, 'The wire').

    Attributes:
        name: the player name.
        secret: the account secret (``None``: anonymous).
        queue: the queue to join.
        protocol: the codec spoken after the welcome (``jsonl`` by default).
        framed: whether game bytes travel inside ``data`` messages.
        challenge: a player to challenge by name.
        accept: a challenger whose challenge this client accepts.
        resume: the token of an earlier welcome, to take back a dropped seat.
    """

    name: str
    queue: str
    secret: str | None = None
    protocol: str = "jsonl"
    framed: bool = False
    challenge: str | None = None
    accept: str | None = None
    resume: str | None = None


# field -> (required, types, max length, what is expected)
_HELLO_FIELDS: dict[str, tuple[bool, tuple[type, ...], int, str]] = {
    "type": (True, (str,), 16, 'the string "hello"'),
    "name": (True, (str,), MAX_NAME, f"a player name of 1-{MAX_NAME} characters"),
    "queue": (True, (str,), MAX_NAME, f"a queue name of 1-{MAX_NAME} characters"),
    "secret": (False, (str,), MAX_SECRET, f"a secret of 1-{MAX_SECRET} characters"),
    "protocol": (False, (str,), 32, 'a protocol name such as "jsonl"'),
    "framed": (False, (bool,), 0, "true or false"),
    "challenge": (False, (str,), MAX_NAME, "the name of the player to challenge"),
    "accept": (False, (str,), MAX_NAME, "the name of the challenger to accept"),
    "resume": (False, (str,), MAX_TOKEN, "the token of an earlier welcome"),
}


def _text(line: bytes, what: str) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        raise WireError(f"{what} must be UTF-8 text; received {bytes(line[:40])!r}") from None


SECRET_SEPARATOR = "\t"
"""What separates a name from its secret on the Scheme port's first line: a TAB. The
course's name is the whole line trimmed, any printable text, spaces included; a TAB is
whitespace no printable name holds inside it, and a course client, which sends no secret,
never sends one (the lobby refuses every control character in a name)."""


def parse_scheme_hello(line: bytes) -> tuple[str, str | None]:
    """The Scheme port's first line: ``NAME``, or ``NAME<TAB>SECRET`` for an account.

    The line is trimmed of whitespace at both ends first, as the course's ``parse-name``
    reads it, so a line with no TAB inside is the course's name exactly (``Scheme Test
    Client`` is one name, and a stray TAB at either end changes nothing). A TAB inside
    separates the name from the secret, each trimmed again. What the name may hold is the
    lobby's rule (`accounts.check_name`).

    Raises:
        WireError: for an empty name, or an over-long name or secret.
    """
    text = _text(line, "the name line").strip()
    name, _, secret = (part.strip() for part in text.partition(SECRET_SEPARATOR))
    if not name:
        raise WireError("send your name on the first line: NAME, or NAME<TAB>SECRET for an account")
    if len(name) > MAX_NAME:
        raise WireError(f"the name is longer than {MAX_NAME} characters")
    if len(secret) > MAX_SECRET:
        raise WireError(f"the secret is longer than {MAX_SECRET} characters")
    return name, secret or None


def parse_hello(line: bytes) -> Hello:
    """The jsonl port's first line, a JSON object (see `Hello`).

    Raises:
        WireError: naming the first field that is unknown, missing, of the wrong type or
            too long, and what is expected there.
    """
    text = _text(line, "the hello")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise WireError(
            'the first line must be a JSON object such as {"type":"hello","name":"me",'
            '"queue":"torus"}'
        ) from None
    if not isinstance(data, dict):
        raise WireError('the hello must be a JSON object such as {"type":"hello",...}')
    unknown = sorted(k for k in data if k not in _HELLO_FIELDS)
    if unknown:
        raise WireError(
            f"unknown field {unknown[0]!r} in the hello; known: {', '.join(_HELLO_FIELDS)}"
        )
    values: dict[str, Any] = {}
    for key, (required, kinds, longest, expected) in _HELLO_FIELDS.items():
        if key not in data or (data[key] is None and not required):
            if required:
                raise WireError(f"the hello lacks {key!r}: give {expected}")
            continue
        value = data[key]
        if not isinstance(value, kinds) or (bool not in kinds and isinstance(value, bool)):
            raise WireError(f"hello field {key!r} must be {expected}; got {json.dumps(value)}")
        if isinstance(value, str) and not (1 <= len(value) <= longest):
            raise WireError(f"hello field {key!r} must be {expected}")
        values[key] = value
    if values.pop("type") != "hello":
        raise WireError("hello field 'type' must be the string \"hello\"")
    return Hello(**values)


def welcome_line(
    name: str,
    queue: str,
    token: str,
    latency_allowance: float,
    move_time: float | None,
    web: str | None = None,
) -> bytes:
    """The jsonl port's answer to an accepted hello.

    ``web`` is the server's web page (``http://HOST:PORT``) when it runs: a client can
    then tell its player where the game is shown live. Absent when there is none.
    """
    message: dict[str, Any] = {
        "type": "welcome",
        "name": name,
        "queue": queue,
        "token": token,
        "latency_allowance": latency_allowance,
        "move_time": move_time,
    }
    if web is not None:
        message["web"] = web
    return _line(message)


def error_line(message: str) -> bytes:
    """The jsonl port's refusal: ``{"type":"error","error":MSG}``; the server then closes."""
    return _line({"type": "error", "error": message})


def scheme_error_line(message: str) -> bytes:
    """The Scheme port's refusal: ``(error "MSG")`` (a Scheme string literal)."""
    escaped = message.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")
    return f'(error "{escaped}")\n'.encode()


def scheme_aborted_lines(reason: str) -> bytes:
    """What a Scheme-port client in a game hears when the game is cut short.

    ``draw``, then the reason as a Scheme comment: ``; the game was aborted: REASON``.
    Once its board has come, the course's client reads each next datum as a position
    or as ``win``, ``loss`` or ``draw`` (the course's protocol has no other ending), so
    an ``(error "...")`` there is read as a position and its brain fails on it, and
    ``tron.scm``'s ``play-remote-tron`` raises an error as for a refused login. ``draw``
    is the one result that claims nothing: nobody won and nobody lost, and the server
    records the game as aborted, unrated. The reason comes after the result, so a
    client reading one datum or one line takes ``draw`` first, and Scheme's ``read``
    skips a comment anyway; a person reading the transcript sees why.
    """
    return b"draw\n; the game was aborted: " + _one_line(reason).encode() + b"\n"


def _one_line(text: str) -> str:
    """``text`` with control characters as spaces: a comment must stay on its line."""
    return "".join(" " if ord(c) < 32 or ord(c) == 127 else c for c in text)


def data_message(turn: int, data: bytes) -> bytes:
    """A framed server message carrying protocol bytes (text) for turn ``turn``."""
    return _line({"type": "data", "turn": turn, "data": data.decode("utf-8", "replace")})


def end_message(result: str, verdict: str, detail: str, game: str, ranks: list[int]) -> bytes:
    """The framed server's last message of a game."""
    return _line(
        {
            "type": "end",
            "result": result,
            "verdict": verdict,
            "detail": detail,
            "game": game,
            "ranks": ranks,
        }
    )


def parse_data(line: bytes) -> bytes:
    """A framed client line ``{"type":"data","data":STR}``: the protocol bytes it carries.

    Raises:
        WireError: for anything else.
    """
    expected = 'framed lines must be {"type":"data","data":"..."}'
    try:
        data = json.loads(_text(line, "a framed line"))
    except (ValueError, RecursionError):
        raise WireError(f"{expected}; received {bytes(line[:60])!r}") from None
    if (
        not isinstance(data, dict)
        or data.get("type") != "data"
        or not isinstance(data.get("data"), str)
        or set(data) - {"type", "data", "turn"}
    ):
        raise WireError(f"{expected}; received {bytes(line[:60])!r}")
    return str(data["data"]).encode()


def _line(message: dict[str, Any]) -> bytes:
    return _dumps(message).encode() + b"\n"
