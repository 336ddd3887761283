"""A golden playthrough per registered ruleset, diffed against tests/golden/*.txt.

Each transcript is a full game between built-in bots: every turn's moves, the board after
the turn and the deaths. A change in rules or bots shows up as a readable diff. After an
intended change, regenerate with ``LIGHTCYCLE_REGEN_GOLDEN=1 pytest tests/rules/test_golden.py``
and review the diff before committing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lightcycle.maps.registry import get_map
from lightcycle.referee.local import play
from lightcycle.render.text import board_string, status_line
from lightcycle.rules.variants import list_rulesets
from tests.conftest import graph_map, grid_map

GOLDEN = Path(__file__).parent.parent / "golden"

GAMES = {
    "classic@1": (
        grid_map(["#########", "#1......#", "#...#...#", "#.......#", "#...#..2#", "#########"]),
        ["chaser", "wallhugger"],
    ),
    "torus@1": (
        grid_map(["1......", ".......", "...#...", ".......", "......2"], wrap=True),
        ["runaway", "chaser"],
    ),
    "ffa@1": (
        grid_map(["#########", "#1.....2#", "#...#...#", "#.......#", "#3.....4#", "#########"]),
        ["floodfill", "chaser", "wallhugger", "runaway"],
    ),
    "teams@1": (get_map("court-small"), ["lookbot", "linebot"]),
    "tron3d@1": (graph_map(5), ["dummy", "dummy", "dummy", "dummy"]),
}
SETTINGS: dict[str, dict[str, object]] = {
    "teams@1": {"turn_limit": 40},
    "tron3d@1": {"nb_rounds": 40, "bonus_round": 6},
}


def transcript(ruleset: str) -> str:
    spec, bots = GAMES[ruleset]
    lines: list[str] = []
    prev = None

    def on_turn(state) -> None:
        nonlocal prev
        lines.append(f"-- turn {state.turn}")
        if prev is not None:
            for c in state.cycles:
                if c.death is not None and c.death.turn == state.turn:
                    lines.append(f"cycle {c.index} died: {c.death.cause.value} {c.death.detail}")
        lines.append(board_string(state, unicode=False))
        if state.items or any(state.scores):
            lines.append(status_line(state) + f" | items {list(state.items)}")
        prev = state

    result = play(
        spec, bots, seed=5, ruleset=ruleset, settings=SETTINGS.get(ruleset), on_turn=on_turn
    )
    lines.append(f"== {result.summary()} ({result.outcome.reason}, ranks {result.outcome.ranks})")
    return "\n".join(lines) + "\n"


def test_every_ruleset_has_a_golden_game() -> None:
    assert {r.id for r in list_rulesets()} <= set(GAMES)


@pytest.mark.parametrize("ruleset", sorted(GAMES))
def test_golden_playthrough(ruleset: str) -> None:
    path = GOLDEN / f"{ruleset.replace('@', '-')}.txt"
    got = transcript(ruleset)
    if os.environ.get("LIGHTCYCLE_REGEN_GOLDEN") or not path.exists():
        path.write_text(got)
        if not os.environ.get("LIGHTCYCLE_REGEN_GOLDEN"):
            pytest.fail(f"{path} did not exist; written now: review and commit it")
    assert got == path.read_text(), f"{ruleset} playthrough differs from {path}"
