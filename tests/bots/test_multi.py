"""`MultiStrong`: the strong bot of the multi-player variants (ffa, teams, tron3d).

Fast checks that it always answers legally, never forfeits and repeats itself for a seed,
then small seeded matches against every reference bot of each variant. The matches are
few (the full figures come from ``bench/strength_variants.py``), so they assert a clear
margin rather than a rate.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from lightcycle.bots import multi_turn, timing
from lightcycle.bots.multi import MultiStrong
from lightcycle.core.moves import DeathCause, Move
from lightcycle.maps.registry import get_map
from lightcycle.referee.local import MatchResult, play
from lightcycle.rules.engine import new_game
from lightcycle.rules.legal import legal_moves
from lightcycle.rules.observe import ClockView, View
from lightcycle.rules.variants import get_ruleset

TEAMS_SEEDED = dataclasses.replace(get_ruleset("teams"), measures=())
"""``teams@1`` without the referee's CPU measurements: contests between the teams are then
a coin toss from the seed (equal CPU totals), so a match repeats exactly. With them, the
CPU time each bot happens to use decides contests and games differ from run to run;
``bench/strength_variants.py`` measures that, the real game."""


class CheckedStrong(MultiStrong):
    """`MultiStrong` that records every answer that is not a legal move for exactly the
    cycles that move this turn (an assertion inside ``move`` would become a forfeit)."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []
        self.turns = 0
        self.used = 0

    def move(self, view: View) -> Any:
        answer = super().move(view)
        self.turns += 1
        moving = {c.index for c in view.moving_cycles}
        if not isinstance(answer, dict) or set(answer) != moving:
            self.problems.append(f"turn {view.turn}: answered {answer!r} for {moving}")
            return answer
        for i, m in answer.items():
            if not isinstance(m, Move) or m not in legal_moves(view.state, i):
                self.problems.append(f"turn {view.turn}: cycle {i} answered {m!r}")
            elif m.use_item:
                self.used += 1
        return answer


def _seat_game(
    map_name: str, ruleset: Any, opponent: str, players: int, seed: int, **kw: Any
) -> tuple[MatchResult, int, CheckedStrong]:
    seat = seed % players
    strong = CheckedStrong()
    bots: list[Any] = [opponent] * players
    bots[seat] = strong
    return play(map_name, bots, seed=seed, ruleset=ruleset, **kw), seat, strong


GAMES = [
    ("ffa3", "ffa", "random", 3),
    ("ffa6", "ffa", "wallhugger", 6),
    ("court-small", "teams", "lookbot", 2),
    ("court-walls", "teams", "randombot", 2),
    ("icosahedron", "tron3d", "dummy", 4),
    ("cube", "tron3d", "dummy", 2),
    ("donut", "tron3d", "dummy", 4),
]


@pytest.mark.parametrize(("map_name", "ruleset", "opponent", "players"), GAMES)
def test_answers_a_legal_move_for_every_moving_cycle_and_never_forfeits(
    map_name: str, ruleset: str, opponent: str, players: int
) -> None:
    settings = {"turn_limit": 150} if ruleset == "teams" else None
    result, seat, strong = _seat_game(map_name, ruleset, opponent, players, 1, settings=settings)
    assert strong.turns > 0
    assert strong.problems == []
    for c in result.final.cycles:
        if c.team == seat and c.death is not None:
            assert c.death.cause is not DeathCause.FORFEIT, c.death


def test_uses_items_and_only_items_it_holds() -> None:
    """On tron3d boards the bot picks items up and uses them, legally."""
    used = 0
    for seed in range(4):
        _, _, strong = _seat_game("icosahedron", "tron3d", "dummy", 4, seed)
        assert strong.problems == []
        used += strong.used
    assert used > 0


@pytest.mark.parametrize(
    ("map_name", "ruleset", "bots"),
    [
        ("ffa4", "ffa", [MultiStrong, "chaser", "runaway", "wallhugger"]),
        ("court-small", TEAMS_SEEDED, ["lookbot", MultiStrong]),
        ("icosahedron", "tron3d", ["dummy", MultiStrong, "dummy", MultiStrong]),
    ],
)
def test_deterministic_for_a_seed(
    map_name: str, ruleset: Any, bots: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # deterministic as long as its clock does not run out: give it one that cannot
    # (on a loaded machine a 0.1 s budget can cut a search at different points)
    monkeypatch.setattr("lightcycle.bots.multi.DEFAULT_TIME", 60.0)
    a = play(map_name, bots, seed=5, ruleset=ruleset).replay.to_json()
    b = play(map_name, bots, seed=5, ruleset=ruleset).replay.to_json()
    assert a == b


def _match(
    map_name: str, ruleset: Any, opponent: str, players: int, games: int, **kw: Any
) -> tuple[int, int, float]:
    """Strong's first places alone, losses (not first) and mean place over seeds
    0..games-1, its seat rotating."""
    firsts = losses = 0
    places = 0
    for seed in range(games):
        result, seat, _ = _seat_game(map_name, ruleset, opponent, players, seed, **kw)
        ranks = result.outcome.ranks
        places += ranks[seat]
        if result.outcome.winner == seat:
            firsts += 1
        elif ranks[seat] != 1:
            losses += 1
    return firsts, losses, places / games


@pytest.mark.parametrize("opponent", ["random", "wallhugger", "chaser", "runaway"])
def test_ffa_beats_three_copies_of_each_reference_bot(opponent: str) -> None:
    firsts, _, place = _match("ffa4", "ffa", opponent, 4, 4)
    assert firsts >= 3 and place <= 1.5, (firsts, place)


@pytest.mark.parametrize(("opponent", "games"), [("randombot", 2), ("linebot", 4), ("lookbot", 4)])
def test_teams_beats_each_reference_bot_on_court(opponent: str, games: int) -> None:
    firsts, losses, _ = _match("court", TEAMS_SEEDED, opponent, 2, games)
    assert firsts >= games - 1 and firsts > losses, (firsts, losses)


@pytest.mark.parametrize(
    ("map_name", "players", "games", "wins"), [("icosahedron", 4, 8, 5), ("cube", 2, 4, 4)]
)
def test_tron3d_beats_dummies(map_name: str, players: int, games: int, wins: int) -> None:
    # the 162 vertices of the icosahedron leave eight cycles little room: chance decides
    # more there (first alone in about 85% of games over 96 seeds; chance is 25%)
    firsts, _, place = _match(map_name, "tron3d", "dummy", players, games)
    assert firsts >= wins and place <= 1.6, (firsts, place)


def test_its_clock_shares_a_cpu_budget_over_the_moves_left() -> None:
    state = new_game(get_ruleset("ffa"), get_map("ffa4"), seed=1, players=4)
    view = View(state, 0, 0.1, ClockView(move=0.1, moves=3, cpu=2.0, cpu_left=0.0))
    # four cycles on an open board: the horizon's cap, not the board, bounds the estimate
    assert multi_turn.moves_left(view) == timing.HORIZON_MAX
    # no CPU left: every moving cycle still gets a legal move (the cheap choice)
    answer = MultiStrong().move(view)
    assert isinstance(answer, dict)
    legal = {m.to for c in view.moving_cycles for m in legal_moves(state, c.index)}
    assert {m.to for m in answer.values()} <= legal
    assert set(answer) == {c.index for c in view.moving_cycles}
