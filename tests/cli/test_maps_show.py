"""``lightcycle maps show``: a map drawn with its fairness report, and a graph board's
vertices listed for a person (``--vertices``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from lightcycle.cli.common import console
from lightcycle.cli.main import app

runner = CliRunner()
VECTORS = Path(__file__).with_name("vectors")


def _listing(output: str) -> str:
    """The vertex listing of ``maps show --vertices``: from its heading to the fairness
    line, without the blanks rich pads lines with."""
    lines = [line.rstrip() for line in output.splitlines()]
    start = next(n for n, line in enumerate(lines) if line.startswith("602 vertices, "))
    end = next(n for n, line in enumerate(lines) if line.startswith("fair:"))
    return "\n".join(lines[start:end]) + "\n"


def test_the_cube_s_vertices_are_a_table_a_person_can_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # issue 38: `maps show cube --vertices` was 602 unaligned lines such as
    # `0 (1.00, -1.00, -1.00): free; next 1 3 358`, in no order a reader could follow
    monkeypatch.setattr(console, "width", 80)
    r = runner.invoke(app, ["maps", "show", "cube", "--vertices"])
    assert r.exit_code == 0, r.output
    expected = (VECTORS / "maps_show_cube_vertices.txt").read_text(encoding="utf-8")
    assert _listing(r.output) == expected
    assert "free; next" not in r.output
    assert max(len(line) for line in r.output.splitlines()) <= 80


def test_the_listing_fits_a_narrow_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(console, "width", 50)
    r = runner.invoke(app, ["maps", "show", "cube", "--vertices", "--ascii"])
    assert r.exit_code == 0, r.output
    listing = _listing(r.output)
    assert max(len(line) for line in listing.splitlines()) <= 50
    assert "left out at this width" in listing  # no room for positions: said, not cut
    assert listing.isascii() and "----" in listing  # --ascii: the header rule too


def test_vertices_of_a_grid_are_its_drawing() -> None:
    r = runner.invoke(app, ["maps", "show", "ring", "--vertices"])
    assert r.exit_code == 0, r.output
    assert "--vertices lists graph boards" in r.output and "next" not in r.output


def test_the_help_has_an_example_of_the_listing() -> None:
    r = runner.invoke(app, ["maps", "show", "--help"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert "Example: lightcycle maps show ring; lightcycle maps show cube --players 4" in r.output
    assert "--vertices" in r.output and "face by face" in r.output
