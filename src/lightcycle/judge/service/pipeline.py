"""One step of a submission's validation: build, self-play test, or qualifying games.

A worker claims a job and calls `run_step`; what it returns (`StepResult`) is what the
store records in one transaction: the step and its log, the games and their replays, the
build's artifact, the submission's next state and the next job. Everything a student's
code does runs in the sandbox at the contest's level: the build
(`lightcycle.sandbox.build.run_build`: a build is untrusted code too) and every game,
played by the referee exactly as ``lightcycle match`` plays it (`run_match`), under the
contest's time controls, CPU budget and memory limit.

A student's failure is a result, never an exception: a compile error, a crash, a
timeout, a lost qualifying game each give a `StepResult` that is not ``ok``, with a
one-line reason naming what happened (``copy 2: timeout on turn 14: took 1.204 s (the
move limit is 1 s)``). An exception out of `run_step` is the judge's own fault (a blob
missing, a sandbox that cannot start): the worker retries the job, and after a few tries
the submission is ``internal_error``, never counted against the student.

The three steps are also callable on their own with bytes (`build_source`,
`self_play`, `qualify`), which is how the tests drive them without a database.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import tarfile
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from lightcycle.judge.service.contest import Contest
from lightcycle.judge.service.languages import Language, language_for
from lightcycle.maps.spec import MapSpec
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.game import GameRecord
from lightcycle.referee.match import run_match
from lightcycle.referee.players import BotSpec, parse_bot_spec
from lightcycle.rules.variants import get_ruleset
from lightcycle.sandbox import Limits
from lightcycle.sandbox.build import BuildLimits, extract_artifacts, pack_source, run_build
from lightcycle.sandbox.levels import describe_record

STDERR_TAIL = 2000
"""Characters of a bot's stderr kept per seat (the end, where a crash says why)."""


class JobLike(Protocol):
    """What `run_step` reads of a job (`JudgeStore`'s ``JobRow``)."""

    @property
    def kind(self) -> str: ...


class SubmissionLike(Protocol):
    """What `run_step` reads of a submission (`JudgeStore`'s ``SubmissionRow``)."""

    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def language(self) -> str: ...
    @property
    def filename(self) -> str: ...
    @property
    def source_sha256(self) -> str: ...
    @property
    def artifact_sha256(self) -> str | None: ...


class BlobStore(Protocol):
    """What `run_step` reads of the store: content-addressed blobs."""

    def blob(self, sha256: str) -> bytes | None: ...


@dataclass
class GameOutcome:
    """One game a step played, as the store keeps it.

    Attributes:
        kind: ``test`` or ``qualify``.
        idx: the game's number in its step, from 1.
        seats: per seat: ``name``, ``verdict``, ``detail``, ``turn`` (of the verdict),
            ``cpu_used`` (seconds of the bot's process tree, measured in every game),
            ``cpu_limit``, ``stderr_tail`` (the submission's seats), ``rank``,
            ``submission`` (whether the seat is the submission's bot), ``sandbox`` (what
            confined its program: `lightcycle.sandbox.levels.seat_record`, ``None`` for
            an in-process bot).
        result: the submission's result: ``win``, ``loss`` or ``draw``.
        replay: the replay, as JSON text.
    """

    kind: str
    idx: int
    seats: list[dict[str, Any]]
    result: str
    replay: str


@dataclass
class StepResult:
    """What a step did (see the module docstring).

    Attributes:
        ok: the step passed.
        state: the submission's next state (``testing``, ``qualifying``, ``accepted``,
            ``build_failed``, ``test_failed``, ``qualify_failed``).
        reason: one line, never empty when not ``ok``.
        log: the whole account: the compiler's output, every seat's verdict, CPU and
            stderr tail.
        cpu_seconds: CPU the submission's code used in this step.
        games: the games played, with their replays.
        artifact: a build's output, a tar of the files the bot runs from.
        next_kind: the job to queue next (``test``, ``qualify``) or ``None``.
    """

    ok: bool
    state: str
    reason: str
    log: str
    cpu_seconds: float
    games: list[GameOutcome] = field(default_factory=list)
    artifact: bytes | None = None
    next_kind: str | None = None


def run_step(
    job: JobLike, submission: SubmissionLike, store: BlobStore, contest: Contest
) -> StepResult:
    """Run the job's step for the submission.

    Raises:
        RuntimeError: the judge's own fault (a blob missing, an unknown job kind).
        lightcycle.sandbox.SandboxError: a sandbox that cannot be given.
    """
    source = store.blob(submission.source_sha256)
    if source is None:
        raise RuntimeError(f"submission {submission.id}: its source blob is missing")
    language = language_for(submission.language, source, contest.ruleset, dict(contest.languages))
    if job.kind == "build":
        return build_source(language, submission.filename, source, contest)
    artifact = store.blob(submission.artifact_sha256) if submission.artifact_sha256 else None
    if artifact is None:
        raise RuntimeError(f"submission {submission.id}: its build artifact is missing")
    seed = seed_for(submission.source_sha256)
    if job.kind == "test":
        return self_play(language, submission.filename, artifact, contest, seed)
    if job.kind == "qualify":
        return qualify(language, submission.filename, artifact, contest, submission.name, seed)
    raise RuntimeError(f"unknown job kind {job.kind!r}")


def seed_for(source_sha256: str) -> int:
    """The first game seed of a submission: the first 31 bits of its source's hash.

    Every submission plays its own games (a fixed seed would let one lucky source pass
    and would hand every student the same starts to tune against), yet the same file
    always gets the same games, so a verdict can be reproduced: upload it again, or play
    the seed shown in the log with ``lightcycle match --seed``.
    """
    return int(source_sha256[:8], 16) >> 1


# -- build -----------------------------------------------------------------------------

_SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")
_COMPILER_ERROR = re.compile(r"^[^\s:][^:]*:\d+(?::\d+)?: (?:fatal )?error\b.*$", re.MULTILINE)
_PY_WHERE = re.compile(r'^\s*File "([^"]+)", line (\d+)', re.MULTILINE)
_PY_ERROR = re.compile(r"^(\w*(?:Error|Exception)\b.*)$", re.MULTILINE)


def source_name(filename: str, language: Language) -> str:
    """The name the source gets in the work folder: the uploaded one where it is a plain
    file name with the language's suffix, else ``bot`` + the suffix."""
    name = os.path.basename(filename)
    if _SAFE_NAME.fullmatch(name) and name.endswith(language.suffix) and name != "bot":
        return name
    return f"bot{language.suffix}"


def first_error(output: str, source: str | None = None) -> str | None:
    """The line of a compiler's output that says what is wrong (``bot.c:3:5: error: ...``,
    or Python's ``bot.py, line 3: SyntaxError: ...``), if any; else, given the source's
    name, the first line that points into it (Guile's ``bot.scm:4:1: unexpected end of
    input ...``: many compilers say where without the word error)."""
    found = _COMPILER_ERROR.search(output)
    if found is not None:
        return found.group(0).strip()
    where, error = _PY_WHERE.search(output), _PY_ERROR.findall(output)
    if error:
        said = error[-1].strip()
        return f"{where[1]}, line {where[2]}: {said}" if where else said
    if source:
        located = re.search(rf"^{re.escape(source)}:\d+(?::\d+)?: .*$", output, re.MULTILINE)
        if located is not None:
            return located.group(0).strip()
    return None


def build_source(language: Language, filename: str, source: bytes, contest: Contest) -> StepResult:
    """Build one uploaded file in the sandbox; the artifact is a tar of what it keeps."""
    name = source_name(filename, language)
    with tempfile.TemporaryDirectory(prefix="lightcycle-judge-") as tmp:
        src, out = Path(tmp) / "src", Path(tmp) / "out"
        src.mkdir()
        out.mkdir()
        (src / name).write_bytes(source)
        if not language.build:  # nothing to build: the source is the bot
            shutil.copy(src / name, out / name)
            return StepResult(
                True, "testing", "", "no build step", 0.0, [], pack_source(out), "test"
            )
        argv = language.build_argv(name)
        result = run_build(
            argv,
            src,
            out=out,
            artifacts=language.kept(name),
            limits=BuildLimits(),
            level=contest.judge.sandbox,
            read_only=language.read_only,
        )
        confined = describe_record(
            {"level": contest.judge.sandbox, "full": None, "protections": result.protections}
        )
        log = f"$ {' '.join(argv)}\n{result.output}\nsandbox: {confined}\n"
        if not result.ok:
            reason = first_error(result.output, name) or result.reason
            log += f"\n{result.reason}\n"
            return StepResult(False, "build_failed", reason, log, result.cpu_seconds)
        return StepResult(
            True, "testing", "", log, result.cpu_seconds, [], pack_source(out), "test"
        )


# -- games -----------------------------------------------------------------------------


def unpack(artifact: bytes, folder: Path) -> None:
    """Unpack a build's artifact into ``folder``, readable by the sandbox's pool user ids
    (they read a bot's folder with the rights of others)."""
    with tarfile.open(fileobj=io.BytesIO(artifact), mode="r:") as tar:
        names = sorted({m.name.split("/")[0] for m in tar.getmembers()})
    _copied, problems = extract_artifacts(artifact, names, folder)
    if problems:
        raise RuntimeError(f"the build artifact cannot be unpacked: {'; '.join(problems)}")
    os.chmod(folder, 0o755)
    for dirpath, dirnames, filenames in os.walk(folder):
        for d in dirnames:
            os.chmod(os.path.join(dirpath, d), 0o755)
        for f in filenames:
            path = os.path.join(dirpath, f)
            os.chmod(path, os.stat(path).st_mode | 0o444)


def program_spec(
    language: Language, filename: str, folder: Path, contest: Contest, name: str
) -> BotSpec:
    """How the referee runs a built submission unpacked in ``folder``, as ``name``."""
    argv = language.run_argv(source_name(filename, language))
    return BotSpec(
        text=name,
        kind="program",
        name=name,
        command=argv,
        protocol=language.protocol or contest.validation.protocol,
        cwd=folder,
        folder=folder,
    )


def _control(contest: Contest) -> TimeControl:
    return contest.limits.time_control()


def _first_turn(record: GameRecord, seat: int) -> int | None:
    """The turn (from 1) of the seat's first verdict other than ok."""
    for t, turn in enumerate(record.replay.verdicts or []):
        v = turn[seat] if seat < len(turn) else None
        if v is not None and v.get("verdict") != "ok":
            return t + 1
    return None


def _tail(log: Path) -> str:
    """What the bot wrote to stderr (its last `STDERR_TAIL` characters): the log's two
    header lines (``# ./bot``, ``# stderr: N bytes``, `lightcycle.sandbox.stderr`) are the
    referee's, not the bot's, and a bot that wrote nothing shows nothing."""
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    head = text.split("\n", 2)
    if len(head) >= 2 and head[0].startswith("# ") and head[1].startswith("# stderr:"):
        text = head[2] if len(head) == 3 else ""
    return text[-STDERR_TAIL:] if text.strip() else ""


def _play(
    specs: Sequence[BotSpec], contest: Contest, game: int, seed: int, mine: Sequence[bool]
) -> tuple[GameRecord, list[dict[str, Any]]]:
    """Play a step's game number ``game`` (its map: the pool's in turn)."""
    pool = contest.pool()
    return play_game(specs, contest, pool[game % len(pool)], seed, mine)


def play_game(
    specs: Sequence[BotSpec], contest: Contest, spec: MapSpec, seed: int, mine: Sequence[bool]
) -> tuple[GameRecord, list[dict[str, Any]]]:
    """Play one game on ``spec`` as ``lightcycle match`` does, in the sandbox at the
    contest's level, under its time control and memory limit (a step's games and a
    match, `lightcycle.judge.service.matchplay`, alike); the record and each seat's
    account (``mine``: the seats whose stderr tail is kept)."""
    rs = get_ruleset(contest.ruleset)
    control = _control(contest)
    limits = Limits(memory=contest.limits.memory << 20, sandbox=contest.judge.sandbox)
    records: list[GameRecord] = []
    with tempfile.TemporaryDirectory(prefix="lightcycle-judge-game-") as tmp:
        out = Path(tmp)
        run_match(
            list(specs),
            [spec],
            rs,
            games=1,
            seed=seed,
            control=control,
            limits=limits,
            out_dir=out,
            on_game=lambda i, r: records.append(r),
            spares=0,
        )
        record = records[0]
        seats = []
        for s, rec in enumerate(record.seats):
            seats.append(
                {
                    "name": record.names[s],
                    "verdict": rec.verdict.kind,
                    "detail": rec.verdict.detail,
                    "turn": _first_turn(record, s),
                    "cpu_used": round(rec.cpu, 3),
                    "cpu_limit": control.cpu,
                    "stderr_tail": _tail(out / "logs" / f"game-001-seat{s + 1}.log")
                    if mine[s]
                    else "",
                    "rank": record.outcome.ranks[s],
                    "submission": mine[s],
                    "sandbox": record.replay.sandbox[s] if record.replay.sandbox else None,
                }
            )
    return record, seats


def _limit_note(verdict: str, control: TimeControl, turn: int | None) -> str:
    if verdict != "timeout":
        return ""
    limit = control.first_move if turn == 1 and control.first_move is not None else control.move
    if limit is None:
        return f" (the average limit is {control.average:g} s)" if control.average else ""
    what = "first-move" if turn == 1 and control.first_move is not None else "move"
    return f" (the {what} limit is {limit:g} s)"


def describe(seat: dict[str, Any], control: TimeControl, who: str) -> str:
    """One line on what a seat did: ``copy 2: crashed on turn 1: exit code 139 ...``."""
    turn = seat["turn"]
    when = f" on turn {turn}" if turn is not None else ""
    detail = " ".join(str(seat["detail"]).split())
    if len(detail) > 300:
        detail = detail[:297] + "..."
    said = f": {detail}" if detail else ""
    return f"{who}: {seat['verdict']}{when}{said}{_limit_note(seat['verdict'], control, turn)}"


def _seat_log(seats: Sequence[dict[str, Any]], title: str) -> str:
    lines = [title]
    for s in seats:
        cpu = f"{s['cpu_used']:.3f} s CPU" + (f" of {s['cpu_limit']:g}" if s["cpu_limit"] else "")
        if s["verdict"] == "ok":
            lines.append(f"  {s['name']}: rank {s['rank']}, ok ({cpu})")
        else:  # a seat that crashed or timed out has no place worth a rank (two copies
            # that crash on turn 1 tie for the first)
            said = f": {s['detail']}" if s["detail"] else ""
            lines.append(f"  {s['name']}: {s['verdict']}{said} ({cpu})")
        if s.get("sandbox") is not None:
            lines.append(f"    sandbox: {describe_record(s['sandbox'])}")
        if s["stderr_tail"]:
            lines += [
                "    stderr (the end):",
                *("    | " + ln for ln in s["stderr_tail"].splitlines()),
            ]
    return "\n".join(lines)


def _where(contest: Contest, game: int, seed: int) -> str:
    """`` on MAP, seed N``: what replays a judge's game (``lightcycle match --seed``)."""
    pool = contest.pool()
    return f" on {pool[game % len(pool)].name}, seed {seed}"


def _result(ranks: Sequence[int], seat: int) -> str:
    best = min(ranks)
    if ranks[seat] != best:
        return "loss"
    return "win" if ranks.count(best) == 1 else "draw"


def _with_bot(artifact: bytes, body: Callable[[Path], StepResult]) -> StepResult:
    """Run ``body`` with the artifact unpacked in a fresh folder the sandbox can read."""
    with tempfile.TemporaryDirectory(prefix="lightcycle-judge-bot-") as tmp:
        folder = Path(tmp) / "bot"
        folder.mkdir()
        os.chmod(tmp, 0o755)
        unpack(artifact, folder)
        return body(folder)


def self_play(
    language: Language, filename: str, artifact: bytes, contest: Contest, seed: int = 0
) -> StepResult:
    """One game against ``self_play_copies`` copies of itself; every copy must end it
    with no verdict (no crash, timeout, bad output, over its CPU or memory)."""
    copies = contest.validation.self_play_copies
    control = _control(contest)

    def body(folder: Path) -> StepResult:
        specs = [
            program_spec(language, filename, folder, contest, f"copy {k + 1}")
            for k in range(copies)
        ]
        record, seats = _play(specs, contest, 0, seed, [True] * copies)
        bad = [describe(s, control, s["name"]) for s in seats if s["verdict"] != "ok"]
        # against its own copies a win or a draw says nothing: the game passed or failed
        result = "failed" if bad else "passed"
        outcome = GameOutcome("test", 1, seats, result, record.replay.to_json())
        log = _seat_log(
            seats, f"self-play: {copies} copies{_where(contest, 0, seed)}, {record.outcome.reason}"
        )
        cpu = sum(s["cpu_used"] for s in seats)
        if bad:
            return StepResult(False, "test_failed", "; ".join(bad), log, cpu, [outcome])
        games = contest.validation.qualify_games
        state, nxt = ("qualifying", "qualify") if games else ("accepted", None)
        return StepResult(True, state, "", log, cpu, [outcome], None, nxt)

    return _with_bot(artifact, body)


def qualify(
    language: Language,
    filename: str,
    artifact: bytes,
    contest: Contest,
    name: str = "bot",
    seed: int = 0,
) -> StepResult:
    """``qualify_games`` games against ``reference_seats`` reference bots, the seats
    rotated from game to game; every game must be won outright. Stops at the first game
    that is not: its replay is kept, and the reason names it."""
    v = contest.validation
    control = _control(contest)
    reference = parse_bot_spec(v.reference)

    def body(folder: Path) -> StepResult:
        me = program_spec(language, filename, folder, contest, name)
        refs = [
            replace(reference, name=f"{v.reference.removeprefix('builtin:')} {k + 1}")
            for k in range(v.reference_seats)
        ]
        outcomes: list[GameOutcome] = []
        logs: list[str] = []
        cpu = 0.0
        for g in range(v.qualify_games):
            seats_n = len(refs) + 1
            at = g % seats_n  # the submission's seat: every seat in turn
            specs = [*refs[:at], me, *refs[at:]]
            mine = [i == at for i in range(seats_n)]
            record, seats = _play(specs, contest, g, seed + g, mine)
            result = _result(record.outcome.ranks, at)
            outcomes.append(GameOutcome("qualify", g + 1, seats, result, record.replay.to_json()))
            title = f"qualifying game {g + 1}{_where(contest, g, seed + g)}: {result}"
            logs.append(_seat_log(seats, f"{title}, {record.outcome.reason}"))
            cpu += seats[at]["cpu_used"]
            if result != "win":
                mine_seat = seats[at]
                why = (
                    describe(mine_seat, control, "your bot")
                    if mine_seat["verdict"] != "ok"
                    else f"ranked {mine_seat['rank']} of {seats_n}: {record.outcome.reason}"
                )
                reason = (
                    f"lost qualifying game {g + 1} of {v.qualify_games} against "
                    f"{v.reference_seats} x {v.reference} ({why})"
                )
                return StepResult(False, "qualify_failed", reason, "\n".join(logs), cpu, outcomes)
        return StepResult(True, "accepted", "", "\n".join(logs), cpu, outcomes)

    return _with_bot(artifact, body)
