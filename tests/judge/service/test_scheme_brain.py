"""The torus contest takes a brain of the Scheme course's library as a submission: a
file written from the course's document (``define-tron-brain``, no protocol code) is
built (the library copied beside it, the brain checked) and plays through the library's
seat runner; a whole program speaking ``sexp`` itself still runs as one (test_pipeline).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from lightcycle.judge.service import contests
from lightcycle.judge.service.contest import Contest
from lightcycle.judge.service.contest_file import load_contest
from lightcycle.judge.service.languages import LanguageError, language_for
from lightcycle.judge.service.pipeline import build_source, qualify, self_play
from lightcycle.kits.scheme import SchemeMissing, find_scheme
from lightcycle.sandbox.check import bwrap_usable
from tests.kits.scheme.runner import EXAMPLE

BOTS = Path(__file__).parent / "bots"
QUALIFY_SEED = {"guile": 56, "chez": 63}
"""The random move bot is as strong as builtin:random, so it wins all four qualifying
games from some seeds only. Games are deterministic (the seat seeds Scheme's `random`
from the game so far, builtin:random from the game's seed): from these seeds it wins
them, on each Scheme."""


def _scheme() -> str:
    try:
        return find_scheme()[0]
    except SchemeMissing as exc:
        pytest.skip(f"{exc}")


def _torus() -> Contest:
    course = load_contest(Path(contests.__file__).parent / "torus.toml")
    sandbox = "full" if bwrap_usable() else "auto"
    return replace(course, judge=replace(course.judge, sandbox=sandbox))


def test_the_documents_example_brain_builds_tests_and_qualifies_on_torus_20() -> None:
    scheme = _scheme()
    contest = _torus()
    source = EXAMPLE.read_bytes()
    lang = language_for("scheme", source, contest.ruleset, dict(contest.languages))
    assert lang.protocol == "sexp" and "seat.scm" in lang.run
    built = build_source(lang, "random-move-bot.scm", source, contest)
    assert built.ok, built.log
    assert "plays the brain random-move-bot" in built.log
    assert built.artifact is not None
    tested = self_play(lang, "random-move-bot.scm", built.artifact, contest)
    assert tested.ok, tested.reason
    qualified = qualify(
        lang, "random-move-bot.scm", built.artifact, contest, "mine", seed=QUALIFY_SEED[scheme]
    )
    assert qualified.state == "accepted", qualified.reason
    assert [g.result for g in qualified.games] == ["win"] * 4
    assert "Random Move Bot has won" in qualified.log
    seats = [s for g in (*tested.games, *qualified.games) for s in g.seats if s["submission"]]
    assert all(s["verdict"] == "ok" for s in seats), seats


def test_a_whole_program_is_still_a_program() -> None:
    contest = _torus()
    source = (BOTS / "good.scm").read_bytes()
    lang = language_for("scheme", source, contest.ruleset, dict(contest.languages))
    assert lang.run == ("guile", "--no-auto-compile", "{source}")


def test_a_brain_with_a_syntax_error_stops_the_build_at_its_line() -> None:
    _scheme()
    contest = _torus()
    source = b'(define-tron-brain (b ("B" size walls play ppos opos) (s #f))\n  (play (quote n))\n'
    lang = language_for("scheme", source, contest.ruleset, dict(contest.languages))
    built = build_source(lang, "mine.scm", source, contest)
    assert built.state == "build_failed" and not built.ok
    assert "mine.scm" in built.reason, built.log


def test_a_contest_without_scheme_refuses_a_brain() -> None:
    source = EXAMPLE.read_bytes()
    with pytest.raises(LanguageError, match="unknown language 'scheme'"):
        language_for("scheme", source, "classic@1", {})
