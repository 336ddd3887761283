"""Conformance: every built-in map, at every player count it offers, sets up under every
ruleset that can play it and plays random games to the end; replays re-simulate."""

from __future__ import annotations

import random

import pytest

from lightcycle.maps.registry import list_maps
from lightcycle.referee.local import default_ruleset
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.ruleset import RulesError
from lightcycle.rules.variants import list_rulesets
from tests.conftest import random_moves

CASES = [(m.name, n) for m in list_maps() for n in m.players]


@pytest.mark.parametrize(("name", "players"), CASES, ids=[f"{m}-{n}p" for m, n in CASES])
def test_map_plays_random_games_to_the_end(name: str, players: int) -> None:
    spec = next(m for m in list_maps() if m.name == name)
    playable = 0
    for rs in list_rulesets():
        try:
            state = new_game(rs, spec, seed=0, players=players)
        except RulesError:
            continue  # the ruleset is not for this board or player count
        playable += 1
        for seed in range(2):
            rng = random.Random(seed)
            state = new_game(rs, spec, seed=seed, players=players)
            heads = {c.head for c in state.cycles}
            assert len(state.teams) == players and len(heads) == len(state.cycles)
            assert all(state.is_free(h) is False for h in heads)
            while state.outcome is None:
                moves = random_moves(state, rng)
                state = step(state, moves)
            assert sorted(state.outcome.ranks)[0] == 1
    assert playable, f"no ruleset plays {name} with {players} players"
    assert default_ruleset(spec, players) is not None


def test_random_start_maps_are_deterministic_per_seed() -> None:
    spec = next(m for m in list_maps() if not m.starts)
    a = new_game("classic", spec, seed=4)
    b = new_game("classic", spec, seed=4)
    c = new_game("classic", spec, seed=5)
    assert [x.head for x in a.cycles] == [x.head for x in b.cycles]
    assert [x.head for x in a.cycles] != [x.head for x in c.cycles]
