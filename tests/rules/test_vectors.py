"""Every case in tests/rules/vectors/*.txt plays out as written."""

from __future__ import annotations

import pytest

from lightcycle.core.moves import Forfeit, Move
from lightcycle.core.topology import GridTopology
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.variants import get_ruleset
from tests.rules.vectors_io import Vector, all_vectors

VECTORS = all_vectors()


def _moves(state, tokens: list[str]) -> dict[int, Move | Forfeit]:
    topo = state.board.topology
    assert isinstance(topo, GridTopology)
    out: dict[int, Move | Forfeit] = {}
    for i, tok in enumerate(tokens):
        c = state.cycles[i]
        if not c.alive:
            continue
        if tok == "-":
            out[i] = Forfeit(i, "vector forfeit")
        else:
            h = "nesw".index(tok.lower())
            table = topo.jump_table if tok.isupper() else topo.step_table
            out[i] = Move(i, table[c.head * 4 + h], jump=tok.isupper())
    return out


@pytest.mark.parametrize("vec", VECTORS, ids=[v.title for v in VECTORS])
def test_vector(vec: Vector) -> None:
    rs = get_ruleset(vec.ruleset).with_settings(vec.settings)
    state = new_game(rs, vec.spec(), seed=1)
    for tokens in vec.moves:
        assert state.outcome is None, f"{vec.source}: game over before all moves"
        assert len(tokens) == len(state.cycles), f"{vec.source}: one token per cycle"
        state = step(state, _moves(state, tokens))
    o = state.outcome
    assert o is not None, f"{vec.source}: game not over after the moves"
    kind = vec.expect[0]
    if kind == "draw":
        assert o.is_draw, o
    elif kind == "winner":
        assert o.winner == int(vec.expect[1]) - 1, o
    elif kind == "ranks":
        assert list(o.ranks) == [int(r) for r in vec.expect[1:]], o
    if vec.turn is not None:
        assert o.turn == vec.turn
    for k, cause, turn in vec.deaths:
        d = state.cycles[k - 1].death
        assert d is not None, f"cycle {k} should be dead"
        assert (d.cause.value, d.turn) == (cause, turn), d
    for k in vec.alive:
        assert state.cycles[k - 1].alive


def test_vectors_cover_every_death_cause_and_ruleset() -> None:
    causes = {cause for v in VECTORS for _, cause, _ in v.deaths}
    assert causes >= {"wall", "trail", "head_on", "same_cell", "forfeit"}
    assert {v.ruleset for v in VECTORS} >= {"classic", "torus", "ffa"}
