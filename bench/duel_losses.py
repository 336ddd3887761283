"""Where a duel's games were decided, and what a longer search would have played.

Reads a finished duel's output folder (``lightcycle duel ... --out DIR``: results.json
and the replays) and classifies every decided game of bot A (the first bot; it must be
``builtin:strong``, whose search is re-run here) at the turn the cycles were cut apart
(`lightcycle.rules.phases.separated`), each side's longest fill from there proven (or
bounded) by the endgame solver:

- ``never cut apart``: the game ended with the cycles together (head-on, or both boxed
  in at once);
- ``cut apart with less room`` / ``as much room`` / ``more room``: A's proven fill
  against B's. A loss with as much room or more is an endgame lost (the fill); a loss
  with less room is a middle game that left A the smaller region.

For each loss with less room it then looks for the move that lost it: from the
separation back over the last ``--back`` positions, strong's move at the duel's clock and
at ``--long`` seconds; the latest position where the longer search plays another move,
with both values, is the candidate. Its cause is one of: ``longer search differs``
(the clock cost the game), ``proven loss`` (strong's own search already saw every move
lose at that position: an earlier move lost it, or the pessimistic model, where the
opponent answers each move, saw a loss that a simultaneous opponent need not find),
``no difference found`` (a deeper search agrees with every move played).

    python bench/duel_losses.py DIR [--back 12] [--long 1.0] [--move-time 0.1]

Prints a table of categories per result and one line per lost game; ``--json`` writes
the details. Run it on the machine (and at the load) the duel was played on: the
search stops on the clock.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lightcycle.bots.ladder import DuelPosition, Strong
from lightcycle.bots.search import duel as duelmod
from lightcycle.bots.search.endgame import solve_fill
from lightcycle.core.state import GameState
from lightcycle.replay.model import Replay
from lightcycle.rules.observe import View
from lightcycle.rules.phases import region, separated

FILL_NODES = 2_000_000
"""Node budget of each fill proof (a bigger region is bounded, not proven)."""


@dataclass
class Decided:
    """One decided game from A's side."""

    pair: int
    game: int
    map: str
    score: float
    turns: int
    replay: str
    cut_turn: int | None = None
    fills: tuple[int, int] | None = None
    proven: bool = True
    category: str = ""
    lost_at: int | None = None
    played: int | None = None
    longer: int | None = None
    values: tuple[int, int] | None = None
    cause: str = ""
    notes: list[str] = field(default_factory=list)


def _fill(state: GameState, seat: int) -> tuple[int, bool]:
    view = View(state, seat)
    pos = DuelPosition(view)
    free = pos.free
    fill = solve_fill(pos.kernel, pos.me, free & region(state, pos.me), node_limit=FILL_NODES)
    return len(fill.path), fill.proven


def _strong_move(state: GameState, seat: int, seconds: float) -> tuple[int, int | None]:
    """Strong's move from ``state`` for ``seat`` at ``seconds`` a move, and its value."""
    found: dict[str, int] = {}
    original = duelmod.DuelSearch.search

    def traced(self: duelmod.DuelSearch, *a: Any, **kw: Any) -> duelmod.SearchResult:
        result = original(self, *a, **kw)
        found["value"] = result.value
        return result

    duelmod.DuelSearch.search = traced  # type: ignore[method-assign]
    try:
        bot = Strong(move_time=seconds)
        bot.start(View(state, seat))
        view = View(state, seat, seconds)
        answer = bot.move(view)
    finally:
        duelmod.DuelSearch.search = original  # type: ignore[method-assign]
    grid = view.grid
    cell = grid.move(view.me.head, answer) if grid is not None else answer  # a heading
    return int(cell), found.get("value")  # type: ignore[arg-type]


def classify(
    out: Path, back: int, long: float, move_time: float, only_losses: bool
) -> list[Decided]:
    results = json.loads((out / "results.json").read_text())
    decided: list[Decided] = []
    for pair in results["pairs"]:
        for g in pair["games"]:
            if g["score"] == 0.5 or (only_losses and g["score"] > 0.5):
                continue
            d = Decided(g["pair"], g["game"], g["map"], g["score"], g["turns"], g["replay"])
            decided.append(d)
            seat = g["a_seat"]
            states = list(Replay.load(out / g["replay"]).states())
            cut = next(
                (i for i, s in enumerate(states) if s.outcome is None and separated(s)), None
            )
            if cut is None:
                d.category = "never cut apart"
                continue
            d.cut_turn = cut
            mine, p1 = _fill(states[cut], seat)
            theirs, p2 = _fill(states[cut], 1 - seat)
            d.fills, d.proven = (mine, theirs), p1 and p2
            d.category = (
                "cut apart with less room"
                if mine < theirs
                else "cut apart with as much room"
                if mine == theirs
                else "cut apart with more room"
            )
            if d.score > 0.5 or mine >= theirs:
                continue
            d.cause = "no difference found"
            for turn in range(cut - 1, max(0, cut - back) - 1, -1):
                st = states[turn]
                _, quick_value = _strong_move(st, seat, move_time)
                deep, deep_value = _strong_move(st, seat, long)
                played = next(c.head for c in states[turn + 1].cycles if c.team == seat)
                if quick_value is not None and quick_value <= -(duelmod.WIN - 1000):
                    d.notes.append(f"turn {turn}: strong sees a proven loss ({quick_value})")
                if deep != played:
                    d.lost_at, d.played, d.longer = turn, played, deep
                    d.values = (quick_value or 0, deep_value or 0)
                    d.cause = (
                        "proven loss"
                        if quick_value is not None and quick_value <= -(duelmod.WIN - 1000)
                        else "longer search differs"
                    )
                    break
            print(
                f"  {d.map} pair {d.pair} game {d.game}: {d.category} {d.fills}, "
                f"{d.cause}" + (f" at turn {d.lost_at} (cut at {cut})" if d.lost_at else ""),
                file=sys.stderr,
                flush=True,
            )
    return decided


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the duel's --out folder")
    parser.add_argument("--back", type=int, default=12, help="positions looked at before the cut")
    parser.add_argument("--long", type=float, default=1.0, help="the longer search's seconds")
    parser.add_argument("--move-time", type=float, default=0.1, help="the duel's seconds a move")
    parser.add_argument("--losses", action="store_true", help="classify losses only")
    parser.add_argument("--json", type=Path, help="write every decided game's details here")
    args = parser.parse_args(argv)
    if not (args.out / "results.json").is_file():
        parser.error(f"{args.out}: no results.json (give the --out folder of a finished duel)")
    decided = classify(args.out, args.back, args.long, args.move_time, args.losses)
    table: Counter[tuple[str, str]] = Counter()
    for d in decided:
        table[(d.category, "won" if d.score > 0.5 else "lost")] += 1
    print(f"{'':32s} {'lost':>5s} {'won':>5s}")
    for cat in sorted({c for c, _ in table}):
        print(f"{cat:32s} {table[(cat, 'lost')]:5d} {table[(cat, 'won')]:5d}")
    causes = Counter(d.cause for d in decided if d.cause)
    for cause, n in causes.most_common():
        print(f"loss with less room, cause: {cause}: {n}")
    if args.json:
        args.json.write_text(json.dumps([asdict(d) for d in decided], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
