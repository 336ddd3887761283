"""The local side of a remote seat: a bot program relayed as it is, or an in-process bot.

A `ProgramBot` runs the program as ``lightcycle match`` would (`BotProcess`: its own
process group or PID namespace, memory limit, the sandbox level asked for, stderr drained
into a tail) and only moves bytes: the server's ``data`` text goes to its stdin, its
stdout goes back cut into replies (`lightcycle.remote.framing`). The server runs the
protocol's codec and judges every reply, so the program plays exactly as in a local
match.

An `InProcessBot` (``builtin:...``, ``py:...`` or a `Bot` object) has no protocol of its
own: it plays ``jsonl`` (`lightcycle.remote.inprocess`, a module of its own so that the
judge's Python host loads neither the referee nor the sandbox).
"""

from __future__ import annotations

from lightcycle.bots.api import Bot, BotError
from lightcycle.protocols import get_protocol
from lightcycle.referee.players import BotSpec, ProgramPlayer
from lightcycle.remote.framing import Framer
from lightcycle.remote.inprocess import InProcessBot, LocalBot
from lightcycle.sandbox import BotProcess, Limits

__all__ = ["InProcessBot", "LocalBot", "ProgramBot", "make_local_bot"]


class ProgramBot(LocalBot):
    """A bot program relayed byte for byte (see the module docstring).

    The process is the referee's own `ProgramPlayer`'s (its folder, command rewriting,
    sandbox, limits), kept from game to game exactly where a match would keep it.

    Args:
        spec: a ``program`` bot spec (``cmd:...`` or a bot file).
        limits: its process limits (a bot file's memory overrides the memory).

    Raises:
        SandboxError: a sandbox that cannot read the bot's folder; at `start_game`, a
            program that cannot start.
    """

    def __init__(self, spec: BotSpec, limits: Limits) -> None:
        self.player = ProgramPlayer(spec, limits, log_dir=None, spares=0)
        self.protocol = self.player.protocol.name
        self.display_name = self.player.name
        self.process: BotProcess | None = None
        self.framer = Framer(self.protocol)
        self._noted = False

    def start_game(self) -> None:
        proc = self.process
        if proc is None or not self.player.reuses or proc.poll() is not None:
            self.player.stop()
        self.process, new = self.player.ensure_process("remote.log")
        if new:
            self.framer = Framer(self.protocol)
            self._noted = False

    def fileno(self) -> int | None:
        proc = self.process
        if proc is None or proc.stdout_eof:
            return None
        return proc.stdout_fd

    def deliver(self, text: str) -> list[bytes]:
        if self.process is not None:
            self.process.send(text.encode("utf-8", "surrogateescape"))
        return []

    def replies(self) -> list[bytes]:
        proc = self.process
        if proc is None:
            return []
        out: list[bytes] = []
        while True:
            chunk = proc.read()
            if not chunk:
                break
            out += self.framer.feed(chunk)
        if proc.stdout_eof:
            rest = self.framer.rest()
            if rest.strip():
                out.append(rest)
        return out

    def pending_input(self) -> bool:
        proc = self.process
        if proc is None or not proc.pending:
            return False
        proc.flush()
        return bool(proc.pending)

    def end_game(self) -> None:
        if not self.player.reuses:
            self.player.stop(grace=0.5)
            self.process = None

    def exit_note(self) -> str | None:
        proc = self.process
        if proc is None or self._noted or not proc.stdout_eof:
            return None
        self._noted = True
        proc.wait_exit(0.2)
        tail = proc.stderr_tail(400).decode("utf-8", "replace").strip().splitlines()[-1:]
        last = f"; its last stderr line: {tail[0]}" if tail else ""
        return f"the bot ended its output ({proc.status_text()}){last}"

    def close(self) -> None:
        self.player.shutdown()
        self.process = None


def make_local_bot(bot: str | Bot, protocol: str | None, limits: Limits) -> LocalBot:
    """The local bot for a spec or a `Bot` object.

    Raises:
        BotError: an unknown bot, a program without a protocol, or ``--protocol`` other
            than jsonl for an in-process bot.
    """
    from lightcycle.referee.players import parse_bot_spec

    if isinstance(bot, Bot):
        return InProcessBot(bot)
    spec = parse_bot_spec(bot, protocol)
    if spec.kind == "program":
        return ProgramBot(spec, limits)
    if protocol is not None and get_protocol(protocol).name != "jsonl":
        raise BotError(
            f"{bot}: built-in and py: bots play remotely over jsonl; drop --protocol {protocol}"
        )
    return InProcessBot(spec.text)
