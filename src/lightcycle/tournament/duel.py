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
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import multiprocessing.util
import os
import signal
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import FrameType
from typing import Any, ParamSpec, TypeVar

from lightcycle.core.rng import Rng
from lightcycle.core.topology import GridTopology
from lightcycle.maps.random_maps import symmetric_map
from lightcycle.maps.registry import get_map, list_maps
from lightcycle.maps.spec import MapError, MapSpec
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.game import GameRecord, play_game
from lightcycle.referee.local import default_ruleset
from lightcycle.referee.match import interrupts_deferred, unplayable
from lightcycle.referee.players import (
    BotSpec,
    Player,
    ProgramPlayer,
    make_player,
    parse_bot_spec,
    unique_names,
)
from lightcycle.rules.ruleset import Ruleset
from lightcycle.sandbox import Limits
from lightcycle.sandbox.levels import merge_records
from lightcycle.tournament.stats import (
    EloEstimate,
    Pentanomial,
    SprtResult,
    Trinomial,
    json_number,
    sprt_bounds,
    sprt_pentanomial,
)

DEFAULT_POOL = "builtin,random:8"
"""Every built-in two-player grid map and eight seeded random symmetric maps."""

POOL_SYNTAX = (
    "a map name or file (ring, maps/my.map), a folder (every .map and .txt file in it), "
    "builtin (every built-in two-player grid map), "
    "random:N (N random symmetric maps seeded from the duel's or tournament's seed) or "
    "random-SEED (one random map)"
)


# -- the map pool ----------------------------------------------------------------------


def builtin_pool(players: int = 2) -> list[MapSpec]:
    """The built-in maps a duel can use: grid boards for two players, one cycle each.

    Graph boards (3D rules), free-for-all rooms and the team courts (ten cycles a side)
    are other games, so they are left out. A tournament whose matches seat more players
    asks for the grid boards with starts for that many (``players``).
    """
    out: list[MapSpec] = []
    for spec in list_maps():
        if isinstance(spec.topology, GridTopology) and players in spec.players:
            starts = spec.starts_of(players)
            if starts is None or all(len(cells) == 1 for cells in starts):
                out.append(spec)
    return out


def random_seeds(seed: int, n: int) -> list[int]:
    """``n`` distinct map seeds derived from the duel seed (short numbers, for map names)."""
    rng = Rng(seed, 0, "duel.random-maps")
    seeds: list[int] = []
    while len(seeds) < n:
        s = rng.below(1_000_000)
        if s not in seeds:
            seeds.append(s)
    return seeds


def parse_pool(
    text: str,
    seed: int = 0,
    playable: Callable[[MapSpec], str | None] | None = None,
    players: int = 2,
    verb: str = "duel on",
) -> list[MapSpec]:
    """Read a map pool: comma-separated items (see `POOL_SYNTAX`).

    ``lightcycle duel --maps`` and the ``maps`` of a tournament file both read their
    pools here, so the two accept the same items and say the same things about them.

    Args:
        text: e.g. ``builtin,random:8`` or ``ring,arena-15,maps/my.map``.
        seed: the duel's or tournament's seed, from which ``random:N`` derives its map
            seeds.
        playable: says why a map cannot be played here (``None``: it can). Maps that
            ``builtin`` brings in are skipped when they cannot be played (a torus under
            ``--ruleset classic``, or a torus for a tron2010 program); a map named
            explicitly that cannot be played is an error.
        players: seats per game; ``builtin`` means the grid maps with starts for them.
        verb: what cannot be done on an unplayable map, for the error (``duel on``).

    Returns:
        The maps, duplicates removed, in the order given.

    Raises:
        MapError: naming the bad item and what is accepted.
    """
    maps: dict[str, MapSpec] = {}
    items = [item.strip() for item in text.split(",")]
    if not any(items):
        raise MapError(f"empty map pool {text!r}: give {POOL_SYNTAX}")
    for item in items:
        if not item:
            continue
        if item == "builtin":
            for spec in builtin_pool(players):
                if playable is None or playable(spec) is None:
                    maps.setdefault(spec.id, spec)
            continue
        if item.startswith("random:"):
            count = item.removeprefix("random:")
            if not count.isdigit() or int(count) < 1:
                raise MapError(
                    f"bad map pool item {item!r}: random:N needs a count N >= 1, e.g. random:8"
                )
            specs = [symmetric_map(s) for s in random_seeds(seed, int(count))]
        elif item.startswith("random-") and item.removeprefix("random-").isdigit():
            specs = [symmetric_map(int(item.removeprefix("random-")))]
        elif Path(item).is_dir():
            files = sorted(
                f for f in Path(item).iterdir() if f.suffix in (".map", ".txt") and f.is_file()
            )
            if not files:
                raise MapError(
                    f"map pool item {item!r}: a folder with no .map or .txt file; put map"
                    " files in it, or name built-in maps (`lightcycle maps list`) instead,"
                    " e.g. --maps ring,arena-15"
                )
            specs = [get_map(str(f)) for f in files]  # a bad file's error names it
        else:
            try:
                specs = [get_map(item)]
            except MapError as exc:
                raise MapError(
                    f"bad map pool item {item!r}: {exc} (items: {POOL_SYNTAX})"
                ) from None
        for spec in specs:
            problem = playable(spec) if playable is not None else None
            if problem is not None:
                raise MapError(f"map pool item {item!r}: cannot {verb} {spec.id}: {problem}")
            maps.setdefault(spec.id, spec)
    if not maps:
        raise MapError(f"map pool {text!r} has no map the bots can play; give {POOL_SYNTAX}")
    return list(maps.values())


def playable(
    spec: MapSpec, ruleset: Ruleset | None, bots: Sequence[BotSpec], seed: int = 0
) -> str | None:
    """Why a duel between ``bots`` cannot be played on ``spec`` (``None``: it can).

    Sets the game up (the ruleset checks the board and the starts) and asks each bot
    program's protocol whether it can carry it, so a bad pool fails before any game.
    """
    rs = ruleset if ruleset is not None else default_ruleset(spec, 2)
    return unplayable(spec, rs, bots, seed, players=2)


# -- what a pair produces --------------------------------------------------------------


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


# -- playing a pair (in a worker) ------------------------------------------------------


class PlayerCache:
    """The players of one worker, kept from pair to pair so programs can stay running.

    Keyed by the role (A or B) as well as the spec, so a bot playing itself gets two
    players, as it must.
    """

    def __init__(self) -> None:
        self._players: dict[tuple[str, str, str, str | None], Player] = {}

    def get(self, role: str, spec: BotSpec, limits: Limits, log_dir: str | None) -> Player:
        """The player for ``spec`` in ``role``, made on first use."""
        key = (role, repr(spec), repr(limits), log_dir)  # a BotSpec holds a dict: no hash
        player = self._players.get(key)
        if player is None:
            player = make_player(spec, limits, Path(log_dir) if log_dir else None)
            self._players[key] = player
        return player

    def shutdown(self) -> None:
        """Stop every program (idempotent)."""
        players, self._players = list(self._players.values()), {}
        for p in players:
            p.shutdown()


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
            record = play_game(
                seats,
                task.map,
                task.ruleset,
                seed=task.seed,
                controls=controls,
                log_prefix=prefix,
                extra_params=task.extra_params,
            )
            replay = save_replay(record, out, prefix)
            games.append(_game_result(task, g, a_seat, record, replay))
        starts = [_starts(pa) - before[0], _starts(pb) - before[1]]
    finally:
        if players is None:
            cache.shutdown()
    return PairResult(task.index, task.map.id, task.seed, games, starts)


def save_replay(record: GameRecord, out: Path | None, name: str) -> str | None:
    """Write a game's replay as ``replays/NAME.json`` under ``out``; its relative path.

    Duels and tournaments both store that relative path with the result, so the output
    folder can be moved as a whole. ``None`` (nothing written) without an ``out``.
    """
    if out is None:
        return None
    replay = f"replays/{name}.json"
    (out / "replays").mkdir(parents=True, exist_ok=True)
    record.replay.save(out / replay)
    return replay


def _game_result(
    task: PairTask, game: int, a_seat: int, record: GameRecord, replay: str | None
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
    )


_WORKER_PLAYERS: PlayerCache | None = None
"""This worker process's players (set by `_init_worker` in pools the duel makes)."""


PARENT_POLL = 0.5
"""Seconds between a pool worker's checks that the process that started it is alive."""


def watch_parent(parent: int, shutdown: Callable[[], None]) -> None:
    """End this pool worker, after ``shutdown``, once process ``parent`` is gone.

    A worker whose runner was killed (``kill -9``, out of memory) would otherwise wait for
    work forever and keep its bot programs running.

    Args:
        parent: the runner's process id, passed in by the runner: a worker still starting
            when the runner dies would take its new parent (init) for the runner.
        shutdown: stops the worker's players.
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        try:
            shutdown()
        finally:
            os._exit(1)

    threading.Thread(target=watch, name="lightcycle-parent-watch", daemon=True).start()


def worker_players(parent: int | None = None) -> PlayerCache:
    """A pool worker's players, stopped when the worker exits or its runner dies.

    Pool workers leave through multiprocessing's exit path, which skips ``atexit`` but
    runs ``multiprocessing.util.Finalize`` callbacks: that is where programs are stopped.

    Args:
        parent: the runner's process id (``initargs=(os.getpid(),)``); see `watch_parent`.
    """
    players = PlayerCache()
    multiprocessing.util.Finalize(None, players.shutdown, exitpriority=10)
    watch_parent(os.getppid() if parent is None else parent, players.shutdown)
    return players


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


def _init_worker(parent: int | None = None) -> None:
    """Give a duel's pool worker its own players (`worker_players`)."""
    global _WORKER_PLAYERS
    _WORKER_PLAYERS = worker_players(parent)


def _init_pool_worker(parent: int | None = None) -> None:
    """Set up a worker of the duel's own process pool: its players and its Ctrl-C.

    Only our own pool's workers take over SIGINT (`_on_sigint`); a cluster's workers
    (`lightcycle.tournament.cluster`) keep their framework's handling.
    """
    _init_worker(parent)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _on_sigint)


_KEPT_MAPS: dict[MapSpec, MapSpec] = {}
_KEPT_MAPS_MAX = 256


def kept_map(spec: MapSpec) -> MapSpec:
    """This process's copy of a map equal to ``spec``: the first one it was given.

    Each task arrives with its own unpickled map, and bots and the rules cache tables
    per board object (`lightcycle.rules.fast.windows`): on a new object every pair they
    were rebuilt every pair, which cost about half an instant-bot game's CPU per game.
    Equal maps are interchangeable (frozen dataclasses), so the first copy serves.
    """
    kept = _KEPT_MAPS.get(spec)
    if kept is None:
        if len(_KEPT_MAPS) >= _KEPT_MAPS_MAX:
            _KEPT_MAPS.clear()
        kept = _KEPT_MAPS[spec] = spec
    return kept


def _pool_task(task: PairTask) -> PairResult:
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


_P = ParamSpec("_P")
_T = TypeVar("_T")


class InlineExecutor(Executor):
    """Runs each task at once in the calling thread: ``workers=1`` without processes.

    Keeps the duel's scheduling code identical for one worker and many, and keeps
    tracebacks and debuggers in one process.
    """

    def submit(self, fn: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> Future[_T]:
        """Run ``fn`` now and return its finished future (exceptions are kept in it)."""
        future: Future[_T] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as exc:  # the caller sees it from future.result(), as with a pool
            future.set_exception(exc)
        return future


def default_workers() -> int:
    """The cores this process may run on (its CPU affinity where the OS tells it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover -- macOS, Windows
        return max(1, os.cpu_count() or 1)


# -- the duel --------------------------------------------------------------------------


@dataclass(frozen=True)
class SprtConfig:
    """An SPRT to run: H0 ``elo0`` against H1 ``elo1`` with error rates alpha and beta.

    Attributes:
        elo0: the Elo difference of H0 ("no better than this").
        elo1: the Elo difference of H1 ("at least this much better").
        alpha: the tolerated rate of accepting H1 when H0 holds.
        beta: the tolerated rate of accepting H0 when H1 holds.
        min_pairs: pairs to play before the test may decide. The normal approximation
            estimates the variance from the pairs themselves, and a handful of pairs
            that happen to agree (or the 0.001-game regularization of the empty classes)
            give a variance near zero and an LLR of hundreds after one pair. Fishtest
            avoids this by evaluating only after batches of games; this is the same
            guard for a duel that may be a few dozen games long.

    Raises:
        ValueError: unless ``elo0 < elo1`` and the rates are usable (checked at once, so
            a typo fails before the first game rather than after it).
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    min_pairs: int = 10

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"SPRT needs elo0 < elo1, got {self.elo0:g} and {self.elo1:g}")
        if self.min_pairs < 1:
            raise ValueError(f"SPRT min_pairs must be >= 1, got {self.min_pairs}")
        sprt_bounds(self.alpha, self.beta)

    def test(self, tally: Pentanomial) -> SprtResult:
        """Where the test stands after ``tally`` (``continue`` before `min_pairs`)."""
        result = sprt_pentanomial(tally.counts, self.elo0, self.elo1, self.alpha, self.beta)
        if tally.pairs < self.min_pairs and result.decided:
            return replace(result, state="continue")
        return result


@dataclass
class BotSummary:
    """One bot's side of the duel: times, verdicts and what it reported.

    Attributes:
        name: the display name.
        spec: the bot spec as given.
        games: games played.
        moves: moves timed.
        move_time: seconds over those moves.
        max_move: the slowest move, seconds.
        verdicts: games per verdict other than ok (``timeout``, ``crashed``...).
        verdict_examples: the first detail seen per verdict, to show what went wrong.
        info_sum: per reported figure (``depth``...), the sum over games reporting it.
        info_games: per reported figure, how many games reported it.
        process_starts: bot processes started (programs only).
        sandbox: what confined its program over the games
            (`lightcycle.sandbox.levels.merge_records`); ``None`` for an in-process bot.
    """

    name: str
    spec: str
    games: int = 0
    moves: int = 0
    move_time: float = 0.0
    max_move: float = 0.0
    verdicts: dict[str, int] = field(default_factory=dict)
    verdict_examples: dict[str, str] = field(default_factory=dict)
    info_sum: dict[str, float] = field(default_factory=dict)
    info_games: dict[str, int] = field(default_factory=dict)
    process_starts: int = 0
    sandbox: dict[str, Any] | None = None

    @property
    def avg_move_time(self) -> float:
        """Mean seconds per move."""
        return self.move_time / self.moves if self.moves else 0.0

    def info_mean(self, key: str) -> float | None:
        """The mean per game of a reported figure (``None`` if never reported)."""
        n = self.info_games.get(key, 0)
        return self.info_sum[key] / n if n else None

    @property
    def depth(self) -> float | None:
        """Mean search depth, where the bot reports one (``Bot.report()["depth"]``)."""
        return self.info_mean("depth")

    def add(self, game: GameResult, side: int) -> None:
        """Count ``game`` for this bot (``side`` 0 for A, 1 for B)."""
        self.games += 1
        self.moves += game.moves[side]
        self.move_time += game.move_time[side]
        self.max_move = max(self.max_move, game.max_move[side])
        verdict = game.verdicts[side]
        kind, _, detail = verdict.partition(": ")
        if kind != "ok":
            self.verdicts[kind] = self.verdicts.get(kind, 0) + 1
            self.verdict_examples.setdefault(kind, detail)
        self.sandbox = merge_records(self.sandbox, game.sandbox[side])
        for key, value in game.info[side].items():
            self.info_sum[key] = self.info_sum.get(key, 0.0) + value
            self.info_games[key] = self.info_games.get(key, 0) + 1

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``results.json``."""
        return {
            "name": self.name,
            "spec": self.spec,
            "games": self.games,
            "moves": self.moves,
            "avg_move_time": round(self.avg_move_time, 6),
            "max_move_time": round(self.max_move, 6),
            "verdicts": dict(sorted(self.verdicts.items())),
            "verdict_examples": dict(sorted(self.verdict_examples.items())),
            "reported": {k: self.info_mean(k) for k in sorted(self.info_games)},
            "process_starts": self.process_starts,
            "sandbox": self.sandbox,
        }


@dataclass(frozen=True)
class DuelProgress:
    """The running totals handed to ``on_pair`` after each pair (live displays).

    Attributes:
        pairs_done: pairs finished so far.
        pairs_total: pairs planned (the cap when an SPRT may stop earlier).
        trinomial: A's wins, draws and losses so far.
        pentanomial: A's pairs by points so far.
        sprt: the SPRT so far (``None`` without one).
        elapsed: wall seconds since the duel began.
    """

    pairs_done: int
    pairs_total: int
    trinomial: Trinomial
    pentanomial: Pentanomial
    sprt: SprtResult | None
    elapsed: float


@dataclass
class DuelResult:
    """A finished duel, as plain data.

    Attributes:
        bots: A's and B's summaries.
        pairs: every finished pair, by index.
        trinomial: A's wins, draws and losses.
        pentanomial: A's pairs by points (the statistics' sample).
        sprt: the SPRT as it stood when it decided (or at the end, undecided).
        sprt_pairs: pairs counted when the SPRT decided (pairs already running then
            were finished and are in the totals, not in the test).
        pairs_planned: the pair cap.
        maps: the pool's map ids.
        seed: the duel seed.
        control: the time control (before bot files' own settings).
        workers: parallel workers used.
        wall_seconds: the duel's duration.
        interrupted: whether a Ctrl-C ended the duel (``pairs`` then holds the pairs
            finished before it, not necessarily the first ones).
    """

    bots: tuple[BotSummary, BotSummary]
    pairs: list[PairResult]
    trinomial: Trinomial
    pentanomial: Pentanomial
    sprt: SprtResult | None
    sprt_pairs: int | None
    pairs_planned: int
    maps: list[str]
    seed: int
    control: dict[str, float | None]
    workers: int
    wall_seconds: float = 0.0
    interrupted: bool = False

    @property
    def games(self) -> int:
        """Games played."""
        return self.trinomial.games

    @property
    def stopped_early(self) -> bool:
        """Whether an SPRT decision ended the duel before the cap."""
        decided = self.sprt is not None and self.sprt.decided
        return decided and len(self.pairs) < self.pairs_planned

    @property
    def complete(self) -> bool:
        """Whether the duel ended as planned (every pair, or an SPRT decision)."""
        if self.interrupted:
            return False
        return len(self.pairs) == self.pairs_planned or self.stopped_early

    def estimate(self, confidence: float = 0.95) -> EloEstimate:
        """A's Elo advantage over B with the pentanomial interval (pairs as samples)."""
        return self.pentanomial.estimate(confidence)

    def estimate_trinomial(self, confidence: float = 0.95) -> EloEstimate:
        """The same from games as independent samples (wider: counts the seat luck)."""
        return self.trinomial.estimate(confidence)

    def to_dict(self) -> dict[str, Any]:
        """Plain, strictly valid JSON data for ``results.json``."""
        # duelmaps groups PairResults, so it imports this module: import it here
        from lightcycle.tournament.duelmaps import by_map

        t = self.trinomial
        return {
            "complete": self.complete,
            "interrupted": self.interrupted,
            "a": self.bots[0].to_dict(),
            "b": self.bots[1].to_dict(),
            "games": self.games,
            "games_planned": 2 * self.pairs_planned,
            "pairs_played": len(self.pairs),
            "pairs_planned": self.pairs_planned,
            "stopped_early": self.stopped_early,
            "result": {"wins": t.wins, "draws": t.draws, "losses": t.losses},
            "pentanomial": list(self.pentanomial.counts),
            # no estimate without a pair (a duel interrupted during its first pairs)
            "elo": self.estimate().to_dict() if self.pairs else None,
            "elo_trinomial": self.estimate_trinomial().to_dict() if self.pairs else None,
            "sprt": self.sprt.to_dict() if self.sprt is not None else None,
            "sprt_pairs": self.sprt_pairs,
            "maps": list(self.maps),
            "seed": self.seed,
            "control": dict(self.control),
            "workers": self.workers,
            "wall_seconds": json_number(round(self.wall_seconds, 3)),
            "by_map": [line.to_dict() for line in by_map(self.pairs)],
            "pairs": [p.to_dict() for p in self.pairs],
        }

    def write(self, path: Path) -> None:
        """Write ``to_dict`` as JSON atomically (a temporary file renamed into place)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        text = json.dumps(self.to_dict(), indent=1, allow_nan=False)
        tmp.write_text(text + "\n", encoding="utf-8")
        os.replace(tmp, path)


class DuelInterrupted(KeyboardInterrupt):
    """A Ctrl-C ended the duel; ``result`` holds the pairs finished before it.

    A `KeyboardInterrupt`, so a caller that does not look for it still stops as on any
    Ctrl-C; the command line catches it to print the partial report.
    """

    def __init__(self, result: DuelResult) -> None:
        super().__init__(
            f"duel interrupted: {result.games} of {2 * result.pairs_planned} games finished"
        )
        self.result = result


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
            initializer=_init_pool_worker,
            initargs=(os.getpid(),),
        )
        executor = own_pool
    runner = executor

    def submit(t: PairTask) -> Future[PairResult]:
        if inline_players is not None:
            return runner.submit(play_pair, t, inline_players)
        return runner.submit(_pool_task, t)

    bots = (BotSummary(names[0], specs[0].text), BotSummary(names[1], specs[1].text))
    done: list[PairResult] = []
    tri, penta = Trinomial(), Pentanomial()
    sprt_state: SprtResult | None = None
    sprt_pairs: int | None = None
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
                    done.append(result)
                    for g in result.games:
                        tri = tri.add(g.score)
                        bots[0].add(g, 0)
                        bots[1].add(g, 1)
                    bots[0].process_starts += result.process_starts[0]
                    bots[1].process_starts += result.process_starts[1]
                    penta = penta.add(result.points)
                    if sprt is not None and not (sprt_state is not None and sprt_state.decided):
                        sprt_state = sprt.test(penta)
                        sprt_pairs = penta.pairs
                        if sprt_state.decided:
                            stop = True
                if on_pair is not None:
                    progress = DuelProgress(
                        len(done), pairs_total, tri, penta, sprt_state, time.perf_counter() - t0
                    )
                    on_pair(result, progress)
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

    done.sort(key=lambda p: p.index)
    result_ = DuelResult(
        bots=bots,
        pairs=done,
        trinomial=tri,
        pentanomial=penta,
        sprt=sprt_state,
        sprt_pairs=sprt_pairs,
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

    At a terminal the workers got it already (`_on_sigint` ignores a second one); a
    SIGINT sent to the runner alone would otherwise leave it waiting for every running
    pair to finish. The pool keeps its processes in a private attribute, hence the care.
    """
    processes: dict[int, Any] = getattr(pool, "_processes", None) or {}
    for pid in list(processes):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGINT)
