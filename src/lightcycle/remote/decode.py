"""Rebuild `GameState` from lightcycle's ``jsonl`` messages, for in-process bots played remotely.

A server sends a remote seat only the ``jsonl`` protocol's messages, while a built-in or
``py:`` bot needs a whole `GameState` (through a `View`). Under the classic rules (the
rulesets whose stages are all `PLAIN_STAGES`: ``classic``, ``torus``, ``ffa``) the messages
say everything: the board and the starts come in ``start``, and each ``turn`` gives every
head; a cycle moves one cell a turn, trails persist, and a dead cycle's head stays where
it died. So the trails are the union of the heads seen, and a state decoded turn by turn
equals the engine's (tests/remote/test_decode.py plays games to check it). Rulesets
whose trails vanish, whose cycles jump or use items cannot be rebuilt this way: they are
refused with a message naming what works.

What the messages do not carry is left at a neutral value: the seed (0) and a death's
detail text (``""``).
"""

from __future__ import annotations

from typing import Any

from lightcycle.core.bitset import from_cells
from lightcycle.core.moves import Death, DeathCause, Outcome
from lightcycle.core.state import Board, Cycle, GameState, Team
from lightcycle.core.topology import GridTopology
from lightcycle.rules.ruleset import RulesError, Ruleset
from lightcycle.rules.variants import get_ruleset


class DecodeError(ValueError):
    """A message that cannot be turned into a state (a ruleset the decoder cannot rebuild,
    or a message that is not what the ``jsonl`` protocol sends)."""


SUPPORTED = "classic, torus and ffa"
"""The rulesets whose games an in-process bot can play remotely (in words)."""


def _ints(value: Any, what: str) -> tuple[int, int]:
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        return value[0], value[1]
    raise DecodeError(f"{what}: expected [x, y], got {value!r}")


class JsonlDecoder:
    """One seat's reading of one game's ``jsonl`` messages (a new decoder per game).

    Attributes:
        state: the state decoded so far (``None`` before ``start``).
        seat: this seat's team index (from ``start``).
        time: the time controls from ``start`` (seconds; ``None``: not limited).
    """

    def __init__(self) -> None:
        self.state: GameState | None = None
        self.seat = 0
        self.time: dict[str, float | None] = {}
        self._width = 0

    # -- the messages --------------------------------------------------------------------
    def feed(self, message: dict[str, Any]) -> GameState | None:
        """Read one message; return the state it describes (``None``: no new state)."""
        kind = message.get("type")
        if kind == "start":
            return self.start(message)
        if kind == "turn":
            return self.turn(message)
        if kind == "end":
            return self.end(message)
        return None  # "out" and messages of later protocol versions change nothing here

    def start(self, message: dict[str, Any]) -> GameState:
        """The turn-0 state from a ``start`` message.

        Raises:
            DecodeError: a ruleset or board the decoder cannot rebuild (see the module
                docstring), or a malformed message.
        """
        ruleset = self._ruleset(message.get("ruleset"), message.get("settings"))
        board = message.get("board")
        if not isinstance(board, dict) or board.get("kind") != "grid":
            raise DecodeError(
                "built-in and py: bots play remotely on grid boards only; "
                "run a graph-board bot as cmd:... --protocol jsonl"
            )
        width, height = board.get("width"), board.get("height")
        if not isinstance(width, int) or not isinstance(height, int) or width < 1 or height < 1:
            raise DecodeError(f"start: bad board size {width!r} x {height!r}")
        topo = GridTopology(width, height, wrap=bool(board.get("wrap", False)))
        self._width = width
        walls = from_cells(self._cell(w, "wall") for w in board.get("walls") or [])
        seat = message.get("seat")
        names = message.get("names")
        players = message.get("players")
        if not isinstance(seat, int) or not isinstance(players, int) or players < 1:
            raise DecodeError("start: expected a seat and a number of players")
        if not isinstance(names, list) or len(names) != players:
            names = [f"Player {t + 1}" for t in range(players)]
        self.seat = seat
        time = message.get("time")
        self.time = dict(time) if isinstance(time, dict) else {}
        teams = tuple(Team(t, str(n)) for t, n in enumerate(names))
        cycles = tuple(self._cycles(message.get("cycles"), None, 0))
        trails = 0
        for c in cycles:
            trails |= c.trail
        self.state = GameState(
            ruleset=ruleset,
            board=Board(topo, walls),
            seed=0,
            turn=0,
            teams=teams,
            cycles=cycles,
            occupied=walls | trails,
            scores=(0,) * players,
            cpu=(0,) * players,
        )
        return self.state

    def turn(self, message: dict[str, Any]) -> GameState:
        """The state at the start of the turn a ``turn`` message asks a move for."""
        before = self._need_start()
        number = message.get("turn")
        if not isinstance(number, int) or number < 1:
            raise DecodeError(f"turn: expected a turn number from 1, got {number!r}")
        played = number - 1
        cycles = tuple(self._cycles(message.get("cycles"), before, played))
        occupied = before.board.walls
        for c in cycles:
            occupied |= c.trail
        scores = message.get("scores")
        cpu = message.get("cpu")
        self.state = before._replace(
            turn=played,
            cycles=cycles,
            occupied=occupied,
            scores=tuple(scores) if isinstance(scores, list) else before.scores,
            cpu=tuple(cpu) if isinstance(cpu, list) else before.cpu,
        )
        return self.state

    def end(self, message: dict[str, Any]) -> GameState:
        """The last state with its outcome, from an ``end`` message."""
        before = self._need_start()
        ranks = message.get("ranks")
        turn = message.get("turn")
        if not isinstance(ranks, list) or not ranks:
            return before
        outcome = Outcome(
            tuple(int(r) for r in ranks),
            str(message.get("reason", "")),
            turn if isinstance(turn, int) else before.turn,
        )
        self.state = before._replace(outcome=outcome)
        return self.state

    # -- helpers -------------------------------------------------------------------------
    def _need_start(self) -> GameState:
        if self.state is None:
            raise DecodeError("a turn message came before the start message")
        return self.state

    def _ruleset(self, ident: Any, settings: Any) -> Ruleset:
        if not isinstance(ident, str):
            raise DecodeError("start: expected a ruleset")
        try:
            ruleset = get_ruleset(ident)
            if isinstance(settings, dict) and settings:
                ruleset = ruleset.with_settings(settings)
        except RulesError as exc:
            raise DecodeError(f"start: {exc}") from None
        if not ruleset.plain:
            raise DecodeError(
                f"built-in and py: bots play remotely under {SUPPORTED} only, not "
                f"{ruleset.id}; play that queue with a program: --bot 'cmd:...' --protocol jsonl"
            )
        return ruleset

    def _cell(self, value: Any, what: str) -> int:
        x, y = _ints(value, what)
        return y * self._width + x

    def _cycles(self, raw: Any, before: GameState | None, played: int) -> list[Cycle]:
        if not isinstance(raw, list) or not all(isinstance(c, dict) for c in raw):
            raise DecodeError("expected a list of cycles")
        if before is not None and len(raw) != len(before.cycles):
            raise DecodeError(f"turn: {len(raw)} cycles where the start had {len(before.cycles)}")
        out: list[Cycle] = []
        for i, c in enumerate(raw):
            head = self._cell(c.get("head"), "cycle head")
            alive = bool(c.get("alive", True))
            old = before.cycles[i] if before is not None else None
            trail = (old.trail if old is not None else 0) | (1 << head)
            death = old.death if old is not None else None
            cause = c.get("death")
            if death is None and not alive and isinstance(cause, str):
                try:
                    death = Death(played, DeathCause(cause))
                except ValueError:
                    raise DecodeError(f"unknown death cause {cause!r}") from None
            team = c.get("team")
            out.append(
                Cycle(
                    index=i,
                    team=team if isinstance(team, int) else i,
                    head=head,
                    trail=trail,
                    alive=alive,
                    death=death,
                    name=str(c.get("name") or ""),
                    jumps_left=int(c.get("jumps_left") or 0),
                    item=None,
                    ghost=0,
                    turbo=0,
                )
            )
        return out
