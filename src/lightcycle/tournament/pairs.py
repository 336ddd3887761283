"""What a duel's pair is: the task a worker plays and the results it sends back.

Every map and seed is played twice, with the seats swapped, so the favour of the map goes
to each bot once and cancels; the statistics treat the pair as one sample
(`lightcycle.tournament.stats`, pentanomial model). A `PairTask` is plain, picklable data
(no live objects) so it can travel to any worker; `PairResult` and `GameResult` are what
comes back, from bot A's point of view, and what ``results.json`` lists.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lightcycle.maps.spec import MapSpec
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.players import BotSpec
from lightcycle.rules.ruleset import Ruleset
from lightcycle.sandbox import Limits


@dataclass
class GameResult:
    """One game of a pair, from bot A's point of view.

    Attributes:
        pair: the pair's index (0-based).
        game: 1 (A in seat 1) or 2 (seats swapped).
        map: the map id.
        seed: the game seed (both games of a pair share it).
        a_seat: A's seat, 0 or 1.
        score: A's score: 1 win, 0.5 draw, 0 loss. Timeouts and crashes lose their game
            by the rules (the seat's cycles forfeit), so they are counted here as such.
        reason: why the game ended (the outcome's reason).
        turns: turns played.
        verdicts: ``[A's, B's]`` first verdict other than ok (``ok`` if none), with detail.
        moves: ``[A's, B's]`` moves timed.
        move_time: ``[A's, B's]`` seconds spent on those moves.
        max_move: ``[A's, B's]`` slowest move, seconds.
        info: ``[A's, B's]`` figures an in-process bot reported (`Bot.report`).
        replay: the replay's path relative to the output folder, if written.
        sandbox: ``[A's, B's]`` what confined each program in this game
            (`lightcycle.sandbox.levels.seat_record`), ``None`` for an in-process bot.
        phase_time: ``[A's, B's]`` ``{phase: [moves, seconds]}``: the timed moves by the
            phase of the position they were played from (`lightcycle.rules.phases`);
            empty where the referee kept no move times.
    """

    pair: int
    game: int
    map: str
    seed: int
    a_seat: int
    score: float
    reason: str
    turns: int
    verdicts: list[str]
    moves: list[int]
    move_time: list[float]
    max_move: list[float]
    info: list[dict[str, float]]
    replay: str | None = None
    sandbox: list[dict[str, Any] | None] = field(default_factory=lambda: [None, None])
    phase_time: list[dict[str, list[float]]] = field(default_factory=lambda: [{}, {}])

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``results.json``."""
        return {
            "pair": self.pair,
            "game": self.game,
            "map": self.map,
            "seed": self.seed,
            "a_seat": self.a_seat,
            "score": self.score,
            "reason": self.reason,
            "turns": self.turns,
            "verdicts": list(self.verdicts),
            "moves": list(self.moves),
            "move_time": [round(t, 6) for t in self.move_time],
            "max_move": [round(t, 6) for t in self.max_move],
            "info": [dict(i) for i in self.info],
            "replay": self.replay,
            "sandbox": list(self.sandbox),
            "phase_time": [
                {k: [int(v[0]), round(v[1], 6)] for k, v in side.items()}
                for side in self.phase_time
            ],
        }


@dataclass
class PairResult:
    """Both games of one map and seed, seats swapped.

    Attributes:
        index: the pair's index (0-based).
        map: the map id.
        seed: the game seed.
        games: the two games (A in seat 1, then in seat 2).
        process_starts: ``[A's, B's]`` bot processes started for this pair.
    """

    index: int
    map: str
    seed: int
    games: list[GameResult]
    process_starts: list[int] = field(default_factory=lambda: [0, 0])

    @property
    def points(self) -> float:
        """A's points in the pair: 0, 0.5, 1, 1.5 or 2."""
        return sum(g.score for g in self.games)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``results.json``."""
        return {
            "index": self.index,
            "map": self.map,
            "seed": self.seed,
            "points": self.points,
            "process_starts": list(self.process_starts),
            "games": [g.to_dict() for g in self.games],
        }


@dataclass(frozen=True)
class PairTask:
    """Everything a worker needs to play one pair (picklable, no live objects)."""

    index: int
    map: MapSpec
    ruleset: Ruleset
    seed: int
    specs: tuple[BotSpec, BotSpec]
    names: tuple[str, str]
    controls: tuple[TimeControl, TimeControl]
    limits: Limits
    out_dir: str | None = None
    extra_params: tuple[tuple[str, str], ...] = ()
