"""A duel's outcome as data: each bot's side, the totals, and ``results.json``.

`DuelResult` is what `run_duel` returns and what the command line reports, and
`DuelResult.write` is the one place ``results.json`` is written (strict JSON, atomically,
also for a duel a Ctrl-C ended, which `DuelInterrupted` carries). `BotSummary` sums one
bot's times, verdicts, reported figures and sandbox over its games.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from lightcycle.sandbox.levels import merge_records
from lightcycle.tournament.duelmaps import by_map
from lightcycle.tournament.pairs import GameResult, PairResult
from lightcycle.tournament.stats import (
    MIN_SAMPLES,
    EloEstimate,
    Pentanomial,
    SprtResult,
    Trinomial,
    format_elo,
    json_number,
)


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

    def _repr_html_(self) -> str:
        """A notebook's view: the table ``lightcycle duel`` prints, each bot from its own
        side, as plain HTML (no script, no style sheet, nothing fetched)."""
        a, b = self.bots
        t = self.trinomial
        head = (
            f"{self.games} games ({len(self.pairs)} side-swapped pairs) on "
            f"{len(self.maps)} map{'s' * (len(self.maps) != 1)}, {self.wall_seconds:.1f} s"
            + (" (interrupted)" if self.interrupted else "")
        )
        if not self.pairs:
            return f"<p>{escape(head)}: no pair finished, nothing to compare yet.</p>"
        est = self.estimate()
        cols = ["bot", "W", "D", "L", "score", "Elo (95% CI)", "LOS", "avg ms"]
        rows = []
        for bot, wins, losses, flip in ((a, t.wins, t.losses, 1), (b, t.losses, t.wins, -1)):
            elo, low, high = flip * est.elo + 0.0, est.elo_low, est.elo_high
            if flip < 0:
                low, high = -high, -low
            interval = f" ({format_elo(low)} .. {format_elo(high)})" if est.enough else ""
            score = est.score if flip > 0 else 1.0 - est.score
            los = est.los if flip > 0 else 1.0 - est.los
            cells = [
                f"{escape(bot.name)} <small>{escape(bot.spec)}</small>",
                str(wins),
                str(t.draws),
                str(losses),
                f"{score:.1%}",
                escape(format_elo(elo) + interval),
                f"{los:.1%}" if est.enough else "-",
                f"{bot.avg_move_time * 1000:.1f}",
            ]
            rows.append("".join(f"<td>{c}</td>" for c in cells))
        header = "".join(f"<th>{c}</th>" for c in cols)
        body = "".join(f"<tr>{r}</tr>" for r in rows)
        note = (
            ""
            if est.enough
            else f"<p>No interval yet: {est.samples} pairs, at least {MIN_SAMPLES} needed.</p>"
        )
        return (
            f"<table><caption>{escape(head)}</caption><thead><tr>{header}</tr></thead>"
            f"<tbody>{body}</tbody></table>{note}"
        )

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
