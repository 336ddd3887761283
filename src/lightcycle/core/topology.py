"""Board shapes: which cell a move from a cell reaches.

Cells are the integers ``0..n-1``. Every topology precomputes its neighbour table once, so
the rules and bots never do coordinate arithmetic in their inner loops. A grid numbers its
cells row by row (``cell = y * width + x``, origin top-left, x the column, y the row, as in
the Scheme course API); a graph board numbers its nodes as given.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum

OFF = -1
"""The destination of a move that leaves a non-wrapping grid: deadly like a wall."""


class Heading(IntEnum):
    """A compass heading on a grid. ``N`` is towards row 0."""

    N = 0
    E = 1
    S = 2
    W = 3

    @property
    def letter(self) -> str:
        """The lower-case letter the wire protocols use (``n``, ``e``, ``s``, ``w``)."""
        return "nesw"[self.value]

    @property
    def number(self) -> int:
        """The 2010 AI-challenge number of this heading (1-4 = N, E, S, W)."""
        return self.value + 1

    @property
    def opposite(self) -> Heading:
        """The heading that points back."""
        return Heading((self.value + 2) % 4)

    @classmethod
    def parse(cls, token: object) -> Heading:
        """Read a heading from any of the forms the field uses.

        Accepts a ``Heading``, ``n/e/s/w`` in either case, ``north`` ... ``west``, and the
        2010 numbers ``1``-``4`` (as int or str).

        Raises:
            ValueError: naming the token and the accepted forms.
        """
        if isinstance(token, Heading):
            return token
        if isinstance(token, int) and not isinstance(token, bool) and 1 <= token <= 4:
            return cls(token - 1)
        if isinstance(token, str):
            found = _HEADING_WORDS.get(token.strip().lower())
            if found is not None:
                return found
        raise ValueError(
            f"not a heading: {token!r} (expected n/e/s/w, north/east/south/west or 1-4)"
        )


_HEADING_WORDS = {
    **{h.letter: h for h in Heading},
    **{str(h.number): h for h in Heading},
    "north": Heading.N,
    "east": Heading.E,
    "south": Heading.S,
    "west": Heading.W,
}

_DX = (0, 1, 0, -1)
_DY = (-1, 0, 1, 0)


class Topology:
    """A board shape: ``size`` cells and, for each, the cells one move away.

    Attributes:
        size: the number of cells.
        neighbours: for each cell, the distinct cells one move away (never ``OFF``).
    """

    size: int
    neighbours: tuple[tuple[int, ...], ...]

    def is_neighbour(self, a: int, b: int) -> bool:
        """Return whether a cycle on ``a`` may move to ``b`` in one step."""
        return b in self.neighbours[a]

    def describe(self) -> str:
        """A short human description, e.g. ``30x30 grid`` or ``graph of 42 nodes``."""
        raise NotImplementedError


class GridTopology(Topology):
    """A ``width`` x ``height`` grid; ``wrap=True`` makes it a torus.

    ``step_table[cell * 4 + heading]`` is the cell reached, or ``OFF`` when the move
    leaves a non-wrapping grid. ``jump_table`` is the same for a two-cell straight jump.
    """

    def __init__(self, width: int, height: int, wrap: bool = False) -> None:
        if not (isinstance(width, int) and isinstance(height, int)) or width < 1 or height < 1:
            raise ValueError(f"a grid needs a positive integer size, got {width!r}x{height!r}")
        self.width = width
        self.height = height
        self.wrap = wrap
        self.size = width * height
        table: list[int] = []
        jumps: list[int] = []
        for cell in range(self.size):
            x, y = cell % width, cell // width
            for h in range(4):
                table.append(self._offset(x, y, _DX[h], _DY[h]))
                jumps.append(self._offset(x, y, 2 * _DX[h], 2 * _DY[h]))
        self.step_table: tuple[int, ...] = tuple(table)
        self.jump_table: tuple[int, ...] = tuple(jumps)
        self.neighbours = tuple(
            tuple(dict.fromkeys(d for d in table[c * 4 : c * 4 + 4] if d != OFF))
            for c in range(self.size)
        )

    def _offset(self, x: int, y: int, dx: int, dy: int) -> int:
        nx, ny = x + dx, y + dy
        if self.wrap:
            return (ny % self.height) * self.width + (nx % self.width)
        if 0 <= nx < self.width and 0 <= ny < self.height:
            return ny * self.width + nx
        return OFF

    def cell(self, x: int, y: int) -> int:
        """Return the cell at column ``x``, row ``y``.

        Raises:
            ValueError: when the position is outside the grid.
        """
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise ValueError(f"position ({x}, {y}) is outside the {self.describe()}")
        return y * self.width + x

    def xy(self, cell: int) -> tuple[int, int]:
        """Return ``(x, y)`` of ``cell``."""
        return cell % self.width, cell // self.width

    def edge_cells(self) -> list[int]:
        """The cells of the outermost ring (first and last rows and columns)."""
        w, h = self.width, self.height
        return [c for c in range(self.size) if c % w in (0, w - 1) or c // w in (0, h - 1)]

    def move(self, cell: int, heading: Heading | int) -> int:
        """Return the cell one step from ``cell`` towards ``heading`` (``OFF`` if none)."""
        return self.step_table[cell * 4 + int(heading)]

    def jump(self, cell: int, heading: Heading | int) -> int:
        """Return the cell two steps straight from ``cell`` (``OFF`` if it leaves the grid)."""
        return self.jump_table[cell * 4 + int(heading)]

    def heading_to(self, a: int, b: int) -> Heading | None:
        """Return the heading that moves from ``a`` to ``b`` in one step, if any."""
        base = a * 4
        for h in range(4):
            if self.step_table[base + h] == b:
                return Heading(h)
        return None

    def describe(self) -> str:
        """See `Topology.describe`."""
        kind = "torus" if self.wrap else "grid"
        return f"{self.width}x{self.height} {kind}"

    def __repr__(self) -> str:
        return f"GridTopology({self.width}, {self.height}, wrap={self.wrap})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GridTopology) and (self.width, self.height, self.wrap) == (
            other.width,
            other.height,
            other.wrap,
        )

    def __hash__(self) -> int:
        return hash((self.width, self.height, self.wrap))


class GraphTopology(Topology):
    """An arbitrary undirected graph, e.g. the vertices and edges of a 3D mesh.

    Args:
        size: the number of nodes.
        edges: pairs of node indices; duplicates and both orientations are merged.
        positions: optional coordinates per node (for drawing only; the rules ignore them).
    """

    def __init__(
        self,
        size: int,
        edges: Iterable[tuple[int, int]],
        positions: Sequence[tuple[float, ...]] | None = None,
    ) -> None:
        if size < 1:
            raise ValueError(f"a graph needs at least one node, got {size}")
        adj: list[set[int]] = [set() for _ in range(size)]
        for a, b in edges:
            if not (0 <= a < size and 0 <= b < size):
                raise ValueError(f"edge ({a}, {b}) names a node outside 0..{size - 1}")
            if a == b:
                raise ValueError(f"edge ({a}, {b}) is a loop")
            adj[a].add(b)
            adj[b].add(a)
        self.size = size
        self.neighbours = tuple(tuple(sorted(s)) for s in adj)
        self.positions: tuple[tuple[float, ...], ...] | None = (
            tuple(tuple(p) for p in positions) if positions is not None else None
        )
        if self.positions is not None and len(self.positions) != size:
            raise ValueError(f"{len(self.positions)} positions given for {size} nodes")

    @property
    def edges(self) -> tuple[tuple[int, int], ...]:
        """Each edge once, as ``(a, b)`` with ``a < b``."""
        return tuple((a, b) for a, ns in enumerate(self.neighbours) for b in ns if a < b)

    def describe(self) -> str:
        """See `Topology.describe`."""
        return f"graph of {self.size} nodes and {len(self.edges)} edges"

    def __repr__(self) -> str:
        return f"GraphTopology({self.size}, <{len(self.edges)} edges>)"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, GraphTopology)
            and self.size == other.size
            and self.neighbours == other.neighbours
        )

    def __hash__(self) -> int:
        return hash((self.size, self.neighbours))
