"""The contest files shipped with the package (src/lightcycle/judge/service/contests/).

Each course's file is read as package data, written out as ``lightcycle judge init``
writes it, and loaded from where it was written: its relative paths (database, key file)
then point beside the written file, and the courses get what they asked for.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from lightcycle.judge.service.contest import Contest
from lightcycle.judge.service.contest_file import load_contest
from lightcycle.judge.service.contests import (
    COURSES,
    ContestTemplateError,
    contest_text,
    write_contest,
)


def _written(tmp_path: Path, course: str) -> Contest:
    path = tmp_path / f"{course}-course.toml"
    write_contest(course, path)
    return load_contest(path)


@pytest.mark.parametrize("course", list(COURSES))
def test_each_course_loads_from_where_it_was_written(tmp_path: Path, course: str) -> None:
    contest = _written(tmp_path, course)
    assert contest.languages and contest.limits.source_size > 0
    assert Path(contest.judge.secret_key_file).parent == tmp_path
    assert contest.judge.database.startswith(f"sqlite:///{tmp_path}/")
    assert f"lightcycle judge init {course} " in contest_text(course)  # its header says how


def test_the_courses(tmp_path: Path) -> None:
    shipped = resources.files("lightcycle.judge.service.contests").iterdir()
    assert {p.name for p in shipped if p.name.endswith(".toml")} == {f"{c}.toml" for c in COURSES}
    tron3d = _written(tmp_path, "tron3d")
    assert (tron3d.ruleset, tron3d.limits.cpu_time, tron3d.validation.reference) == (
        "tron3d@1",
        2.0,
        "builtin:dummy",
    )
    assert tron3d.maps == ("cube", "cylinder")  # where good bots win every qualifying game
    teams = _written(tmp_path, "teams")
    assert (teams.limits.first_move_time, teams.limits.average_time) == (5.0, 0.1)
    assert "c" in teams.languages
    assert _written(tmp_path, "torus").languages["scheme"].suffix == ".scm"
    assert _written(tmp_path, "ffa").players == 4
    assert _written(tmp_path, "classic").validation.protocol == "tron2010"


def test_writing_refuses_an_existing_file_and_an_unknown_course(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text("# my own edits\n")
    with pytest.raises(ContestTemplateError, match=r"mine\.toml exists"):
        write_contest("tron3d", path)
    assert path.read_text() == "# my own edits\n"
    with pytest.raises(ContestTemplateError, match="no course 'tron4d'; choose one of tron3d"):
        write_contest("tron4d", tmp_path / "other.toml")
    assert not (tmp_path / "other.toml").exists()
    with pytest.raises(ContestTemplateError, match="is a folder"):
        write_contest("ffa", tmp_path)
