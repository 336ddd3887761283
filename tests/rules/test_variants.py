"""teams@1 and tron3d@1 beyond the vectors: coin tosses, formations, board checks, cpu."""

from __future__ import annotations

import random

import pytest

from lightcycle.core.moves import DeathCause, Move
from lightcycle.maps.registry import get_map
from lightcycle.maps.starts import pin_formation
from lightcycle.rules.engine import new_game, run_pipeline, step
from lightcycle.rules.ruleset import RulesError
from lightcycle.rules.turn import Turn
from lightcycle.rules.variants import get_ruleset
from tests.conftest import random_moves, team_map

SMALL = get_ruleset("teams").with_settings(min_width=3, min_height=3, cycles_per_team=1)


def _contest(seed: int) -> int:
    """Two cycles enter one free cell with equal CPU time; return the surviving cycle."""
    spec = team_map(["#####", "#a.k#", "#...#", "#####"])
    state = new_game(SMALL, spec, seed=seed)
    state = step(state, {0: Move(0, 7), 1: Move(1, 7)}, cpu=(3, 3))
    alive = [c.index for c in state.cycles if c.alive]
    assert len(alive) == 1, state.cycles
    dead = state.cycles[1 - alive[0]]
    assert dead.death is not None and dead.death.cause is DeathCause.SAME_CELL
    assert "coin toss" in dead.death.detail
    assert dead.trail == 0
    return alive[0]


def test_equal_cpu_contest_is_a_coin_toss_from_the_seed() -> None:
    winners = [_contest(seed) for seed in range(24)]
    assert set(winners) == {0, 1}  # both sides win some tosses
    assert winners == [_contest(seed) for seed in range(24)]  # and the seed decides


def _same_vertex(seed: int) -> int:
    spec = team_map(["#####", "#a.k#", "#...#", "#####"], graph=True)
    rs = get_ruleset("tron3d").with_settings(cycles_per_team=1)
    state = step(new_game(rs, spec, seed=seed), {0: Move(0, 7), 1: Move(1, 7)})
    alive = [c.index for c in state.cycles if c.alive]
    assert len(alive) == 1
    assert state.cycles[alive[0]].head == 7
    loser = state.cycles[1 - alive[0]]
    assert loser.death is not None and loser.death.cause is DeathCause.SAME_CELL
    return alive[0]


def test_tron3d_same_vertex_only_the_first_in_random_order_enters() -> None:
    winners = [_same_vertex(seed) for seed in range(24)]
    assert set(winners) == {0, 1}
    assert winners == [_same_vertex(seed) for seed in range(24)]


def test_pin_formation_rows_and_names() -> None:
    north, south = pin_formation(24, 20)
    assert len(north) == len(south) == 10
    rows = [c // 24 for c in north]
    assert rows == [6, 5, 5, 4, 4, 4, 3, 3, 3, 3]  # tip nearest the centre, back row 3 in
    assert [19 - c // 24 for c in south] == rows  # south mirrors north
    assert [c % 24 for c in north] == [c % 24 for c in south]
    state = new_game("teams", get_map("court-small"))
    assert "".join(c.name for c in state.cycles) == "ABCDEFGHIJKLMNOPQRST"
    assert {c.team for c in state.cycles[:10]} == {0}
    assert state.cycles[0].head == north[0]


def test_pin_formation_refuses_a_court_too_small() -> None:
    with pytest.raises(Exception, match="too small"):
        pin_formation(8, 20)


def test_teams_refuses_a_court_outside_its_size_bounds() -> None:
    with pytest.raises(RulesError, match="courts are 16x16 to 64x48"):
        new_game("teams", get_map("arena-10"), players=2)


def test_cpu_totals_accumulate_and_are_checked() -> None:
    state = new_game("teams", get_map("court-small"), seed=2)
    rng = random.Random(2)
    state = step(state, random_moves(state, rng), cpu=[5, 7])
    state = step(state, random_moves(state, rng), cpu=[1, 0])
    assert state.cpu == (6, 7)
    with pytest.raises(RulesError, match="one count"):
        step(state, random_moves(state, rng), cpu=[1])
    with pytest.raises(RulesError, match="one count"):
        step(state, random_moves(state, rng), cpu=[1, -1])


@pytest.mark.parametrize("seed", range(4))
def test_quiet_shortcut_agrees_with_the_pipeline_with_cpu(seed: int) -> None:
    rng = random.Random(seed)
    state = new_game("teams", get_map("court-small"), seed=seed)
    while state.outcome is None:
        moves = random_moves(state, rng)
        cpu = (rng.randrange(50), rng.randrange(50))
        totals = (state.cpu[0] + cpu[0], state.cpu[1] + cpu[1])
        nxt = step(state, moves, cpu)
        assert nxt == run_pipeline(state, moves, totals)
        state = nxt


def test_removing_a_trail_keeps_cells_another_trail_holds() -> None:
    spec = team_map(["######", "#a..k#", "######"], graph=True)
    rs = get_ruleset("tron3d").with_settings(cycles_per_team=1)
    state = new_game(rs, spec, seed=0)
    turn = Turn(state, {}, rs)
    turn.trails[0] |= 1 << 9  # as if a ghost and a trail shared cell 9
    turn.trails[1] |= 1 << 9
    turn.occupied |= 1 << 9
    turn.heads[0] = 9
    turn.remove_trail(1)
    assert (turn.occupied >> 9) & 1  # still cycle 0's
    turn.kill(0, DeathCause.TRAIL)
    turn.remove_trail(0)
    assert not (turn.occupied >> 9) & 1


def test_a_live_head_on_a_freed_cell_takes_it_back() -> None:
    spec = team_map(["######", "#a..k#", "######"], graph=True)
    rs = get_ruleset("tron3d").with_settings(cycles_per_team=1)
    turn = Turn(new_game(rs, spec, seed=0), {}, rs)
    turn.trails[1] |= 1 << 9  # cycle 1's trail under cycle 0's (ghost) head
    turn.occupied |= 1 << 9
    turn.heads[0] = 9
    turn.kill(1, DeathCause.TRAIL)
    turn.remove_trail(1)
    assert (turn.occupied >> 9) & 1 and (turn.trails[0] >> 9) & 1


@pytest.mark.parametrize("players", [2, 4])
def test_tron3d_random_games_on_a_graph_end_by_score(players: int) -> None:
    from tests.conftest import graph_map

    for seed in range(3):
        rng = random.Random(seed)
        state = new_game("tron3d", graph_map(8), seed=seed, players=players)
        assert len(state.cycles) == 2 * players
        while state.outcome is None:
            state = step(state, random_moves(state, rng))
        assert state.outcome.reason.endswith("ranked by score")
        assert state.turn <= 200


def test_view_shows_moving_cycles_settings_and_cpu() -> None:
    from lightcycle.rules.observe import View
    from tests.conftest import graph_map

    state = new_game("tron3d", graph_map(6), seed=1)
    view = View(state, 0)
    assert [c.index for c in view.moving_cycles] == [0, 1]
    assert view.settings.nb_rounds == 200
    state = step(state, {i: Move(i, m.to) for i, m in _first_safe(state).items()}, None)
    assert View(state, 0).moving_cycles == ()  # round 1: no turbo, nobody moves
    teams = new_game("teams", get_map("court-small"))
    teams = step(teams, random_moves(teams, random.Random(0)), cpu=(4, 9))
    assert View(teams, 1).cpu == (4, 9)


def _first_safe(state):  # type: ignore[no-untyped-def]
    from lightcycle.rules.legal import safe_moves

    return {c.index: safe_moves(state, c.index)[0] for c in state.cycles}
