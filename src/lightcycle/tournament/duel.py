"""A duel: many games between two bots, to learn with statistics which one is stronger.

A match (`lightcycle.referee.match`) plays what it is told; a duel plays until it knows.
Its design follows how chess engine testers compare versions:

- **Side-swapped pairs.** Every map and seed is played twice, with the seats swapped.
  Maps and seeds always favour someone a little; in a pair the favour goes to each bot
  once and cancels, so the pair's score measures the bots, not the draw of the maps.
  The statistics treat each pair as one sample (`lightcycle.tournament.stats`,
  pentanomial model).
- **A pool of maps.** Built-in maps plus seeded random symmetric ones
  (`lightcycle.maps.random_maps`), so a bot tuned to one room does not look stronger
  than it is. Pair ``k`` plays map ``k mod len(pool)`` with game seed ``seed + k``.
- **Every core.** Pairs run in parallel through a `concurrent.futures.Executor`: by
  default a process pool with one worker per core; ``workers=1`` plays in this process
  (tests, debugging); any executor can be passed in (a cluster's, a thread pool).
- **Stop when sure.** With an SPRT the duel stops submitting pairs as soon as the test
  accepts a hypothesis, finishes the pairs already running, and reports the decision.
- **Stop when told.** A Ctrl-C abandons the pairs still playing (workers included) and
  ends the duel with the pairs already finished: their replays and a ``results.json``
  marked incomplete are kept, and `DuelInterrupted` carries the partial result.

Bot programs: each worker keeps one player per bot for all the pairs it plays, so a
program whose protocol allows it (``jsonl``) runs as one process per worker for the whole
duel; other protocols start a process per game, as in a match. With an executor passed
in (no worker set-up of ours), players live for one pair: a process per pair at most.

This module runs the duel (`run_duel`: pairs scheduled onto an executor, the SPRT stop,
Ctrl-C) and is where its public names are imported from. The parts live in modules named
after what they own: `lightcycle.tournament.mappool` (the map pool),
`lightcycle.tournament.pairs` (a pair's task and results), `lightcycle.tournament.pairplay`
(playing a pair, the duel's pool workers), `lightcycle.tournament.workers` (what duel and
tournament workers share), `lightcycle.tournament.duelstats` (tallies and the SPRT) and
`lightcycle.tournament.duelresult` (the outcome and ``results.json``).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

from lightcycle.maps.spec import MapError, MapSpec
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.local import default_ruleset
from lightcycle.referee.match import interrupts_deferred
from lightcycle.referee.players import BotSpec, make_player, parse_bot_spec, unique_names
from lightcycle.rules.ruleset import Ruleset
from lightcycle.sandbox import Limits
from lightcycle.tournament.duelresult import BotSummary, DuelInterrupted, DuelResult
from lightcycle.tournament.duelstats import DuelProgress, DuelTally, SprtConfig
from lightcycle.tournament.mappool import (
    DEFAULT_POOL,
    POOL_SYNTAX,
    builtin_pool,
    parse_pool,
    playable,
    random_seeds,
)
from lightcycle.tournament.pairplay import init_pool_worker, play_pair, pool_task
from lightcycle.tournament.pairs import GameResult, PairResult, PairTask
from lightcycle.tournament.workers import (
    PARENT_POLL,
    InlineExecutor,
    PlayerCache,
    default_workers,
    kept_map,
    save_replay,
    watch_parent,
    worker_players,
)

__all__ = [
    "DEFAULT_POOL",
    "PARENT_POLL",
    "POOL_SYNTAX",
    "BotSummary",
    "DuelInterrupted",
    "DuelProgress",
    "DuelResult",
    "GameResult",
    "InlineExecutor",
    "PairResult",
    "PairTask",
    "PlayerCache",
    "SprtConfig",
    "bot_names",
    "builtin_pool",
    "default_workers",
    "kept_map",
    "parse_pool",
    "play_pair",
    "playable",
    "random_seeds",
    "run_duel",
    "save_replay",
    "watch_parent",
    "worker_players",
]


def _as_spec(bot: BotSpec | str) -> BotSpec:
    return bot if isinstance(bot, BotSpec) else parse_bot_spec(bot)


def bot_names(specs: Sequence[BotSpec]) -> list[str]:
    """Display names of the bots, numbered when equal (``Random``, ``Random 2``)."""
    names: list[str] = []
    for spec in specs:
        player = make_player(spec, Limits(), None)  # starts nothing
        names.append(player.name)
    return unique_names(names)


def run_duel(
    bot_a: BotSpec | str,
    bot_b: BotSpec | str,
    maps: Sequence[MapSpec] | str = DEFAULT_POOL,
    games: int = 200,
    ruleset: Ruleset | None = None,
    control: TimeControl | None = None,
    seed: int = 0,
    workers: int | None = None,
    sprt: SprtConfig | None = None,
    on_pair: Callable[[PairResult, DuelProgress], None] | None = None,
    executor: Executor | None = None,
    out_dir: Path | None = None,
    limits: Limits | None = None,
    extra_params: tuple[tuple[str, str], ...] = (),
) -> DuelResult:
    """Play A against B in side-swapped pairs and measure the difference.

    Args:
        bot_a: the bot under test (the one whose Elo advantage is reported), as a
            `BotSpec` or a spec string (``builtin:NAME``, ``py:FILE.py``, ``FILE.toml``;
            ``cmd:`` needs a parsed spec with its protocol).
        bot_b: the reference bot.
        maps: the pool: maps, or pool text for `parse_pool` (maps the bots cannot play
            are then left out of ``builtin``).
        games: games to play at most: an even number, since games come in pairs.
        ruleset: the rules for every map; ``None``: each map's own (classic, or torus
            on a wrapping grid).
        control: the time control; ``None``: the ruleset's defaults. A bot file's
            ``[time]`` table overrides it for that bot.
        seed: pair ``k`` plays with game seed ``seed + k``; random maps derive from it.
        workers: pairs played at once; ``None``: one per core; 1: in this process.
        sprt: stop as soon as this test decides.
        on_pair: called in this process after each pair, with the running totals.
        executor: where pairs run instead of the default pool (not shut down here).
        out_dir: where ``results.json``, the replays (``replays/``) and the bot
            programs' logs (``logs/``) go; ``None``: nothing is written.
        limits: process limits of bot programs.
        extra_params: more parameters announced by protocols with a parameter list.

    Raises:
        BotError: a bad bot spec.
        MapError: a bad pool, or a map the bots or the ruleset cannot play.
        TimeControlError: a time control no game can use.
        ValueError: ``games`` below 2 or odd.
        DuelInterrupted: on Ctrl-C, after the finished pairs were written down.
    """
    t0 = time.perf_counter()
    if games < 1:
        raise ValueError(f"a duel needs at least one game, got {games}")
    if games % 2:
        raise ValueError(
            f"a duel plays side-swapped pairs, so an even number of games, got {games}"
        )
    specs = (_as_spec(bot_a), _as_spec(bot_b))
    if isinstance(maps, str):
        pool = parse_pool(maps, seed, lambda m: playable(m, ruleset, specs, seed))
    else:
        pool = list(maps)
        if not pool:
            raise MapError(f"no maps to duel on; give {POOL_SYNTAX}")
        for spec in pool:
            problem = playable(spec, ruleset, specs, seed)
            if problem is not None:
                raise MapError(f"cannot duel on map {spec.id}: {problem}")
    names = bot_names(specs)
    limits = limits if limits is not None else Limits()
    workers = workers if workers is not None else default_workers()
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    pairs_total = games // 2
    rulesets = {m.id: ruleset if ruleset is not None else default_ruleset(m, 2) for m in pool}
    base = control if control is not None else TimeControl.for_ruleset(rulesets[pool[0].id].clock)

    def task(k: int) -> PairTask:
        spec = pool[k % len(pool)]
        rs = rulesets[spec.id]
        c = control if control is not None else TimeControl.for_ruleset(rs.clock)
        controls = tuple(c.with_overrides(s.time) if s.time else c for s in specs)
        for tc in controls:
            tc.validate()
        return PairTask(
            index=k,
            map=spec,
            ruleset=rs,
            seed=seed + k,
            specs=specs,
            names=(names[0], names[1]),
            controls=(controls[0], controls[1]),
            limits=limits,
            out_dir=str(out_dir) if out_dir is not None else None,
            extra_params=extra_params,
        )

    task(0)  # validates the time controls before anything starts
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)

    own_pool: ProcessPoolExecutor | None = None
    inline_players: PlayerCache | None = None
    if executor is None and workers == 1:
        executor = InlineExecutor()
        inline_players = PlayerCache()
    elif executor is None:
        # spawn, not fork: the parent may run threads (a progress display), and forking
        # a threaded process can copy a held lock into the child.
        own_pool = ProcessPoolExecutor(
            max_workers=min(workers, pairs_total),
            mp_context=multiprocessing.get_context("spawn"),
            initializer=init_pool_worker,
            initargs=(os.getpid(),),
        )
        executor = own_pool
    runner = executor

    def submit(t: PairTask) -> Future[PairResult]:
        if inline_players is not None:
            return runner.submit(play_pair, t, inline_players)
        return runner.submit(pool_task, t)

    bots = (BotSummary(names[0], specs[0].text), BotSummary(names[1], specs[1].text))
    tally = DuelTally(bots, sprt)
    running: dict[Future[PairResult], int] = {}
    next_k = 0
    stop = False
    interrupted = False
    try:
        while True:
            while not stop and next_k < pairs_total and len(running) < workers:
                running[submit(task(next_k))] = next_k
                next_k += 1
            if not running:
                break
            finished, _ = wait(list(running), return_when=FIRST_COMPLETED)
            for fut in sorted(finished, key=lambda f: running[f]):
                del running[fut]
                result = fut.result()
                with interrupts_deferred():  # a pair is counted whole or not at all
                    if tally.add(result):
                        stop = True
                if on_pair is not None:
                    on_pair(result, tally.progress(pairs_total, time.perf_counter() - t0))
    except KeyboardInterrupt:
        interrupted = True
        if own_pool is not None:
            _interrupt_workers(own_pool)
    finally:
        for fut in running:
            fut.cancel()
        if own_pool is not None:
            own_pool.shutdown(wait=True, cancel_futures=True)
        if inline_players is not None:
            inline_players.shutdown()

    done = sorted(tally.pairs, key=lambda p: p.index)
    result_ = DuelResult(
        bots=bots,
        pairs=done,
        trinomial=tally.trinomial,
        pentanomial=tally.pentanomial,
        sprt=tally.sprt_state,
        sprt_pairs=tally.sprt_pairs,
        pairs_planned=pairs_total,
        maps=[m.id for m in pool],
        seed=seed,
        control=base.to_dict(),
        workers=workers,
        wall_seconds=time.perf_counter() - t0,
        interrupted=interrupted,
    )
    if out_dir is not None:
        result_.write(out_dir / "results.json")
    if interrupted:
        raise DuelInterrupted(result_)
    return result_


def _interrupt_workers(pool: ProcessPoolExecutor) -> None:
    """Pass a Ctrl-C on to the pool's workers, so they abandon their pairs now.

    At a terminal the workers got it already (`pairplay._on_sigint` ignores a second one); a
    SIGINT sent to the runner alone would otherwise leave it waiting for every running
    pair to finish. The pool keeps its processes in a private attribute, hence the care.
    """
    processes: dict[int, Any] = getattr(pool, "_processes", None) or {}
    for pid in list(processes):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGINT)
