"""The game as a pure function: `new_game` sets a game up, `step` plays one turn."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache

from lightcycle.core.bitset import from_cells
from lightcycle.core.moves import Forfeit, Move
from lightcycle.core.state import Cycle, GameState, Team
from lightcycle.core.topology import GridTopology
from lightcycle.maps.spec import MapSpec
from lightcycle.maps.starts import starts_for
from lightcycle.rules.ruleset import RulesError, Ruleset
from lightcycle.rules.stages import Stage, get_stage
from lightcycle.rules.turn import Turn
from lightcycle.rules.variants import get_ruleset


class GameOverError(RulesError):
    """`step` was called on a finished game."""


@cache
def _pipeline(stage_ids: tuple[str, ...]) -> tuple[Stage, ...]:
    return tuple(get_stage(s) for s in stage_ids)


def _check_board(rs: Ruleset, spec: MapSpec) -> None:
    topo = spec.board.topology
    is_grid = isinstance(topo, GridTopology)
    wrap = is_grid and topo.wrap  # type: ignore[attr-defined]
    ok = {
        "grid": is_grid and not wrap,
        "torus": is_grid and wrap,
        "any-grid": is_grid,
        "graph": not is_grid,
        "any": True,
    }[rs.board]
    if not ok:
        kind = {"grid": "a walled grid", "torus": "a torus (wrap 1)", "any-grid": "a grid"}.get(
            rs.board, "a graph board"
        )
        raise RulesError(
            f"{rs.id} plays on {kind}, but map {spec.name!r} is a {topo.describe()}; "
            "choose another map (`lightcycle maps list`) or ruleset"
        )


def new_game(
    ruleset: str | Ruleset,
    spec: MapSpec,
    seed: int = 0,
    players: int | None = None,
    names: Sequence[str] | None = None,
) -> GameState:
    """Set up a game: teams, cycles on their starts, turn 0.

    Args:
        ruleset: a `Ruleset` or a registry name such as ``classic`` or ``ffa@1``.
        spec: the map.
        seed: the game seed; random starts and every random rule derive from it.
        players: the number of teams; defaults to the map's starts, else the ruleset's
            minimum.
        names: team names; default ``Player 1``, ``Player 2``, ...

    Raises:
        RulesError: when the ruleset cannot play this map or player count.
        MapError: when starts cannot be placed.
    """
    rs = get_ruleset(ruleset)
    _check_board(rs, spec)
    if players is None:
        players = len(spec.starts) if spec.starts else rs.players[0]
    lo, hi = rs.players
    if not lo <= players <= hi:
        raise RulesError(f"{rs.id} is for {lo} to {hi} players, not {players}")
    if names is not None and len(names) != players:
        raise RulesError(f"{len(names)} names given for {players} players")
    starts = starts_for(spec, players, seed)
    per_team = rs.settings.cycles_per_team
    teams = tuple(
        Team(t, names[t] if names is not None else f"Player {t + 1}") for t in range(players)
    )
    cycles: list[Cycle] = []
    for t, cells in enumerate(starts):
        if len(cells) != per_team:
            raise RulesError(
                f"{rs.id} gives each player {per_team} cycle(s) but map {spec.name!r} has "
                f"{len(cells)} start(s) for player {t + 1}"
            )
        for c in cells:
            cycles.append(
                Cycle(index=len(cycles), team=t, head=c, trail=1 << c, jumps_left=rs.settings.jumps)
            )
    occupied = spec.board.walls | from_cells(c.head for c in cycles)
    return GameState(
        ruleset=rs,
        board=spec.board,
        seed=seed,
        turn=0,
        teams=teams,
        cycles=tuple(cycles),
        occupied=occupied,
        scores=(0,) * players,
    )


def step(
    state: GameState, moves: Mapping[int, Move | Forfeit] | Iterable[Move | Forfeit]
) -> GameState:
    """Apply one simultaneous turn and return the next state.

    Args:
        state: the state before the turn (never modified).
        moves: one `Move` or `Forfeit` per live cycle, as a mapping by cycle index or any
            iterable (each item names its cycle). A live cycle with no entry forfeits.

    Raises:
        GameOverError: when the game is already over.
    """
    if state.outcome is not None:
        raise GameOverError(f"the game ended on turn {state.outcome.turn}; no more moves")
    if not isinstance(moves, Mapping):
        moves = {m.cycle: m for m in moves}
    rs = state.ruleset
    assert isinstance(rs, Ruleset)
    turn = Turn(state, moves, rs)
    for fn in _pipeline(rs.stages):
        fn(turn)
    return turn.freeze()
