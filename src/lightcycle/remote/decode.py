"""Rebuild `GameState` from lightcycle's ``jsonl`` messages, for in-process bots played remotely.

A server sends a remote seat only the ``jsonl`` protocol's messages, while a built-in or
``py:`` bot (or a student's `Bot` class run by the judge's ``pyhost``) needs a whole
`GameState` (through a `View`). The messages say almost everything: the board (a grid, or
a graph's nodes, edges and walls) and the starts come in ``start``, and each ``turn``
gives every cycle's head, life, item and timers, the items on the board and the scores.
What they do not give is the trails, so the decoder keeps each cycle's trail itself,
following the rules of every stage lightcycle has (`SUPPORTED_STAGES`):

- a cycle moves at most one cell a turn (a jump lands on one cell and the cell jumped
  over gets no trail), so a live cycle's trail grows by its new head;
- under ``trails.remove_on_death`` a dead cycle's trail is empty (it vanishes the turn
  the cycle dies); under ``trails.persist`` it stays;
- a ghost (``tron3d``) takes its new head into its trail only if the cell was free, and
  a live head left on a cell that a death freed takes the cell back; so at the end of a
  turn a live head not in its own trail gets its cell exactly when no wall and no other
  trail holds it.

So a state decoded turn by turn equals the engine's (tests/remote/test_decode.py plays
whole games of every ruleset to check it). What the messages never carry is left at a
neutral value: the seed (0), a death's detail text (``""``) and the board's bonus cells
(``()``: a bot sees the items once they appear). One case stays ambiguous: two ghosts
that enter the same free cell on the same turn; the engine gives the cell to whichever
moved first in the seeded order, the decoder to the lower cycle index.

A ruleset with a stage the decoder does not know is refused with a message naming it.
"""

from __future__ import annotations

from typing import Any

from lightcycle.core.bitset import from_cells
from lightcycle.core.moves import Death, DeathCause, Outcome
from lightcycle.core.state import Board, Cycle, GameState, Team
from lightcycle.core.topology import GraphTopology, GridTopology, Topology
from lightcycle.rules.ruleset import ITEM_KINDS, RulesError, Ruleset
from lightcycle.rules.variants import get_ruleset


class DecodeError(ValueError):
    """A message that cannot be turned into a state (a ruleset the decoder cannot rebuild,
    or a message that is not what the ``jsonl`` protocol sends)."""


SUPPORTED_STAGES = frozenset(
    {
        "movement.standard",
        "movement.jump",
        "movement.rounds",
        "collision.simultaneous",
        "collision.priority",
        "collision.random_order",
        "trails.persist",
        "trails.remove_on_death",
        "items.use",
        "items.pickup",
        "items.timers",
        "items.spawn",
        "score.moves",
        "game_over.last_standing",
        "game_over.turn_limit",
        "game_over.score",
    }
)
"""The rule stages whose effects the decoder can follow from the messages alone."""


def _int(value: Any, what: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise DecodeError(f"{what}: expected an integer, got {value!r}")


def _ints(value: Any, what: str) -> tuple[int, int]:
    if isinstance(value, list) and len(value) == 2:
        return _int(value[0], what), _int(value[1], what)
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
        self._width = 0  # 0: a graph board, whose cells are node numbers
        self._size = 0
        self._removes = False

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
            DecodeError: a ruleset with a stage the decoder does not know, or a malformed
                message.
        """
        ruleset = self._ruleset(message.get("ruleset"), message.get("settings"))
        self._removes = "trails.remove_on_death" in ruleset.stages
        topo = self._topology(message.get("board"))
        self._size = topo.size
        board = message.get("board") or {}
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
        raw = self._raw_cycles(message.get("cycles"), None)
        cycles = tuple(c._replace(trail=1 << c.head) for c in raw)
        self.state = GameState(
            ruleset=ruleset,
            board=Board(topo, walls),
            seed=0,
            turn=0,
            teams=teams,
            cycles=cycles,
            occupied=walls | from_cells(c.head for c in cycles),
            scores=(0,) * players,
            items=self._items(message.get("items")),
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
        raw = self._raw_cycles(message.get("cycles"), before, played)
        cycles = self._trails(before, raw)
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
            items=self._items(message.get("items")),
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

    # -- the trails ----------------------------------------------------------------------
    def _trails(self, before: GameState, raw: list[Cycle]) -> tuple[Cycle, ...]:
        """The cycles of ``raw`` (heads, life, items from the message) with their trails.

        First every trail the turn surely leaves: a dead cycle's (empty when trails are
        removed on death), a live cycle's old trail plus its new head when it moved
        there as no ghost. Then each live head outside its own trail (a ghost's) takes
        its cell if no wall and no other trail holds it (see the module docstring).
        """
        trails: list[int] = []
        claims: dict[int, list[int]] = {}  # cell -> live ghosts whose new head is there
        sat: dict[int, list[int]] = {}  # cell -> live cycles whose old head sat there
        for c, old in zip(raw, before.cycles, strict=True):
            bit = 1 << c.head
            if not c.alive:
                trails.append(0 if self._removes else old.trail | bit)
                continue
            if not (old.trail >> old.head) & 1:
                sat.setdefault(old.head, []).append(c.index)
            if c.head != old.head and not self._was_ghost(old, c):
                trails.append(old.trail | bit)
            else:
                trails.append(old.trail)
                if not old.trail & bit:
                    claims.setdefault(c.head, []).append(c.index)
        if claims or sat:
            held = before.board.walls
            for t in trails:
                held |= t
            for cell in {*claims, *sat}:
                if (held >> cell) & 1:
                    continue
                # a head on a cell a death freed takes it back; one that moved off it
                # this turn may have moved first: counted as taken, the safer guess
                for i in sat.get(cell) or claims[cell][:1]:
                    trails[i] |= 1 << cell
        return tuple(c._replace(trail=t) for c, t in zip(raw, trails, strict=True))

    def _was_ghost(self, old: Cycle, new: Cycle) -> bool:
        """Whether a live cycle that moved this turn moved as a ghost.

        A ghost's counter drops by one a move, so it moved as one if it was one before
        or is one after; with a ghost of one move, using it shows as the ghost item gone.
        """
        if old.ghost > 0 or new.ghost > 0:
            return True
        settings = getattr(self._need_start().ruleset, "settings", None)
        duration = getattr(settings, "ghost_duration", 0)
        return bool(duration == 1 and old.item == "ghost" and new.item != "ghost")

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
        unknown = [s for s in ruleset.stages if s not in SUPPORTED_STAGES]
        if unknown:
            raise DecodeError(
                f"built-in and py: bots cannot play {ruleset.id} remotely yet (its stage "
                f"{', '.join(unknown)} is not followed by the decoder); play it with a "
                "program: --bot 'cmd:...' --protocol jsonl"
            )
        return ruleset

    def _topology(self, board: Any) -> Topology:
        if not isinstance(board, dict):
            raise DecodeError("start: expected a board")
        kind = board.get("kind")
        try:
            if kind == "grid":
                width, height = board.get("width"), board.get("height")
                if not isinstance(width, int) or not isinstance(height, int):
                    raise ValueError(f"bad board size {width!r} x {height!r}")
                if width < 1 or height < 1:
                    raise ValueError(f"bad board size {width!r} x {height!r}")
                self._width = width
                return GridTopology(width, height, wrap=bool(board.get("wrap", False)))
            if kind == "graph":
                nodes = _int(board.get("nodes"), "board nodes")
                edges = [_ints(e, "board edge") for e in board.get("edges") or []]
                positions = board.get("positions")
                pos = [tuple(float(v) for v in p) for p in positions] if positions else None
                self._width = 0
                return GraphTopology(nodes, edges, pos)
        except (TypeError, ValueError) as exc:
            raise DecodeError(f"start: {exc}") from None
        raise DecodeError(f"start: unknown board kind {kind!r} (expected grid or graph)")

    def _cell(self, value: Any, what: str) -> int:
        if self._width:
            x, y = _ints(value, what)
            cell = y * self._width + x
        else:
            cell = _int(value, what)
        if not 0 <= cell < self._size:
            raise DecodeError(f"{what} {value!r} is off the board")
        return cell

    def _items(self, raw: Any) -> tuple[tuple[int, str], ...]:
        if not raw:
            return ()
        if not isinstance(raw, list):
            raise DecodeError(f"expected a list of items, got {raw!r}")
        out: list[tuple[int, str]] = []
        for entry in raw:
            if not isinstance(entry, list) or len(entry) != 2 or entry[1] not in ITEM_KINDS:
                raise DecodeError(f"expected an item as [cell, kind], got {entry!r}")
            out.append((self._cell(entry[0], "item"), str(entry[1])))
        return tuple(out)

    def _raw_cycles(self, raw: Any, before: GameState | None, played: int = 0) -> list[Cycle]:
        """The cycles as the message gives them; trails are the caller's (`_trails`)."""
        if not isinstance(raw, list) or not all(isinstance(c, dict) for c in raw):
            raise DecodeError("expected a list of cycles")
        if before is not None and len(raw) != len(before.cycles):
            raise DecodeError(f"turn: {len(raw)} cycles where the start had {len(before.cycles)}")
        out: list[Cycle] = []
        for i, c in enumerate(raw):
            head = self._cell(c.get("head"), "cycle head")
            alive = bool(c.get("alive", True))
            old = before.cycles[i] if before is not None else None
            death = old.death if old is not None else None
            cause = c.get("death")
            if death is None and not alive and isinstance(cause, str):
                try:
                    death = Death(played, DeathCause(cause))
                except ValueError:
                    raise DecodeError(f"unknown death cause {cause!r}") from None
            team = c.get("team")
            item = c.get("item")
            out.append(
                Cycle(
                    index=i,
                    team=team if isinstance(team, int) else i,
                    head=head,
                    trail=0,
                    alive=alive,
                    death=death,
                    name=str(c.get("name") or ""),
                    jumps_left=int(c.get("jumps_left") or 0),
                    item=item if isinstance(item, str) else None,
                    ghost=int(c.get("ghost") or 0),
                    turbo=int(c.get("turbo") or 0),
                )
            )
        return out
