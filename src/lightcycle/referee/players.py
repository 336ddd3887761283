"""Players of a match: in-process Python bots and bot programs, from their specs.

A spec on the command line is one of:

- ``builtin:NAME`` (or just ``NAME``): a built-in bot, run in the referee's process;
- ``py:path/to/bot.py[:NAME]``: a Python bot class, or a bot instance the file makes
  (a trained policy: ``bot = PolicyBot(policy)``, docs/rl.md), run in the referee's
  process (trusted code: it is timed, but a bot that never returns would stop the match;
  run untrusted Python as ``cmd:python3 bot.py`` with a protocol);
- ``cmd:COMMAND``: a program in any language, speaking ``--protocol``;
- ``path/to/bot.toml``: a bot file naming its command, protocol, working directory,
  time settings and display name;
- ``cteam:path/to/team.c``: a team of the C team course (``teams@1``), compiled to a
  shared library and run in a host process that speaks ``jsonl`` (docs/cteam.md);
- ``scheme:path/to/brain.scm[:PROC]``: a brain of the Scheme course's library
  (``define-tron-brain``), played by the library's seat runner on Guile or Chez over
  ``sexp`` (docs/scheme.md);
- ``http://HOST:PORT`` (or ``https://``): a Battlesnake web server, asked over HTTP by
  an in-process player (`lightcycle.referee.http_bot`, docs/battlesnake.md).

A program bot runs in its own folder (`program_folder`): ``cmd:./bots/a/bot`` and
``cmd:python3 bots/a/bot.py`` run in ``bots/a``, as a judge would run them, and in the
sandbox that folder is the one host folder the bot can read. A bot file's ``cwd`` wins.
Specs and program folders are `lightcycle.referee.specs`, and `Player` and
`InProcessPlayer` are `lightcycle.referee.player_base` (all re-exported here); this module
makes players of them.

A program is started once and kept for every turn of a game, and for every game of a
match where its protocol allows (``jsonl``) or where its author says it may (``reuse``, for
a stateless ``tron2010`` bot). Otherwise each game gets a new process; a `ProgramPlayer`
with spares has the next one started while a game plays and ends finished ones in the
background (`lightcycle.sandbox.SparePool`), so games do not wait for process start-up.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from lightcycle.protocols import get_protocol
from lightcycle.protocols.base import Codec
from lightcycle.referee.player_base import InProcessPlayer, Player
from lightcycle.referee.specs import (
    CODE_OPTIONS,
    INTERPRETER,
    SYSTEM_DIRS,
    BotSpec,
    MissingProtocol,
    launch,
    lightcycle_folders,
    parse_bot_spec,
    program_folder,
    program_name,
    read_bot_file,
)
from lightcycle.replay.model import unique_names as unique_names
from lightcycle.sandbox import BotProcess, Limits, SandboxError, SparePool
from lightcycle.sandbox.process import SANDBOX_LEVELS

__all__ = [
    "CODE_OPTIONS",
    "INTERPRETER",
    "SANDBOX_VARIABLE",
    "SYSTEM_DIRS",
    "BotSpec",
    "InProcessPlayer",
    "MissingProtocol",
    "Player",
    "ProgramPlayer",
    "check_readable",
    "default_sandbox",
    "launch",
    "lightcycle_folders",
    "make_player",
    "parse_bot_spec",
    "preflight",
    "program_folder",
    "program_name",
    "read_bot_file",
    "sandboxed",
    "unique_names",
]

SANDBOX_VARIABLE = "LIGHTCYCLE_SANDBOX"
"""The environment variable that sets the sandbox level of commands and tournaments that
do not choose one (``none``, ``auto`` or ``full``; default ``auto``): a course machine sets
``full`` so that nothing runs a bot with less."""


def default_sandbox() -> str:
    """The sandbox level when none is given: ``$LIGHTCYCLE_SANDBOX``, else ``auto``.

    Raises:
        SandboxError: the variable holds something else than none, uid, auto or full.
    """
    value = os.environ.get(SANDBOX_VARIABLE, "").strip() or "auto"
    if value not in SANDBOX_LEVELS:
        raise SandboxError(f"{SANDBOX_VARIABLE}={value!r}: set it to none, uid, auto or full")
    return value


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


def make_player(spec: BotSpec, limits: Limits, log_dir: Path | None, spares: int = 0) -> Player:
    """The player for ``spec`` (``spares``: see `ProgramPlayer`)."""
    if spec.kind == "program":
        return ProgramPlayer(spec, limits, log_dir, spares)
    if spec.kind == "http":
        # imported here, not above, so that only a match with an HTTP seat loads the
        # HTTP client (http.client, ssl); it imports nothing of this module
        from lightcycle.referee.http_bot import HttpPlayer

        return HttpPlayer(spec)
    return InProcessPlayer(spec)
