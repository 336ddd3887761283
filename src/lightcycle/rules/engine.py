"""The game as a pure function: `new_game` sets a game up, `step` plays one turn."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache

from lightcycle.core.bitset import from_cells
from lightcycle.core.moves import Forfeit, Move
from lightcycle.core.state import Board, Cycle, GameState, Team
from lightcycle.core.topology import GridTopology
from lightcycle.maps.spec import MapSpec
from lightcycle.maps.starts import starts_for
from lightcycle.rules.ruleset import RulesError, Ruleset
from lightcycle.rules.stages import QUIET, QuietCheck, Stage, always_quiet, get_stage
from lightcycle.rules.turn import Turn
from lightcycle.rules.variants import get_ruleset


class GameOverError(RulesError):
    """`step` was called on a finished game."""


_PIPELINES: dict[
    int, tuple[tuple[str, ...], tuple[tuple[Stage, ...], tuple[QuietCheck, ...] | None]]
] = {}


def _pipeline_of(rs: Ruleset) -> tuple[tuple[Stage, ...], tuple[QuietCheck, ...] | None]:
    """`_pipeline` memoised by the identity of the stage tuple (no hashing per turn)."""
    hit = _PIPELINES.get(id(rs.stages))
    if hit is None or hit[0] is not rs.stages:
        hit = (rs.stages, _pipeline(rs.stages))
        _PIPELINES[id(rs.stages)] = hit
    return hit[1]


@cache
def _pipeline(
    stage_ids: tuple[str, ...],
) -> tuple[tuple[Stage, ...], tuple[QuietCheck, ...] | None]:
    """The stage functions of a ruleset, and its quiet-turn checks (``None``: never quiet)."""
    stages = tuple(get_stage(s) for s in stage_ids)
    checks = [QUIET[s] for s in stage_ids]
    if any(c is None for c in checks):
        return stages, None
    return stages, tuple(c for c in checks if c is not None and c is not always_quiet)


_new = tuple.__new__


def _quiet_step(
    state: GameState, moves: Mapping[int, Move | Forfeit], cpu: tuple[int, ...]
) -> GameState | None:
    """Play a quiet turn directly, or return ``None`` if this turn is not quiet.

    Quiet: every live cycle makes a plain one-step `Move` into a free cell and no two
    destinations coincide (see `lightcycle.rules.stages.stage`). Then the only effect of
    any quiet stage is that each cycle advances and extends its trail, which is what this
    does, building the tuples directly because this is the hottest path of the engine.
    """
    occ = state.occupied
    nbrs = state.board.topology.neighbours
    cycles = list(state.cycles)
    taken = 0
    get = moves.get
    for i, c in enumerate(cycles):
        # positional fields: Cycle (index, team, head, trail, alive, death, name, ...),
        # Move (cycle, to, jump, use_item); indexing is the fastest access to a named tuple
        if not c[4]:
            continue
        m = get(i)
        if type(m) is not Move or m[2] or m[3]:
            return None
        d = m[1]
        if d < 0:
            return None
        bit = 1 << d
        if (occ | taken) & bit or d not in nbrs[c[2]]:
            return None
        taken |= bit
        cycles[i] = _new(
            Cycle, (c[0], c[1], d, c[3] | bit, True, None, c[6], c[7], c[8], c[9], c[10])
        )
    return _new(
        GameState,
        (
            state.ruleset,
            state.board,
            state.seed,
            state.turn + 1,
            state.teams,
            tuple(cycles),
            occ | taken,
            state.scores,
            state.items,
            None,
            cpu,
        ),
    )


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
    if ok and is_grid:
        problem = rs.settings.board_problem(topo.width, topo.height)  # type: ignore[attr-defined]
        if problem is not None:
            raise RulesError(
                f"{rs.id}: {problem}; map {spec.name!r} does not fit. Choose another map "
                "(`lightcycle maps list`)"
            )
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
    settings = rs.settings
    for t, cells in enumerate(starts):
        if len(cells) < per_team:
            raise RulesError(
                f"{rs.id} gives each player {per_team} cycle(s) but map {spec.name!r} has "
                f"{len(cells)} start(s) for player {t + 1}"
            )
        for k, c in enumerate(cells[:per_team]):
            cycles.append(
                Cycle(
                    index=len(cycles),
                    team=t,
                    head=c,
                    trail=1 << c,
                    name=settings.cycle_name(t, k),
                    jumps_left=settings.jumps,
                )
            )
    occupied = spec.board.walls | from_cells(c.head for c in cycles)
    board = spec.board
    if board.bonus != spec.bonus:
        board = Board(board.topology, board.walls, spec.bonus)
    return GameState(
        ruleset=rs,
        board=board,
        seed=seed,
        turn=0,
        teams=teams,
        cycles=tuple(cycles),
        occupied=occupied,
        scores=(0,) * players,
        cpu=(0,) * players,
    )


def step(
    state: GameState,
    moves: Mapping[int, Move | Forfeit] | Iterable[Move | Forfeit],
    cpu: Sequence[int] | None = None,
) -> GameState:
    """Apply one simultaneous turn and return the next state.

    Args:
        state: the state before the turn (never modified).
        moves: one `Move` or `Forfeit` per live cycle, as a mapping by cycle index or any
            iterable (each item names its cycle). A live cycle with no entry forfeits.
            The order of a team's entries is the order in which that team listed its
            cycles, which the sequential rulesets (``teams``, ``tron3d``) follow.
        cpu: per team, the CPU microseconds its bot used for this turn, as measured by
            the referee; added to ``state.cpu``. ``None`` counts nothing.

    Raises:
        GameOverError: when the game is already over.
    """
    if state.outcome is not None:
        raise GameOverError(f"the game ended on turn {state.outcome.turn}; no more moves")
    if type(moves) is not dict and not isinstance(moves, Mapping):
        moves = {m.cycle: m for m in moves}
    rs = state.ruleset
    assert isinstance(rs, Ruleset)
    totals = state.cpu
    if cpu is not None:
        if len(cpu) != len(state.teams) or any(t < 0 for t in cpu):
            raise RulesError(f"cpu needs one count >= 0 per team, got {list(cpu)}")
        totals = tuple(a + int(b) for a, b in zip(state.cpu, cpu, strict=True))
    quiet = _pipeline_of(rs)[1]
    if quiet is not None:
        for check in quiet:
            if not check(state):
                break
        else:
            fast = _quiet_step(state, moves, totals)
            if fast is not None:
                return fast
    return run_pipeline(state, moves, totals)


def run_pipeline(
    state: GameState, moves: Mapping[int, Move | Forfeit], cpu: tuple[int, ...] | None = None
) -> GameState:
    """Play one turn through every stage of the ruleset, never taking the quiet shortcut.

    `step` uses it for every turn that is not quiet; tests use it to check the shortcut.

    Args:
        state: the state before the turn.
        moves: as for `step`.
        cpu: the teams' CPU totals after this turn (default: unchanged).
    """
    rs = state.ruleset
    assert isinstance(rs, Ruleset)
    turn = Turn(state, moves, rs, cpu)
    for fn in _pipeline_of(rs)[0]:
        fn(turn)
    return turn.freeze()
