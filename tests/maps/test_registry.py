"""The built-in maps: every one loads, is consistent and fair; lookups by name and path."""

from __future__ import annotations

from pathlib import Path

import pytest

from lightcycle.core.topology import GridTopology
from lightcycle.maps.fairness import fair_game
from lightcycle.maps.random_maps import symmetric_map
from lightcycle.maps.registry import get_map, list_maps
from lightcycle.maps.spec import MapError, MapSpec
from lightcycle.maps.starts import starts_for

REQUIRED = {
    "arena-10",
    "arena-15",
    "arena-30",
    "arena-50",
    "ring",
    "chambers",
    "keyhole",
    "corridors",
    "ffa3",
    "ffa4",
    "ffa6",
    "ffa8",
    "torus-20",
    "open-random",
}
SIZE_TAGS = {"small", "medium", "large"}

MAPS = list_maps()


def test_at_least_the_required_maps_sorted_by_name() -> None:
    names = [m.name for m in MAPS]
    assert names == sorted(names)
    assert set(names) >= REQUIRED
    assert len(MAPS) >= 14


@pytest.mark.parametrize("spec", MAPS, ids=lambda m: m.id)
def test_builtin_map_is_consistent(spec: MapSpec) -> None:
    assert spec.description
    if isinstance(spec.topology, GridTopology):
        assert len(SIZE_TAGS & set(spec.tags)) == 1
    assert spec.players == tuple(sorted(set(spec.players)))
    if spec.starts:
        assert len(spec.starts) in spec.players
        # every player starts with as many cycles as every other
        assert len({len(cells) for cells in spec.starts}) == 1
    for players in spec.players:
        starts = starts_for(spec, players, seed=1)
        assert len(starts) == players
        cells = [c for group in starts for c in group]
        assert len(set(cells)) == len(cells) >= players
        assert not any(spec.board.is_wall(c) for c in cells)


@pytest.mark.parametrize("spec", MAPS, ids=lambda m: m.id)
def test_builtin_map_with_its_starts_is_fair(spec: MapSpec) -> None:
    starts = spec.starts or starts_for(spec, spec.players[0], seed=0)
    report = fair_game(spec.board, starts)
    assert report.is_fair, report
    if not isinstance(spec.topology, GridTopology):
        # grid symmetries do not apply to meshes; tests/maps/test_meshes.py checks their
        # symmetry; here every start set must split the territory exactly
        for start_set in (spec.starts, *spec.start_sets):
            assert fair_game(spec.board, start_set).balance == 1.0
    elif len(starts) == 2:
        assert report.symmetric, report
        assert report.balance == 1.0


def test_four_player_square_map_is_rotation_symmetric() -> None:
    report = fair_game(get_map("ffa4"))
    assert report.symmetric
    assert {"rotate-90", "rotate-270"} <= set(report.symmetries)


def test_eight_player_map_has_room_and_full_symmetry() -> None:
    spec = get_map("ffa8")
    assert spec.size_text() == "40x40"
    assert len(spec.starts) == 8
    assert fair_game(spec).symmetric


def test_sizes_and_special_maps() -> None:
    assert get_map("ring").size_text() == "15x15"
    torus = get_map("torus-20").topology
    assert isinstance(torus, GridTopology) and torus.wrap
    assert not all(get_map("torus-20").board.is_wall(c) for c in range(20))  # no border row
    assert get_map("open-random").starts == ()
    assert 2 in get_map("open-random").players
    for side in (10, 15, 30, 50):
        spec = get_map(f"arena-{side}")
        assert spec.size_text() == f"{side}x{side}"
        assert "open" in spec.tags


def test_lookup_by_version() -> None:
    assert get_map("ring@1") is get_map("ring")
    with pytest.raises(MapError, match=r"no version 9; available: ring@1"):
        get_map("ring@9")
    with pytest.raises(MapError, match="expected name@number"):
        get_map("ring@latest")


def test_unknown_name_suggests_close_matches() -> None:
    with pytest.raises(MapError) as info:
        get_map("rign")
    message = str(info.value)
    assert "Did you mean ring" in message
    assert "lightcycle maps list" in message
    with pytest.raises(MapError, match="lightcycle maps list"):
        get_map("zzzzzz")
    with pytest.raises(MapError, match="random-SEED"):  # the whole map syntax is listed
        get_map("zzzzzz")


def test_random_seed_names_the_map_a_duel_draws() -> None:
    # duel and tournament pools name random maps random-SEED: every command takes them
    spec = get_map("random-42")
    assert spec.id == "random-42@1"
    assert spec.board == symmetric_map(42).board and spec.starts == symmetric_map(42).starts
    assert get_map("random-42@1") is spec
    assert get_map("random-43").board != spec.board
    with pytest.raises(MapError, match=r"no version 2; available: random-42@1"):
        get_map("random-42@2")


def test_lookup_by_path(tmp_path: Path) -> None:
    path = tmp_path / "duel.txt"
    path.write_text("5 4\n#####\n#1 2#\n#   #\n#####\n")
    spec = get_map(str(path))
    assert spec.name == "duel"
    assert get_map(str(path)) is spec  # cached while the file is unchanged
    path.write_text("5 3\n#####\n#1 2#\n#####\n")
    assert get_map(str(path)).size_text() == "5x3"


def test_missing_file() -> None:
    with pytest.raises(MapError, match="no map file"):
        get_map("no/such/file.map")
