"""``lightcycle judge``: the judge website's workers and administration (docs/judge.md).

A Typer group: each command is a function registered on `judge_app`; ``judge serve``
(the website) is added beside them. Commands read the contest file with
`lightcycle.judge.service.contest.load_contest` and print its one-line errors.
"""

from __future__ import annotations

import logging
import signal
import threading
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from lightcycle.cli.common import console, err, user_errors

if TYPE_CHECKING:
    from lightcycle.judge.service.contest import Contest

judge_app = typer.Typer(
    help="The judge: a website where students submit bots that are built, tested and "
    "qualified (docs/judge.md).\n\n"
    "Example: lightcycle judge init tron3d my-course.toml",
    no_args_is_help=True,
)

admin_app = typer.Typer(
    help="Administer the judge's users.\n\nExample: lightcycle judge admin add teacher@example.org "
    "my-course.toml",
    no_args_is_help=True,
)
judge_app.add_typer(admin_app, name="admin")

ladder_app = typer.Typer(
    help="Switch the ladder (continuous official matches, rated by OpenSkill) on or off, "
    "or show it.\n\nExample: lightcycle judge ladder status my-ladder.toml",
    no_args_is_help=True,
)
judge_app.add_typer(ladder_app, name="ladder")

round_app = typer.Typer(
    help="Start an official elimination round, or show how the rounds stand.\n\n"
    "Example: lightcycle judge round status my-course.toml",
    no_args_is_help=True,
)
judge_app.add_typer(round_app, name="round")

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="Database URL (sqlite:///judge.db or postgresql://...); default: the contest "
        "file's [judge] database.",
        show_default=False,
    ),
]


def _fail(message: str) -> typer.Exit:
    err.print(Text(message, style="red"), highlight=False, soft_wrap=True)
    return typer.Exit(2)


def load(contest: Path, db: str | None) -> Contest:
    """The checked contest (a `Contest`), or exit 2 with its one-line error."""
    from lightcycle.judge.service.contest import ContestError
    from lightcycle.judge.service.contest_file import load_contest

    try:
        return load_contest(contest, database=db)
    except ContestError as exc:
        raise _fail(str(exc)) from None


@judge_app.command("init")
def init(
    course: Annotated[
        str | None,
        typer.Argument(help="The course: tron3d, teams, classic, torus or ffa (none: list them)."),
    ] = None,
    file: Annotated[
        Path | None, typer.Argument(help="The contest file to write (never overwritten).")
    ] = None,
    list_courses: Annotated[
        bool, typer.Option("--list", help="List the courses, one line each, and exit.")
    ] = False,
) -> None:
    """Write a course's contest file to edit, then serve it (the files ship with lightcycle).

    The database and key file it names are made beside the written file on the first
    `judge serve`. Without a course (or with --list) the courses are listed.

    Example: lightcycle judge init tron3d my-course.toml
    """
    from lightcycle.judge.service.contests import COURSES, ContestTemplateError, write_contest

    with user_errors():
        if list_courses or course is None:
            width = max(map(len, COURSES))
            for name, about in COURSES.items():
                console.print(
                    f"{name:<{width}}  {about}", markup=False, highlight=False, soft_wrap=True
                )
            console.print(
                "write one: lightcycle judge init COURSE FILE", markup=False, highlight=False
            )
            return
        if file is None:
            raise _fail(f"give the file to write: lightcycle judge init {course} my-course.toml")
        try:
            write_contest(course, file)
        except ContestTemplateError as exc:
            raise _fail(str(exc)) from None
        console.print(
            f"wrote {file} (the {course} course); edit it, then: lightcycle judge serve {file}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )


@judge_app.command("worker")
def worker(
    contest: Annotated[Path, typer.Argument(help="The contest file (TOML).")],
    db: DbOption = None,
    name: Annotated[
        str | None,
        typer.Option(
            "--name", help="This worker's name in the job table (default host:pid:random)."
        ),
    ] = None,
) -> None:
    """Run a worker: build, test and qualify submissions and play matches from the queue.

    Start as many as the machine has cores for, on any machine that reaches the database
    (PostgreSQL for several machines). Ctrl-C or SIGTERM lets the current job finish and
    be recorded; a second one hands it back to the queue at once. A worker killed
    outright loses nothing: its job goes to another worker after a few seconds.

    Example: lightcycle judge worker my-course.toml --db postgresql://judge@db/contest
    """
    from lightcycle.judge.service.worker import default_name, run_worker
    from lightcycle.storage import StorageError

    with user_errors():
        loaded = load(contest, db)
        worker_name = name or default_name()
        stop, abandon = threading.Event(), threading.Event()

        def on_signal(signum: int, _frame: FrameType | None) -> None:
            if stop.is_set():
                abandon.set()
                err.print("stopping now: the current job goes back to the queue", highlight=False)
            else:
                stop.set()
                err.print(
                    "stopping after the current job (again: hand it back now)", highlight=False
                )

        before = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        _log_progress()
        console.print(
            f"worker {worker_name} judging {loaded.name} on {_shown(loaded.judge.database)}; "
            "Ctrl-C stops it.",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        try:
            stats = run_worker(
                loaded.judge.database, loaded, name=worker_name, stop=stop, abandon=abandon
            )
        except StorageError as exc:
            raise _fail(str(exc)) from None
        finally:
            for s, handler in before.items():
                signal.signal(s, handler)
        console.print(
            f"worker {worker_name} stopped: {stats.completed} jobs done, {stats.failed} failed, "
            f"{stats.abandoned} handed back",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )


@judge_app.command("serve")
def serve(
    contest: Annotated[Path, typer.Argument(help="The contest file (TOML).")],
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=0,
            help="Workers started beside the website "
            "(default: the contest file's [judge] workers; 0: none).",
        ),
    ] = None,
    host: Annotated[
        str | None,
        typer.Option(
            "--host",
            help="Address to listen on (default: [judge] host; 0.0.0.0 for the whole network).",
        ),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option("--port", min=0, max=65535, help="Port (default: [judge] port)."),
    ] = None,
    db: DbOption = None,
) -> None:
    """Run the judge: the website and its workers, until Ctrl-C or SIGTERM.

    Students sign up, upload bots and watch each submission get built, tested and
    qualified. Stopping lets the workers finish their current step (at most a few
    seconds, then the job goes back to the queue): nothing is lost.

    Example: lightcycle judge serve my-course.toml --workers 2 --port 8080
    """
    from lightcycle.judge.web.serve import ServeError
    from lightcycle.judge.web.serve import serve as run_judge
    from lightcycle.storage import StorageError

    with user_errors():
        load(contest, db)  # a bad contest file: its one-line error, exit 2
        _log_progress()
        try:
            run_judge(contest, workers=workers, host=host, port=port, db=db)
        except (ServeError, StorageError) as exc:
            raise _fail(str(exc)) from None


@admin_app.command("add")
def admin_add(
    email: Annotated[str, typer.Argument(help="The email of a user who has signed up.")],
    contest: Annotated[
        Path | None,
        typer.Argument(help="The contest file, for its database (or give --db)."),
    ] = None,
    db: DbOption = None,
) -> None:
    """Make a signed-up user an admin (they see internal errors and every submission).

    Example: lightcycle judge admin add teacher@example.org my-course.toml
    """
    from lightcycle.judge.service.store import JudgeStore
    from lightcycle.storage import StorageError

    with user_errors():
        if db is None:
            if contest is None:
                raise _fail("give the contest file or --db URL: which judge's database?")
            loaded = load(contest, None)
            db = loaded.judge.database
        try:
            with JudgeStore(db) as store:
                found = store.set_admin(email)
        except StorageError as exc:
            raise _fail(str(exc)) from None
        if not found:
            raise _fail(
                f"no user {email.strip().lower()} in {_shown(db)}: sign up on the website first"
            )
        console.print(
            f"{email.strip().lower()} is an admin", markup=False, highlight=False, soft_wrap=True
        )


LadderContest = Annotated[
    Path, typer.Argument(help='The contest file (TOML) with [official] mode = "ladder".')
]


@ladder_app.command("on")
def ladder_on(contest: LadderContest, db: DbOption = None) -> None:
    """Start the ladder: keep [official] ladder_parallel rated matches queued or running.

    Workers play them; each result updates the players' OpenSkill ratings and queues the
    next match. Needs [official] mode = "ladder" in the contest file.

    Example: lightcycle judge ladder on my-ladder.toml
    """
    _ladder_switch(contest, db, on=True)


@ladder_app.command("off")
def ladder_off(contest: LadderContest, db: DbOption = None) -> None:
    """Stop the ladder: no new matches (those queued or running still play and count).

    Example: lightcycle judge ladder off my-ladder.toml
    """
    _ladder_switch(contest, db, on=False)


@ladder_app.command("status")
def ladder_status(contest: LadderContest, db: DbOption = None) -> None:
    """Show whether the ladder is on, its matches, and its table (by mu - 3 sigma).

    Example: lightcycle judge ladder status my-ladder.toml --db sqlite:///judge.db
    """
    from lightcycle.judge.service import ladder
    from lightcycle.judge.service.store import JudgeStore
    from lightcycle.storage import StorageError

    with user_errors():
        loaded = load(contest, db)
        try:
            with JudgeStore(loaded.judge.database) as store, store.engine.connect() as conn:
                st = ladder.status(conn, loaded)
                table = ladder.leaderboard(conn)
        except StorageError as exc:
            raise _fail(str(exc)) from None
        console.print(
            f"ladder {'on' if st.on else 'off'} ([official] mode = {st.mode}): "
            f"{st.in_flight} of {st.parallel} matches in flight, {st.done} played, "
            f"{st.failed} failed",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        if not table:
            console.print("no player has an accepted program yet", highlight=False)
            return
        console.print(" rank  player        mu  sigma  mu-3sigma  games", highlight=False)
        for row in table:
            console.print(
                f"{row.rank:5d}  {row.name:<12} {row.mu:5.1f}  {row.sigma:5.2f}  "
                f"{row.ordinal:9.2f}  {row.games:5d}",
                markup=False,
                highlight=False,
            )


def _ladder_switch(contest: Path, db: str | None, *, on: bool) -> None:
    from lightcycle.judge.service.ladder import LadderError, set_ladder
    from lightcycle.judge.service.store import JudgeStore
    from lightcycle.storage import StorageError

    with user_errors():
        loaded = load(contest, db)
        try:
            with JudgeStore(loaded.judge.database) as store:
                created = set_ladder(store.engine, loaded, on)
        except (LadderError, StorageError) as exc:
            raise _fail(str(exc)) from None
        if on:
            message = (
                f"ladder on: {len(created)} matches queued "
                f"(kept at {loaded.official.ladder_parallel} while workers play them)"
            )
        else:
            message = "ladder off: no new matches; those in flight still play and count"
        console.print(message, markup=False, highlight=False, soft_wrap=True)


RoundContest = Annotated[
    Path, typer.Argument(help='The contest file (TOML) with [official] mode = "elimination".')
]


@round_app.command("start")
def round_start(contest: RoundContest, db: DbOption = None) -> None:
    """Start an official round now (and, by [official] rounds_per_start, the rounds after).

    The players still in the competition are entered with their official programs;
    the round's matches are played by the judge's workers (judge serve or judge worker),
    stage after stage, until one player is out.

    Example: lightcycle judge round start my-course.toml --db sqlite:///judge.db
    """
    from lightcycle.judge.service import rounds
    from lightcycle.judge.service.store import JudgeStore
    from lightcycle.storage import StorageError

    with user_errors():
        loaded = load(contest, db)
        try:
            with JudgeStore(loaded.judge.database) as store:
                rid = rounds.start_round(store.engine, loaded)
                with store.engine.connect() as conn:
                    detail = rounds.round_detail(conn, rid)
        except rounds.RoundError as exc:
            raise _fail(f"no round started: {exc}") from None
        except StorageError as exc:
            raise _fail(str(exc)) from None
        assert detail is not None
        groups = len(detail.stages[0].matches) if detail.stages else 0
        console.print(
            f"round {detail.round.number} started: {detail.round.entrants} players in "
            f"{groups} groups of {loaded.official.group_size}; the workers play its matches "
            f"(see: lightcycle judge round status {contest})",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )


@round_app.command("status")
def round_status(contest: RoundContest, db: DbOption = None) -> None:
    """Show the running round (stage, matches played, who is safe), the last rounds and
    the standings.

    Example: lightcycle judge round status my-course.toml --db sqlite:///judge.db
    """
    from lightcycle.judge.service import rounds
    from lightcycle.judge.service.store import JudgeStore
    from lightcycle.storage import StorageError

    with user_errors():
        loaded = load(contest, db)
        try:
            with JudgeStore(loaded.judge.database) as store, store.engine.connect() as conn:
                listed = rounds.rounds_list(conn)
                running = rounds.current_round(conn)
                detail = rounds.round_detail(conn, running.id) if running else None
                table = rounds.standings(conn)
        except StorageError as exc:
            raise _fail(str(exc)) from None
        spec = loaded.official
        left = sum(1 for s in table if s.status != "out")
        lines = [
            f"[official] mode = {spec.mode}, finalists = {spec.finalists}, group_size = "
            f"{spec.group_size}: {left} players in the competition, {len(listed)} rounds"
        ]
        if detail is not None:
            r = detail.round
            safe = [e.name for e in detail.entries if e.status == "safe"]
            playing = [e.name for e in detail.entries if e.status == "playing"]
            lines.append(
                f"round {r.number} running: stage {r.stage}, {r.matches_done} of "
                f"{r.matches_total} matches ended; playing: {', '.join(playing) or '-'}; "
                f"safe: {', '.join(safe) or '-'}"
            )
        for r in listed[:5]:
            if r.state != "running":
                lines.append(f"round {r.number} {r.state}: {r.note}")
        for s in table:
            where = f"out in round {s.out_round}" if s.status == "out" else s.status
            lines.append(f"  {s.name:<12} {where}")
        for line in lines:
            console.print(line, markup=False, highlight=False, soft_wrap=True)


def _shown(url: str) -> str:
    from lightcycle.storage import display_url

    return display_url(url)


def _log_progress() -> None:
    """Show the judge's own progress (jobs claimed, steps done) with a time stamp, and
    only warnings from the libraries under it (alembic's set-up chatter is not news)."""
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(message)s")
    logging.getLogger("lightcycle").setLevel(logging.INFO)
