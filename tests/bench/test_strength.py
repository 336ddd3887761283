"""The strength bench: counts are checked before any work starts, and the separated
bench's positions and figures hold what they claim."""

from __future__ import annotations

import pytest
from bench.strength import bench_separated, main, separated_positions

from lightcycle.bots.search.duel import separated


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["native", "--positions", "0"], "--positions"),
        (["depth", "--positions", "-3"], "--positions"),
        (["endgame", "--regions", "x"], "--regions"),
        (["ladder", "--games", "0"], "--games"),
    ],
)
def test_a_bad_count_is_refused_with_its_name(
    argv: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert named in err and "a whole number of at least 1" in err


def test_separated_positions_are_separated_and_the_chain_bound_never_undercounts() -> None:
    positions = separated_positions(2, 1, "arena-10,corridors")
    assert len(positions) > 2
    assert all(separated(k, a, b, occ) for k, a, b, occ in positions)
    figures = bench_separated(2, 1, "arena-10,corridors", 2.0)
    assert figures["positions_with_proven_optima"] > 2
    # The chain bound is an upper bound: never below a proven optimum.
    assert int(figures["chain_bound_minus_optimum_min"]) >= 0
    assert 0 <= float(figures["chain_bound_calls_right"]) <= 1


def test_separated_refuses_a_bad_game_count(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["separated", "--games", "0"])
    assert "--games" in capsys.readouterr().err


@pytest.mark.parametrize("what", ["separated", "ladder"])
def test_a_bad_map_pool_is_refused_before_any_game(
    what: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main([what, "--maps", "nosuchmap"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--maps" in err and "nosuchmap" in err and "lightcycle maps list" in err
