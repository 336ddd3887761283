"""The built-in maps, drawn by code so that their symmetry is exact by construction.

Each map is a few walls plus their images under the symmetry it should have (a point
reflection for duels, 90-degree turns for four players, ...), which is much harder to get
wrong than drawing a 50x50 room by hand. `main` rewrites ``lightcycle/maps/data/*.map``;
the data files are what ships and what the registry reads, and a test checks that they
match this script, so a change here must be followed by ``python -m
lightcycle.maps.generate``. Change a layout only together with its ``version``.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from lightcycle.core.bitset import from_cells
from lightcycle.core.state import Board
from lightcycle.core.topology import GridTopology
from lightcycle.maps.fairness import fair_game
from lightcycle.maps.io import map_to_mpmap
from lightcycle.maps.spec import MapError, MapSpec
from lightcycle.maps.starts import pin_formation, starts_for

DATA_DIR = Path(__file__).with_name("data")

_XY = tuple[int, int]


class _Canvas:
    """A grid being drawn: walls as ``(x, y)`` pairs."""

    def __init__(self, width: int, height: int) -> None:
        self.w = width
        self.h = height
        self.walls: set[_XY] = set()

    def border(self) -> _Canvas:
        self.walls.update((x, y) for x in range(self.w) for y in (0, self.h - 1))
        self.walls.update((x, y) for y in range(self.h) for x in (0, self.w - 1))
        return self

    def rect(self, x0: int, y0: int, x1: int, y1: int) -> _Canvas:
        """Fill the rectangle with corners ``(x0, y0)`` and ``(x1, y1)``, inclusive."""
        self.walls.update(
            (x, y)
            for x in range(min(x0, x1), max(x0, x1) + 1)
            for y in range(min(y0, y1), max(y0, y1) + 1)
        )
        return self

    def add(self, cells: Iterable[_XY]) -> _Canvas:
        self.walls.update(cells)
        return self

    def clear(self, cells: Iterable[_XY]) -> _Canvas:
        self.walls.difference_update(cells)
        return self

    def close(self, *maps: Callable[[int, int, int, int], _XY]) -> _Canvas:
        """Add the images of every wall under ``maps`` (repeated until nothing changes)."""
        while True:
            images = {m(x, y, self.w, self.h) for m in maps for x, y in self.walls}
            if images <= self.walls:
                return self
            self.walls |= images


def _point(x: int, y: int, w: int, h: int) -> _XY:
    return w - 1 - x, h - 1 - y


def _mirror_x(x: int, y: int, w: int, h: int) -> _XY:
    return w - 1 - x, y


def _mirror_y(x: int, y: int, w: int, h: int) -> _XY:
    return x, h - 1 - y


def _rot90(x: int, y: int, w: int, h: int) -> _XY:
    return w - 1 - y, x


def _transpose(x: int, y: int, w: int, h: int) -> _XY:
    return y, x


def _size_tag(c: _Canvas) -> str:
    side = max(c.w, c.h)
    return "small" if side <= 16 else "medium" if side <= 32 else "large"


def _spec(
    name: str,
    c: _Canvas,
    starts: Sequence[_XY],
    tags: Sequence[str],
    description: str,
    players: Sequence[int] | None = None,
    wrap: bool = False,
) -> MapSpec:
    topo = GridTopology(c.w, c.h, wrap=wrap)
    return MapSpec(
        name=name,
        board=Board(topo, from_cells(y * c.w + x for x, y in c.walls)),
        starts=tuple((y * c.w + x,) for x, y in starts),
        version=1,
        players=tuple(players) if players else (len(starts),),
        tags=(*tags, _size_tag(c)),
        description=description,
    )


def _arena(side: int, start: _XY, players: Sequence[int]) -> MapSpec:
    c = _Canvas(side, side).border()
    x, y = start
    return _spec(
        f"arena-{side}",
        c,
        [start, (side - 1 - x, side - 1 - y)],
        ["open"],
        f"An empty {side}x{side} room with walls all round.",
        players,
    )


def _ring() -> MapSpec:
    c = _Canvas(15, 15).border()
    for y in range(15):
        for x in range(15):
            if round(math.hypot(x - 7, y - 7)) == 4 and abs(y - 7) > 1:
                c.walls.add((x, y))
    return _spec(
        "ring",
        c,
        [(3, 12), (11, 2)],
        ["ring"],
        "A round wall in a small room, open at both sides.",
    )


def _chambers() -> MapSpec:
    c = _Canvas(31, 21).border()
    c.rect(15, 1, 15, 19).rect(1, 10, 29, 10)
    c.clear((15, y) for y in (3, 4, 5, 15, 16, 17))  # doors through the middle wall
    c.clear((x, 10) for x in (6, 7, 8, 22, 23, 24))  # doors through the cross wall
    c.rect(5, 5, 9, 5).rect(11, 3, 11, 6)  # furniture in one chamber ...
    c.close(_mirror_x, _mirror_y)  # ... copied to the other three
    return _spec(
        "chambers",
        c,
        [(3, 17), (27, 3)],
        ["chambers"],
        "Four rooms joined by wide doors; each player starts in a corner room.",
    )


def _keyhole() -> MapSpec:
    c = _Canvas(25, 25).border()
    for y in range(25):
        for x in range(25):
            if round(math.hypot(x - 12, y - 12)) == 5 and x != 12:
                c.walls.add((x, y))
    c.rect(11, 2, 11, 7).rect(13, 2, 13, 7)  # the slot above the round room
    c.rect(4, 4, 6, 4).rect(4, 4, 4, 6)  # corner braces
    c.close(_point, _mirror_x)
    return _spec(
        "keyhole",
        c,
        [(3, 12), (21, 12)],
        ["chambers"],
        "A round room reached only through two narrow slots.",
    )


def _corridors() -> MapSpec:
    c = _Canvas(31, 21).border()
    c.rect(1, 4, 29, 4).rect(1, 8, 29, 8)
    c.clear((x, 4) for x in (27, 28, 10))
    c.clear((x, 8) for x in (2, 3, 20))
    c.close(_point)
    return _spec(
        "corridors",
        c,
        [(15, 18), (15, 2)],
        ["corridors"],
        "Long corridors with few ways between them; the middle one is wide open.",
    )


def _ffa3() -> MapSpec:
    c = _Canvas(31, 31).border()
    c.rect(14, 14, 16, 16)
    return _spec(
        "ffa3",
        c,
        [(7, 13), (23, 13), (15, 23)],
        ["ffa", "open"],
        "Three players round a central block.",
    )


def _ffa4() -> MapSpec:
    c = _Canvas(30, 30).border()
    c.rect(8, 11, 13, 11).rect(13, 6, 13, 11)  # one arm of a pinwheel ...
    c.close(_rot90)  # ... turned three times
    return _spec(
        "ffa4",
        c,
        [(5, 5), (24, 5), (24, 24), (5, 24)],
        ["ffa"],
        "Four players, a pinwheel of walls; the same from every corner.",
    )


def _ffa6() -> MapSpec:
    c = _Canvas(41, 31).border()
    c.rect(19, 14, 21, 16)
    c.rect(10, 15, 13, 15).close(_mirror_x)
    return _spec(
        "ffa6",
        c,
        [(20, 4), (34, 7), (34, 23), (20, 26), (6, 23), (6, 7)],
        ["ffa", "open"],
        "Six players in a wide room.",
    )


def _ffa8() -> MapSpec:
    c = _Canvas(40, 40).border()
    c.rect(18, 18, 21, 21)  # the centre block
    c.rect(9, 9, 11, 9).rect(9, 9, 9, 11)  # corner braces ...
    c.rect(19, 6, 20, 10)  # ... and spokes
    c.close(_rot90, _transpose)
    starts = [(12, 4)]
    for m in (_rot90, _rot90, _rot90):
        starts.append(m(*starts[-1], 40, 40))
    starts += [_transpose(x, y, 40, 40) for x, y in starts]
    cx = cy = 19.5
    starts.sort(key=lambda p: math.atan2(p[1] - cy, p[0] - cx))
    return _spec(
        "ffa8",
        c,
        starts,
        ["ffa"],
        "Eight players in a large room with the same view from every start.",
    )


def _torus() -> MapSpec:
    c = _Canvas(20, 20)
    c.rect(4, 4, 5, 5).rect(9, 0, 10, 2)
    c.close(_point, _transpose)
    return _spec(
        "torus-20",
        c,
        [(3, 12), (16, 7)],
        ["torus"],
        "No edges: leave one side and come back on the other.",
        [2, 4],
        wrap=True,
    )


def _open_random() -> MapSpec:
    c = _Canvas(20, 20).border()
    return _spec(
        "open-random",
        c,
        [],
        ["open", "random-starts"],
        "An empty room; the starts are placed at random (symmetrically) for each seed.",
        [2, 4],
    )


def _pillars() -> MapSpec:
    c = _Canvas(21, 21).border()
    c.add((x, y) for x in (4, 8, 12, 16) for y in (4, 8, 12, 16) if (x, y) != (8, 8))
    c.close(_point, _mirror_x, _transpose)
    return _spec(
        "pillars",
        c,
        [(2, 10), (18, 10)],
        ["open", "pillars"],
        "A hall of single-cell pillars to squeeze between.",
    )


def _split() -> MapSpec:
    c = _Canvas(31, 15).border()
    c.rect(15, 1, 15, 13).clear([(15, 3), (15, 7), (15, 11)])
    c.rect(7, 3, 7, 5).close(_mirror_x, _mirror_y)
    return _spec(
        "split",
        c,
        [(4, 7), (26, 7)],
        ["chambers"],
        "Two halves joined by three one-cell gaps.",
    )


def _court(name: str, w: int, h: int, centre_walls: bool, description: str) -> MapSpec:
    """A team-course court: a deadly perimeter and two bowling-pin formations of ten."""
    c = _Canvas(w, h).border()
    tags = ["teams", "open"]
    if centre_walls:
        cx, cy = w // 2, h // 2
        c.rect(cx - w // 6, cy - 1, cx + w // 6 - 1 + w % 2, cy)
        for x in (w // 4, w - 1 - w // 4):
            c.rect(x, cy - h // 8, x, cy + h // 8 - 1 + h % 2)
        c.close(_mirror_x, _mirror_y)
        tags = ["teams", "walls"]
    topo = GridTopology(w, h)
    return MapSpec(
        name=name,
        board=Board(topo, from_cells(y * w + x for x, y in c.walls)),
        starts=pin_formation(w, h),
        version=1,
        players=(2,),
        tags=(*tags, _size_tag(c)),
        description=description,
    )


def build_maps() -> list[MapSpec]:
    """Every built-in map, checked: 2-player maps must be symmetric, all must be fair.

    Raises:
        MapError: when a design breaks those rules (so a bad edit never reaches the data).
    """
    specs = [
        _arena(10, (2, 7), [2]),
        _arena(15, (3, 11), [2, 4]),
        _arena(30, (6, 23), [2, 4, 8]),
        _arena(50, (9, 40), [2, 3, 4, 6, 8]),
        _ring(),
        _chambers(),
        _keyhole(),
        _corridors(),
        _pillars(),
        _split(),
        _ffa3(),
        _ffa4(),
        _ffa6(),
        _ffa8(),
        _torus(),
        _open_random(),
        _court("court", 64, 48, False, "The team course's court at its largest: 64x48, open."),
        _court("court-walls", 64, 48, True, "The 64x48 team court with walls in the centre."),
        _court("court-small", 24, 20, False, "A small team court for quick games and tests."),
    ]
    for spec in specs:
        starts = spec.starts or starts_for(spec, spec.players[0], seed=0)
        report = fair_game(spec.board, starts)
        if len(starts) == 2 and not report.symmetric:
            raise MapError(f"built-in 2-player map {spec.id} is not symmetric: {report}")
        if not report.is_fair:
            raise MapError(f"built-in map {spec.id} is not fair: {report}")
    return sorted(specs, key=lambda s: s.name)


def render_all() -> dict[str, str]:
    """File name -> text of every built-in map file."""
    return {f"{spec.name}.map": map_to_mpmap(spec) for spec in build_maps()}


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite the built-in map files (or, with ``--check``, report stale ones).

    Returns:
        0 when the files are (now) up to date, 1 when ``--check`` found a difference.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="only compare, write nothing")
    parser.add_argument("--out", type=Path, default=DATA_DIR, help="the data directory")
    args = parser.parse_args(argv)
    out: Path = args.out
    stale = 0
    for filename, text in render_all().items():
        path = out / filename
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale += 1
        if args.check:
            print(f"{path} is out of date")
        else:
            out.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8", newline="\n")
            print(f"wrote {path}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
