"""`MapSpec`: a board, its walls, its start cells and what people need to know about it."""

from __future__ import annotations

from dataclasses import dataclass, field

from lightcycle.core.bitset import count
from lightcycle.core.state import Board
from lightcycle.core.topology import GridTopology, Topology


class MapError(ValueError):
    """A map that cannot be played, with a message that says what to fix."""


@dataclass(frozen=True)
class MapSpec:
    """A playable map.

    Attributes:
        name: the registry name, e.g. ``ring``.
        board: topology and walls.
        starts: per player, the start cells of that player's cycles (one for the duel
            variants). Empty when the map leaves placement to `lightcycle.maps.starts`.
        version: bumps whenever the layout changes, so replays name the exact map.
        players: the player counts the map is made for.
        tags: free words for finding maps (``open``, ``chambers``, ``torus`` ...).
        description: one line for ``lightcycle maps list``.
        bonus: the cells where items appear (rulesets with items).
        start_sets: start cells for other player counts than ``starts`` has, one
            ``starts``-shaped tuple each (a 3D board ships fair starts for 2 and for 4).
    """

    name: str
    board: Board
    starts: tuple[tuple[int, ...], ...] = ()
    version: int = 1
    players: tuple[int, ...] = (2,)
    tags: tuple[str, ...] = ()
    description: str = ""
    bonus: tuple[int, ...] = field(default=())
    start_sets: tuple[tuple[tuple[int, ...], ...], ...] = ()

    def __post_init__(self) -> None:
        counts = set(self.players)
        for starts in (self.starts, *self.start_sets):
            self._check_starts(starts)
            if starts:
                counts.add(len(starts))
        sizes = [len(s) for s in self.start_sets]
        if len(set(sizes)) != len(sizes) or len(self.starts) in sizes:
            raise MapError(f"map {self.name!r}: two start sets for the same player count")
        topo = self.board.topology
        for c in self.bonus:
            if not 0 <= c < topo.size or self.board.is_wall(c):
                raise MapError(f"map {self.name!r}: bonus cell {c} is off the board or a wall")
        if counts != set(self.players):
            object.__setattr__(self, "players", tuple(sorted(counts)))

    def _check_starts(self, starts: tuple[tuple[int, ...], ...]) -> None:
        topo = self.board.topology
        seen: set[int] = set()
        for p, cells in enumerate(starts):
            for c in cells:
                if not 0 <= c < topo.size:
                    raise MapError(f"map {self.name!r}: start of player {p + 1} is off the board")
                if self.board.is_wall(c):
                    raise MapError(f"map {self.name!r}: start of player {p + 1} is on a wall")
                if c in seen:
                    raise MapError(f"map {self.name!r}: two starts share cell {self._where(c)}")
                seen.add(c)

    def starts_of(self, players: int) -> tuple[tuple[int, ...], ...] | None:
        """The map's own starts for ``players`` players, or ``None`` if it has none."""
        for starts in (self.starts, *self.start_sets):
            if len(starts) == players:
                return starts
        return None

    def _where(self, cell: int) -> str:
        topo = self.board.topology
        if isinstance(topo, GridTopology):
            x, y = topo.xy(cell)
            return f"({x}, {y})"
        return f"node {cell}"

    @property
    def id(self) -> str:
        """``name@version``."""
        return f"{self.name}@{self.version}"

    @property
    def topology(self) -> Topology:
        """The board's topology."""
        return self.board.topology

    @property
    def walls(self) -> int:
        """The wall bitmask."""
        return self.board.walls

    @property
    def free_cells(self) -> int:
        """How many cells are not walls."""
        return self.board.topology.size - count(self.board.walls)

    def size_text(self) -> str:
        """``WxH`` for grids, ``N nodes`` for graphs."""
        topo = self.board.topology
        if isinstance(topo, GridTopology):
            return f"{topo.width}x{topo.height}"
        return f"{topo.size} nodes"
