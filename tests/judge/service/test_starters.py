"""Every course's starting points are accepted by the judge of that course, as they are.

Each starter (`lightcycle.judge.starters`) is submitted to its course's contest file as
``lightcycle judge init`` writes it (its maps, limits, protocol, reference bot and number
of qualifying games: nothing shortened), through the store and the worker's path (claim,
`run_step`, complete) with real builds and games in the sandbox, and must end
``accepted``: built, its self-play game survived, every qualifying game won. The games
are the ones the judge plays for that file (seeded from its source's hash), so the
verdict is the same every run; a change to a starter draws other seeds (the starters win
about 95 (tron3d) to 100 single games in 100 against their references, the 3D kit's
demo 93: docs/judge.md#starting-points). The whole file takes about 30 s on two cores.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from lightcycle.judge.service import contests
from lightcycle.judge.service.contest import Contest
from lightcycle.judge.service.contest_file import load_contest
from lightcycle.judge.service.pipeline import run_step
from lightcycle.judge.service.store import JudgeStore
from lightcycle.judge.starters import STARTERS, Starter, ruleset_name, starters_for
from lightcycle.sandbox.check import bwrap_usable

COURSES = Path(contests.__file__).parent


def _course(course: str) -> Contest:
    """The course's contest file as shipped, in the sandbox this machine gives."""
    shipped = load_contest(COURSES / f"{course}.toml")
    level = "full" if bwrap_usable() else "auto"
    return replace(shipped, judge=replace(shipped.judge, sandbox=level))


def _offered(contest: Contest) -> list[Starter]:
    return starters_for(contest.ruleset, contest.languages, contest.validation.protocol)


CASES = [
    pytest.param(
        course,
        starter,
        id=f"{course}-{starter.language}-{starter.filename}",
    )
    for course in contests.COURSES
    for starter in _offered(_course(course))
]

NEEDS = {"c": ("gcc",), "cpp": ("g++",), "scheme": ("guile", "chezscheme", "scheme")}
"""The programs a language's builds need (any one of them)."""


@pytest.mark.parametrize("course", list(contests.COURSES))
def test_every_allowed_language_has_a_starter(course: str) -> None:
    contest = _course(course)
    assert STARTERS[ruleset_name(contest.ruleset)], course
    assert {s.language for s in _offered(contest)} == set(contest.languages)


def test_starters_follow_the_ruleset_and_the_protocol() -> None:
    """An admin's own contest file gets its ruleset's starters under any of its names,
    but not those speaking a protocol the contest does not play."""
    by_alias = starters_for("duel", ["python", "c", "cpp"], "tron2010")
    assert [s.path for s in by_alias] == ["classic/bot.py", "classic/bot.c", "classic/bot.cpp"]
    assert starters_for("classic@1", ["python", "c"], "jsonl") == []
    assert [s.language for s in starters_for("tron3d@1", ["cpp"], "jsonl")] == ["cpp", "cpp"]
    assert starters_for("no-such-ruleset", ["python"], "jsonl") == []


@pytest.mark.parametrize(("course", "starter"), CASES)
def test_the_judge_accepts_the_starter(tmp_path: Path, course: str, starter: Starter) -> None:
    if not any(shutil.which(p) for p in NEEDS.get(starter.language, ("python3",))):
        pytest.skip(f"none of {NEEDS[starter.language]} is installed: the build needs one")
    contest = _course(course)
    with JudgeStore(f"sqlite:///{tmp_path / 'judge.db'}") as store:
        user = store.create_user("student@example.edu", "not-a-real-hash")
        source = starter.text().encode()
        sid = store.submit(user, "starter", starter.language, starter.filename, source)
        kinds = []
        while (job := store.claim("w1")) is not None:
            kinds.append(job.kind)
            sub = store.submission(job.submission_id)
            assert sub is not None
            assert store.complete(job, "w1", run_step(job, sub, store, contest))
        sub = store.submission(sid)
        assert sub is not None
        assert sub.state == "accepted", f"{sub.state}: {sub.reason}\n{sub.steps[-1].log}"
        assert kinds == ["build", "test", "qualify"]
        qualified = [g.result for g in sub.games if g.kind == "qualify"]
        assert qualified == ["win"] * contest.validation.qualify_games
