"""A Python bot playing ``jsonl`` in this process, and what every local bot offers.

`InProcessBot` (``builtin:...``, ``py:...`` or a `Bot` object) has no protocol of its
own: it plays ``jsonl``, whose messages `JsonlDecoder` turns back into the `GameState` a
`View` needs, and its answers become ``{"move": ...}`` lines. It is the relay of
``lightcycle connect`` (`lightcycle.remote.local`) and the judge's Python host
(`lightcycle.judge.service.pyhost`), which starts once per game in the sandbox and
counts against the game's CPU budget: so this module imports the rules and the bots,
never the referee or the sandbox.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping
from typing import Any

from lightcycle.bots.api import Bot
from lightcycle.bots.registry import make_bot
from lightcycle.core.state import GameState
from lightcycle.core.topology import GridTopology, Heading
from lightcycle.remote.decode import DecodeError, JsonlDecoder
from lightcycle.rules.legal import answers_by_cycle, moves_this_turn, read_answer
from lightcycle.rules.observe import ClockView, View


class OwnClock:
    """The seat's time account as the bot's side can keep it, for `View.clock`.

    The referee's `Clock` is on the server; the start message says the controls
    (``time``: move, first_move, bank, average, cpu) and this charges each move with the
    bot's own time, so a searching bot can plan a bank or a CPU budget as it does
    in-process. Its own time leaves out the network, which the server charges less its
    latency allowance: the bank left here is an estimate, on the generous side.
    """

    def __init__(self, controls: Mapping[str, Any]) -> None:
        def number(key: str) -> float | None:
            value = controls.get(key)
            if isinstance(value, bool) or not isinstance(value, int | float):
                return None
            return float(value)

        self.move = number("move")
        self.first_move = number("first_move")
        self.average = number("average")
        self.cpu = number("cpu")
        self.bank_left = number("bank") or 0.0
        self.moves = 0
        self.used = 0.0
        self.cpu_used = 0.0

    def view(self) -> ClockView:
        """The account before the next move."""
        return ClockView.account(
            self.move,
            self.first_move,
            self.bank_left,
            self.average,
            self.moves,
            self.used,
            self.cpu,
            self.cpu_used,
        )

    def charge(self, seconds: float, cpu_seconds: float) -> None:
        """Count a move that took ``seconds`` (``cpu_seconds`` of this process's CPU)."""
        first = self.moves == 0
        self.moves += 1
        self.cpu_used += cpu_seconds
        if first:
            return
        self.used += seconds
        if self.move is not None and seconds > self.move:
            self.bank_left = max(0.0, self.bank_left - (seconds - self.move))


class LocalBot:
    """What the relay needs of a local bot (see the subclasses)."""

    protocol = "jsonl"
    display_name = "bot"

    def start_game(self) -> None:
        """Be ready for a new game (a new process unless the protocol plays several)."""

    def fileno(self) -> int | None:
        """A descriptor that becomes readable when the bot has output (``None``: none)."""
        return None

    def deliver(self, text: str) -> list[bytes]:
        """Hand the bot the server's data; return the replies it made at once."""
        raise NotImplementedError

    def replies(self) -> list[bytes]:
        """Replies the bot wrote since the last call (program bots)."""
        return []

    def pending_input(self) -> bool:
        """Whether input is buffered for a bot that has not read it yet."""
        return False

    def end_game(self) -> None:
        """The game is over (a program of a one-game protocol gets end of input)."""

    def exit_note(self) -> str | None:
        """Once, if the bot ended before the game did: how (for a warning line)."""
        return None

    def close(self) -> None:
        """Release everything (kill the process)."""


def _reply(state: GameState, cycle: int, answer: object) -> object:
    """A bot's answer as a jsonl move.

    On a grid a heading letter, or ``{"heading", "jump"}`` for a jump; on a graph the
    destination node, or ``{"to", "use_item"}`` when the move uses the held item.
    """
    move = read_answer(state, cycle, answer)
    topo = state.board.topology
    if not isinstance(topo, GridTopology):
        return {"to": move.to, "use_item": True} if move.use_item else move.to
    head = state.cycles[cycle].head
    step = topo.jump if move.jump else topo.move
    heading = next((h for h in Heading if step(head, h) == move.to), None)
    if heading is None:
        raise ValueError(f"answered a move to cell {move.to}, which is no heading from {head}")
    if move.jump or move.use_item:
        return {"heading": heading.letter, "jump": move.jump, "use_item": move.use_item}
    return heading.letter


class InProcessBot(LocalBot):
    """A Python bot playing over ``jsonl`` (see the module docstring).

    Args:
        bot: a spec text (``builtin:chaser``, ``py:bot.py``) or a `Bot` (a fresh copy is
            not made of an object: it plays every game).

    Raises:
        BotError: an unknown bot.
    """

    protocol = "jsonl"

    def __init__(self, bot: str | Bot) -> None:
        self.source = bot
        self.bot = make_bot(bot)
        self.display_name = self.bot.display_name
        self.decoder = JsonlDecoder()
        self.clock = OwnClock({})
        self._started = False

    def start_game(self) -> None:
        if self._started and isinstance(self.source, str):
            self.bot = make_bot(self.source)
        self._started = True
        self.decoder = JsonlDecoder()

    def deliver(self, text: str) -> list[bytes]:
        out: list[bytes] = []
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                raise DecodeError(
                    f"the server sent jsonl that is not JSON: {line[:80]!r}"
                ) from None
            if not isinstance(message, dict):
                continue
            reply = self._handle(message)
            if reply is not None:
                out.append(reply)
        return out

    def _handle(self, message: dict[str, Any]) -> bytes | None:
        kind = message.get("type")
        state = self.decoder.feed(message)
        if state is None:
            return None
        seat = self.decoder.seat
        if kind == "start":
            self.clock = OwnClock(self.decoder.time)
            try:
                self.bot.start(View(state, seat))
            except Exception as exc:  # a bot's bug: said, and the game goes on
                _warn(f"{self.display_name}: start() raised {type(exc).__name__}: {exc}")
            return None
        if kind != "turn":
            return None
        mine = [c for c in state.cycles_of(seat) if moves_this_turn(state, c.index)]
        if not mine:
            return None
        limit = self.decoder.time.get("first_move" if state.turn == 0 else "move")
        view = View(
            state,
            seat,
            float(limit) if isinstance(limit, int | float) else None,
            self.clock.view(),
        )
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            answer = self.bot.move(view)
            self.clock.charge(time.perf_counter() - t0, time.process_time() - c0)
            pairs = answers_by_cycle(state, mine, answer)
            if sum(c.alive for c in state.cycles_of(seat)) == 1:  # "move" needs one live cycle
                reply: dict[str, Any] = {"move": _reply(state, *pairs[0])}
            else:
                # a cycle the bot gave no move is left out: the referee forfeits it
                moves = {str(i): _reply(state, i, a) for i, a in pairs if a is not None}
                reply = {"moves": moves}
        except Exception as exc:  # a bot's bug costs its move (the server times it out)
            _warn(
                f"{self.display_name}: move() on turn {state.turn + 1} raised "
                f"{type(exc).__name__}: {exc}; the server will time this move out"
            )
            return None
        return json.dumps(reply, separators=(",", ":")).encode() + b"\n"


def _warn(text: str) -> None:
    print(f"warning: {text}", file=sys.stderr, flush=True)
