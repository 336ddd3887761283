"""The upload form's suffixes: the 3D course's players are ``AIWhatever.cc`` files."""

from __future__ import annotations

from pathlib import Path

from lightcycle.judge.service import contests
from lightcycle.judge.service.contest_file import load_contest
from lightcycle.judge.web.accounts import contest_languages


def test_cpp_takes_the_courses_cc_files() -> None:
    tron3d = load_contest(Path(contests.__file__).parent / "tron3d.toml")
    offered = {choice.name: choice.suffixes for choice in contest_languages(tron3d)}
    assert offered["cpp"] == (".cpp", ".cc", ".cxx")
    assert offered["c"] == (".c",) and offered["python"] == (".py",)
