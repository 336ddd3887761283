"""The judge's steps with real builds (gcc, g++, python) and real games in the sandbox.

Each case builds a bot of tests/judge/service/bots/ and takes it as far as it goes:
a compile error stops at the build, a crash, a CPU hog, a memory hog and a bot writing
junk stop at the self-play test, a weak bot at the qualifying games, and good bots in C,
C++ and Python are accepted. The contest is a small duel (classic rules on arena-15,
``tron2010``, short move times) so that every case takes a second or two.
"""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from lightcycle.judge.service import contests
from lightcycle.judge.service.contest import (
    Contest,
    JudgeSpec,
    LimitsSpec,
    ValidationSpec,
)
from lightcycle.judge.service.contest_file import load_contest
from lightcycle.judge.service.languages import (
    BUILTIN,
    LanguageError,
    is_bot_class,
    language_for,
)
from lightcycle.judge.service.pipeline import (
    StepResult,
    build_source,
    first_error,
    qualify,
    run_step,
    seed_for,
    self_play,
)
from lightcycle.replay.model import Replay
from lightcycle.sandbox import cgroups
from lightcycle.sandbox.check import bwrap_usable

BOTS = Path(__file__).parent / "bots"
COURSES = Path(contests.__file__).parent
"""The contest files ``lightcycle judge init`` writes (package data)."""
QUALIFY_SEED = 2
"""Games are deterministic (the bots are, and ``random`` is seeded by the game): from
this seed the good bots win both qualifying games, one from each seat."""


def _sandbox() -> str:
    return "full" if bwrap_usable() else "auto"


CONTEST = Contest(
    name="test",
    title="pipeline test",
    ruleset="classic@1",
    maps=("arena-15",),
    players=2,
    limits=LimitsSpec(move_time=0.5, first_move_time=1.5, memory=64),
    validation=ValidationSpec(
        protocol="tron2010",
        self_play_copies=2,
        reference="builtin:random",
        qualify_games=2,
        reference_seats=1,
    ),
    judge=JudgeSpec(sandbox=_sandbox()),
)


def _need(program: str) -> None:
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed: the judge's builds need it")


def _read(filename: str) -> bytes:
    """A bot's source; a file the linters must not read is stored as NAME.txt."""
    stored = BOTS / filename
    return (stored if stored.exists() else BOTS / f"{filename}.txt").read_bytes()


def _build(filename: str, language: str, contest: Contest = CONTEST) -> tuple[StepResult, bytes]:
    source = _read(filename)
    lang = language_for(language, source, contest.ruleset, dict(contest.languages))
    return build_source(lang, filename, source, contest), source


def _validate(filename: str, language: str, contest: Contest = CONTEST) -> list[StepResult]:
    """Build, test and qualify as far as the bot gets; every step's result."""
    built, source = _build(filename, language, contest)
    steps = [built]
    if not built.ok:
        return steps
    assert built.artifact is not None and built.next_kind == "test"
    lang = language_for(language, source, contest.ruleset, dict(contest.languages))
    tested = self_play(lang, filename, built.artifact, contest)
    steps.append(tested)
    if not tested.ok:
        return steps
    assert tested.next_kind == "qualify"
    steps.append(qualify(lang, filename, built.artifact, contest, "mine", seed=QUALIFY_SEED))
    return steps


# -- languages -------------------------------------------------------------------------


def test_languages_builtin_and_declared() -> None:
    assert language_for("c", b"", "classic@1", {}).build[0] == "gcc"
    assert language_for("cpp", b"", "classic@1", {}).build[0] == "g++"
    plain = language_for("python", b"print(1)\n", "classic@1", {})
    assert plain.run == ("python3", "{source}") and plain.protocol is None
    hosted = language_for("python", (BOTS / "good_bot.py").read_bytes(), "classic@1", {})
    assert "lightcycle.judge.service.pyhost" in hosted.run and hosted.protocol == "jsonl"
    assert language_for("c", b"", "teams@1", {}).artifacts == ("team.so",)
    rust = language_for(
        "rust",
        b"",
        "classic@1",
        {"rust": {"suffix": ".rs", "build": ["rustc", "{source}"], "run": ["./bot"]}},
    )
    assert rust.build_argv("bot.rs") == ["rustc", "bot.rs"] and rust.artifacts == ("bot",)
    with pytest.raises(LanguageError, match="unknown language 'cobol'"):
        language_for("cobol", b"", "classic@1", dict(BUILTIN))
    assert is_bot_class(b"class Mine(Bot):\n    pass\n")
    assert not is_bot_class(b"print('class Mine(Bot):')\n")


def test_first_error_finds_the_line() -> None:
    gcc = "bot.c: In function 'main':\nbot.c:5:13: error: expected expression\n    5 | x\n"
    assert first_error(gcc) == "bot.c:5:13: error: expected expression"
    py = (
        '  File "bot.py", line 1\n    def move(view:\n            ^\n'
        "SyntaxError: '(' was never closed\n"
    )
    assert first_error(py) == "bot.py, line 1: SyntaxError: '(' was never closed"
    assert first_error("nothing useful\n") is None
    guile = "ice-9/boot-9.scm:1685:16: In procedure raise-exception:\nbot.scm:4:1: unexpected end\n"
    assert first_error(guile, "bot.scm") == "bot.scm:4:1: unexpected end"
    assert first_error(guile) is None  # without the source's name nothing says where


# -- the states --------------------------------------------------------------------------


def test_compile_error_is_build_failed_with_the_line() -> None:
    _need("gcc")
    (built,) = _validate("syntax_error.c", "c")
    assert built.state == "build_failed" and not built.ok and built.next_kind is None
    assert built.reason.startswith("syntax_error.c:5:13: error:")
    assert "int x = ;" in built.log  # the compiler's whole output is kept


def test_python_syntax_error_is_build_failed() -> None:
    (built,) = _validate("syntax_error.py", "python")
    assert built.state == "build_failed"
    assert built.reason.startswith("syntax_error.py, line 1:") and "SyntaxError" in built.reason


def test_crash_on_turn_1_names_the_copy_and_signal() -> None:
    _need("gcc")
    built, tested = _validate("crash.c", "c")
    assert built.ok and tested.state == "test_failed" and tested.next_kind is None
    assert "copy 1: crashed on turn 1" in tested.reason
    assert "copy 2: crashed on turn 1" in tested.reason
    assert "SIGSEGV" in tested.reason
    (game,) = tested.games
    assert [s["verdict"] for s in game.seats] == ["crashed", "crashed"]
    assert "about to crash" in game.seats[0]["stderr_tail"]
    assert Replay.from_json(game.replay).verdicts  # the replay shows the verdicts
    # two copies crashing together tie for the first place: the page says the game
    # failed and what each copy did, not "draw" and "rank 1"
    assert game.result == "failed"
    assert "rank 1" not in tested.log and "copy 1: crashed" in tested.log
    assert not game.seats[0]["stderr_tail"].startswith("# ")  # the bot's, not the header


def test_a_bot_that_wrote_nothing_to_stderr_shows_nothing(tmp_path: Path) -> None:
    from lightcycle.judge.service.pipeline import _tail

    quiet = tmp_path / "quiet.log"
    quiet.write_text("# ./bot\n# stderr: 0 bytes\n")
    assert _tail(quiet) == ""
    chatty = tmp_path / "chatty.log"
    chatty.write_text("# ./bot\n# stderr: 6 bytes\nhello\n")
    assert _tail(chatty) == "hello\n"


def test_cpu_hog_is_stopped() -> None:
    _need("gcc")
    contest = replace(CONTEST, limits=replace(CONTEST.limits, cpu_time=0.5))
    built, tested = _validate("cpu_hog.c", "c", contest)
    assert built.ok and tested.state == "test_failed"
    seats = tested.games[0].seats
    assert {s["verdict"] for s in seats} <= {"timeout", "disqualified"}
    assert "copy 1: " in tested.reason and "on turn 1" in tested.reason
    assert "limit is 1.5 s" in tested.reason or "budget is 0.5 s" in tested.reason
    assert all(s["cpu_limit"] == 0.5 for s in seats)


def test_memory_hog_meets_its_data_limit() -> None:
    _need("gcc")
    built, tested = _validate("memory_hog.c", "c")
    assert built.ok and tested.state == "test_failed"
    seats = tested.games[0].seats
    assert all(s["verdict"] == "crashed" for s in seats), seats
    # malloc fails at the 64 MiB data limit; the bot's own message says so
    assert "copy 1: crashed on turn 1: exit code 3" in tested.reason
    assert "malloc failed" in tested.reason


def test_shared_memory_hog_is_killed_over_its_limit() -> None:
    _need("gcc")
    if cgroups.hierarchy() is None:
        pytest.skip(f"no memory cgroup here ({cgroups.status()[1]}): shared memory is unbounded")
    built, tested = _validate("shared_memory_hog.c", "c")
    assert built.ok and tested.state == "test_failed"
    assert "copy 1: crashed on turn 1: killed: over its memory limit (64 MiB" in tested.reason


def test_junk_on_stdout_is_bad_output() -> None:
    _need("gcc")
    built, tested = _validate("junk.c", "c")
    assert built.ok and tested.state == "test_failed"
    assert "copy 1: bad_output on turn 1" in tested.reason
    assert "debug" in tested.reason  # what it wrote


def test_a_bot_that_loses_fails_qualifying_and_keeps_the_replay() -> None:
    _need("gcc")
    _built, tested, qualified = _validate("loser.c", "c")
    assert tested.ok and tested.state == "qualifying"  # it plays by the rules...
    assert qualified.state == "qualify_failed" and not qualified.ok  # ...but loses
    assert qualified.reason.startswith("lost qualifying game 1 of 2 against 1 x builtin:random")
    (game,) = qualified.games  # it stopped at the lost game
    assert game.result == "loss" and game.kind == "qualify" and game.idx == 1
    assert Replay.from_json(game.replay).seats[0]["name"] == "mine"


@pytest.mark.parametrize(
    ("filename", "language", "compiler"),
    [("good.c", "c", "gcc"), ("good.cpp", "cpp", "g++"), ("good_bot.py", "python", None)],
)
def test_good_bots_are_accepted(filename: str, language: str, compiler: str | None) -> None:
    if compiler is not None:
        _need(compiler)
    built, tested, qualified = _validate(filename, language)
    assert built.ok and tested.ok, tested.reason
    assert qualified.ok, qualified.reason
    assert qualified.state == "accepted" and qualified.next_kind is None
    assert [g.result for g in qualified.games] == ["win", "win"]
    mine = [[s["submission"] for s in g.seats] for g in qualified.games]
    assert mine == [[True, False], [False, True]]  # the seats rotate
    # the contest has no CPU budget, and the CPU each copy used is measured all the same
    seats = [s for g in (*tested.games, *qualified.games) for s in g.seats if s["submission"]]
    assert all(s["cpu_used"] > 0 and s["cpu_limit"] is None for s in seats), seats
    assert " s CPU)" in tested.log and " s CPU)" in qualified.log
    # what confined every seat and the build is in the logs and kept with the games
    level = _sandbox()
    assert all(s["sandbox"]["level"] == level for s in seats), seats
    assert all(isinstance(s["sandbox"]["protections"], list) for s in seats)
    if level == "full":
        assert "    sandbox: the full sandbox (level full): bubblewrap, " in qualified.log
    assert "    sandbox: " in tested.log and "    sandbox: " in qualified.log
    if compiler is not None:
        assert f"sandbox: level {level}" in built.log


def _torus() -> Contest:
    """The Scheme course as `lightcycle judge init torus` writes it, in this sandbox."""
    course = load_contest(COURSES / "torus.toml")
    return replace(course, judge=replace(course.judge, sandbox=_sandbox()))


def test_a_scheme_bot_is_built_and_accepted_in_the_scheme_course() -> None:
    """The torus course's students write Scheme: Guile compiles it once as a check, then
    runs it, and it speaks sexp through the sandbox like any other program."""
    _need("guile")
    built, tested, qualified = _validate("good.scm", "scheme", _torus())
    assert built.ok and tested.ok, tested.reason
    assert qualified.state == "accepted", qualified.reason
    assert {g.result for g in qualified.games} == {"win"}
    seats = [s for g in (*tested.games, *qualified.games) for s in g.seats if s["submission"]]
    assert seats and all(s["verdict"] == "ok" and s["cpu_used"] > 0 for s in seats), seats


def test_a_scheme_syntax_error_stops_the_build_with_guiles_message() -> None:
    _need("guile")
    built, _ = _build("syntax_error.scm", "scheme", _torus())
    assert built.state == "build_failed" and not built.ok
    assert "unexpected end of input" in built.reason, built.reason


# -- through run_step ----------------------------------------------------------------------


@dataclass
class _Job:
    kind: str


@dataclass
class _Submission:
    id: int
    name: str
    language: str
    filename: str
    source_sha256: str
    artifact_sha256: str | None = None


class _Blobs:
    def __init__(self) -> None:
        self.data: dict[str, bytes] = {}

    def put(self, content: bytes) -> str:
        import hashlib

        key = hashlib.sha256(content).hexdigest()
        self.data[key] = content
        return key

    def blob(self, sha256: str) -> bytes | None:
        return self.data.get(sha256)


def test_run_step_goes_build_test_qualify() -> None:
    _need("gcc")
    blobs = _Blobs()
    sub = _Submission(1, "mine", "c", "good.c", blobs.put((BOTS / "good.c").read_bytes()))
    contest = replace(CONTEST, validation=replace(CONTEST.validation, qualify_games=0))
    built = run_step(_Job("build"), sub, blobs, contest)
    assert built.ok and built.next_kind == "test" and built.artifact is not None
    sub.artifact_sha256 = blobs.put(built.artifact)
    tested = run_step(_Job("test"), sub, blobs, contest)
    assert tested.ok and tested.state == "accepted" and tested.next_kind is None  # no games


def test_run_step_without_its_artifact_is_the_judges_fault() -> None:
    blobs = _Blobs()
    sub = _Submission(1, "mine", "c", "good.c", blobs.put(b"int main(void) { return 0; }\n"))
    with pytest.raises(RuntimeError, match="artifact is missing"):
        run_step(_Job("test"), sub, blobs, CONTEST)


def test_through_the_store_a_loser_ends_qualify_failed(tmp_path: Path) -> None:
    """The worker's path: claim, `run_step`, complete, until the queue is empty."""
    _need("gcc")
    from lightcycle.judge.service.store import JudgeStore

    with JudgeStore(f"sqlite:///{tmp_path / 'judge.db'}") as store:
        user = store.create_user("ada@example.org", "not-a-real-hash")
        sid = store.submit(user, "loser", "c", "loser.c", _read("loser.c"))
        kinds = []
        while (job := store.claim("w1")) is not None:
            kinds.append(job.kind)
            sub = store.submission(job.submission_id)
            assert sub is not None
            assert store.complete(job, "w1", run_step(job, sub, store, CONTEST))
        assert kinds == ["build", "test", "qualify"]
        sub = store.submission(sid)
        assert sub is not None and sub.state == "qualify_failed"
        assert sub.reason.startswith("lost qualifying game 1 of 2")
        assert sub.artifact_sha256 is not None
        lost = [g for g in sub.games if g.kind == "qualify"]
        assert len(lost) == 1
        game = store.game(lost[0].id)
        assert game is not None and Replay.from_json(game.replay).seats[0]["name"] == "loser"


def test_tron3d_self_play_of_a_python_program_within_the_cpu_budget() -> None:
    """The 3D course's setting: four copies on the cube, 2 s of CPU for a whole game."""
    contest = Contest(
        name="tron3d",
        title="3D",
        ruleset="tron3d@1",
        maps=("cube",),
        players=4,
        limits=LimitsSpec(cpu_time=2.0, move_time=1.0, first_move_time=3.0, memory=256),
        validation=ValidationSpec(protocol="jsonl", self_play_copies=4, reference="builtin:dummy"),
        judge=JudgeSpec(sandbox=_sandbox()),
    )
    built, source = _build("graph_bot.py", "python", contest)
    assert built.ok and built.artifact is not None
    lang = language_for("python", source, contest.ruleset, dict(contest.languages))
    assert lang.run == ("python3", "{source}")  # a program, not a Bot class
    tested = self_play(lang, "graph_bot.py", built.artifact, contest)
    assert tested.ok, tested.reason
    assert tested.state == "qualifying" and tested.next_kind == "qualify"
    (game,) = tested.games
    assert [s["name"] for s in game.seats] == ["copy 1", "copy 2", "copy 3", "copy 4"]
    assert all(s["verdict"] == "ok" and s["cpu_limit"] == 2.0 for s in game.seats)
    assert all(0 < s["cpu_used"] <= 2.0 for s in game.seats)


def test_the_tron3d_contest_accepts_a_good_python_bot_class() -> None:
    """The tron3d contest file as shipped (2 s of CPU a game, 4 copies in self-play, 4
    qualifying games against 3 Dummies on cube and cylinder) accepts a `Bot` class a
    student could write (bots/tron3d_bot.py): the jsonl host rebuilds the graph board,
    the items and the vanishing trails in the sandbox, Python's start-up counted.

    The games are the ones the judge plays for this file (seeded from its source's
    hash), so the verdict is the same every run. The bot wins about 11 games in 12
    against 3 Dummies on these maps (44 of 48 seeds tried), so a change to its source
    may draw seeds it loses: `lightcycle match --seed` on the map the log names replays
    a lost game."""
    example = load_contest(COURSES / "tron3d.toml")
    contest = replace(example, judge=replace(example.judge, sandbox=_sandbox()))
    built, source = _build("tron3d_bot.py", "python", contest)
    assert built.ok and built.artifact is not None
    lang = language_for("python", source, contest.ruleset, dict(contest.languages))
    assert "lightcycle.judge.service.pyhost" in lang.run
    seed = seed_for(hashlib.sha256(source).hexdigest())
    tested = self_play(lang, "tron3d_bot.py", built.artifact, contest, seed=seed)
    assert tested.ok, tested.reason
    (game,) = tested.games
    replay = Replay.from_json(game.replay)
    assert replay.ruleset == "tron3d@1" and len(replay.turns) == 200  # every round played
    assert len(game.seats) == 4
    assert all(s["verdict"] == "ok" and 0 < s["cpu_used"] <= 2.0 for s in game.seats)
    qualified = qualify(lang, "tron3d_bot.py", built.artifact, contest, "grabber", seed=seed)
    assert qualified.ok and qualified.state == "accepted", qualified.reason
    assert [g.result for g in qualified.games] == ["win"] * 4
    assert all(s["cpu_used"] <= 2.0 for g in qualified.games for s in g.seats if s["submission"])


# -- seeds ---------------------------------------------------------------------------------


def test_each_source_gets_its_own_seeds() -> None:
    a, b = hashlib.sha256(b"one bot").hexdigest(), hashlib.sha256(b"another bot").hexdigest()
    assert seed_for(a) == seed_for(a) != seed_for(b)
    assert 0 <= seed_for("f" * 64) < 2**31 and seed_for("0" * 64) == 0


def test_run_step_plays_the_sources_seeds_and_replays_them_alike() -> None:
    """Two files differing in a comment play different games; one file, the same games."""
    _need("gcc")
    blobs = _Blobs()
    good = (BOTS / "good.c").read_bytes()
    played: dict[str, tuple[int, object]] = {}
    for tag, source in (("a", good), ("a again", good), ("b", good + b"/* b */\n")):
        sub = _Submission(1, "mine", "c", "good.c", blobs.put(source))
        built = run_step(_Job("build"), sub, blobs, CONTEST)
        assert built.artifact is not None
        sub.artifact_sha256 = blobs.put(built.artifact)
        tested = run_step(_Job("test"), sub, blobs, CONTEST)
        seed = seed_for(sub.source_sha256)
        assert f"on arena-15, seed {seed}," in tested.log  # the log says how to replay it
        replay = Replay.from_json(tested.games[0].replay)
        assert replay.seed == seed
        played[tag] = (replay.seed, replay.turns)
    assert played["a"] == played["a again"]  # reproducible: the same source, the same game
    assert played["a"] != played["b"]


def test_the_duel_example_accepts_a_good_c_bot_on_any_seed() -> None:
    """The classic contest file's maps and reference: a flood-fill bot wins every
    qualifying game, whatever seed its source gets (builtin:random on a small open arena
    beat it about 1 game in 3)."""
    _need("gcc")
    example = load_contest(COURSES / "classic.toml")
    contest = replace(
        example,
        limits=replace(example.limits, move_time=0.5, first_move_time=1.5),
        judge=replace(example.judge, sandbox=_sandbox()),
    )
    built, source = _build("good.c", "c", contest)
    assert built.artifact is not None
    lang = language_for("c", source, contest.ruleset, dict(contest.languages))
    for seed in (0, 1_000_003, 2_000_006, 987_654_321):
        qualified = qualify(lang, "good.c", built.artifact, contest, "mine", seed=seed)
        assert qualified.ok, f"seed {seed}: {qualified.reason}"


# -- the team course's C (cteam) -----------------------------------------------------------

TEAMS = replace(
    load_contest(COURSES / "teams.toml"),
    maps=("court-small",),
    judge=JudgeSpec(sandbox=_sandbox()),
)


def test_a_team_in_the_courses_c_functions_is_accepted() -> None:
    """The teams contest file's settings on its small court: the course's C functions,
    built with real gcc against tron.h in the sandbox and played by the cteam host."""
    _need("gcc")
    contest = replace(TEAMS, validation=replace(TEAMS.validation, qualify_games=2))
    built, source = _build("team_good.c", "c", contest)
    assert built.ok, built.log
    lang = language_for("c", source, contest.ruleset, dict(contest.languages))
    assert lang.artifacts == ("team.so",) and "lightcycle.hosts.cteam" in lang.run
    tested = self_play(lang, "team_good.c", built.artifact or b"", contest, seed=11)
    assert tested.ok, tested.reason
    qualified = qualify(lang, "team_good.c", built.artifact or b"", contest, "team", seed=11)
    assert qualified.ok and qualified.state == "accepted", qualified.reason
    assert all(s["cpu_used"] > 0 for g in qualified.games for s in g.seats if s["submission"])


def test_a_team_that_does_not_compile_shows_gccs_line() -> None:
    _need("gcc")
    (built,) = _validate("team_syntax_error.c", "c", TEAMS)
    assert built.state == "build_failed" and not built.ok
    assert built.reason.startswith("team_syntax_error.c:9:"), built.reason
    assert "error" in built.reason and "-shared" in built.log  # the library's build
