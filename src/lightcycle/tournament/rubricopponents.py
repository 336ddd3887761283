"""The opponents a rubric may name, checked before any game, and their default labels.

An opponent is a built-in bot (``builtin:NAME[:key=value,...]``, its settings tried
once), a program file (``py:``, ``cteam:``, ``scheme:``, ``toml:`` or a ``.toml`` bot
file, found relative to the rubric and made absolute so the rubric works from any folder)
or a ``cmd:`` command with its protocol. A series without a label names its opponent
after the built-in bot or the file (`default_label`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lightcycle.bots.api import BotError
from lightcycle.bots.registry import BUILTIN, builtin_names, make_bot
from lightcycle.formats.errors import show
from lightcycle.protocols import get_protocol
from lightcycle.tournament.rubricmodel import RubricError, found_value

PROGRAM_PREFIXES = ("py:", "cteam:", "scheme:", "toml:")
"""Spec prefixes of opponents that are program files."""


def opponent_spec(
    value: object,
    protocol: str | None,
    base: Path | None,
    fail: Callable[[str, str], RubricError],
) -> str:
    """The opponent's spec as a series will play it, or ``fail(expected, found)`` raised.

    Args:
        value: the series' ``opponent`` as read.
        protocol: the series' ``protocol`` (needed by a ``cmd:`` opponent).
        base: the rubric's folder, which relative program paths are read from.
        fail: makes the error, pointing at the opponent's line.
    """
    if not isinstance(value, str) or not value.strip():
        raise fail(
            'an opponent bot spec, e.g. opponent = "builtin:randombot"',
            found_value(value) if value is not None else "no opponent",
        )
    text = value.strip()
    if text.startswith("cmd:"):
        if protocol is None:
            raise fail(
                'protocol = "tron2010" (or aichallenge, sexp, jsonl) for a cmd: opponent',
                "no protocol",
            )
        try:
            get_protocol(protocol)
        except ValueError as exc:
            raise fail("a known protocol", str(exc)) from None
        return text
    prefix = next((p for p in PROGRAM_PREFIXES if text.startswith(p)), "")
    if prefix or text.endswith(".toml"):
        rest = text.removeprefix(prefix)
        suffix = {"py:": ".py", "scheme:": ".scm"}.get(prefix)
        path_text, _, cls = rest.partition(f"{suffix}:") if suffix else (rest, "", "")
        if cls and suffix:
            path_text += suffix
        path = Path(path_text)
        if base is not None and not path.is_absolute():
            path = base / path
        if not path.is_file():
            raise fail(
                "an opponent whose file exists (paths are relative to the rubric)",
                f"{show(text)}: no file {path}",
            )
        return f"{prefix}{path}{':' + cls if cls else ''}"
    name, _, settings = text.removeprefix("builtin:").partition(":")
    name = name.lower()
    if name not in builtin_names():
        raise fail(
            "an opponent: builtin:NAME[:key=value,...] ("
            + ", ".join(builtin_names())
            + "), py:FILE.py, FILE.toml, cteam:FILE.c, scheme:FILE.scm or cmd:'...' with "
            + "protocol",
            show(text),
        )
    spec = f"builtin:{name}" + (f":{settings}" if settings else "")
    if settings:  # build it once, so a bad setting is reported here, with its line
        try:
            make_bot(spec)
        except BotError as exc:
            raise fail("settings the built-in bot accepts", str(exc)) from None
    return spec


def default_label(opponent: str) -> str:
    """An opponent's name when the series gives no label: the built-in bot's, or the file's."""
    if opponent.startswith("builtin:"):
        return BUILTIN[opponent.removeprefix("builtin:").partition(":")[0]].name
    if opponent.startswith("cmd:"):
        return opponent
    path = opponent.split(":", 1)[-1] if opponent.startswith(PROGRAM_PREFIXES) else opponent
    return Path(path.partition(".py:")[0].partition(".scm:")[0]).stem
