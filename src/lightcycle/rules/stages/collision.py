"""Collision stages: who dies from where the moving cycles land."""

from __future__ import annotations

from lightcycle.core.moves import DeathCause
from lightcycle.core.topology import OFF
from lightcycle.rules.stages.registry import stage
from lightcycle.rules.turn import NO_MOVE, Turn


@stage("collision.simultaneous", quiet=True)
def simultaneous(turn: Turn) -> None:
    """All cycles move at once; every collision is decided on the positions before the turn.

    A cycle dies, with the first cause that applies:

    - ``wall``: it enters a wall or leaves a walled board;
    - ``head_on``: it swaps cells with another cycle's head;
    - ``trail``: it enters any trail, including a cell a head occupied at the start of the
      turn (heads are part of their trails);
    - ``same_cell``: it enters the same free cell as another cycle; all of them die.
    """
    dest = turn.dest
    heads = turn.heads
    alive = turn.alive
    occ = turn.occupied
    walls = turn.before.board.walls
    movers = [i for i, d in enumerate(dest) if d != NO_MOVE and alive[i]]
    landing: dict[int, int] = {}
    crowded: list[int] = []
    for i in movers:
        d = dest[i]
        if d == OFF or (walls >> d) & 1:
            turn.kill(i, DeathCause.WALL)
        elif (occ >> d) & 1:
            swap = next((j for j in movers if heads[j] == d and dest[j] == heads[i]), None)
            if swap is not None and swap != i:
                turn.kill(i, DeathCause.HEAD_ON, f"with cycle {swap}")
            else:
                turn.kill(i, DeathCause.TRAIL)
        elif d in landing:
            crowded.append(d)
        else:
            landing[d] = i
    if crowded:
        for d in set(crowded):
            group = [i for i in movers if dest[i] == d]
            for i in group:
                others = ", ".join(str(j) for j in group if j != i)
                turn.kill(i, DeathCause.SAME_CELL, f"with cycle {others}")


def _run_in_order(turn: Turn, order: list[int], priority: bool) -> None:
    """Move the cycles one by one in ``order``; an exploding cycle loses its trail at once.

    A cycle explodes entering a wall, the edge of a walled grid or a trail. A ghost
    (``turn.ghost``) passes through all of these, and its trail takes only the free
    cells it enters. With ``priority``, a cycle entering a cell that holds another live
    cycle's head is a contest instead: the team with more CPU time (``turn.cpu``) loses
    its cycle there, a coin toss from the seed decides between equal times, and the
    winner takes the cell.
    """
    dest, heads, alive, trails, ghost = turn.dest, turn.heads, turn.alive, turn.trails, turn.ghost
    walls = turn.before.board.walls
    cycles = turn.before.cycles
    cpu = turn.cpu
    coin = turn.rng("priority") if priority else None
    # cycles that exploded before moving (no move, illegal move) vanish first
    for i, c in enumerate(cycles):
        if c.alive and not alive[i]:
            turn.remove_trail(i)
    for i in order:
        d = dest[i]
        if d == NO_MOVE or not alive[i]:
            continue
        if ghost[i] > 0 and d != OFF:
            free = not (turn.occupied >> d) & 1
            heads[i] = d
            if free:
                trails[i] |= 1 << d
                turn.occupied |= 1 << d
            continue
        if d == OFF or (walls >> d) & 1:
            turn.kill(i, DeathCause.WALL)
            turn.remove_trail(i)
            continue
        if (turn.occupied >> d) & 1:
            holder = next((j for j, h in enumerate(heads) if h == d and alive[j] and j != i), None)
            if priority and holder is not None and coin is not None:
                mine, theirs = cpu[cycles[i].team], cpu[cycles[holder].team]
                if mine == theirs:
                    lose_mine = coin.below(2) == 0
                    why = "equal CPU time, lost the coin toss"
                else:
                    lose_mine = mine > theirs
                    why = "more CPU time"
                loser, winner = (i, holder) if lose_mine else (holder, i)
                turn.kill(loser, DeathCause.SAME_CELL, f"with cycle {winner}: {why}")
                turn.remove_trail(loser)
                if lose_mine:
                    continue
                if (turn.occupied >> d) & 1:  # the cell is still another trail's
                    turn.kill(i, DeathCause.TRAIL)
                    turn.remove_trail(i)
                    continue
            else:
                cause = DeathCause.SAME_CELL if _entered_this_turn(turn, d) else DeathCause.TRAIL
                turn.kill(i, cause)
                turn.remove_trail(i)
                continue
        heads[i] = d
        trails[i] |= 1 << d
        turn.occupied |= 1 << d
    turn.advanced = True


def _entered_this_turn(turn: Turn, cell: int) -> bool:
    before = turn.before.cycles
    return any(
        h == cell and turn.alive[j] and before[j].head != cell for j, h in enumerate(turn.heads)
    )


def _listed_order(turn: Turn, teams: list[int]) -> list[int]:
    """The cycles of ``teams`` in turn, each team's in the order its moves were listed."""
    by_team: dict[int, list[int]] = {t: [] for t in teams}
    cycles = turn.before.cycles
    seen: set[int] = set()
    for i in turn.moves:
        if 0 <= i < len(cycles) and i not in seen:
            seen.add(i)
            by_team[cycles[i].team].append(i)
    for c in cycles:  # cycles with no listed move come last, in index order
        if c.index not in seen:
            by_team[c.team].append(c.index)
    return [i for t in teams for i in by_team[t]]


@stage("collision.priority", quiet=True)
def priority(turn: Turn) -> None:
    """Moves are executed one by one, the team with less CPU time first (the team course).

    The team with the lowest total CPU time so far (``GameState.cpu``, this turn
    included) moves first; equal totals are ordered by a coin toss from the seed. Within
    a team, cycles move in the order the team listed its moves. A cycle explodes
    entering a wall, the perimeter or a trail, and its whole trail is removed at once,
    so a later cycle may pass where it was. A cycle entering a cell that holds another
    cycle's head is a contest that the team with more CPU time loses (``same_cell``);
    on equal times a coin toss from the seed decides.
    """
    teams = list(range(len(turn.before.teams)))
    toss = turn.rng("order")
    keys = {t: (turn.cpu[t] if turn.cpu else 0, toss.next_u64()) for t in teams}
    teams.sort(key=keys.__getitem__)
    _run_in_order(turn, _listed_order(turn, teams), priority=True)


@stage("collision.random_order")
def random_order(turn: Turn) -> None:
    """The players' moves are executed in a random order from the seed (the 3D course).

    Each turn the players are shuffled; each player's cycles move in the order it listed
    them. Only the first cycle into a vertex enters it: a later one crashes
    (``same_cell``), as does a cycle entering a wall or a trail (``trail``). A crashed
    cycle's trail disappears at once. A ghost passes through walls, trails and cycles.
    """
    teams = list(range(len(turn.before.teams)))
    turn.rng("order").shuffle(teams)
    _run_in_order(turn, _listed_order(turn, teams), priority=False)
