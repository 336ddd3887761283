"""Playing tournament matches in a worker: a picklable batch in, plain results out.

Workers never touch the database: the runner's process alone writes to it, in schedule
order, so ratings never depend on which worker finished first.

The runner sends matches in batches (`MatchBatch`): games of instant bots take a few
milliseconds, and a pool's round trip per task (pickling, two pipe hops, waking two
threads) is then a noticeable share of a game. A batch names its matches by four small
fields (`MatchOrder`); what every match shares (maps, rulesets, bots, clocks: a
`MatchSetup`) travels as pickled bytes that a worker unpickles once and keeps. Keeping
the *same* map objects from match to match matters more than the bytes saved: bots and
the rules cache tables per board object (`lightcycle.rules.fast.windows`), and a map
unpickled afresh for every match rebuilt them every time, which cost half as much CPU
again as an instant-bot game on a 15x15 board (``bench/tournament.py`` measures it).

A worker keeps one player per entrant for as long as it lives (`PlayerCache`), so a bot
program whose protocol allows several games per process (``jsonl``) is started once per
worker for the whole tournament; programs of the other protocols (``tron2010``,
``aichallenge``, ``sexp``) know no way to start a new game, so the referee starts them
afresh for every game, as ``lightcycle match`` does. In-process bots get a fresh
instance every game.
"""

from __future__ import annotations

import hashlib
import pickle
import threading
from dataclasses import dataclass
from pathlib import Path

from lightcycle.maps.spec import MapSpec
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.game import GameRecord, play_game
from lightcycle.referee.players import BotSpec
from lightcycle.rules.ruleset import Ruleset
from lightcycle.sandbox import Limits
from lightcycle.tournament.results import MatchResult, SeatResult, seat_outcomes
from lightcycle.tournament.workers import PlayerCache, save_replay, worker_players


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


@dataclass(frozen=True)
class MatchSetup:
    """What every match of one tournament run shares (picklable, no live objects).

    Attributes:
        maps: the maps, by index.
        rulesets: the rules of each map, settings applied.
        names: each entrant's name, by entrant index.
        specs: each entrant's bot spec.
        controls: each entrant's time control on each map, ``[entrant][map]``.
        limits: process limits of bot programs.
        out_dir: the output folder (replays in ``replays/``, logs in ``logs/``), if any.
    """

    maps: tuple[MapSpec, ...]
    rulesets: tuple[Ruleset, ...]
    names: tuple[str, ...]
    specs: tuple[BotSpec, ...]
    controls: tuple[tuple[TimeControl, ...], ...]
    limits: Limits
    out_dir: str | None = None

    def task(self, order: MatchOrder) -> MatchTask:
        """The full task of one match of this setup."""
        seats = order.entrants
        return MatchTask(
            key=order.key,
            map=self.maps[order.map],
            ruleset=self.rulesets[order.map],
            seed=order.seed,
            entrants=seats,
            names=tuple(self.names[e] for e in seats),
            specs=tuple(self.specs[e] for e in seats),
            controls=tuple(self.controls[e][order.map] for e in seats),
            limits=self.limits,
            out_dir=self.out_dir,
        )


@dataclass(frozen=True)
class MatchOrder:
    """One match of a batch, by reference to its setup.

    Attributes:
        key: the match key.
        map: the map's index in the setup.
        seed: the game seed.
        entrants: entrant index per seat.
    """

    key: str
    map: int
    seed: int
    entrants: tuple[int, ...]


@dataclass(frozen=True)
class PackedSetup:
    """A `MatchSetup` pickled once by the runner, with a digest workers cache it under.

    Attributes:
        digest: a hash of ``data``.
        data: the pickled setup.
    """

    digest: str
    data: bytes

    @classmethod
    def pack(cls, setup: MatchSetup) -> PackedSetup:
        """Pickle ``setup`` (once per run: every batch then carries the same bytes)."""
        data = pickle.dumps(setup, protocol=pickle.HIGHEST_PROTOCOL)
        return cls(hashlib.blake2b(data, digest_size=16).hexdigest(), data)


@dataclass(frozen=True)
class MatchBatch:
    """Matches a worker plays one after the other and returns together.

    Attributes:
        setup: what the matches share (unpickled at most once per worker and digest).
        matches: the matches, in schedule order.
    """

    setup: PackedSetup
    matches: tuple[MatchOrder, ...]


_SETUPS: dict[str, MatchSetup] = {}
"""Setups this process has unpickled, by digest (a few: one per tournament run)."""
_SETUPS_LOCK = threading.Lock()
_SETUPS_KEPT = 4


def unpack(packed: PackedSetup) -> MatchSetup:
    """The setup of ``packed``: this process's copy, unpickled on first use."""
    with _SETUPS_LOCK:
        setup = _SETUPS.get(packed.digest)
        if setup is None:
            setup = pickle.loads(packed.data)
            assert isinstance(setup, MatchSetup)
            while len(_SETUPS) >= _SETUPS_KEPT:
                del _SETUPS[next(iter(_SETUPS))]
            _SETUPS[packed.digest] = setup
        return setup


def play_batch(batch: MatchBatch, players: PlayerCache | None = None) -> list[MatchResult]:
    """Play a batch's matches in order and return their results, in the same order.

    Args:
        batch: the matches.
        players: the worker's players, kept between batches; ``None`` makes players for
            this batch only and stops their programs at the end.
    """
    setup = unpack(batch.setup)
    cache = players if players is not None else PlayerCache()
    try:
        return [play_match(setup.task(order), cache) for order in batch.matches]
    finally:
        if players is None:
            cache.shutdown()


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
        replay = save_replay(record, out, task.key)
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
    """Give a tournament's pool worker its own players (see `workers.worker_players`)."""
    global _WORKER_PLAYERS
    _WORKER_PLAYERS = worker_players(parent)


def pool_task(task: MatchTask) -> MatchResult:
    """Play a match in a pool worker, with the worker's players if it has any."""
    return play_match(task, _WORKER_PLAYERS)


def pool_batch(batch: MatchBatch) -> list[MatchResult]:
    """Play a batch in a pool worker, with the worker's players if it has any."""
    return play_batch(batch, _WORKER_PLAYERS)
