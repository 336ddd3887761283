"""A match: a series of games between the same bots over one map or a list of maps.

Seats can swap from game to game, so neither bot keeps the better start; bot programs
are kept running between games where their protocol allows; every game's replay and every
bot's stderr log go to the output folder; the result is a per-bot table of wins, losses,
draws, forfeits and move times.

A program that needs a new process per game has the next one started while a game plays
(``spares``) and its finished ones ended in the background, so a series of short games
is not mostly process start-up; all of them are killed and reaped when the match ends,
however it ends.

The whole map pool is checked before the first game (`check_pool`), so a map that does
not suit the bots or the rules fails at once rather than after hours of games. A Ctrl-C
ends the match after the games already finished: their replays and a ``results.json``
marked incomplete are kept, and `MatchInterrupted` carries the partial result.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from lightcycle.core.state import GameState
from lightcycle.maps.spec import MapError, MapSpec
from lightcycle.protocols import get_protocol
from lightcycle.protocols.base import UnsupportedGame
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.game import GameRecord, play_game
from lightcycle.referee.players import (
    BotSpec,
    Player,
    ProgramPlayer,
    make_player,
    unique_names,
)
from lightcycle.rules.engine import new_game
from lightcycle.rules.ruleset import RulesError, Ruleset
from lightcycle.sandbox import Limits
from lightcycle.sandbox.levels import merge_records

DEFAULT_SPARES = 1
"""Processes a program is started ahead by default: one is enough once a game lasts longer
than a start (a few ms for a compiled bot, 30-40 ms for Python); more only help on a
machine with idle cores, since starting is CPU work."""


# -- the map pool ----------------------------------------------------------------------


def unplayable(
    spec: MapSpec,
    ruleset: Ruleset,
    bots: Sequence[BotSpec],
    seed: int = 0,
    players: int | None = None,
) -> str | None:
    """Why ``bots`` cannot play a game on ``spec`` under ``ruleset`` (``None``: they can).

    Sets the game up, as the first game on the map would (the map checks its starts for
    this many players, the ruleset checks the board), and asks each bot program's
    protocol whether it can carry that game. Nothing is started.

    Args:
        spec: the map.
        ruleset: the rules.
        bots: the bots whose protocols must carry the game.
        seed: the game seed (random starts).
        players: seats per game (``None``: one per bot).
    """
    try:
        seats = len(bots) if players is None else players
        state = new_game(ruleset, spec, seed=seed, players=seats)
        for bot in bots:
            if bot.protocol is not None:
                get_protocol(bot.protocol).check(state)
            elif bot.kind == "http":  # a Battlesnake web server: duels and free-for-alls
                from lightcycle.protocols.battlesnake import Battlesnake

                Battlesnake.check(state)
    except (RulesError, MapError, UnsupportedGame) as exc:
        return str(exc)
    return None


def check_pool(
    specs: Sequence[BotSpec],
    maps: Sequence[MapSpec],
    rulesets: Sequence[Ruleset],
    seed: int = 0,
) -> None:
    """Refuse a map pool with any map the bots cannot play, before any game.

    Args:
        specs: the bots, one per seat.
        maps: the pool.
        rulesets: the ruleset of each map, in the same order.
        seed: the first game's seed (maps with random starts place them from it).

    Raises:
        MapError: naming the first map that does not suit, and why.
    """
    if not maps:
        raise MapError("no maps to play on: give at least one map")
    for spec, rs in zip(maps, rulesets, strict=True):
        problem = unplayable(spec, rs, specs, seed)
        if problem is not None:
            raise MapError(
                f"cannot play {spec.id} with {len(specs)} bots under {rs.id}: {problem}; "
                f"every map of the pool must suit them (`lightcycle maps list` shows the "
                "players each map takes)"
            )


# -- interruption ----------------------------------------------------------------------


@contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Hold a Ctrl-C (SIGINT) until the block ends, then raise it.

    Recording a finished game (its replay, its tally, its summary) is either done whole
    or not at all, so a partial result written after an interruption never counts a
    game it has no replay or summary of. Only the main thread receives signals; elsewhere,
    or where another handler is installed, the block runs as it is.
    """
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return
    pending: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        pending.append(signum)

    signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if pending:
        raise KeyboardInterrupt


# -- results ---------------------------------------------------------------------------


@dataclass
class BotStats:
    """One bot's line of the results table.

    Attributes:
        verdict_examples: per verdict other than ok, the first game (from 1) that had it
            and its detail (the exit code or signal and the tail of stderr of a crash,
            say), so a summary can say what went wrong without opening the logs.
        sandbox: what confined its program over the games
            (`lightcycle.sandbox.levels.merge_records`); ``None`` for a bot played in
            the referee's process.
    """

    name: str
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    forfeit_wins: int = 0
    forfeit_losses: int = 0
    moves: int = 0
    move_time_total: float = 0.0
    move_time_max: float = 0.0
    verdicts: dict[str, int] = field(default_factory=dict)
    verdict_examples: dict[str, tuple[int, str]] = field(default_factory=dict)
    starts: int = 0
    startup_seconds: float = 0.0
    sandbox: dict[str, Any] | None = None

    @property
    def avg_move_time(self) -> float:
        """Mean seconds per move."""
        return self.move_time_total / self.moves if self.moves else 0.0

    @property
    def score(self) -> float:
        """Wins plus half the draws."""
        return self.wins + 0.5 * self.draws

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``results.json``."""
        return {
            "name": self.name,
            "games": self.games,
            "wins": self.wins,
            "losses": self.losses,
            "draws": self.draws,
            "forfeit_wins": self.forfeit_wins,
            "forfeit_losses": self.forfeit_losses,
            "score": self.score,
            "avg_move_time": round(self.avg_move_time, 6),
            "max_move_time": round(self.move_time_max, 6),
            "verdicts": dict(sorted(self.verdicts.items())),
            "verdict_examples": {
                kind: {"game": game, "detail": detail}
                for kind, (game, detail) in sorted(self.verdict_examples.items())
            },
            "process_starts": self.starts,
            "sandbox": self.sandbox,
        }


@dataclass
class GameSummary:
    """One line per game in ``results.json``."""

    index: int
    map: str
    ruleset: str
    seed: int
    bots: list[str]
    ranks: list[int]
    reason: str
    turns: int
    verdicts: list[str]
    replay: str | None


@dataclass
class MatchResult:
    """The match: per-bot statistics and per-game summaries.

    Attributes:
        stats: one line per bot, in the order the bots were given.
        games: the finished games, in order.
        wall_seconds: the match's duration.
        games_planned: the games asked for (0: as many as were played).
        interrupted: whether a Ctrl-C ended the match before ``games_planned``.
    """

    stats: list[BotStats]
    games: list[GameSummary]
    wall_seconds: float = 0.0
    games_planned: int = 0
    interrupted: bool = False
    unfinished_logs: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Whether every planned game was played."""
        return not self.interrupted and len(self.games) >= self.games_planned

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``results.json`` (``complete`` is false for a partial match)."""
        return {
            "complete": self.complete,
            "interrupted": self.interrupted,
            "games_planned": max(self.games_planned, len(self.games)),
            "games_played": len(self.games),
            "bots": [s.to_dict() for s in self.stats],
            "games": [g.__dict__ for g in self.games],
            "wall_seconds": round(self.wall_seconds, 3),
            # the stderr logs of the game a Ctrl-C cut short (it has no replay)
            "unfinished_logs": self.unfinished_logs,
        }


class MatchInterrupted(KeyboardInterrupt):
    """A Ctrl-C ended the match; ``result`` holds the games finished before it.

    A `KeyboardInterrupt`, so a caller that does not look for it still stops as on any
    Ctrl-C; the command line catches it to print the partial table.
    """

    def __init__(self, result: MatchResult) -> None:
        super().__init__(
            f"match interrupted: {len(result.games)} of {result.games_planned} games finished"
        )
        self.result = result


def _seat_order(game: int, bots: int, swap: bool) -> list[int]:
    """Which bot sits in each seat of ``game``: rotated every game when swapping."""
    order = list(range(bots))
    if not swap:
        return order
    k = game % bots
    return order[k:] + order[:k]


def _per_map(value: Any, maps: Sequence[MapSpec], what: str) -> list[Any]:
    """One value for every map, or a list already with one per map."""
    if isinstance(value, Sequence) and not isinstance(value, str):
        if len(value) != len(maps):
            raise ValueError(f"{len(value)} {what} for {len(maps)} maps")
        return list(value)
    return [value] * len(maps)


def run_match(
    specs: Sequence[BotSpec],
    maps: Sequence[MapSpec],
    ruleset: Ruleset | Sequence[Ruleset],
    games: int = 1,
    seed: int = 0,
    swap_sides: bool = False,
    control: TimeControl | Sequence[TimeControl] | None = None,
    limits: Limits | None = None,
    out_dir: Path | None = None,
    on_game: Callable[[int, GameRecord], None] | None = None,
    extra_params: tuple[tuple[str, str], ...] = (),
    spares: int = DEFAULT_SPARES,
    on_turn: Callable[[int, GameState], None] | None = None,
) -> MatchResult:
    """Play ``games`` games and tally them.

    Game ``i`` is played on ``maps[i % len(maps)]`` with seed ``seed + i``; with
    ``swap_sides`` the seats rotate every game (for two bots: they swap) and each map is
    played once from every rotation before the next map
    (``maps[(i // bots) % len(maps)]``), so no bot keeps a map's better start.

    Every map is checked first (`check_pool`); nothing is written or started before.

    Args:
        specs: the bots (see `lightcycle.referee.players.parse_bot_spec`).
        maps: the map pool.
        ruleset: the rules with settings applied: one for every map, or one per map.
        games: number of games.
        seed: the first game's seed.
        swap_sides: rotate seats between games.
        control: the time control, one for every map or one per map (``None``: each
            ruleset's own); a bot file's ``[time]`` overrides it for that bot.
        limits: process limits of bot programs.
        out_dir: where replays (``game-001.json``...), logs (``logs/``) and
            ``results.json`` go (``None``: nothing written).
        on_game: called after each game (progress display).
        extra_params: more parameters announced by protocols with a parameter list.
        spares: processes started ahead for each program that needs a new one per game
            (0: start each when its game begins; see `ProgramPlayer`).
        on_turn: called with the game's index and every state (a live view).

    Raises:
        MapError, RulesError, UnsupportedGame: a map of the pool the bots cannot play.
        TimeControlError: a time control no game can use.
        MatchInterrupted: on Ctrl-C, after the finished games were written down.
    """
    t0 = time.perf_counter()
    rulesets: list[Ruleset] = _per_map(ruleset, maps, "rulesets")
    check_pool(specs, maps, rulesets, seed)
    bases: list[TimeControl] = [
        c if c is not None else TimeControl.for_ruleset(rs.clock)
        for c, rs in zip(_per_map(control, maps, "time controls"), rulesets, strict=True)
    ]
    # controls[map][bot]: a bot file's [time] table overrides the match's for that bot
    controls = [[c.with_overrides(s.time) if s.time else c for s in specs] for c in bases]
    for row in controls:
        for c in row:
            c.validate()
    limits = limits if limits is not None else Limits()
    log_dir = out_dir / "logs" if out_dir is not None else None
    players: list[Player] = [make_player(s, limits, log_dir, spares) for s in specs]
    names = unique_names([p.name for p in players])
    for p, n in zip(players, names, strict=True):
        p.name = n
    stats = [BotStats(n) for n in names]
    summaries: list[GameSummary] = []
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    interrupted = False
    current: int | None = None  # the game being played (its logs are then unfinished)
    try:
        for i in range(games):
            current = i + 1
            order = _seat_order(i, len(players), swap_sides)
            seat_players = [players[b] for b in order]
            # with swapping, a map is played once from every seat order before the next
            m = (i // len(players) if swap_sides else i) % len(maps)
            spec, rs = maps[m], rulesets[m]
            record = play_game(
                seat_players,
                spec,
                rs,
                seed=seed + i,
                controls=[controls[m][b] for b in order],
                log_prefix=f"game-{i + 1:03d}",
                on_turn=None if on_turn is None else functools.partial(on_turn, i),
                extra_params=extra_params,
            )
            with interrupts_deferred():
                replay_name = None
                if out_dir is not None:
                    replay_name = f"game-{i + 1:03d}.json"
                    record.replay.save(out_dir / replay_name)
                _tally(stats, order, record, i + 1)
                summaries.append(
                    GameSummary(
                        index=i + 1,
                        map=spec.id,
                        ruleset=rs.id,
                        seed=seed + i,
                        bots=[names[b] for b in order],
                        ranks=list(record.outcome.ranks),
                        reason=record.outcome.reason,
                        turns=record.final.turn,
                        verdicts=[str(s.verdict) for s in record.seats],
                        replay=replay_name,
                    )
                )
                current = None
            if on_game is not None:
                on_game(i, record)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        _shutdown_all(players)
    unfinished = _mark_unfinished(players, current) if interrupted else []
    for b, p in enumerate(players):
        if isinstance(p, ProgramPlayer):
            stats[b].starts = p.starts
            stats[b].startup_seconds = p.startup_seconds
    result = MatchResult(stats, summaries, time.perf_counter() - t0, games, interrupted, unfinished)
    if out_dir is not None:
        tmp = out_dir / "results.json.tmp"
        tmp.write_text(json.dumps(result.to_dict(), indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, out_dir / "results.json")
    if interrupted:
        raise MatchInterrupted(result)
    return result


def _mark_unfinished(players: Sequence[Player], game: int | None) -> list[str]:
    """Rename the stderr logs of ``game``, the one a Ctrl-C cut short, to
    ``game-NNN-seatK.interrupted.log``: a log named like a finished game's, with no
    replay beside it, read as a game lost. Returns the new names (relative to their
    folder's parent, ``logs/...``)."""
    if game is None:
        return []
    folders = {p.log_dir for p in players if isinstance(p, ProgramPlayer) and p.log_dir}
    names: list[str] = []
    for folder in sorted(folders):
        for log in sorted(folder.glob(f"game-{game:03d}-seat*.log")):
            if log.name.endswith(".interrupted.log"):
                continue
            new = log.with_name(log.name.removesuffix(".log") + ".interrupted.log")
            with contextlib.suppress(OSError):
                log.replace(new)
                names.append(f"{folder.name}/{new.name}")
    return names


def play_one(
    specs: Sequence[BotSpec],
    spec: MapSpec,
    ruleset: Ruleset,
    seed: int = 0,
    limits: Limits | None = None,
    on_turn: Callable[[GameState], None] | None = None,
) -> GameRecord:
    """One game between bots of any kind, nothing written: ``lightcycle play`` with a
    program among its bots (a Scheme brain, a C team), which the in-process referee
    (`lightcycle.referee.local`) cannot seat. The ruleset's own time control applies.

    Raises:
        MapError: the map does not suit the bots (before anything starts).
    """
    check_pool(specs, [spec], [ruleset], seed)
    players = [make_player(s, limits if limits is not None else Limits(), None) for s in specs]
    for p, n in zip(players, unique_names([p.name for p in players]), strict=True):
        p.name = n
    try:
        control = TimeControl.for_ruleset(ruleset.clock)
        return play_game(players, spec, ruleset, seed=seed, controls=control, on_turn=on_turn)
    finally:
        _shutdown_all(players)


def _shutdown_all(players: Sequence[Player]) -> None:
    """Shut every player down (spares killed, everything reaped), even if one raises.

    A Ctrl-C during one player's clean-up must not leave the others' processes running.
    """
    error: BaseException | None = None
    for p in players:
        try:
            p.shutdown()
        except BaseException as exc:  # re-raised once all are down
            error = error or exc
    if error is not None:
        raise error


def _tally(stats: list[BotStats], order: list[int], record: GameRecord, game: int) -> None:
    ranks = record.outcome.ranks
    forfeits = [record.forfeited(seat) for seat in range(len(order))]
    for seat, bot in enumerate(order):
        st = stats[bot]
        st.games += 1
        rec = record.seats[seat]
        st.moves += rec.clock.moves
        st.move_time_total += rec.clock.total
        st.move_time_max = max(st.move_time_max, rec.clock.max_move)
        if record.replay.sandbox is not None:
            st.sandbox = merge_records(st.sandbox, record.replay.sandbox[seat])
        if not rec.verdict.ok:
            st.verdicts[rec.verdict.kind] = st.verdicts.get(rec.verdict.kind, 0) + 1
            st.verdict_examples.setdefault(rec.verdict.kind, (game, rec.verdict.detail))
        best = min(ranks)
        others_forfeit = any(f for s, f in enumerate(forfeits) if s != seat)
        if ranks[seat] == best and ranks.count(best) == 1:
            st.wins += 1
            if others_forfeit and not forfeits[seat]:
                st.forfeit_wins += 1
        elif ranks[seat] == best:
            st.draws += 1
        else:
            st.losses += 1
            if forfeits[seat]:
                st.forfeit_losses += 1
