"""Every case in tests/rules/vectors/*.txt plays out as written."""

from __future__ import annotations

import pytest

from lightcycle.core.moves import Forfeit, Move
from lightcycle.core.topology import GridTopology
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.variants import get_ruleset
from tests.rules.vectors_io import Vector, all_vectors

VECTORS = all_vectors()


def _graph_step(state, head: int, h: int, width: int) -> int:
    """On a vector's graph board (a grid's cells as nodes): the node towards heading h."""
    x, y = head % width, head // width
    dx, dy = ((0, -1), (1, 0), (0, 1), (-1, 0))[h]
    return (y + dy) * width + (x + dx)


def _moves(state, tokens: list[str], width: int, order: list[int] | None) -> dict:
    topo = state.board.topology
    out: dict[int, Move | Forfeit] = {}
    indices = [k - 1 for k in order] if order else range(len(tokens))
    for i in indices:
        tok = tokens[i]
        c = state.cycles[i]
        if not c.alive or tok == ".":
            continue
        use = tok.endswith("*")
        tok = tok.rstrip("*")
        if tok == "-":
            out[i] = Forfeit(i, "vector forfeit")
        elif isinstance(topo, GridTopology):
            h = "nesw".index(tok.lower())
            table = topo.jump_table if tok.isupper() else topo.step_table
            out[i] = Move(i, table[c.head * 4 + h], jump=tok.isupper(), use_item=use)
        else:
            to = _graph_step(state, c.head, "nesw".index(tok), width)
            out[i] = Move(i, to, use_item=use)
    return out


def _cell(text: str, width: int) -> int:
    x, y = (int(v) for v in text.split(","))
    return y * width + x


def _check(vec: Vector, state, width: int) -> None:
    for word, parts in vec.checks:
        where = f"{vec.source}: {word} {' '.join(parts)}"
        if word == "items":
            assert len(state.items) == int(parts[0]), (where, state.items)
            continue
        if word == "score":
            assert state.scores[int(parts[0]) - 1] == int(parts[1]), (where, state.scores)
            continue
        c = state.cycles[int(parts[0]) - 1]
        if word == "head":
            assert c.head == _cell(parts[1], width), (where, c.head)
        elif word == "trail":
            assert bin(c.trail).count("1") == int(parts[1]), (where, c.trail_cells())
        elif word == "held":
            assert (c.item or "none") == parts[1], (where, c.item)
        elif word in ("ghost", "turbo", "jumps"):
            value = {"ghost": c.ghost, "turbo": c.turbo, "jumps": c.jumps_left}[word]
            assert value == int(parts[1]), (where, value)


@pytest.mark.parametrize("vec", VECTORS, ids=[v.title for v in VECTORS])
def test_vector(vec: Vector) -> None:
    rs = get_ruleset(vec.ruleset).with_settings(vec.settings)
    spec = vec.spec()
    width = max(len(r) for r in vec.board)
    state = new_game(rs, spec, seed=1)
    if vec.items:
        items = tuple(sorted((_cell(xy, width), kind) for xy, kind in vec.items))
        state = state._replace(items=items)
    for t, tokens in enumerate(vec.moves):
        assert state.outcome is None, f"{vec.source}: game over before all moves"
        assert len(tokens) == len(state.cycles), f"{vec.source}: one token per cycle"
        moves = _moves(state, tokens, width, vec.orders.get(t))
        state = step(state, moves, vec.cpu.get(t))
    _check(vec, state, width)
    o = state.outcome
    kind = vec.expect[0]
    if kind == "running":
        assert o is None, f"{vec.source}: the game should still be running: {o}"
        for k in vec.alive:
            assert state.cycles[k - 1].alive
        return
    assert o is not None, f"{vec.source}: game not over after the moves"
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
    assert {v.ruleset for v in VECTORS} >= {"classic", "torus", "ffa", "teams", "tron3d"}
