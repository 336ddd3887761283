"""Reading the plain-text position files of the search tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lightcycle.maps.io import map_from_text
from lightcycle.rules.engine import new_game
from lightcycle.rules.observe import View

VECTORS = Path(__file__).parent / "vectors"


@dataclass
class Position:
    """One block of a vector file: its header fields and its board rows."""

    name: str
    fields: dict[str, str] = field(default_factory=dict)
    rows: list[str] = field(default_factory=list)

    def view(self) -> View:
        """The position as seat 0's view (A is seat 0, B seat 1), classic rules; a board
        without B gets one walled in below the last row."""
        rows = list(self.rows)
        if not any("B" in r for r in rows):  # fill positions: park B in a sealed corner
            rows.append("B" + "#" * (len(rows[0]) - 1))
        text = "\n".join(rows).replace("A", "1").replace("B", "2").replace(".", " ")
        w, h = len(rows[0]), len(rows)
        spec = map_from_text(f"{w} {h}\n{text}\n", source=self.name)
        return View(new_game("classic", spec), 0)


def read_positions(name: str) -> list[Position]:
    """Every position of ``vectors/NAME``."""
    out: list[Position] = []
    cur: Position | None = None
    for line in (VECTORS / name).read_text(encoding="utf-8").splitlines():
        if line.startswith("#") and (cur is None or not cur.rows) and not set(line) <= {"#"}:
            continue
        if not line.strip():
            cur = None
            continue
        key, sep, value = line.partition(": ")
        if sep and not set(line) <= set("#.AB") and (cur is None or not cur.rows):
            if key == "name":
                cur = Position(value)
                out.append(cur)
            else:
                assert cur is not None, f"{name}: {line!r} before a name"
                cur.fields[key] = value
            continue
        assert cur is not None, f"{name}: board row {line!r} before a name"
        cur.rows.append(line)
    return out
