"""Every contest file of examples/judge/ loads, and the courses get what they asked for."""

from __future__ import annotations

from pathlib import Path

import pytest

from lightcycle.judge.service.contest import load_contest

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "judge"


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.name)
def test_example_contest_loads(path: Path) -> None:
    contest = load_contest(path)
    assert contest.languages and contest.limits.source_size > 0
    assert Path(contest.judge.secret_key_file).parent == EXAMPLES


def test_the_courses() -> None:
    files = {p.stem for p in EXAMPLES.glob("*.toml")}
    assert files == {"tron3d", "teams", "classic", "torus", "ffa"}
    tron3d = load_contest(EXAMPLES / "tron3d.toml")
    assert (tron3d.ruleset, tron3d.limits.cpu_time, tron3d.validation.reference) == (
        "tron3d@1",
        2.0,
        "builtin:dummy",
    )
    teams = load_contest(EXAMPLES / "teams.toml")
    assert (teams.limits.first_move_time, teams.limits.average_time) == (5.0, 0.1)
    assert "c" in teams.languages
    assert load_contest(EXAMPLES / "torus.toml").languages["scheme"].suffix == ".scm"
    assert load_contest(EXAMPLES / "ffa.toml").players == 4
    assert load_contest(EXAMPLES / "classic.toml").validation.protocol == "tron2010"
