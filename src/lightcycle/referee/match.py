"""A match: a series of games between the same bots over one map or a list of maps.

Seats can swap from game to game, so neither bot keeps the better start; bot programs
are kept running between games where their protocol allows; every game's replay and every
bot's stderr log go to the output folder; the result is a per-bot table of wins, losses,
draws, forfeits and move times.

A program that needs a new process per game has the next one started while a game plays
(``spares``) and its finished ones ended in the background, so a series of short games
is not mostly process start-up; all of them are killed and reaped when the match ends,
however it ends.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lightcycle.maps.spec import MapSpec
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.game import GameRecord, play_game
from lightcycle.referee.players import (
    BotSpec,
    Player,
    ProgramPlayer,
    make_player,
    unique_names,
)
from lightcycle.rules.ruleset import Ruleset
from lightcycle.sandbox import Limits

DEFAULT_SPARES = 1
"""Processes a program is started ahead by default: one is enough once a game lasts longer
than a start (a few ms for a compiled bot, 30-40 ms for Python); more only help on a
machine with idle cores, since starting is CPU work."""


@dataclass
class BotStats:
    """One bot's line of the results table."""

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
    starts: int = 0
    startup_seconds: float = 0.0

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
            "process_starts": self.starts,
        }


@dataclass
class GameSummary:
    """One line per game in ``results.json``."""

    index: int
    map: str
    seed: int
    bots: list[str]
    ranks: list[int]
    reason: str
    turns: int
    verdicts: list[str]
    replay: str | None


@dataclass
class MatchResult:
    """The whole match: per-bot statistics and per-game summaries."""

    stats: list[BotStats]
    games: list[GameSummary]
    wall_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``results.json``."""
        return {
            "bots": [s.to_dict() for s in self.stats],
            "games": [g.__dict__ for g in self.games],
            "wall_seconds": round(self.wall_seconds, 3),
        }


def _seat_order(game: int, bots: int, swap: bool) -> list[int]:
    """Which bot sits in each seat of ``game``: rotated every game when swapping."""
    order = list(range(bots))
    if not swap:
        return order
    k = game % bots
    return order[k:] + order[:k]


def run_match(
    specs: Sequence[BotSpec],
    maps: Sequence[MapSpec],
    ruleset: Ruleset,
    games: int = 1,
    seed: int = 0,
    swap_sides: bool = False,
    control: TimeControl | None = None,
    limits: Limits | None = None,
    out_dir: Path | None = None,
    on_game: Callable[[int, GameRecord], None] | None = None,
    extra_params: tuple[tuple[str, str], ...] = (),
    spares: int = DEFAULT_SPARES,
) -> MatchResult:
    """Play ``games`` games and tally them.

    Game ``i`` is played on ``maps[i % len(maps)]`` with seed ``seed + i``; with
    ``swap_sides`` the seats rotate every game (for two bots: they swap) and each map is
    played once from every rotation before the next map
    (``maps[(i // bots) % len(maps)]``), so no bot keeps a map's better start.

    Args:
        specs: the bots (see `lightcycle.referee.players.parse_bot_spec`).
        maps: the map pool.
        ruleset: the rules with settings applied.
        games: number of games.
        seed: the first game's seed.
        swap_sides: rotate seats between games.
        control: the time control (a bot file's ``[time]`` overrides it for that bot).
        limits: process limits of bot programs.
        out_dir: where replays (``game-001.json``...), logs (``logs/``) and
            ``results.json`` go (``None``: nothing written).
        on_game: called after each game (progress display).
        extra_params: more parameters announced by protocols with a parameter list.
        spares: processes started ahead for each program that needs a new one per game
            (0: start each when its game begins; see `ProgramPlayer`).
    """
    t0 = time.perf_counter()
    control = control if control is not None else TimeControl.for_ruleset(ruleset.clock)
    limits = limits if limits is not None else Limits()
    log_dir = out_dir / "logs" if out_dir is not None else None
    players: list[Player] = [make_player(s, limits, log_dir, spares) for s in specs]
    names = unique_names([p.name for p in players])
    for p, n in zip(players, names, strict=True):
        p.name = n
    controls = [control.with_overrides(s.time) if s.time else control for s in specs]
    for c in controls:
        c.validate()
    stats = [BotStats(n) for n in names]
    summaries: list[GameSummary] = []
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    try:
        for i in range(games):
            order = _seat_order(i, len(players), swap_sides)
            seat_players = [players[b] for b in order]
            # with swapping, a map is played once from every seat order before the next
            spec = maps[(i // len(players) if swap_sides else i) % len(maps)]
            record = play_game(
                seat_players,
                spec,
                ruleset,
                seed=seed + i,
                controls=[controls[b] for b in order],
                log_prefix=f"game-{i + 1:03d}",
                extra_params=extra_params,
            )
            replay_name = None
            if out_dir is not None:
                replay_name = f"game-{i + 1:03d}.json"
                record.replay.save(out_dir / replay_name)
            _tally(stats, order, record)
            summaries.append(
                GameSummary(
                    index=i + 1,
                    map=spec.id,
                    seed=seed + i,
                    bots=[names[b] for b in order],
                    ranks=list(record.outcome.ranks),
                    reason=record.outcome.reason,
                    turns=record.final.turn,
                    verdicts=[str(s.verdict) for s in record.seats],
                    replay=replay_name,
                )
            )
            if on_game is not None:
                on_game(i, record)
    finally:
        _shutdown_all(players)
    for b, p in enumerate(players):
        if isinstance(p, ProgramPlayer):
            stats[b].starts = p.starts
            stats[b].startup_seconds = p.startup_seconds
    result = MatchResult(stats, summaries, time.perf_counter() - t0)
    if out_dir is not None:
        tmp = out_dir / "results.json.tmp"
        tmp.write_text(json.dumps(result.to_dict(), indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, out_dir / "results.json")
    return result


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


def _tally(stats: list[BotStats], order: list[int], record: GameRecord) -> None:
    ranks = record.outcome.ranks
    forfeits = [record.forfeited(seat) for seat in range(len(order))]
    for seat, bot in enumerate(order):
        st = stats[bot]
        st.games += 1
        rec = record.seats[seat]
        st.moves += rec.clock.moves
        st.move_time_total += rec.clock.total
        st.move_time_max = max(st.move_time_max, rec.clock.max_move)
        if not rec.verdict.ok:
            st.verdicts[rec.verdict.kind] = st.verdicts.get(rec.verdict.kind, 0) + 1
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
