"""The jsonl decoder against the engine: games played locally, their messages decoded,
the decoded states equal to the engine's in everything the protocol carries."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lightcycle.core.state import GameState
from lightcycle.maps.registry import get_map
from lightcycle.protocols.base import Params
from lightcycle.protocols.jsonl import JsonLines
from lightcycle.referee.local import play
from lightcycle.remote.decode import DecodeError, JsonlDecoder
from lightcycle.rules.engine import new_game


def _seen(state: GameState) -> tuple[Any, ...]:
    """What the jsonl messages carry of a state (no seed, no death details)."""
    return (
        state.ruleset.id,
        state.board,
        state.turn,
        state.teams,
        tuple(
            c._replace(death=None if c.death is None else (c.death.turn, c.death.cause))
            for c in state.cycles
        ),
        state.occupied,
        state.scores,
        state.items,
        state.outcome,
    )


def _game(map_name: str, bots: list[str], seed: int, ruleset: str | None = None) -> list[GameState]:
    states: list[GameState] = []
    play(map_name, bots, seed=seed, ruleset=ruleset, on_turn=states.append)
    return states


@pytest.mark.parametrize(
    ("map_name", "bots", "ruleset"),
    [
        ("arena-10", ["chaser", "random"], None),  # classic, a walled room
        ("torus-20", ["wallhugger", "random"], "torus"),  # wrap-around
        ("arena-15", ["random", "chaser", "wallhugger", "runaway"], None),  # ffa, deaths
    ],
)
def test_decoded_states_equal_the_engine(
    map_name: str, bots: list[str], ruleset: str | None
) -> None:
    for seed in range(3):
        states = _game(map_name, bots, seed, ruleset)
        for seat in range(len(bots)):
            codec = JsonLines(seat)
            decoder = JsonlDecoder()
            lines = [codec.start(states[0], Params(names=tuple(t.name for t in states[0].teams)))]
            lines += [codec.turn(s) for s in states[1:]]
            lines.append(codec.end(states[-1]))
            decoded = [decoder.feed(json.loads(line)) for line in lines]
            assert decoder.seat == seat
            # a turn message never says the game is over: the end message does
            expected = [_seen(s._replace(outcome=None)) for s in states]
            assert [_seen(d) for d in decoded[:-1] if d is not None] == expected
            last = decoded[-1]
            assert last is not None and _seen(last) == _seen(states[-1])


def test_a_ruleset_it_cannot_rebuild_is_refused_naming_what_works() -> None:
    state = new_game("teams", get_map("court-small"))
    line = JsonLines(0).start(state, Params())
    with pytest.raises(DecodeError, match=r"classic, torus and ffa.*teams@1.*cmd:"):
        JsonlDecoder().feed(json.loads(line))


def test_a_turn_before_the_start_is_an_error() -> None:
    with pytest.raises(DecodeError, match="before the start"):
        JsonlDecoder().feed({"type": "turn", "turn": 1, "cycles": []})
