"""Reads the plain-text rules vectors in ``tests/rules/vectors``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tests.conftest import grid_map, team_map

VECTORS = Path(__file__).parent / "vectors"


@dataclass
class Vector:
    title: str
    source: str
    ruleset: str = "classic"
    settings: dict[str, object] = field(default_factory=dict)
    wrap: bool = False
    board: list[str] = field(default_factory=list)
    moves: list[list[str]] = field(default_factory=list)
    expect: list[str] = field(default_factory=list)
    turn: int | None = None
    deaths: list[tuple[int, str, int]] = field(default_factory=list)
    alive: list[int] = field(default_factory=list)
    graph: bool = False
    items: list[tuple[str, str]] = field(default_factory=list)
    cpu: dict[int, list[int]] = field(default_factory=dict)
    orders: dict[int, list[int]] = field(default_factory=dict)
    checks: list[tuple[str, list[str]]] = field(default_factory=list)

    def spec(self):
        if self.graph or any("a" <= ch <= "t" for row in self.board for ch in row):
            return team_map(self.board, graph=self.graph, name="vector")
        return grid_map(self.board, wrap=self.wrap, name="vector")


def _value(text: str) -> object:
    return int(text) if text.lstrip("-").isdigit() else text


def read_vectors(path: Path) -> list[Vector]:
    out: list[Vector] = []
    cur: Vector | None = None
    in_board = False
    for no, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.rstrip()
        if line.startswith("#") and not in_board:
            continue
        if line.startswith("== "):
            cur = Vector(title=line[3:], source=f"{path.name}:{no}")
            out.append(cur)
            in_board = False
            continue
        if cur is None or not line:
            in_board = False
            continue
        word, _, rest = line.partition(" ")
        if in_board and word not in ("moves", "cpu", "order"):
            cur.board.append(line)
            continue
        in_board = False
        parts = rest.split()
        if word == "ruleset":
            cur.ruleset = parts[0]
            for kv in parts[1:]:
                k, _, v = kv.partition("=")
                cur.settings[k] = _value(v)
        elif word == "wrap":
            cur.wrap = True
        elif word == "board":
            in_board = True
        elif word == "moves":
            cur.moves.append(parts)
        elif word == "expect":
            cur.expect = parts
        elif word == "turn":
            cur.turn = int(parts[0])
        elif word == "death":
            cur.deaths.append((int(parts[0]), parts[1], int(parts[2])))
        elif word == "alive":
            cur.alive.append(int(parts[0]))
        elif word == "graph":
            cur.graph = True
        elif word == "item":
            cur.items.append((parts[0], parts[1]))
        elif word == "cpu":
            cur.cpu[len(cur.moves)] = [int(p) for p in parts]
        elif word == "order":
            cur.orders[len(cur.moves)] = [int(p) for p in parts]
        elif word in ("head", "trail", "score", "held", "ghost", "turbo", "items", "jumps"):
            cur.checks.append((word, parts))
        else:
            raise ValueError(f"{path.name}:{no}: unknown vector line {line!r}")
    return out


def all_vectors() -> list[Vector]:
    return [v for p in sorted(VECTORS.glob("*.txt")) for v in read_vectors(p)]
