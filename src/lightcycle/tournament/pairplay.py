"""Playing a duel's pair, in this process or in a worker of the duel's own pool.

`play_pair` plays both games of a `PairTask` and counts them from bot A's side. In the
process pool `run_duel` makes, each worker keeps its players between pairs
(`init_worker`), and a Ctrl-C abandons the pair being played, once, and stops the
worker's bot programs (`init_pool_worker`, `pool_task`); a cluster's workers
(`lightcycle.tournament.cluster`) use `init_worker` alone and keep their framework's
Ctrl-C handling.
"""

from __future__ import annotations

import signal
import threading
from dataclasses import replace
from pathlib import Path
from types import FrameType

from lightcycle.referee.game import GameRecord, play_game
from lightcycle.referee.players import Player, ProgramPlayer
from lightcycle.rules.phases import PhaseLog
from lightcycle.tournament.pairs import GameResult, PairResult, PairTask
from lightcycle.tournament.workers import PlayerCache, kept_map, save_replay, worker_players


def _starts(p: Player) -> int:
    return p.starts if isinstance(p, ProgramPlayer) else 0


def play_pair(task: PairTask, players: PlayerCache | None = None) -> PairResult:
    """Play one side-swapped pair: A in seat 1, then B in seat 1; same map, same seed.

    Args:
        task: the pair.
        players: a worker's players to reuse; ``None`` makes players for this pair only
            and stops their programs at the end.
    """
    cache = players if players is not None else PlayerCache()
    out = Path(task.out_dir) if task.out_dir is not None else None
    log_dir = str(out / "logs") if out is not None else None
    try:
        pa = cache.get("a", task.specs[0], task.limits, log_dir)
        pb = cache.get("b", task.specs[1], task.limits, log_dir)
        pa.name, pb.name = task.names
        before = [_starts(pa), _starts(pb)]
        games: list[GameResult] = []
        for g, a_seat in ((1, 0), (2, 1)):
            seats = [pa, pb] if a_seat == 0 else [pb, pa]
            controls = list(task.controls) if a_seat == 0 else list(reversed(task.controls))
            prefix = f"pair-{task.index + 1:04d}-{g}"
            phases = PhaseLog()
            record = play_game(
                seats,
                task.map,
                task.ruleset,
                seed=task.seed,
                controls=controls,
                log_prefix=prefix,
                on_turn=phases,
                extra_params=task.extra_params,
            )
            replay = save_replay(record, out, prefix)
            games.append(_game_result(task, g, a_seat, record, replay, phases))
        starts = [_starts(pa) - before[0], _starts(pb) - before[1]]
    finally:
        if players is None:
            cache.shutdown()
    return PairResult(task.index, task.map.id, task.seed, games, starts)


def _game_result(
    task: PairTask,
    game: int,
    a_seat: int,
    record: GameRecord,
    replay: str | None,
    phases: PhaseLog | None = None,
) -> GameResult:
    ranks = record.outcome.ranks
    b_seat = 1 - a_seat
    score = 1.0 if ranks[a_seat] < ranks[b_seat] else 0.0 if ranks[a_seat] > ranks[b_seat] else 0.5
    seats = [record.seats[a_seat], record.seats[b_seat]]
    sandbox = record.replay.sandbox or [None, None]
    return GameResult(
        pair=task.index,
        game=game,
        map=task.map.id,
        seed=task.seed,
        a_seat=a_seat,
        score=score,
        reason=record.outcome.reason,
        turns=record.final.turn,
        verdicts=[str(s.verdict) for s in seats],
        moves=[s.clock.moves for s in seats],
        move_time=[s.clock.total for s in seats],
        max_move=[s.clock.max_move for s in seats],
        info=[dict(s.info) for s in seats],
        replay=replay,
        sandbox=[sandbox[a_seat], sandbox[b_seat]],
        phase_time=(
            [phases.times(record.replay.times, a_seat), phases.times(record.replay.times, b_seat)]
            if phases is not None
            else [{}, {}]
        ),
    )


_WORKER_PLAYERS: PlayerCache | None = None
"""This worker process's players (set by `init_worker` in pools the duel makes)."""

_PLAYING = False
"""Whether this pool worker is playing a pair now (a Ctrl-C then abandons it)."""


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    """A pool worker's Ctrl-C: abandon the pair being played, once; else nothing.

    A Ctrl-C at the terminal reaches the runner and its workers alike, and the runner
    passes it on to its workers when it alone got one. Raising only during a pair, and
    only once, keeps a worker that waits for work (or is already stopping its bots) from
    dying with a traceback; the runner ends the pool itself.
    """
    global _PLAYING
    if _PLAYING:
        _PLAYING = False
        raise KeyboardInterrupt


def init_worker(parent: int | None = None) -> None:
    """Give a duel's pool worker its own players (`worker_players`)."""
    global _WORKER_PLAYERS
    _WORKER_PLAYERS = worker_players(parent)


def init_pool_worker(parent: int | None = None) -> None:
    """Set up a worker of the duel's own process pool: its players and its Ctrl-C.

    Only our own pool's workers take over SIGINT (`_on_sigint`); a cluster's workers
    (`lightcycle.tournament.cluster`) keep their framework's handling.
    """
    init_worker(parent)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _on_sigint)


def pool_task(task: PairTask) -> PairResult:
    """Play a pair in a pool worker, with the worker's players and kept maps.

    An abandoned pair (Ctrl-C) stops the worker's bot programs at once: the runner is
    ending the duel and will not wait for another pair.
    """
    global _PLAYING
    _PLAYING = True
    try:
        return play_pair(replace(task, map=kept_map(task.map)), _WORKER_PLAYERS)
    except KeyboardInterrupt:
        if _WORKER_PLAYERS is not None:
            _WORKER_PLAYERS.shutdown()
        raise
    finally:
        _PLAYING = False
