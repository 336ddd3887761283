"""Playing one tournament match in a worker: a picklable task in, plain results out.

Workers never touch the database: the runner's process alone writes to it, in schedule
order, so ratings never depend on which worker finished first. A worker keeps one player
per entrant for as long as it lives (`PlayerCache`), so a bot program whose protocol
allows several games per process (``jsonl``) is started once per worker for the whole
tournament; programs of the other protocols (``tron2010``, ``aichallenge``, ``sexp``)
know no way to start a new game, so the referee starts them afresh for every game, as
``lightcycle match`` does. In-process bots get a fresh instance every game.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lightcycle.maps.spec import MapSpec
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.game import GameRecord, play_game
from lightcycle.referee.players import BotSpec
from lightcycle.rules.ruleset import Ruleset
from lightcycle.sandbox import Limits
from lightcycle.tournament.duel import PlayerCache, worker_players
from lightcycle.tournament.results import MatchResult, SeatResult, seat_outcomes


@dataclass(frozen=True)
class MatchTask:
    """Everything a worker needs to play one match (picklable, no live objects).

    Attributes:
        key: the match key (replay and log names derive from it).
        map: the map.
        ruleset: the rules, settings applied.
        seed: the game seed.
        entrants: entrant index per seat.
        names: entrant name per seat (unique: a player per name in the cache).
        specs: bot spec per seat.
        controls: time control per seat.
        limits: process limits of bot programs.
        out_dir: the output folder (replays in ``replays/``, logs in ``logs/``), if any.
    """

    key: str
    map: MapSpec
    ruleset: Ruleset
    seed: int
    entrants: tuple[int, ...]
    names: tuple[str, ...]
    specs: tuple[BotSpec, ...]
    controls: tuple[TimeControl, ...]
    limits: Limits
    out_dir: str | None = None


def play_match(task: MatchTask, players: PlayerCache | None = None) -> MatchResult:
    """Play the task's game and return its result (the replay written, if asked).

    Args:
        task: the match.
        players: the worker's players, kept between matches; ``None`` makes players for
            this match only and stops their programs at the end.
    """
    cache = players if players is not None else PlayerCache()
    out = Path(task.out_dir) if task.out_dir is not None else None
    log_dir = str(out / "logs") if out is not None else None
    try:
        seats = []
        for name, spec in zip(task.names, task.specs, strict=True):
            player = cache.get(name, spec, task.limits, log_dir)
            player.name = name
            seats.append(player)
        record = play_game(
            seats,
            task.map,
            task.ruleset,
            seed=task.seed,
            controls=list(task.controls),
            log_prefix=task.key,
        )
        replay = None
        if out is not None:
            replay = f"replays/{task.key}.json"
            (out / "replays").mkdir(parents=True, exist_ok=True)
            record.replay.save(out / replay)
    finally:
        if players is None:
            cache.shutdown()
    return match_result(task.key, task.entrants, record, replay)


def match_result(
    key: str, entrants: tuple[int, ...], record: GameRecord, replay: str | None
) -> MatchResult:
    """A game record as the store keeps it."""
    ranks = list(record.outcome.ranks)
    forfeits = [record.forfeited(s) for s in range(len(ranks))]
    scores = list(record.final.scores) or [0] * len(ranks)
    seats: list[SeatResult] = []
    for s, (outcome, fwin, floss) in enumerate(seat_outcomes(ranks, forfeits)):
        rec = record.seats[s]
        seats.append(
            SeatResult(
                seat=s,
                entrant=entrants[s],
                rank=ranks[s],
                score=int(scores[s]),
                outcome=outcome,
                forfeit=forfeits[s],
                forfeit_win=fwin,
                forfeit_loss=floss,
                verdict=str(rec.verdict),
                moves=rec.clock.moves,
                move_time=rec.clock.total,
            )
        )
    return MatchResult(
        key=key,
        reason=record.outcome.reason,
        turns=record.final.turn,
        seats=tuple(seats),
        replay=replay,
        wall_seconds=record.wall_seconds,
    )


_WORKER_PLAYERS: PlayerCache | None = None
"""This worker process's players (set by `init_worker` in pools the runner makes)."""


def init_worker(parent: int | None = None) -> None:
    """Give a tournament's pool worker its own players (see `duel.worker_players`)."""
    global _WORKER_PLAYERS
    _WORKER_PLAYERS = worker_players(parent)


def pool_task(task: MatchTask) -> MatchResult:
    """Play a match in a pool worker, with the worker's players if it has any."""
    return play_match(task, _WORKER_PLAYERS)
