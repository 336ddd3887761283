"""Finding bots by name: ``random``, ``builtin:chaser``, ``py:path/to/bot.py[:NAME]``."""

from __future__ import annotations

import difflib
import importlib.util
import inspect
import typing
from pathlib import Path
from types import UnionType
from typing import Any, Union

from lightcycle.bots.api import Bot, BotError
from lightcycle.bots.builtin import BUILTIN as _LADDER
from lightcycle.bots.ladder import LADDER_TOP
from lightcycle.bots.teams import TEAM_BOTS
from lightcycle.bots.tron3d import TRON3D_BOTS

BUILTIN: dict[str, type[Bot]] = {**_LADDER, **LADDER_TOP, **TEAM_BOTS, **TRON3D_BOTS}
"""Every built-in bot by name: the duel ladder (weakest first), the team course's, the 3D
course's."""

LADDER = ["random", "wallhugger", "chaser", "runaway", "floodfill", "territory", "medium", "strong"]
"""The duel ladder from weakest to strongest: each rung beats the one below."""


def builtin_names() -> list[str]:
    """The names of the built-in bots."""
    return sorted(BUILTIN)


def make_bot(spec: str | Bot | type[Bot]) -> Bot:
    """Return a fresh bot for ``spec``.

    Args:
        spec: a `Bot`, a `Bot` subclass (instantiated), a built-in name (``random``,
            ``builtin:random``, with constructor settings ``builtin:strong:nodes=20000``
            or ``strong:depth=4,move_time=0.05``), or ``py:FILE.py`` /
            ``py:FILE.py:NAME`` for a bot written in Python (``NAME``: a `Bot` class or
            a `Bot` instance the file makes, such as a trained policy seated as a
            bot).

    Raises:
        BotError: saying what was wrong and what forms are accepted.
    """
    if isinstance(spec, Bot):
        return spec
    if isinstance(spec, type) and issubclass(spec, Bot):
        return spec()
    if not isinstance(spec, str):
        raise BotError(f"not a bot: {spec!r}")
    text = spec.strip()
    if text.startswith("py:"):
        return _load_python(text[3:])
    name, _, params = text.removeprefix("builtin:").partition(":")
    name = name.lower()
    if name in BUILTIN:
        return _build(BUILTIN[name], params, spec)
    close = difflib.get_close_matches(name, BUILTIN, n=2)
    hint = f" Did you mean {' or '.join(close)}?" if close else ""
    raise BotError(
        f"unknown bot {spec!r}.{hint} Built-in bots: {', '.join(builtin_names())}; "
        "or give py:path/to/bot.py[:NAME]."
    )


def _takes_any(cls: type[Bot]) -> bool:
    """Whether the bot's constructor takes ``**kwargs`` (then any setting may be its)."""
    return any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in inspect.signature(cls).parameters.values()
    )


def _build(cls: type[Bot], params: str, spec: str) -> Bot:
    """Instantiate a built-in bot with ``key=value,...`` settings (ints, floats, text)."""
    if not params:
        return cls()
    kwargs: dict[str, Any] = {}
    for item in params.split(","):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise BotError(f"bad setting {item!r} in {spec!r}: expected key=value")
        kwargs[key.strip()] = _number(value.strip())
    kinds = _setting_kinds(cls)
    known = list(inspect.signature(cls).parameters)
    for key in kwargs:
        if key not in known and not _takes_any(cls):
            close = difflib.get_close_matches(key, known, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise BotError(
                f"{spec!r}: {cls.__name__} has no setting {key!r}{hint}; its settings: "
                + (", ".join(known) or "none")
            )
    for key, value in kwargs.items():
        want = kinds.get(key)
        if want and not any(_fits(value, kind) for kind in want):
            names = " or ".join(kind.__name__ for kind in want)
            raise BotError(f"{spec!r}: {key} must be {names}, got {value!r}")
    try:
        return cls(**kwargs)
    except TypeError as exc:
        accepted = ", ".join(p for p in inspect.signature(cls).parameters) or "none"
        raise BotError(f"{spec!r}: {exc}; {cls.__name__} accepts: {accepted}") from exc
    except ValueError as exc:
        raise BotError(f"{spec!r}: {exc}") from exc


def _setting_kinds(cls: type[Bot]) -> dict[str, tuple[type, ...]]:
    """The plain types (int, float, str, bool) each constructor setting accepts, from its
    annotations: ``nodes=abc`` must be refused here, as a bot given a text node budget
    would search without end. Settings without such annotations are not checked."""
    try:
        hints = typing.get_type_hints(cls.__init__)
    except Exception:  # unresolvable annotations: leave the check to the bot
        return {}
    plain = (bool, int, float, str)
    out: dict[str, tuple[type, ...]] = {}
    for name, hint in hints.items():
        args = typing.get_args(hint) if typing.get_origin(hint) in (Union, UnionType) else (hint,)
        kinds = tuple(a for a in args if a in plain)
        if kinds and all(a in plain or a is type(None) for a in args):
            out[name] = kinds
    return out


def _fits(value: Any, kind: type) -> bool:
    """Whether a parsed setting is of ``kind`` (an int is a float too; text is not a
    number)."""
    if kind is float:
        return isinstance(value, (int, float))
    if kind is bool:
        return isinstance(value, bool)
    return isinstance(value, kind)


def _number(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _load_python(target: str) -> Bot:
    """The bot of ``py:FILE.py[:NAME]``: a fresh import of the file for every call.

    ``NAME`` is a `Bot` class defined in the file, or a `Bot` instance the file makes at
    module level (``bot = PolicyBot(policy, name="PPO")``: how a trained policy becomes a
    seat, since its weights are the file's to load). Without ``NAME``: the one `Bot`
    class the file defines, else its one `Bot` instance. Importing anew per call gives
    every game a fresh instance, as a class would.
    """
    path_text, _, name = target.partition(".py:")
    path = Path(path_text + ".py" if name else path_text)
    if not path.is_file():
        raise BotError(f"bot file {path} not found (spec py:{target})")
    mod_spec = importlib.util.spec_from_file_location(f"lightcycle_user_bot_{path.stem}", path)
    if mod_spec is None or mod_spec.loader is None:
        raise BotError(f"cannot load {path} as Python")
    module = importlib.util.module_from_spec(mod_spec)
    try:
        mod_spec.loader.exec_module(module)
    except Exception as exc:
        raise BotError(f"{path} failed to import: {type(exc).__name__}: {exc}") from exc
    found: list[Any] = [
        obj
        for obj in vars(module).values()
        if inspect.isclass(obj)
        and issubclass(obj, Bot)
        and obj is not Bot
        and obj.__module__ == module.__name__
    ]
    made = {key: obj for key, obj in vars(module).items() if isinstance(obj, Bot)}
    if name:
        match = [c for c in found if c.__name__ == name]
        if match:
            return match[0]()  # type: ignore[no-any-return]
        if name in made:
            return made[name]
        names = ", ".join([c.__name__ for c in found] + list(made)) or "none"
        raise BotError(
            f"{path} has no Bot class {name!r} and no Bot instance of that name (found: {names})"
        )
    if len(found) == 1:
        return found[0]()  # type: ignore[no-any-return]
    if not found and len(made) == 1:
        return next(iter(made.values()))
    if found:
        names = ", ".join(c.__name__ for c in found)
        raise BotError(
            f"{path} defines {len(found)} Bot classes ({names}); name one as py:{path}:ClassName"
        )
    names = ", ".join(made) or "none"
    raise BotError(
        f"{path} defines no Bot class and {len(made)} Bot instances ({names}); "
        f"name one as py:{path}:NAME"
    )
