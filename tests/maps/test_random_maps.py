"""Random symmetric maps: fair, connected, deterministic, and playable."""

from __future__ import annotations

import ast
from collections import deque
from pathlib import Path

import pytest

from lightcycle.core.bitset import count
from lightcycle.core.topology import GridTopology
from lightcycle.maps import random_maps
from lightcycle.maps.fairness import fair_game
from lightcycle.maps.io import map_from_text, map_to_text
from lightcycle.maps.random_maps import symmetric_map
from lightcycle.maps.spec import MapError, MapSpec
from lightcycle.referee.local import play

SEEDS = range(40)


def _free_region(spec: MapSpec, start: int) -> set[int]:
    topo = spec.topology
    seen = {start}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        for n in topo.neighbours[cell]:
            if n not in seen and not spec.board.is_wall(n):
                seen.add(n)
                queue.append(n)
    return seen


@pytest.mark.parametrize("symmetry", ["rot180", "mirror"])
def test_every_map_is_symmetric_fair_and_one_connected_floor(symmetry: str) -> None:
    for seed in SEEDS:
        spec = symmetric_map(seed, symmetry=symmetry)
        report = fair_game(spec)
        assert report.symmetric and report.is_fair, (seed, str(report))
        want = "point-reflection" if symmetry == "rot180" else "mirror-vertical"
        assert want in report.symmetries and report.territory[0] == report.territory[1]
        (a,), (b,) = spec.starts
        region = _free_region(spec, a)
        assert b in region, seed
        assert len(region) == spec.free_cells, seed  # no pockets anywhere
        for start in (a, b):  # room to move on turn one
            assert all(not spec.board.is_wall(n) for n in spec.topology.neighbours[start])


def test_walled_border() -> None:
    spec = symmetric_map(11)
    topo = spec.topology
    assert isinstance(topo, GridTopology) and not topo.wrap
    assert all(spec.board.is_wall(c) for c in topo.edge_cells())


def test_same_seed_same_map_other_seed_other_map() -> None:
    first = symmetric_map(1234)
    again = symmetric_map(1234)
    assert first == again and map_to_text(first) == map_to_text(again)
    others = {map_to_text(symmetric_map(s)) for s in range(1, 9)}
    assert len(others) == 8


def test_pinned_map_does_not_drift() -> None:
    # A change of algorithm changes every random-<seed> map: it must bump the version.
    spec = symmetric_map(3)
    assert spec.size_text() == "20x16"
    assert spec.starts == ((8 * 20 + 2,), (7 * 20 + 17,))
    assert count(spec.walls) - 2 * (20 + 16) + 4 == 18


def test_sizes_vary_with_the_seed_within_the_default_range() -> None:
    sizes = set()
    for seed in SEEDS:
        topo = symmetric_map(seed).topology
        assert isinstance(topo, GridTopology)
        assert 15 <= topo.width <= 25 and 15 <= topo.height <= 25
        sizes.add((topo.width, topo.height))
    assert len(sizes) > 10


def test_name_and_metadata() -> None:
    spec = symmetric_map(42, width=19, height=17, density=0.1, symmetry="mirror")
    assert spec.id == "random-42@1" and spec.players == (2,)
    assert spec.size_text() == "19x17"
    assert "19x17" in spec.description and "seed 42" in spec.description
    assert spec.tags[:2] == ("random", "mirror")


def test_density_is_what_was_asked_or_a_little_less() -> None:
    empty = symmetric_map(5, width=20, height=20, density=0.0)
    assert count(empty.walls) == 4 * 20 - 4
    dense = symmetric_map(5, width=20, height=20, density=0.25)
    inner = count(dense.walls) - (4 * 20 - 4)
    assert 0.15 * 18 * 18 <= inner <= 0.25 * 18 * 18 + 4


def test_round_trips_through_the_map_format() -> None:
    for seed in range(5):
        spec = symmetric_map(seed)
        assert map_from_text(map_to_text(spec)) == spec


def test_a_game_plays_on_it() -> None:
    result = play(symmetric_map(9), ["wallhugger", "chaser"], seed=9)
    assert result.outcome is not None and result.final.turn > 3


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"width": 5}, "width must be 8 to 64"),
        ({"height": 65}, "height must be 8 to 64"),
        ({"density": 0.5}, "density must be 0 to 0.35"),
        ({"density": -0.1}, "density must be 0 to 0.35"),
        ({"symmetry": "rot90"}, "unknown symmetry 'rot90': use rot180 or mirror"),
    ],
)
def test_bad_parameters_say_what_is_allowed(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(MapError, match=message):
        symmetric_map(1, **kwargs)  # type: ignore[arg-type]


def test_the_module_stays_pure() -> None:
    """The maps layer draws its randomness from core.rng, never from random or the clock."""
    tree = ast.parse(Path(random_maps.__file__).read_text(encoding="utf-8"))
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        (node.module or "").split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
    }
    assert not imported & {"random", "time", "os", "secrets", "threading", "subprocess"}
