"""Stage tables: (state before, moves, what the stage changes), one stage at a time."""

from __future__ import annotations

import pytest

from lightcycle.core.moves import DeathCause, Forfeit, Move
from lightcycle.core.topology import OFF
from lightcycle.rules.engine import new_game
from lightcycle.rules.stages import STAGES, get_stage
from lightcycle.rules.turn import NO_MOVE, Turn
from lightcycle.rules.variants import get_ruleset
from tests.conftest import grid_map

DUEL = grid_map(["#######", "#1...2#", "#.....#", "#######"])
W = 7  # cell = y * 7 + x


def _turn(moves, ruleset: str = "classic", spec=DUEL) -> Turn:
    state = new_game(get_ruleset(ruleset), spec, seed=3)
    return Turn(state, moves, state.ruleset)


# (moves, expected dest per cycle, expected death causes per cycle)
MOVEMENT = [
    ({0: Move(0, 1 * W + 2), 1: Move(1, 1 * W + 4)}, [9, 11], [None, None]),
    ({0: Move(0, 0 * W + 1), 1: Move(1, 2 * W + 5)}, [1, 19], [None, None]),
    ({1: Move(1, 1 * W + 4)}, [NO_MOVE, 11], [DeathCause.FORFEIT, None]),
    ({0: Forfeit(0, "timeout"), 1: Move(1, 11)}, [NO_MOVE, 11], [DeathCause.FORFEIT, None]),
    ({0: Move(0, 3 * W + 3), 1: Move(1, 11)}, [NO_MOVE, 11], [DeathCause.FORFEIT, None]),
    ({0: Move(0, 10, jump=True), 1: Move(1, 11)}, [NO_MOVE, 11], [DeathCause.FORFEIT, None]),
    ({0: Move(0, OFF), 1: Move(1, 11)}, [NO_MOVE, 11], [DeathCause.FORFEIT, None]),
]


@pytest.mark.parametrize(("moves", "dest", "causes"), MOVEMENT)
def test_movement_standard(moves, dest, causes) -> None:
    t = _turn(moves)
    get_stage("movement.standard")(t)
    assert t.dest == dest
    assert [d.cause if d else None for d in t.deaths] == causes


def test_forfeit_keeps_its_reason() -> None:
    t = _turn({0: Forfeit(0, "timeout after 1.0 s"), 1: Move(1, 11)})
    get_stage("movement.standard")(t)
    assert t.deaths[0] is not None and t.deaths[0].detail == "timeout after 1.0 s"


def test_move_off_a_borderless_grid_is_legal_then_a_wall_death() -> None:
    spec = grid_map(["1..", "...", "..2"])
    t = _turn({0: Move(0, OFF), 1: Move(1, 7)}, spec=spec)
    get_stage("movement.standard")(t)
    assert t.dest == [OFF, 7]
    get_stage("collision.simultaneous")(t)
    assert t.deaths[0] is not None and t.deaths[0].cause is DeathCause.WALL
    assert t.alive[1]


# (dests before collision, expected causes)
COLLISION = [
    ([1 * W + 2, 1 * W + 4], [None, None]),  # both free
    ([0 * W + 1, 1 * W + 4], [DeathCause.WALL, None]),  # into the border
    ([1 * W + 5, 1 * W + 4], [DeathCause.TRAIL, None]),  # into the other's head cell
    ([1 * W + 3, 1 * W + 3], [DeathCause.SAME_CELL, DeathCause.SAME_CELL]),
]


@pytest.mark.parametrize(("dest", "causes"), COLLISION)
def test_collision_simultaneous(dest, causes) -> None:
    t = _turn({})
    t.dest = list(dest)
    get_stage("collision.simultaneous")(t)
    assert [d.cause if d else None for d in t.deaths] == causes


def test_collision_head_on_swap() -> None:
    spec = grid_map(["####", "#12#", "####"])
    t = _turn({}, spec=spec)
    t.dest = [6, 5]
    get_stage("collision.simultaneous")(t)
    assert [d.cause for d in t.deaths if d] == [DeathCause.HEAD_ON] * 2


def test_trails_persist_advances_survivors_and_keeps_the_dead() -> None:
    t = _turn({})
    t.dest = [1 * W + 2, 0 * W + 5]
    t.kill(1, DeathCause.WALL)
    before_occ = t.occupied
    get_stage("trails.persist")(t)
    assert t.heads == [1 * W + 2, 1 * W + 5]  # the dead head stays put
    assert t.occupied == before_occ | (1 << (1 * W + 2))
    assert (t.trails[1] >> (1 * W + 5)) & 1


def test_trails_remove_on_death_clears_the_dead_trail() -> None:
    t = _turn({})
    t.dest = [1 * W + 2, 1 * W + 4]
    t.kill(1, DeathCause.WALL)
    get_stage("trails.remove_on_death")(t)
    assert t.trails[1] == 0
    assert not (t.occupied >> (1 * W + 5)) & 1
    assert (t.occupied >> (1 * W + 2)) & 1
    assert t.occupied & t.before.board.walls == t.before.board.walls


def test_game_over_last_standing() -> None:
    t = _turn({})
    get_stage("game_over.last_standing")(t)
    assert t.outcome is None
    t.kill(0, DeathCause.WALL)
    get_stage("game_over.last_standing")(t)
    assert t.outcome is not None and t.outcome.winner == 1 and t.outcome.ranks == (2, 1)


def test_game_over_turn_limit_cycles_left() -> None:
    spec = grid_map(["#########", "#1..2..3#", "#.......#", "#########"])
    rs = get_ruleset("ffa").with_settings(turn_limit=1, turn_limit_outcome="cycles_left")
    state = new_game(rs, spec, seed=0)
    t = Turn(state, {}, rs)
    get_stage("game_over.turn_limit")(t)
    assert t.outcome is not None and t.outcome.ranks == (1, 1, 1)


def test_every_stage_is_documented() -> None:
    for sid, fn in STAGES.items():
        assert fn.__doc__ and len(fn.__doc__) > 30, sid
