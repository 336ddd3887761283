"""Grading a bot on a rubric: play every series once, then score every row from it.

Each series of the rubric is one `lightcycle.referee.match.run_match` between the bot
under test and the series' opponent, under the rubric's ruleset, maps, time control and
seed, so a grade is reproducible game by game (``lightcycle match`` with the same bots,
maps, seed and ``--swap-sides`` replays any series). Scoring is
`lightcycle.tournament.rubricscore.score`, pure; this module only plays and records.

A Ctrl-C ends the grading after the games already finished. No row is judged then (a
row judged on part of its series would be a wrong grade), but what was played is kept:
each series' replays and ``results.json``, and a ``grade.json`` marked incomplete with the
results so far, carried by `GradeInterrupted`.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lightcycle.maps.registry import get_map
from lightcycle.maps.spec import MapSpec
from lightcycle.referee.game import GameRecord
from lightcycle.referee.match import MatchInterrupted, MatchResult, run_match
from lightcycle.referee.players import BotSpec, parse_bot_spec
from lightcycle.sandbox import Limits
from lightcycle.tournament.rubricmodel import Rubric, Series
from lightcycle.tournament.rubricscore import Grade, SeriesResult, score

GRADE_FILE = "grade.json"


@dataclass(frozen=True)
class GameDone:
    """Progress: one game of one series has finished.

    Attributes:
        series: the series' index in the rubric (from 0).
        label: the series' opponent label.
        game: the game's number in the series (from 1).
        games: games in the series.
        result: ``win``, ``draw`` or ``loss`` for the bot under test.
        reason: how the game ended (the outcome's reason).
        map: the map's id.
        seed: the game's seed.
    """

    series: int
    label: str
    game: int
    games: int
    result: str
    reason: str
    map: str
    seed: int


@dataclass(frozen=True)
class SeriesSoFar:
    """A series as far as it was played when the grading was interrupted.

    Attributes:
        label: the opponent's name.
        opponent: the opponent's spec.
        games_planned: games the series has.
        result: the bot's results in the games finished.
    """

    label: str
    opponent: str
    games_planned: int
    result: SeriesResult

    def to_dict(self) -> dict[str, Any]:
        """Plain data for an incomplete ``grade.json``."""
        r = self.result
        return {
            "label": self.label,
            "opponent": self.opponent,
            "games_planned": self.games_planned,
            "games": r.games,
            "wins": r.wins,
            "draws": r.draws,
            "losses": r.losses,
            "verdicts": dict(sorted(r.verdicts.items())),
            "out_dir": r.out_dir,
        }


@dataclass(frozen=True)
class PartialGrade:
    """What an interrupted grading played: the series so far, no points.

    Attributes:
        title: the rubric's title.
        rubric: the rubric file.
        ruleset: the ruleset id.
        bot: the bot under test.
        seed: the rubric seed the games used.
        series: the series started, in rubric order (the last one perhaps in part).
        games_planned: games in the whole rubric.
        notes: as in a `Grade`.
        wall_seconds: how long the grading ran.
    """

    title: str
    rubric: str
    ruleset: str
    bot: str
    seed: int
    series: tuple[SeriesSoFar, ...]
    games_planned: int
    notes: tuple[str, ...] = ()
    wall_seconds: float = 0.0

    @property
    def games(self) -> int:
        """Games finished."""
        return sum(s.result.games for s in self.series)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``grade.json``: ``complete`` false and no ``total``."""
        return {
            "complete": False,
            "interrupted": True,
            "title": self.title,
            "rubric": self.rubric,
            "ruleset": self.ruleset,
            "bot": self.bot,
            "seed": self.seed,
            "total": None,
            "games_planned": self.games_planned,
            "games_played": self.games,
            "series": [s.to_dict() for s in self.series],
            "notes": list(self.notes),
            "wall_seconds": round(self.wall_seconds, 3),
        }


class GradeInterrupted(KeyboardInterrupt):
    """A Ctrl-C ended the grading; ``partial`` holds what was played before it.

    A `KeyboardInterrupt`, so a caller that does not look for it still stops as on any
    Ctrl-C.
    """

    def __init__(self, partial: PartialGrade) -> None:
        super().__init__(
            f"grading interrupted: {partial.games} of {partial.games_planned} games finished"
        )
        self.partial = partial


def series_maps(series: Series) -> list[MapSpec]:
    """The map pool of a series (`run_match` plays each map from both seats in turn
    when swapping)."""
    return [get_map(m) for m in series.maps]


def series_folder(index: int, series: Series) -> str:
    """The folder of a series' replays and logs: ``01-randombot``."""
    slug = re.sub(r"[^a-z0-9]+", "-", series.label.lower()).strip("-") or "series"
    return f"{index + 1:02d}-{slug}"


def grade_bot(
    bot: str | BotSpec,
    rubric: Rubric,
    *,
    protocol: str | None = None,
    seed: int | None = None,
    out_dir: Path | None = None,
    limits: Limits | None = None,
    on_game: Callable[[GameDone], None] | None = None,
) -> Grade:
    """Play every series of ``rubric`` with ``bot`` and grade it.

    Every bot spec (the bot's and each opponent's) is read before the first game, so a
    typo fails at once rather than after half the games.

    The rubric's time control binds the bot under test: a bot file's own ``[time]`` table
    is ignored (with a note in the grade), since a student must not be able to give
    their bot more time than the course allows.

    Args:
        bot: the bot under test: a spec as ``lightcycle match --bot`` takes it.
        rubric: the rubric (`lightcycle.tournament.rubric.load_rubric`).
        protocol: the protocol of a ``cmd:`` bot under test.
        seed: replaces the rubric's seed (game ``i`` of each series uses ``seed + i``).
        out_dir: where each series' replays, logs and ``results.json`` go (one folder per
            series) and ``grade.json`` (``None``: nothing is written).
        limits: process limits of bot programs.
        on_game: called after every game (progress display).

    Raises:
        BotError: for a bot spec that cannot be used.
        RulesError, MapError, UnsupportedGame, SandboxError: from the referee, when a
            game cannot be played.
        GradeInterrupted: on Ctrl-C, after what was played was written down.
    """
    t0 = time.perf_counter()
    if seed is not None:
        rubric = dataclasses.replace(rubric, seed=seed)
    spec = parse_bot_spec(bot, protocol) if isinstance(bot, str) else bot
    notes: list[str] = []
    if spec.time:
        notes.append(
            f"the bot file's [time] ({', '.join(sorted(spec.time))}) was ignored: "
            "the rubric sets the time controls"
        )
        spec = dataclasses.replace(spec, time={})
    opponents = [parse_bot_spec(s.opponent, s.protocol) for s in rubric.series]
    pools = [series_maps(s) for s in rubric.series]
    results: list[SeriesResult] = []
    name = spec.name or spec.text
    try:
        for k, (series, opponent, maps) in enumerate(
            zip(rubric.series, opponents, pools, strict=True)
        ):
            folder = out_dir / series_folder(k, series) if out_dir is not None else None
            callback = _progress(k, series, rubric.seed, on_game)
            try:
                match = run_match(
                    [spec, opponent],
                    maps,
                    rubric.ruleset,
                    games=series.games,
                    seed=rubric.seed,
                    swap_sides=series.swap_sides,
                    control=series.control,
                    limits=limits,
                    out_dir=folder,
                    on_game=callback,
                )
            except MatchInterrupted as stop:
                name = stop.result.stats[0].name
                results.append(_series_result(stop.result, folder))
                raise
            name = match.stats[0].name
            results.append(_series_result(match, folder))
    except KeyboardInterrupt:
        partial = PartialGrade(
            title=rubric.title,
            rubric=rubric.source,
            ruleset=rubric.ruleset.id,
            bot=name,
            seed=rubric.seed,
            series=tuple(
                SeriesSoFar(s.label, s.opponent, s.games, r)
                for s, r in zip(rubric.series, results, strict=False)
            ),
            games_planned=rubric.games,
            notes=tuple(notes),
            wall_seconds=time.perf_counter() - t0,
        )
        if out_dir is not None:
            write_grade(partial, out_dir)
        raise GradeInterrupted(partial) from None
    grade = score(rubric, results, bot=name)
    grade = dataclasses.replace(grade, notes=tuple(notes), wall_seconds=time.perf_counter() - t0)
    if out_dir is not None:
        write_grade(grade, out_dir)
    return grade


def _series_result(match: MatchResult, folder: Path | None) -> SeriesResult:
    """The bot under test's results in a series (it is the match's first bot)."""
    me = match.stats[0]
    return SeriesResult(
        wins=me.wins,
        draws=me.draws,
        losses=me.losses,
        verdicts=dict(me.verdicts),
        out_dir=str(folder) if folder is not None else None,
    )


def _progress(
    k: int, series: Series, seed: int, on_game: Callable[[GameDone], None] | None
) -> Callable[[int, GameRecord], None] | None:
    """Adapt `run_match`'s per-game callback into `GameDone` events for the bot under test.

    The bot under test is the match's first bot; with two bots and side swapping,
    `run_match` seats it first in even games and second in odd ones.
    """
    if on_game is None:
        return None
    callback = on_game

    def done(i: int, record: GameRecord) -> None:
        seat = i % 2 if series.swap_sides else 0
        ranks = record.outcome.ranks
        best = min(ranks)
        if ranks[seat] != best:
            result = "loss"
        elif ranks.count(best) == 1:
            result = "win"
        else:
            result = "draw"
        callback(
            GameDone(
                series=k,
                label=series.label,
                game=i + 1,
                games=series.games,
                result=result,
                reason=record.outcome.reason,
                map=record.replay.map_id,
                seed=seed + i,
            )
        )

    return done


def write_grade(grade: Grade | PartialGrade, out_dir: Path) -> Path:
    """Write ``grade.json`` into ``out_dir`` atomically (a temporary file, then a rename).

    A reader (a web page, a script collecting a class's grades) never sees half a file,
    and tells an interrupted grading's file by its ``"complete": false``.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / GRADE_FILE
    tmp = out_dir / f"{GRADE_FILE}.tmp"
    tmp.write_text(json.dumps(grade.to_dict(), indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path
