"""Players of a match: in-process Python bots and bot programs, from their specs.

A spec on the command line is one of:

- ``builtin:NAME`` (or just ``NAME``): a built-in bot, run in the referee's process;
- ``py:path/to/bot.py[:ClassName]``: a Python bot class, run in the referee's process
  (trusted code: it is timed, but a bot that never returns would stop the match; run
  untrusted Python as ``cmd:python3 bot.py`` with a protocol);
- ``cmd:COMMAND``: a program in any language, speaking ``--protocol``;
- ``path/to/bot.toml``: a bot file naming its command, protocol, working directory,
  time settings and display name;
- ``cteam:path/to/team.c``: a team of the C team course (``teams@1``), compiled to a
  shared library and run in a host process that speaks ``jsonl`` (docs/cteam.md);
- ``http://HOST:PORT`` (or ``https://``): a Battlesnake web server, asked over HTTP by
  an in-process player (`lightcycle.referee.http_bot`, docs/battlesnake.md).

A program bot runs in its own folder (`program_folder`): ``cmd:./bots/a/bot`` and
``cmd:python3 bots/a/bot.py`` run in ``bots/a``, as a judge would run them, and in the
sandbox that folder is the one host folder the bot can read. A bot file's ``cwd`` wins.

A program is started once and kept for every turn of a game, and for every game of a
match where its protocol allows (``jsonl``) or where its author says it may (``reuse``, for
a stateless ``tron2010`` bot). Otherwise each game gets a new process; a `ProgramPlayer`
with spares has the next one started while a game plays and ends finished ones in the
background (`lightcycle.sandbox.SparePool`), so games do not wait for process start-up.
"""

from __future__ import annotations

import itertools
import os
import re
import shlex
import time
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from lightcycle.bots.api import Bot, BotError
from lightcycle.bots.registry import make_bot
from lightcycle.protocols import get_protocol
from lightcycle.protocols.base import Codec
from lightcycle.referee.clock import TimeControl
from lightcycle.sandbox import BotProcess, Limits, SandboxError, SparePool
from lightcycle.sandbox.process import SANDBOX_LEVELS

SANDBOX_VARIABLE = "LIGHTCYCLE_SANDBOX"
"""The environment variable that sets the sandbox level of commands and tournaments that
do not choose one (``none``, ``auto`` or ``full``; default ``auto``): a course machine sets
``full`` so that nothing runs a bot with less."""


def default_sandbox() -> str:
    """The sandbox level when none is given: ``$LIGHTCYCLE_SANDBOX``, else ``auto``.

    Raises:
        SandboxError: the variable holds something else than none, auto or full.
    """
    value = os.environ.get(SANDBOX_VARIABLE, "").strip() or "auto"
    if value not in SANDBOX_LEVELS:
        raise SandboxError(f"{SANDBOX_VARIABLE}={value!r}: set it to none, auto or full")
    return value


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


def parse_bot_spec(text: str, protocol: str | None = None, reuse: bool = False) -> BotSpec:
    """Read a bot spec (see the module docstring).

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
        from lightcycle.referee.http_bot import check_url

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


class Player:
    """One bot across the games of a match (a seat changes from game to game)."""

    def __init__(self, spec: BotSpec) -> None:
        self.spec = spec
        self.name = spec.name or spec.text

    def shutdown(self) -> None:
        """Release what the player holds (processes)."""


class InProcessPlayer(Player):
    """A Python bot called in the referee's own process; a fresh instance per game."""

    def __init__(self, spec: BotSpec) -> None:
        super().__init__(spec)
        self.bot: Bot = make_bot(spec.text)
        self.name = spec.name or self.bot.display_name

    def new_game(self) -> Bot:
        """A fresh bot instance for the next game."""
        self.bot = make_bot(self.spec.text)
        return self.bot


class ProgramPlayer(Player):
    """A bot program; its process is kept between games where the protocol allows.

    Where a game needs a new process, ``spares`` processes are started ahead, while the
    current game plays, and a finished game's process is ended in the background: the
    next game takes a process whose start-up is already done, and never waits for the
    last one to exit. A spare is the same sandboxed `BotProcess` a game would start; it
    gets its log file when a game takes it. `shutdown` kills unused spares and reaps
    everything, so nothing survives the match.

    Args:
        spec: the bot.
        limits: process limits (a bot file's ``memory_mb`` overrides the memory).
        log_dir: where the per-game stderr logs go (``None``: not written).
        spares: processes kept started ahead (0: start each when a game needs it). Not
            used for a process that is kept from game to game.

    Attributes:
        protocol: the codec class of its protocol.
        reuses: whether one process plays game after game (``jsonl``, or ``reuse``).
        process: the running process, if any.
        starts: how many processes games have taken (reuse keeps this low).
        startup_seconds: wall time the referee's game loop spent starting and stopping
            processes (waiting for a spare or a start, handing one to the reaper, and
            the final clean-up at `shutdown`).
        background_seconds: time the pool's threads spent starting and ending
            processes, overlapped with the games (known after `shutdown`).
        spares_unused: spares started but killed unused at `shutdown`.
    """

    def __init__(
        self, spec: BotSpec, limits: Limits, log_dir: Path | None, spares: int = 0
    ) -> None:
        super().__init__(spec)
        assert spec.protocol is not None
        self.protocol: type[Codec] = get_protocol(spec.protocol)
        self.limits = limits if spec.memory is None else replace(limits, memory=spec.memory)
        self.log_dir = log_dir
        self.reuses = self.protocol.multi_game or (spec.reuse and self.protocol.reusable)
        self.spares = 0 if self.reuses else spares
        self.process: BotProcess | None = None
        self.leftover = b""
        self.starts = 0
        self.startup_seconds = 0.0
        self.background_seconds = 0.0
        self.spares_unused = 0
        self.pool: SparePool | None = None
        self.name = spec.name or program_name(spec.command, spec.cwd)
        self.argv, self.folder = launch(spec)
        self.read_only = (*spec.read_only, *lightcycle_folders(self.argv))
        check_readable(self.argv, self.folder, self.limits)

    def _start(self) -> BotProcess:
        return BotProcess(self.argv, cwd=self.folder, limits=self.limits, read_only=self.read_only)

    def _start_spare(self) -> BotProcess:
        """A spare: started held, so it runs nothing (and takes no CPU from a game being
        timed) until the pool releases it for its own game."""
        limits = replace(self.limits, held=True)
        return BotProcess(self.argv, cwd=self.folder, limits=limits, read_only=self.read_only)

    def ensure_process(self, log_name: str) -> tuple[BotProcess, bool]:
        """The running process, taking a new one if needed; and whether it is new.

        A kept process comes with the output it wrote after its last reply
        (`take_leftover`), which its next game judges like any output written ahead.
        """
        if (
            self.process is not None
            and self.process.poll() is None
            and not self.process.broken_pipe
        ):
            return self.process, False
        self.stop()
        if self.pool is None:
            self.pool = SparePool(self._start, self.spares, held_start=self._start_spare)
        before = self.pool.waited
        try:
            proc = self.pool.take()
        finally:
            self.startup_seconds += self.pool.waited - before
        proc.log_path = self.log_dir / log_name if self.log_dir is not None else None
        self.process = proc
        self.leftover = b""
        self.starts += 1
        return proc, True

    def keep(self, leftover: bytes) -> None:
        """Keep the process for the next game, with what it wrote after its last reply."""
        self.leftover = leftover

    def take_leftover(self) -> bytes:
        """What the kept process wrote after its last reply in the previous game."""
        out, self.leftover = self.leftover, b""
        return out

    def stop(self, grace: float = 0.0, kill: bool = False) -> None:
        """End the current process, if any, in the background (its stderr tail goes to
        its log once it is gone).

        Args:
            grace: seconds it may take to exit by itself after its input closes.
            kill: SIGKILL its process group now, without waiting for anything (a bot
                that failed in the middle of a game: the game goes on, and must not
                wait for the bot's PID namespace to be torn down).
        """
        if self.process is None:
            return
        proc, self.process = self.process, None
        self.leftover = b""
        if self.pool is None:
            t0 = time.perf_counter()
            if kill:
                proc.kill()
            proc.close(grace=0.0 if kill else grace)
            self.startup_seconds += time.perf_counter() - t0
            return
        before = self.pool.waited
        self.pool.retire(proc, grace, kill=kill)
        self.startup_seconds += self.pool.waited - before

    def shutdown(self) -> None:
        """Stop the process, kill unused spares and wait until every process is reaped."""
        self.stop(grace=0.2)
        if self.pool is not None:
            before = self.pool.waited
            self.pool.close()
            self.startup_seconds += self.pool.waited - before
            self.background_seconds += self.pool.background
            self.spares_unused += self.pool.unused
            self.pool = None


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
            import lightcycle

            return (Path(lightcycle.__file__).resolve().parent,)
    return ()


def sandboxed(limits: Limits) -> bool:
    """Whether bots started with ``limits`` run in the bubblewrap sandbox on this host."""
    if limits.sandbox == "none":
        return False
    if limits.sandbox == "full":
        return True
    from lightcycle.sandbox.check import bwrap_usable

    return bwrap_usable()


def check_readable(argv: Sequence[str], folder: Path | None, limits: Limits) -> None:
    """Refuse, before any game, a bot folder its sandbox user could not read.

    A root referee runs each sandboxed bot as a user id of its own from a pool, which
    reads the bot's folder and program through the permissions for others; a folder made
    by a tool that keeps them closed (pytest's, ``mktemp -d``: mode 0700) would otherwise
    give a bot that crashes on its first turn.

    Raises:
        SandboxError: naming the folder, the fix and the way to run a trusted bot.
    """
    if os.geteuid() != 0 or not sandboxed(limits):
        return
    where = Path(os.path.abspath(folder if folder is not None else Path.cwd()))
    program = where / argv[0] if os.sep in argv[0] else None
    if program is not None and not program.is_file():
        return  # the start refuses it, saying the program is missing
    what: str | None = None
    if where.is_dir() and where.stat().st_mode & 0o005 != 0o005:
        what = f"its folder {where}" if folder is not None else f"the current folder {where}"
    elif program is not None and program.stat().st_mode & 0o004 == 0:
        what = f"its program {program}"
    if what is None:
        return
    fix = f"chmod -R o+rX {where}"
    if folder is None:  # a program on the PATH runs in the referee's folder
        fix = f"run it from a folder others can read, or {fix}"
    raise SandboxError(
        f"the sandboxed bot cannot read {what} (it runs as a user id of its own, with the "
        f"rights of others): {fix}, or run a bot you trust without the sandbox "
        '(--sandbox none; sandbox = "none" in a tournament file)'
    )


def preflight(spec: BotSpec, limits: Limits) -> None:
    """Check, without starting it, that a program bot's sandbox can read its folder
    (`check_readable`): commands call this before they write anything.

    Raises:
        SandboxError: as `check_readable`.
    """
    if spec.kind == "program" and spec.command:
        argv, folder = launch(spec)
        check_readable(argv, folder, limits)


def program_name(argv: tuple[str, ...], cwd: Path | None = None) -> str:
    """A short display name for a command: its script (``tron2010/bot.py``) or program."""
    for arg in reversed(argv[1:]):
        p = (cwd / arg) if cwd is not None else Path(arg)
        if not arg.startswith("-") and p.is_file():
            path = Path(arg)
            return f"{path.parent.name}/{path.name}" if path.parent.name else path.name
    return Path(argv[0]).name


def unique_names(names: list[str]) -> list[str]:
    """Number duplicate names (``Random``, ``Random 2``) so results stay readable."""
    out: list[str] = []
    for n in names:
        k, cand = 1, n
        while cand in out:
            k += 1
            cand = f"{n} {k}"
        out.append(cand)
    return out


def make_player(spec: BotSpec, limits: Limits, log_dir: Path | None, spares: int = 0) -> Player:
    """The player for ``spec`` (``spares``: see `ProgramPlayer`)."""
    if spec.kind == "program":
        return ProgramPlayer(spec, limits, log_dir, spares)
    if spec.kind == "http":
        from lightcycle.referee.http_bot import HttpPlayer

        return HttpPlayer(spec)
    return InProcessPlayer(spec)
