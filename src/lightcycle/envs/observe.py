"""What one cycle sees, as arrays: the observation contract of every environment.

One plain implementation from a `GameState`, written to be read and checked rather than
to be fast: the batched engine must produce exactly these arrays, and the tests compare
it with this module. Each agent is one cycle (agent ``player_i`` is cycle ``i``); its
observation is a dict of three arrays:

``observation``: uint8 0/1 planes, own point of view first.

- Grid boards, shape ``(C, H, W)``, row ``y``, column ``x`` (cell ``y * W + x``, as in
  `lightcycle.core.topology.GridTopology`).

  - One cycle per team (``classic``, ``torus``, ``ffa``), ``C = 5``: 0 walls (the map's),
    1 own trail (its head included), 2 every other cycle's trail (heads included; a dead
    cycle's trail shows as long as the rules keep it), 3 own head (only while alive),
    4 the other live cycles' heads.
  - Several cycles per team (``teams``), ``C = 7``: 0 walls, 1 own trail, 2 teammates'
    trails, 3 opponents' trails, 4 own head, 5 teammates' live heads, 6 opponents' live
    heads.

- Graph boards (``tron3d``), shape ``(C, V)`` over the board's vertices in the board's
  own numbering, ``C = 13``: planes 0-6 as for teams, then 7 turbo items, 8 ghost items,
  9 points items lying on the board, 10 the bonus vertices (where items appear), 11 the
  heads of live cycles in ghost, 12 the heads of live cycles in turbo. The vertex
  numbering is fixed per board; `Layout.neighbours` lists each vertex's neighbours.

``scalars``: float32.

- Grid rulesets without jumps: ``[turn / T]``; with jumps (``teams``): ``[turn / T,
  own jumps left]``. ``T`` is `Layout.turn_limit`: the rules' turn limit (``max_turns``
  sets it), or where the rules set none, the board's number of free (non-wall) cells
  (`lightcycle.envs.game.observed_limit`).
- Graph boards: ``[turn / T, moves this turn (0/1), holds turbo, holds ghost, holds
  points, turbo moves left / turbo_duration, ghost moves left / ghost_duration, own
  team's score / S, best other team's score / S]`` with ``S`` the most a team can score
  (`Layout.score_scale`), so every entry lies in ``[0, 1]``.

``action_mask``: int8, one entry per action, 1 for exactly the moves
`lightcycle.rules.legal.legal_moves` lists (a deadly move into a wall is legal); all
zeros for a dead cycle and for one that does not move this turn.

- Grids: action ``k < 4`` steps towards heading ``k`` (N, E, S, W: `Heading` order);
  with jumps, ``4 + k`` jumps two cells towards heading ``k``. Where two headings reach
  the same cell (a torus one cell wide), the move is listed once, at the first of them.
- Graphs: action ``k < D`` moves to ``neighbours[head][k]``; ``D + k`` makes the same
  move using the held item. ``D`` is the board's largest degree.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lightcycle.core.state import Board, GameState
from lightcycle.core.topology import GridTopology
from lightcycle.envs.game import GameConfig
from lightcycle.rules.legal import legal_moves, moves_this_turn
from lightcycle.rules.ruleset import ITEM_KINDS, Ruleset

GRID_DUEL_CHANNELS = ("walls", "own_trail", "other_trails", "own_head", "other_heads")
"""Plane names of grid rulesets with one cycle per team (``classic``, ``torus``, ``ffa``)."""
TEAM_CHANNELS = (
    "walls",
    "own_trail",
    "team_trails",
    "opponent_trails",
    "own_head",
    "team_heads",
    "opponent_heads",
)
"""Plane names of team rulesets on grids (``teams``); the first seven of graph boards."""
GRAPH_CHANNELS = (
    *TEAM_CHANNELS,
    *(f"{kind}_items" for kind in ITEM_KINDS),
    "bonus",
    "ghost_heads",
    "turbo_heads",
)
"""Plane names of graph boards (``tron3d``)."""
GRAPH_SCALARS = (
    "turn",
    "moves",
    *(f"holds_{kind}" for kind in ITEM_KINDS),
    "turbo_left",
    "ghost_left",
    "own_score",
    "best_other_score",
)
"""Scalar names of graph boards."""


@dataclass(frozen=True)
class Layout:
    """The shape of one agent's observation and actions for a game configuration.

    Attributes:
        graph: a graph board (else a grid).
        channels: the plane names, in order.
        shape: the ``observation`` array's shape, ``(C, H, W)`` or ``(C, V)``.
        scalars: the ``scalars`` entry names, in order.
        actions: the number of actions ``A``.
        jumps: whether actions ``4..7`` are jumps (grid rulesets with jumps).
        turn_limit: ``T`` of ``turn / T``.
        max_jumps: the most jumps a cycle holds (bounds the jumps scalar).
        degree: ``D``, the largest degree of a graph board (0 on grids).
        neighbours: per vertex of a graph board, its neighbours in the board's order
            (the order actions index); empty on grids.
        score_scale: ``S`` of the graph scores: the most a team can score.
        turbo_duration, ghost_duration: the item durations the scalars divide by.
    """

    graph: bool
    channels: tuple[str, ...]
    shape: tuple[int, ...]
    scalars: tuple[str, ...]
    actions: int
    jumps: bool
    turn_limit: int
    max_jumps: int = 0
    degree: int = 0
    neighbours: tuple[tuple[int, ...], ...] = ()
    score_scale: int = 1
    turbo_duration: int = 0
    ghost_duration: int = 0

    def neighbour_table(self) -> np.ndarray:
        """The neighbours of a graph board as an int32 ``(V, D)`` array, ``-1`` padded."""
        table = np.full((len(self.neighbours), self.degree), -1, dtype=np.int32)
        for v, ns in enumerate(self.neighbours):
            table[v, : len(ns)] = ns
        return table


def has_jumps(ruleset: Ruleset) -> bool:
    """Whether cycles may jump (the test `legal_moves` makes)."""
    return "movement.jump" in ruleset.stages


def layout_for(config: GameConfig) -> Layout:
    """The `Layout` of every agent of games played under ``config``."""
    return layout_of(config.ruleset, config.board, config.turn_limit)


def layout_of(rs: Ruleset, board: Board, turn_limit: int) -> Layout:
    """The `Layout` of games of ``rs`` on ``board`` observed with ``T = turn_limit``."""
    topo = board.topology
    settings = rs.settings
    if not isinstance(topo, GridTopology):
        degree = max(len(ns) for ns in topo.neighbours)
        per_team = settings.cycles_per_team
        moves = getattr(settings, "move_points", 0) * turn_limit * per_team
        bonus = getattr(settings, "score_bonus", 0) * len(board.bonus)
        return Layout(
            graph=True,
            channels=GRAPH_CHANNELS,
            shape=(len(GRAPH_CHANNELS), topo.size),
            scalars=GRAPH_SCALARS,
            actions=2 * degree,
            jumps=False,
            turn_limit=turn_limit,
            degree=degree,
            neighbours=topo.neighbours,
            score_scale=max(1, moves + bonus),
            turbo_duration=getattr(settings, "turbo_duration", 0),
            ghost_duration=getattr(settings, "ghost_duration", 0),
        )
    jumps = has_jumps(rs)
    channels = TEAM_CHANNELS if settings.cycles_per_team > 1 else GRID_DUEL_CHANNELS
    return Layout(
        graph=False,
        channels=channels,
        shape=(len(channels), topo.height, topo.width),
        scalars=("turn", "jumps_left") if jumps else ("turn",),
        actions=8 if jumps else 4,
        jumps=jumps,
        turn_limit=turn_limit,
        max_jumps=settings.jumps if jumps else 0,
    )


def bits(mask: int, size: int) -> np.ndarray:
    """The cells ``0..size-1`` of a bitmask as a uint8 0/1 vector (cell ``c`` is bit ``c``)."""
    raw = np.frombuffer(mask.to_bytes((size + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")[:size]


def many_bits(masks: list[int], size: int) -> np.ndarray:
    """`bits` of several masks as the rows of one ``(len(masks), size)`` array, unpacked
    in one call (a turn builds one per agent)."""
    width = (size + 7) // 8
    raw = b"".join(m.to_bytes(width, "little") for m in masks)
    rows = np.unpackbits(np.frombuffer(raw, dtype=np.uint8), bitorder="little")
    return rows.reshape(len(masks), width * 8)[:, :size]


def planes(state: GameState, cycle: int, layout: Layout) -> np.ndarray:
    """The ``observation`` planes of ``cycle`` (see the module's contract)."""
    size = state.board.topology.size
    me = state.cycles[cycle]
    own = mates = opponents = 0
    own_head = mate_heads = opponent_heads = 0
    for c in state.cycles:
        head = (1 << c.head) if c.alive else 0
        if c.index == cycle:
            own, own_head = c.trail, head
        elif c.team == me.team:
            mates, mate_heads = mates | c.trail, mate_heads | head
        else:
            opponents, opponent_heads = opponents | c.trail, opponent_heads | head
    walls = state.board.walls
    if layout.channels == GRID_DUEL_CHANNELS:
        masks = [walls, own, mates | opponents, own_head, mate_heads | opponent_heads]
    else:
        masks = [walls, own, mates, opponents, own_head, mate_heads, opponent_heads]
    if layout.graph:
        items = dict.fromkeys(ITEM_KINDS, 0)
        for cell, kind in state.items:
            if kind in items:
                items[kind] |= 1 << cell
        bonus = 0
        for cell in state.board.bonus:
            bonus |= 1 << cell
        ghosts = turbos = 0
        for c in state.cycles:
            if c.alive and c.ghost > 0:
                ghosts |= 1 << c.head
            if c.alive and c.turbo > 0:
                turbos |= 1 << c.head
        masks += [*items.values(), bonus, ghosts, turbos]
    return many_bits(masks, size).reshape(layout.shape)


def scalars(state: GameState, cycle: int, layout: Layout) -> np.ndarray:
    """The ``scalars`` of ``cycle`` (see the module's contract)."""
    me = state.cycles[cycle]
    turn = state.turn / layout.turn_limit
    if not layout.graph:
        values = [turn, float(me.jumps_left)] if layout.jumps else [turn]
        return np.array(values, dtype=np.float32)
    own_score = state.scores[me.team] if state.scores else 0
    others = [s for t, s in enumerate(state.scores) if t != me.team]
    values = [
        turn,
        float(moves_this_turn(state, cycle)),
        *(float(me.item == kind) for kind in ITEM_KINDS),
        me.turbo / layout.turbo_duration if layout.turbo_duration else 0.0,
        me.ghost / layout.ghost_duration if layout.ghost_duration else 0.0,
        own_score / layout.score_scale,
        max(others, default=0) / layout.score_scale,
    ]
    return np.array(values, dtype=np.float32)


def action_mask(state: GameState, cycle: int, layout: Layout) -> np.ndarray:
    """The ``action_mask`` of ``cycle``: 1 at the action of each move `legal_moves` lists."""
    mask = [0] * layout.actions
    head = state.cycles[cycle].head
    topo = state.board.topology
    if layout.graph:
        at = {d: k for k, d in enumerate(layout.neighbours[head])}
        for m in legal_moves(state, cycle):
            mask[at[m.to] + (layout.degree if m.use_item else 0)] = 1
    else:
        assert isinstance(topo, GridTopology)
        steps: dict[int, int] = {}  # destination -> the first heading reaching it
        jumps: dict[int, int] = {}
        for h in range(4):
            steps.setdefault(topo.step_table[head * 4 + h], h)
            jumps.setdefault(topo.jump_table[head * 4 + h], 4 + h)
        for m in legal_moves(state, cycle):
            mask[jumps[m.to] if m.jump else steps[m.to]] = 1
    return np.array(mask, dtype=np.int8)


def observe(state: GameState, cycle: int, layout: Layout) -> dict[str, np.ndarray]:
    """The whole observation of ``cycle``: fresh arrays, the caller's to keep."""
    return {
        "observation": planes(state, cycle, layout),
        "scalars": scalars(state, cycle, layout),
        "action_mask": action_mask(state, cycle, layout),
    }
