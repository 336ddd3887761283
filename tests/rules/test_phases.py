"""`lightcycle.rules.phases`: the phase of a duel position, from plain-text vectors."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from lightcycle.core.state import GameState
from lightcycle.maps.io import map_from_text
from lightcycle.rules.engine import new_game
from lightcycle.rules.phases import PhaseLog, duel_phase, separated

VECTORS = Path(__file__).parent / "vectors" / "phases.txt"


@dataclass
class Case:
    """One vector: ``--- TURN PHASE [was_separated]`` and a board (lines with ``;``
    are comments)."""

    turn: int
    phase: str
    was_separated: bool
    board: str

    def state(self) -> GameState:
        return new_game("tron2010", map_from_text(self.board))._replace(turn=self.turn)


def cases() -> list[Case]:
    out: list[Case] = []
    for block in VECTORS.read_text().split("\n--- ")[1:]:
        head, _, body = block.partition("\n")
        words = head.split()
        rows = [line for line in body.splitlines() if line.strip() and not line.startswith(";")]
        out.append(Case(int(words[0]), words[1], "was_separated" in words[2:], "\n".join(rows)))
    return out


@pytest.mark.parametrize("case", cases(), ids=lambda c: f"{c.turn}-{c.phase}")
def test_each_vector(case: Case) -> None:
    assert duel_phase(case.state(), case.was_separated) == case.phase


def test_the_vectors_cover_every_phase() -> None:
    assert {c.phase for c in cases()} == {"first", "opening", "middle", "separated"}


def test_a_dead_cycle_leaves_nothing_to_share() -> None:
    state = cases()[3].state()
    assert not separated(state)
    dead = state._replace(cycles=(state.cycles[0], state.cycles[1]._replace(alive=False)))
    assert separated(dead)


def test_the_log_gives_each_seats_time_by_phase() -> None:
    log = PhaseLog()
    together = cases()[3].state()
    apart = cases()[1].state()
    for turn, state in enumerate([together, together, together, apart, together]):
        log(state._replace(turn=turn))
    # once separated, a later position is still counted separated (regions only shrink)
    assert log.phases == ["first", "opening", "opening", "separated", "separated"]
    times = [[1.0, 0.5], [0.1, 0.2], [0.1, None], [0.01, 0.02], [0.01, 0.02]]
    assert log.times(times, 0) == {
        "first": [1, 1.0],
        "opening": [2, pytest.approx(0.2)],
        "separated": [2, pytest.approx(0.02)],
    }
    assert log.times(times, 1)["opening"] == [1, 0.2]  # a move not timed is left out
    assert log.times(None, 0) == {}
