"""The game as a pure function: `new_game` sets a game up, `step` plays one turn."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from lightcycle.core.bitset import from_cells
from lightcycle.core.moves import Forfeit, Move
from lightcycle.core.state import Board, Cycle, GameState, Team
from lightcycle.core.topology import GridTopology
from lightcycle.maps.spec import MapSpec
from lightcycle.maps.starts import starts_for
from lightcycle.rules.ruleset import RulesError, Ruleset
from lightcycle.rules.stages import (
    QUIET,
    QuietBefore,
    QuietCheck,
    Stage,
    always_quiet,
    get_stage,
)
from lightcycle.rules.turn import Turn
from lightcycle.rules.variants import get_ruleset


class GameOverError(RulesError):
    """`step` was called on a finished game."""


_NEVER = 1 << 62
"""A turn number no game reaches: the quiet limit of a ruleset whose stages set none."""


class _Plan(NamedTuple):
    """What `step` needs of a ruleset every turn, worked out once per ruleset.

    Attributes:
        ruleset: the ruleset this plan is for (compared by identity on every turn).
        stages: the stage functions, in order.
        quiet_below: turns numbered below this may take the quiet shortcut (0: none
            may), the `QuietBefore` limits of the stages folded into one integer.
        checks: the other quiet checks, functions of the state before the turn.
    """

    ruleset: Ruleset
    stages: tuple[Stage, ...]
    quiet_below: int
    checks: tuple[QuietCheck, ...]


_PLANS: dict[int, _Plan] = {}
_last_plan: _Plan | None = None
"""The plan used last: a game asks for the same ruleset every turn, so one identity
comparison usually replaces the dictionary look-up (a cache only; `step` stays pure)."""


def _plan_of(rs: object) -> _Plan:
    """The `_Plan` of ``rs``, memoised by identity (rulesets are frozen)."""
    global _last_plan
    assert isinstance(rs, Ruleset)
    plan = _PLANS.get(id(rs))
    if plan is None or plan.ruleset is not rs:
        if len(_PLANS) >= 256:  # `with_settings` makes rulesets freely: stay bounded
            _PLANS.clear()
        plan = _PLANS[id(rs)] = _make_plan(rs)
    _last_plan = plan
    return plan


def _make_plan(rs: Ruleset) -> _Plan:
    """Look the stages up and fold their quiet checks (a turn limit depends on settings,
    so a plan belongs to one ruleset object, not to its stage list)."""
    stages = tuple(get_stage(s) for s in rs.stages)
    checks = [QUIET[s] for s in rs.stages]
    if any(c is None for c in checks):
        return _Plan(rs, stages, 0, ())
    below = _NEVER
    others: list[QuietCheck] = []
    for c in checks:
        if isinstance(c, QuietBefore):
            limit = c.limit(rs.settings)
            if limit is not None:
                below = min(below, limit)
        elif c is not None and c is not always_quiet:
            others.append(c)
    return _Plan(rs, stages, below, tuple(others))


_new = tuple.__new__


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


_SETUPS: dict[
    tuple[int, int, int | None, tuple[str, ...] | None], tuple[object, object, GameState]
] = {}
"""Set-ups that do not depend on the seed (maps with their own starts), by the identity of
the ruleset and map, the player count and the names. Everything in a set-up is immutable,
so games on the same map share it; only the seed differs. Bounded: cleared when full."""
_SETUPS_MAX = 256


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
    key = (id(rs), id(spec), players, None if names is None else tuple(names))
    hit = _SETUPS.get(key)
    if hit is not None and hit[0] is rs and hit[1] is spec:
        first = hit[2]
        return _new(GameState, (first[0], first[1], seed, *first[3:]))
    state = _set_up(rs, spec, seed, players, names)
    if spec.starts_of(len(state.teams)) is not None:  # the starts do not depend on the seed
        if len(_SETUPS) >= _SETUPS_MAX:
            _SETUPS.clear()
        _SETUPS[key] = (rs, spec, state)
    return state


def _set_up(
    rs: Ruleset,
    spec: MapSpec,
    seed: int,
    players: int | None,
    names: Sequence[str] | None,
) -> GameState:
    """`new_game` without the memo."""
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
    rs, board, seed, turn, teams, cycles, occ, scores, items, outcome, totals = state
    if outcome is not None:
        raise GameOverError(f"the game ended on turn {outcome.turn}; no more moves")
    if type(moves) is not dict and not isinstance(moves, Mapping):
        moves = {m.cycle: m for m in moves}
    plan = _last_plan
    if plan is None or plan[0] is not rs:
        plan = _plan_of(rs)
    if cpu is not None:
        if len(cpu) != len(teams) or any(t < 0 for t in cpu):
            raise RulesError(f"cpu needs one count >= 0 per team, got {list(cpu)}")
        totals = tuple(a + int(b) for a, b in zip(totals, cpu, strict=True))
    if turn + 1 < plan[2] and (not plan[3] or all(check(state) for check in plan[3])):
        # The quiet turn (see `lightcycle.rules.stages.stage`): every live cycle makes a
        # plain one-step `Move` into a free cell and no two destinations coincide. Then
        # the only effect of any quiet stage is that each cycle advances and extends its
        # trail, which this does inline, building the tuples directly: it is the hottest
        # path of the engine, and a helper call or a named-tuple constructor here costs
        # as much as a check. Anything else falls through to the whole pipeline.
        nbrs = board.topology.neighbours
        get = moves.get
        if len(cycles) == 2:  # the duel, unrolled: the hot path of every playout
            a, b = cycles
            ma = get(0)
            mb = get(1)
            # Cycle (index, team, head, trail, alive, ...), Move (cycle, to, jump, use_item)
            if a[4] and b[4] and type(ma) is Move and type(mb) is Move:
                da = ma[1]
                db = mb[1]
                if (
                    da != db
                    and da in nbrs[a[2]]
                    and db in nbrs[b[2]]
                    and not (ma[2] or ma[3] or mb[2] or mb[3])
                ):
                    ba = 1 << da
                    bb = 1 << db
                    both = ba | bb
                    if not occ & both:
                        a = _new(
                            Cycle,
                            (a[0], a[1], da, a[3] | ba, True, None, a[6], a[7], a[8], a[9], a[10]),
                        )
                        b = _new(
                            Cycle,
                            (b[0], b[1], db, b[3] | bb, True, None, b[6], b[7], b[8], b[9], b[10]),
                        )
                        return _new(
                            GameState,
                            (
                                rs,
                                board,
                                seed,
                                turn + 1,
                                teams,
                                (a, b),
                                occ | both,
                                scores,
                                items,
                                None,
                                totals,
                            ),
                        )
                return run_pipeline(state, moves, totals)
        taken = 0
        nxt = []
        for i, c in enumerate(cycles):
            if c[4]:
                m = get(i)
                if type(m) is not Move or m[2] or m[3]:
                    break
                d = m[1]
                if d not in nbrs[c[2]]:
                    break
                bit = 1 << d
                if (occ | taken) & bit:
                    break
                taken |= bit
                c = _new(
                    Cycle, (c[0], c[1], d, c[3] | bit, True, None, c[6], c[7], c[8], c[9], c[10])
                )
            nxt.append(c)
        else:
            return _new(
                GameState,
                (
                    rs,
                    board,
                    seed,
                    turn + 1,
                    teams,
                    tuple(nxt),
                    occ | taken,
                    scores,
                    items,
                    None,
                    totals,
                ),
            )
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
    plan = _last_plan
    if plan is None or plan[0] is not rs:
        plan = _plan_of(rs)
    turn = Turn(state, moves, plan[0], cpu)
    for fn in plan[1]:
        fn(turn)
    return turn.freeze()
