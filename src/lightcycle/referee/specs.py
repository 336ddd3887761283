"""Bot specs: what a bot on the command line or in a file is, and where its program runs.

A spec is one of the forms listed in `lightcycle.referee.players` (``builtin:NAME``,
``py:``, ``cmd:``, a TOML bot file, ``cteam:``, ``scheme:``, ``http://``); `parse_bot_spec` reads it
into a `BotSpec` without starting anything, so a command can refuse a bad spec before it
writes a file. `launch` says which argv and folder a program bot is started with: its
own folder (`program_folder`), as a judge would run it, which in the sandbox is the one
host folder the bot can read.
"""

from __future__ import annotations

import itertools
import os
import re
import shlex
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lightcycle.bots.api import BotError
from lightcycle.bots.registry import make_bot
from lightcycle.protocols import get_protocol
from lightcycle.referee.clock import TimeControl


@dataclass(frozen=True)
class BotSpec:
    """A parsed bot spec.

    Attributes:
        text: the spec as given.
        kind: ``inproc`` (built-in and ``py:`` bots), ``program``, or ``http`` (a
            Battlesnake server; ``text`` is its URL).
        name: the display name (``None``: from the bot or the command).
        command: the program's argv.
        protocol: the program's wire protocol.
        cwd: where the command's relative paths are read from (``None``: the referee's
            current directory).
        folder: the program's own folder when its spec fixes it (a bot file's ``cwd``, a
            C team's source folder); ``None``: derived from the command
            (`program_folder`).
        read_only: more files or folders the sandboxed program reads (a C team's
            compiled library).
        time: time-control overrides from a bot file.
        memory: the program's memory limit in bytes (``None``: the match default).
        reuse: keep the process from game to game although the protocol cannot say that
            a new game begins (only protocols whose codec is ``reusable``: ``tron2010``);
            the bot's author vouches that the bot keeps no state between turns.
    """

    text: str
    kind: str
    name: str | None = None
    command: tuple[str, ...] = ()
    protocol: str | None = None
    cwd: Path | None = None
    folder: Path | None = None
    read_only: tuple[Path, ...] = ()
    time: dict[str, Any] = field(default_factory=dict)
    memory: int | None = None
    reuse: bool = False


class MissingProtocol(BotError):
    """A program bot with no protocol. The message suggests ``--protocol`` (the command
    line's way); a caller reading a file (a tournament's TOML) catches this and names its
    own key instead."""


def check_url(text: str) -> str:
    """The URL of an HTTP bot, checked: ``http://`` or ``https://``, a host, a port.

    Reading a spec is this module's job, the URL form included, so the HTTP client
    (`lightcycle.referee.http_bot`, which checks its URL with this too) imports it from
    here and parsing a spec needs nothing of the client.

    Raises:
        BotError: naming what is wrong and the accepted form.
    """
    form = "give it as http://HOST:PORT (or https://HOST[:PORT][/PATH])"
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise BotError(f"{text!r}: not a URL ({exc}); {form}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BotError(f"{text!r}: no host; {form}")
    if parts.query or parts.fragment or parts.username is not None:
        raise BotError(f"{text!r}: a bot URL has no query, fragment or user; {form}")
    if port == 0:
        raise BotError(f"{text!r}: port 0 is no port; {form}")
    return text


def parse_bot_spec(text: str, protocol: str | None = None, reuse: bool = False) -> BotSpec:
    """Read a bot spec (the forms: `lightcycle.referee.players`).

    Args:
        text: the spec.
        protocol: the protocol of ``cmd:`` bots (``--protocol``).
        reuse: keep program bots' processes from game to game (``--reuse-processes``);
            refused for a protocol that cannot allow it. A bot file's own ``reuse`` key
            wins over it.

    Raises:
        BotError: naming what is wrong and the accepted forms.
    """
    t = text.strip()
    if t.startswith(("http://", "https://")):
        return BotSpec(text=check_url(t), kind="http")
    if t.startswith("cteam:"):
        from lightcycle.hosts.cteam import CTeamError, team_bot_command

        source = Path(t.removeprefix("cteam:"))
        try:
            argv = team_bot_command(source)
        except CTeamError as exc:
            raise BotError(f"{t}: {exc}") from None
        # the team runs in its source's folder; its library may lie in a cache shared
        # with other teams' libraries, so the sandbox gets that one file only
        return BotSpec(
            text=t,
            kind="program",
            name=source.name,
            command=argv,
            protocol="jsonl",
            folder=source.resolve().parent,
            read_only=(Path(argv[-1]),),
        )
    if t.startswith("scheme:"):
        return _scheme_brain(t)
    if t.startswith("cmd:"):
        try:
            argv = tuple(shlex.split(t[4:]))
        except ValueError as exc:
            raise BotError(f"cannot split the command of {text!r}: {exc}") from None
        if not argv:
            raise BotError(f"{text!r}: give a command after cmd:, e.g. cmd:'python3 bot.py'")
        if protocol is None:
            raise MissingProtocol(
                f"{text!r} needs a protocol: add --protocol tron2010|aichallenge|sexp|jsonl"
            )
        _check_protocol(protocol, text)
        if reuse:
            _check_reuse(protocol, text)
        return BotSpec(text=t, kind="program", command=argv, protocol=protocol, reuse=reuse)
    if t.endswith(".toml") or t.startswith("toml:"):
        return read_bot_file(Path(t.removeprefix("toml:")), protocol, reuse)
    make_bot(t)  # raises BotError with the accepted forms
    return BotSpec(text=t, kind="inproc")


def _scheme_brain(text: str) -> BotSpec:
    """``scheme:FILE.scm[:PROC]``: a brain of the Scheme course's library, played by its
    seat runner (`lightcycle.kits.scheme.seat_command`) over ``sexp``. The brain runs in
    its file's folder; the sandbox also reads the library's folder (``tron.scm``)."""
    from lightcycle.kits.scheme import (
        SchemeMissing,
        defines_brain,
        library_dir,
        seat_command,
        split_brain_spec,
    )

    source, proc = split_brain_spec(text.removeprefix("scheme:"))
    if not source.is_file():
        raise BotError(f"{text}: no file {source} (scheme:FILE.scm or scheme:FILE.scm:PROC)")
    try:
        body = source.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise BotError(f"{text}: cannot read {source}: {exc.strerror or exc}") from None
    if not defines_brain(body):
        raise BotError(
            f"{text}: {source} defines no brain with (define-tron-brain ...); a whole "
            "program that speaks the protocol itself runs as cmd:'guile FILE.scm' "
            "--protocol sexp"
        )
    try:
        argv = seat_command(source, proc)
    except SchemeMissing as exc:
        raise BotError(f"{text}: {exc}") from None
    return BotSpec(
        text=text,
        kind="program",
        name=source.name + (f":{proc}" if proc else ""),
        command=argv,
        protocol="sexp",
        folder=source.resolve().parent,
        read_only=(library_dir(),),
    )


def _check_protocol(protocol: str, where: str) -> None:
    try:
        get_protocol(protocol)
    except ValueError as exc:
        raise BotError(f"{where}: {exc}") from None


def _check_reuse(protocol: str, where: str) -> None:
    """Refuse ``reuse`` for a protocol whose bots cannot play two games in one process."""
    codec = get_protocol(protocol)
    if codec.multi_game or codec.reusable:
        return
    raise BotError(
        f"{where}: {codec.name} bots cannot play two games in one process (the protocol "
        "sends only positions, so a bot must remember the trails, and the bot stops at the "
        "end of a game); reuse is for stateless tron2010 bots, and jsonl bots are always "
        "kept"
    )


def read_bot_file(path: Path, protocol: str | None = None, reuse: bool = False) -> BotSpec:
    """Read a TOML bot file.

    Keys: ``command`` (a string or a list, required), ``protocol`` (default: the match's
    ``--protocol``), ``name``, ``cwd`` (relative to the file: the bot's working directory
    and own folder; default: the command's paths are read from the file's folder, and the
    bot runs in its program's folder, `program_folder`),
    ``memory_mb``, ``reuse`` (true: keep the process from game to game, for a stateless
    ``tron2010`` bot; default: the match's ``--reuse-processes``), and a ``[time]`` table
    (``move``, ``first_move``, ``bank``, ``average``, ``cpu`` in seconds).

    Raises:
        BotError: naming the file and the key that is wrong.
    """
    if not path.is_file():
        raise BotError(f"bot file {path} not found")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise BotError(f"{path}: not valid TOML: {exc}") from None
    known = {"command", "protocol", "name", "cwd", "memory_mb", "reuse", "time"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise BotError(
            f"{path}: unknown key {', '.join(unknown)}; known: {', '.join(sorted(known))}"
        )
    command = data.get("command")
    if isinstance(command, str):
        try:
            argv = tuple(shlex.split(command))
        except ValueError as exc:
            raise BotError(f'{path}: cannot split "command": {exc}') from None
    elif isinstance(command, list) and all(isinstance(a, str) for a in command):
        argv = tuple(command)
    else:
        raise BotError(
            f'{path}: "command" must be a string or a list of strings, e.g. command = "./mybot"'
        )
    if not argv:
        raise BotError(f'{path}: "command" is empty')
    proto = data.get("protocol", protocol)
    if not isinstance(proto, str):
        raise MissingProtocol(f'{path}: set protocol = "tron2010" (or aichallenge, sexp, jsonl)')
    _check_protocol(proto, str(path))
    name = data.get("name")
    if name is not None and not isinstance(name, str):
        raise BotError(f'{path}: "name" must be a string')
    cwd_text = data.get("cwd", ".")
    if not isinstance(cwd_text, str):
        raise BotError(f'{path}: "cwd" must be a string (a folder)')
    cwd = (path.parent / cwd_text).resolve()
    folder = cwd if "cwd" in data else None
    if not cwd.is_dir():
        raise BotError(f"{path}: cwd {cwd} is not a folder")
    timing = data.get("time", {})
    if not isinstance(timing, dict) or not all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in timing.values()
    ):
        raise BotError(f"{path}: [time] holds numbers of seconds, e.g. move = 1.0")
    known_time = set(TimeControl().to_dict())
    unknown_time = sorted(set(timing) - known_time)
    if unknown_time:
        raise BotError(
            f"{path}: unknown [time] key {', '.join(unknown_time)}; "
            f"known: {', '.join(sorted(known_time))}"
        )
    negative = sorted(k for k, v in timing.items() if v < 0)
    if negative:
        raise BotError(f"{path}: [time] {', '.join(negative)} must be >= 0 seconds")
    memory = data.get("memory_mb")
    if memory is not None and (
        not isinstance(memory, int) or isinstance(memory, bool) or memory <= 0
    ):
        raise BotError(f'{path}: "memory_mb" must be a positive integer')
    keep = data.get("reuse", reuse)
    if not isinstance(keep, bool):
        raise BotError(f'{path}: "reuse" must be true or false')
    if keep:
        _check_reuse(proto, str(path))
    return BotSpec(
        text=str(path),
        kind="program",
        name=name,
        command=argv,
        protocol=proto,
        cwd=cwd,
        folder=folder,
        time={k: float(v) for k, v in timing.items()},
        memory=memory * (1 << 20) if memory is not None else None,
        reuse=keep,
    )


INTERPRETER = re.compile(
    r"(python|pypy|node|nodejs|bun|deno|ruby|perl|php|lua|luajit|Rscript|julia|sh|bash|dash"
    r"|zsh|ksh|java|tclsh|guile|racket|ocaml|escript)[0-9.]*"
)
"""Programs that run a script named among their arguments (``python3 bots/a/bot.py``):
the bot's folder is the script's, not the interpreter's."""

CODE_OPTIONS = ("-c", "-m", "-e", "-E", "--eval")
"""Interpreter options after which the bot is code or a module, not a file."""

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")


def _is_system(folder: Path) -> bool:
    return any(folder == Path(d) or Path(d) in folder.parents for d in SYSTEM_DIRS)


def program_folder(command: Sequence[str], base: Path) -> Path | None:
    """The folder of the program a bot command runs, or ``None`` (the system's program).

    - ``./bots/a/bot`` (a path): ``bots/a``;
    - ``python3 bots/a/bot.py`` (a known interpreter, `INTERPRETER`): the folder of the
      first argument that is an existing file (``java -jar bots/a/bot.jar`` too);
      ``None`` where the bot is code or a module (``python3 -m pkg``, ``sh -c ...``);
    - ``mybot`` (a bare name on the ``PATH``), or a program in a system folder: ``None``.

    Args:
        command: the bot's argv.
        base: where its relative paths are read from.
    """
    if not command:
        return None
    program = command[0]
    if INTERPRETER.fullmatch(Path(program).name):
        for arg in command[1:]:
            if arg in CODE_OPTIONS:
                return None
            if arg.startswith("-"):
                continue
            path = base / arg
            if path.is_file():
                return _own_folder(path)
        return None
    if os.sep in program and (base / program).is_file():
        return _own_folder(base / program)
    return None


def _own_folder(path: Path) -> Path | None:
    folder = Path(os.path.abspath(path)).parent
    return None if _is_system(folder) else folder


def launch(spec: BotSpec) -> tuple[tuple[str, ...], Path | None]:
    """The argv and working directory a program bot is started with.

    The working directory is the bot's own folder: the spec's (a bot file's ``cwd``),
    else its program's (`program_folder`), else the spec's ``cwd`` (``None``: the
    referee's current directory) as for a program on the ``PATH``. Relative paths of the
    command, read from ``spec.cwd``, are rewritten for the new working directory: relative
    inside the folder (``./bot``, ``bot.py``), absolute outside it.
    """
    base = spec.cwd if spec.cwd is not None else Path.cwd()
    folder = spec.folder if spec.folder is not None else program_folder(spec.command, base)
    if folder is None:
        return spec.command, spec.cwd
    folder = Path(os.path.abspath(folder))
    if Path(os.path.abspath(base)) == folder:
        return spec.command, folder
    argv = [_rebase(arg, i == 0, base, folder) for i, arg in enumerate(spec.command)]
    return tuple(argv), folder


def _rebase(arg: str, program: bool, base: Path, folder: Path) -> str:
    """``arg`` read from ``folder`` instead of ``base``, if it names an existing path."""
    if arg.startswith("-") or os.path.isabs(arg) or (program and os.sep not in arg):
        return arg
    path = Path(os.path.abspath(base / arg))
    if not os.path.lexists(path):
        return arg
    if path == folder or folder not in path.parents:
        return str(path)
    inside = str(path.relative_to(folder))
    return f".{os.sep}{inside}" if program else inside


def lightcycle_folders(argv: Sequence[str]) -> tuple[Path, ...]:
    """The installed lightcycle package, for a bot that runs its code
    (``python -m lightcycle.hosts.cteam ...``): the sandbox binds it read-only."""
    for option, module in itertools.pairwise(argv):
        if option == "-m" and (module == "lightcycle" or module.startswith("lightcycle.")):
            return (Path(__file__).resolve().parent.parent,)  # referee's parent: the package
    return ()


def program_name(argv: tuple[str, ...], cwd: Path | None = None) -> str:
    """A short display name for a command: its script (``tron2010/bot.py``) or program."""
    for arg in reversed(argv[1:]):
        p = (cwd / arg) if cwd is not None else Path(arg)
        if not arg.startswith("-") and p.is_file():
            path = Path(arg)
            return f"{path.parent.name}/{path.name}" if path.parent.name else path.name
    return Path(argv[0]).name
