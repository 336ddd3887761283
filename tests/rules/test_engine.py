"""The public step: set-up errors, immutability, determinism, the fast step's agreement."""

from __future__ import annotations

import random

import pytest

from lightcycle.core.moves import Move
from lightcycle.core.topology import OFF
from lightcycle.rules.engine import GameOverError, new_game, run_pipeline, step
from lightcycle.rules.fast import SearchBoard
from lightcycle.rules.legal import legal_moves, read_answer, safe_moves
from lightcycle.rules.ruleset import RulesError
from lightcycle.rules.variants import get_ruleset, list_rulesets
from tests.conftest import grid_map, map_for, random_moves

ARENA = grid_map(
    ["##########"] + ["#1.......#"] + ["#........#"] * 6 + ["#.......2#", "##########"]
)


def test_state_is_immutable_and_step_returns_a_new_state() -> None:
    s0 = new_game("classic", ARENA, seed=1)
    with pytest.raises(AttributeError):
        s0.turn = 5  # type: ignore[misc]
    moves = {0: Move(0, s0.cycles[0].head + 1), 1: Move(1, s0.cycles[1].head - 1)}
    s1 = step(s0, moves)
    assert s0.turn == 0 and s1.turn == 1
    assert s0.cycles[0].head != s1.cycles[0].head


def test_step_after_game_over_raises() -> None:
    s = new_game("classic", ARENA)
    s = step(s, {})
    assert s.outcome is not None and s.outcome.is_draw
    with pytest.raises(GameOverError):
        step(s, {})


def test_ruleset_lookup_by_name_version_and_alias() -> None:
    assert get_ruleset("classic").id == "classic@1"
    assert get_ruleset("classic@1") is get_ruleset("tron2010")
    with pytest.raises(RulesError, match="Did you mean classic"):
        get_ruleset("clasic")
    with pytest.raises(RulesError, match="available: classic@1"):
        get_ruleset("classic@9")


def test_unknown_setting_is_refused_with_the_known_ones() -> None:
    with pytest.raises(RulesError, match=r"known: .*turn_limit"):
        get_ruleset("classic").with_settings(turn_limt=5)
    with pytest.raises(RulesError, match="positive"):
        get_ruleset("classic").with_settings(turn_limit=0)


def test_board_kind_and_player_count_are_checked() -> None:
    torus = grid_map(["1...", "...2"], wrap=True)
    with pytest.raises(RulesError, match="walled grid"):
        new_game("classic", torus)
    with pytest.raises(RulesError, match="torus"):
        new_game("torus", ARENA)
    with pytest.raises(RulesError, match="2 to 2 players"):
        new_game("classic", grid_map(["1.2.3"]))


def test_legal_and_safe_moves() -> None:
    s = new_game("classic", ARENA)
    legal = legal_moves(s, 0)
    assert len(legal) == 4
    assert sorted(m.to for m in safe_moves(s, 0)) == sorted([12, 21])
    assert read_answer(s, 0, "e").to == 12
    assert read_answer(s, 0, 2).to == 12  # 1-4 = N, E, S, W
    with pytest.raises(ValueError, match="not a heading"):
        read_answer(s, 0, "x")
    with pytest.raises(ValueError, match="answered nothing"):
        read_answer(s, 0, None)


def _random_game(seed: int, ruleset: str = "classic", spec=ARENA):
    rng = random.Random(seed)
    s = new_game(ruleset, spec, seed=seed)
    states = [s]
    while s.outcome is None:
        moves = random_moves(s, rng)
        s = step(s, moves)
        states.append(s)
    return states


def test_same_seed_and_moves_give_the_same_game() -> None:
    a = _random_game(11)
    b = _random_game(11)
    assert a[-1] == b[-1]


@pytest.mark.parametrize("seed", range(30))
def test_search_board_agrees_with_the_public_step(seed: int) -> None:
    rng = random.Random(seed)
    spec = ARENA if seed % 2 else grid_map(["1....", ".....", "....2"])
    s = new_game("classic", spec, seed=seed)
    board = SearchBoard.from_state(s)
    while s.outcome is None:
        dests = []
        for c in s.cycles:
            opts = [m.to for m in (safe_moves(s, c.index) or legal_moves(s, c.index))]
            if rng.random() < 0.05:
                opts = [m.to for m in legal_moves(s, c.index)]
            dests.append(rng.choice(opts))
        s = step(s, {i: Move(i, d) for i, d in enumerate(dests)})
        killed = board.step(dests)
        assert board.occupied == s.occupied
        for c in s.cycles:
            assert bool((killed >> c.index) & 1) == (c.death is not None and c.death.turn == s.turn)
            assert board.heads[c.index] == (c.head if c.alive else OFF)


def test_search_board_multiplayer_same_cell() -> None:
    spec = grid_map(["#####", "#1.2#", "#.3.#", "#####"])
    s = new_game("ffa", spec)
    b = SearchBoard.from_state(s)
    assert b.step([7, 7, 7]) == 0b111


def test_every_ruleset_plays_random_games_to_the_end() -> None:
    for rs in list_rulesets():
        for seed in range(5):
            states = _random_game(seed, rs.id, map_for(rs))
            assert states[-1].outcome is not None


@pytest.mark.parametrize("seed", range(8))
def test_quiet_shortcut_agrees_with_the_full_pipeline(seed: int) -> None:
    """On every ruleset, every turn: `step` (shortcut when quiet) == the whole pipeline."""
    quiet_turns = 0
    for rs in list_rulesets():
        for limit in (None, 7):
            ruleset = rs.with_settings(turn_limit=limit)
            rng = random.Random(seed)
            s = new_game(ruleset, map_for(rs), seed=seed)
            while s.outcome is None:
                moves = random_moves(s, rng)
                nxt = step(s, moves)
                assert nxt == run_pipeline(s, moves)
                quiet_turns += all(c.alive for c in nxt.cycles) and nxt.outcome is None
                s = nxt
    assert quiet_turns > 0


def _reference_safe_moves(state, cycle):  # type: ignore[no-untyped-def]
    """`safe_moves` from first principles: the legal plain steps into free cells."""
    if not state.cycles[cycle].alive or state.outcome is not None:
        return []
    heads = state.board.topology.neighbours[state.cycles[cycle].head]
    return [Move(cycle, d) for d in heads if state.is_free(d)]


@pytest.mark.parametrize("ruleset", ["classic", "torus", "ffa", "teams", "tron3d"])
def test_safe_moves_match_first_principles_across_repeated_games(ruleset: str) -> None:
    """The cached tables (made on a cell's second visit) give what first principles give,
    in neighbour order, for every cycle of every state of many games on one board, and
    every call returns a list of its own."""
    spec = map_for(get_ruleset(ruleset))
    for seed in range(6):  # later games revisit cells, so cached entries are used
        rng = random.Random(seed)
        s = new_game(ruleset, spec, seed=seed)
        while s.outcome is None:
            for c in s.cycles:
                got = safe_moves(s, c.index)
                assert got == _reference_safe_moves(s, c.index)
                got.append(Move(c.index, -5))  # the caller's own list
                assert safe_moves(s, c.index) == _reference_safe_moves(s, c.index)
            s = step(s, random_moves(s, rng))


def test_old_states_stay_valid_and_step_again_identically() -> None:
    """`step` is pure: keeping an old state and stepping it again, or stepping it with
    other moves, gives the same result as the first time; nothing is shared mutably."""
    states = _random_game(5)
    replays = []
    rng = random.Random(5)
    s = states[0]
    while s.outcome is None:
        moves = random_moves(s, rng)
        replays.append((s, moves, step(s, moves)))
        s = step(s, moves)
    for before, moves, after in reversed(replays):
        other = {i: safe_moves(before, i)[:1] or legal_moves(before, i)[:1] for i in moves}
        step(before, {i: m[0] for i, m in other.items()})  # a different branch first
        assert step(before, moves) == after
        assert safe_moves(before, 0) == _reference_safe_moves(before, 0)


def test_new_game_shares_the_set_up_but_not_the_seed() -> None:
    a = new_game("classic", ARENA, seed=1)
    b = new_game("classic", ARENA, seed=2)
    assert (a.seed, b.seed) == (1, 2)
    assert a._replace(seed=2) == b
    named = new_game("classic", ARENA, seed=1, names=["x", "y"])
    assert [t.name for t in named.teams] == ["x", "y"]
    assert [t.name for t in new_game("classic", ARENA, seed=1).teams] == ["Player 1", "Player 2"]
    with pytest.raises(RulesError, match="names given"):
        new_game("classic", ARENA, names=["x"])


def test_turn_limit_is_folded_into_the_quiet_plan() -> None:
    """The last turn before a turn limit is played by the pipeline, so it ends the game."""
    rs = get_ruleset("classic").with_settings(turn_limit=3)
    s = new_game(rs, ARENA, seed=1)
    rng = random.Random(1)
    while s.outcome is None:
        s = step(s, random_moves(s, rng))
    assert s.turn <= 3
    assert s.outcome.turn == s.turn
