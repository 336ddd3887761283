"""An official round under load: an elimination round played to the end by real workers
while simulated users browse the judge's public pages over real HTTP.

Usage:
    python bench/judge_rounds.py                                   # 24 users: a quick check
    python bench/judge_rounds.py --users 200 --programs 300 --browsers 30   # the issue's size

The contest is the free-for-all's rules on a small map: ``ffa@1`` on ``arena-15``, four
to a game, the ``aichallenge`` protocol, 0.5 s a move, 64 MiB, sandbox ``auto``, official
play by elimination in groups of 4 (``builtin:random`` fills a short group), one round
(``rounds_per_start = 1``). Four-player games, not duels: the course's rounds are 4 to a
game, and a 4-player stage keeps half its players (ranks 1 and 2 beat 2 of 3 rivals), so
200 players take about 100 matches in about 8 stages, against about 200 matches for duels.
On ``arena-15`` a game of four C bots lasts a fraction of a second, so the round takes a
couple of minutes on 2 cores and most of its time is the judge's own (sandboxes, queue,
recording), which is what this measures.

Making the contest is not measured, and is made fast: a few variants of the aichallenge
starter bot (examples/aichallenge/bot.c, each looking at its moves from another side and
breaking ties its own way) are built ONCE with the judge's own build step
(``pipeline.build_source``, in the sandbox), then ``--users`` users and ``--programs``
accepted submissions carrying those artifacts are inserted straight into the judge's
tables (users, player names, blobs, submissions); some users have 2 or 3 programs and
choose one for official play (or leave the choice to their newest one).

Then: the website (``lightcycle judge serve --workers 0``, a real uvicorn on 127.0.0.1 at
a free port) and ``--workers`` real ``lightcycle judge worker`` processes start on the
same database (PostgreSQL by default: a throwaway server, as bench/judge_throughput.py
starts one), the round starts (``rounds.start_round``), and ``--browsers`` threads browse
as people do: each opens a page (the official page with the standings, the running round
and the hall of fame; the round's page; a match's page; a match's game in the viewer;
``--logged-in`` of them log in first with the site's form and also open their own pages),
stays on it for an exponential time of mean ``--think`` s while the page does what its
script does (bench/judgeweb.py ``stay``: polled parts fetched every few seconds until
final, the official pages' event stream held open and their parts fetched again at each
event), then opens another. Every request's latency (to the last byte of the body) is kept
with the phase it started in: ``load`` while the round runs, then ``idle``
(``--idle-seconds`` once the last match is recorded: the workers idle, the same clients
on the same pages, with all their content): the ratio of the two is the cost of the load.
Clicked pages and the parts pages fetch by themselves are reported apart; so is how long a
result took to reach an open page's event stream.

At the end the database is checked: every match of the round recorded once (one done row,
one done ``match:ID`` job, every seat written), the workers completed exactly as many
jobs as there are matches (no job done twice, none taken away), every entrant is the
user's official program, and the round's eliminated player is consistent with the ranks
(each stage's players, who went on, the one left out). The script exits 1 when a check
fails. The load average is printed before and after.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import re
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

import sqlalchemy as sa  # noqa: E402

from judge_throughput import database_maker, load, stamp, workers  # noqa: E402
from judgeweb import Client, StreamRecord, cpu_seconds, pct, stay, website  # noqa: E402
from lightcycle.judge.service import tables as t  # noqa: E402
from lightcycle.judge.service.contest import Contest  # noqa: E402
from lightcycle.judge.service.contest_file import load_contest  # noqa: E402
from lightcycle.judge.service.queue import put_blob  # noqa: E402
from lightcycle.judge.service.store import JudgeStore  # noqa: E402
from lightcycle.storage import begin_write  # noqa: E402
from roundcheck import Played, check, read_round, worker_totals  # noqa: E402

CONTEST = """\
[contest]
name = "bench-rounds"
title = "official round benchmark"
ruleset = "ffa@1"
maps = ["arena-15"]
players = 4

[limits]
move_time = 0.5
first_move_time = 1.5
memory = 64

[languages]
allowed = ["c"]

[validation]
protocol = "aichallenge"
self_play_copies = 4
reference = "builtin:random"
qualify_games = 1
reference_seats = 3

[official]
mode = "elimination"
finalists = 1
rounds_per_start = 1
group_size = 4
filler = "builtin:random"

[judge]
database = "sqlite:///unused.db"
secret_key_file = "bench.secret"
sandbox = "auto"
"""

PASSWORD = "bench-password"
"""Every simulated user's password (one scrypt hash, computed once, for all of them)."""

ROUTES = {
    "official": "/official",
    "round": "/official/rounds/{round}",
    "match": "/matches/{match}",
    "game": "/matches/{match}/game",
    "home": "/",
    "matches": "/matches",
    "programs": "/programs",
    "submission": "/submissions/{sid}",
}
"""The pages the simulated users open (the judge's own URLs): the official page
(standings, the running round, the hall of fame), a round's page, a match's page and its
game in the viewer; a logged-in user's own pages."""

PUBLIC = (("official", 4), ("round", 3), ("match", 4), ("game", 1))
OWN = (("home", 2), ("matches", 1), ("programs", 1), ("submission", 1))
"""What a browser opens, with weights: a logged-in user adds their own pages."""

PARTS = ("live part", "polled part")
"""What an open page fetches by itself (`judgeweb.stay`): not a click, reported apart."""

ROUND_TIMEOUT = 1800.0
"""Seconds the round may take before the script gives up (a stuck judge, not a slow one)."""


# -- the contest's programs ------------------------------------------------------------------


def variants(count: int) -> list[bytes]:
    """``count`` sources of the aichallenge starter bot, each scanning its four moves from
    another side (``BENCH_START``) and breaking ties its own way (``BENCH_CMP``)."""
    base = (ROOT / "examples" / "aichallenge" / "bot.c").read_text()
    loop = "    for (int h = 0; h < 4; h++) {\n"
    better = "if (score > best_score) {"
    if loop not in base or better not in base:
        raise SystemExit("examples/aichallenge/bot.c changed: update variants() in this script")
    body = base.replace(
        loop, "    for (int i = 0; i < 4; i++) {\n        int h = (i + BENCH_START) % 4;\n"
    ).replace(better, "if (score BENCH_CMP best_score) {")
    return [
        f"#define BENCH_START {k % 4}\n#define BENCH_CMP {'>' if k // 4 % 2 == 0 else '>='}\n"
        f"#define BENCH_VARIANT {k}\n{body}".encode()
        for k in range(count)
    ]


def build_variants(contest: Contest, count: int) -> list[tuple[bytes, bytes]]:
    """Each variant's (source, artifact), built once by the judge's own build step."""
    from lightcycle.judge.service.languages import language_for
    from lightcycle.judge.service.pipeline import build_source

    out = []
    for source in variants(count):
        language = language_for("c", source, contest.ruleset, dict(contest.languages))
        built = build_source(language, "bot.c", source, contest)
        if not built.ok or built.artifact is None:
            raise SystemExit(f"a bot variant did not build: {built.reason}")
        out.append((source, built.artifact))
    return out


@dataclass
class People:
    """Who the contest has: ``official[user] = sid`` that must play, the logins, and each
    user's submissions."""

    official: dict[int, int]
    emails: dict[int, str]
    programs: dict[int, list[int]]


def populate(
    store: JudgeStore, users: int, programs: int, built: list[tuple[bytes, bytes]], seed: int
) -> People:
    """Insert the users and their accepted submissions (see the module docstring)."""
    from lightcycle.storage.passwords import hash_secret

    rng = random.Random(seed)
    owner = list(range(users))  # every user one program, then extras: at most 3 each
    count = Counter(owner)
    while len(owner) < programs:
        u = rng.choice([u for u in range(users) if count[u] < 3])
        owner.append(u)
        count[u] += 1
    rng.shuffle(owner)  # uploads interleave: a user's programs are not side by side
    hashed = hash_secret(PASSWORD)
    start = time.time() - len(owner) - 60
    people = People({}, {}, {})
    with begin_write(store.engine) as conn:
        ids = []
        for u in range(users):
            email = f"user{u:04d}@bench.example.org"
            uid = t.inserted_id(
                conn.execute(
                    sa.insert(t.users).values(
                        email=email, password_hash=hashed, is_admin=False, created_at=t.now()
                    )
                )
            )
            ids.append(uid)
            people.emails[uid] = email
        artifacts = [(put_blob(conn, src), put_blob(conn, art)) for src, art in built]
        for i, u in enumerate(owner):
            uid = ids[u]
            name = f"u{u:04d}v{len(people.programs.get(uid, [])) + 1}"
            src_sha, art_sha = artifacts[rng.randrange(len(artifacts))]
            at = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(start + i)) + ".000000Z"
            conn.execute(
                sa.insert(t.names).values(
                    key=name.casefold(), name=name, user_id=uid, reserved_at=at
                )
            )
            sid = t.inserted_id(
                conn.execute(
                    sa.insert(t.submissions).values(
                        user_id=uid,
                        name=name,
                        language="c",
                        filename="bot.c",
                        source_sha256=src_sha,
                        state="accepted",
                        reason="",
                        created_at=at,
                        updated_at=at,
                        accepted_at=at,
                        artifact_sha256=art_sha,
                    )
                )
            )
            people.programs.setdefault(uid, []).append(sid)
        for uid, sids in people.programs.items():
            chosen = rng.choice([None, *sids]) if len(sids) > 1 else None
            if chosen is not None:
                conn.execute(
                    sa.update(t.users)
                    .where(t.users.c.id == uid)
                    .values(official_submission_id=chosen)
                )
            people.official[uid] = chosen if chosen is not None else max(sids)
    return people


# -- the browsers ----------------------------------------------------------------------------


@dataclass
class Sample:
    """One page request: the phase it started in, which page, seconds, HTTP status."""

    phase: str
    kind: str
    seconds: float
    status: int
    path: str


@dataclass
class Site:
    """What the browsers share: the round and its matches as the script learns them, the
    current phase (``None``: not measured), the samples, the stop signal."""

    port: int
    round_id: int | None = None
    matches: list[int] = field(default_factory=list)
    done: list[int] = field(default_factory=list)
    phase: str | None = None
    samples: list[Sample] = field(default_factory=list)
    streams: list[StreamRecord] = field(default_factory=list)
    windows: dict[str, tuple[float, float]] = field(default_factory=dict)
    stop: threading.Event = field(default_factory=threading.Event)


class Browser(threading.Thread):
    """A simulated user: opens a page, stays on it for an exponential time of mean
    ``think`` s while the page does what its script does (`judgeweb.stay`), opens
    another; a logged-in one (``email``) logs in first with the site's own form."""

    def __init__(
        self, site: Site, seed: int, think: float, email: str | None, own: list[int]
    ) -> None:
        super().__init__(name=f"browser-{seed}", daemon=True)
        self.site, self.think, self.email, self.own = site, think, email, own
        self.rng = random.Random(seed)
        self.client = Client(site.port)
        self.failure = ""

    def pick(self) -> tuple[str, str]:
        choices = list(PUBLIC) + (list(OWN) if self.email else [])
        kind = self.rng.choices([k for k, _ in choices], [w for _, w in choices])[0]
        site = self.site
        if kind in ("round", "match", "game") and site.round_id is None:
            kind = "official"
        if kind == "game" and not site.done:  # a match's game is linked once it is played
            kind = "match"
        if kind == "match" and not site.matches:
            kind = "round"
        values = {"round": site.round_id}
        if kind in ("match", "game"):
            values["match"] = self.rng.choice(site.matches if kind == "match" else site.done)
        if kind == "submission":
            values["sid"] = self.rng.choice(self.own)
        return kind, ROUTES[kind].format(**values)

    def fetch(self, kind: str, path: str) -> bytes | None:
        """GET ``path`` and keep its latency under ``kind``: the body, None if not 200."""
        phase = self.site.phase
        began = time.perf_counter()
        try:
            status, body = self.client.request("GET", path)
        except (OSError, http.client.HTTPException):
            status, body = 0, b""
        took = time.perf_counter() - began
        if phase is not None:
            self.site.samples.append(Sample(phase, kind, took, status, path))
        return body if status == 200 else None

    def run(self) -> None:
        try:
            if self.email:
                self.client.log_in(self.email, PASSWORD)
        except (OSError, http.client.HTTPException, RuntimeError) as exc:
            self.failure = f"{self.email}: {exc}"
            return
        site = self.site
        while not site.stop.is_set():
            page = self.fetch(*self.pick())
            until = time.monotonic() + self.rng.expovariate(1 / self.think)
            if page is None:
                site.stop.wait(until - time.monotonic())
            else:
                stay(self.client, page, until, site.stop, self.fetch, site.streams)
        self.client.close()


# -- the round -------------------------------------------------------------------------------


def play_round(
    store: JudgeStore, contest: Contest, site: Site, idle_seconds: float, server_pid: int, seed: int
) -> tuple[dict[str, float], dict[str, float]]:
    """Start the round, follow it to its end (the ``load`` phase), then ``idle``; returns
    each phase's seconds and the website's CPU seconds in it."""
    from lightcycle.judge.service.rounds import start_round

    cpu, seconds = {}, {}
    site.phase = "load"
    before, began = cpu_seconds(server_pid), time.monotonic()
    rid = start_round(store.engine, contest, seed=seed)
    site.round_id = rid
    shown = began
    while True:
        with store.engine.connect() as conn:
            state = conn.execute(sa.select(t.rounds.c.state).where(t.rounds.c.id == rid)).scalar()
            rows = conn.execute(
                sa.select(t.matches.c.id, t.matches.c.state).where(t.matches.c.round_id == rid)
            ).all()
        site.matches = [r.id for r in rows]
        site.done = [r.id for r in rows if r.state == "done"]
        if state != "running":
            break
        if time.monotonic() - began > ROUND_TIMEOUT:
            raise SystemExit(f"the round did not finish in {ROUND_TIMEOUT:.0f} s")
        if time.monotonic() - shown >= 15:
            shown = time.monotonic()
            done = sum(r.state in ("done", "internal_error") for r in rows)
            print(f"  {shown - began:5.0f} s: {done}/{len(rows)} matches", flush=True)
        time.sleep(0.5)
    cpu["load"], seconds["load"] = cpu_seconds(server_pid) - before, time.monotonic() - began
    site.windows["load"] = (time.time() - seconds["load"], time.time())
    site.phase = "idle"
    before, began = cpu_seconds(server_pid), time.monotonic()
    site.stop.wait(idle_seconds)
    cpu["idle"], seconds["idle"] = cpu_seconds(server_pid) - before, time.monotonic() - began
    site.windows["idle"] = (time.time() - seconds["idle"], time.time())
    site.phase = None
    return seconds, cpu


# -- the report ------------------------------------------------------------------------------


def report(played: Played, site: Site, cpu: dict[str, float], seconds: dict[str, float]) -> None:
    """The round's pace, the page latencies by phase and by page, the ratios."""
    r, ms = played.round, played.matches
    began = stamp(r.started_at)
    ended = max((stamp(m.finished_at) for m in ms if m.finished_at), default=began)
    wall = ended - began
    stages = sorted({m.stage for m in ms})
    print()
    print(
        f"round {r.number}: {len(played.entries)} entrants, {len(ms)} matches in "
        f"{len(stages)} stages, {wall:.1f} s from its start to the last result: "
        f"**{len(ms) / wall * 60:.1f} matches/min**; out: {r.out_name}"
    )
    print()
    print("| stage | matches | players | stage s (first created to last finished) |")
    print("|--:|--:|--:|--:|")
    for stage in stages:
        these = [m for m in ms if m.stage == stage]
        players = sum(s.user_id is not None for m in these for s in played.seats[m.id])
        first = min(stamp(m.created_at) for m in these)
        last = max(stamp(m.finished_at) for m in these if m.finished_at) if these else first
        print(f"| {stage} | {len(these)} | {players} | {last - first:.1f} |")
    print()
    print("| phase | page | requests | req/s | median ms | p95 ms | max ms | not 200 |")
    print("|---|---|--:|--:|--:|--:|--:|--:|")

    def shape(path: str) -> str:
        return re.sub(r"\d+", "N", path)

    def labels(s: Sample) -> tuple[str, str]:
        return ("all parts", shape(s.path)) if s.kind in PARTS else ("all pages", s.kind)

    shapes = sorted({shape(s.path) for s in site.samples if s.kind in PARTS})
    order = ["all pages", *ROUTES, "all parts", *shapes]
    for phase in ("load", "idle"):
        for label in order:
            these = [s for s in site.samples if s.phase == phase and label in labels(s)]
            if not these:
                continue
            took = [s.seconds * 1000 for s in these]
            errors = sum(s.status != 200 for s in these)
            print(
                f"| {phase} | {label} | {len(these)} | {len(these) / seconds[phase]:.1f} "
                f"| {pct(took, 0.5):.1f} | {pct(took, 0.95):.1f} | {max(took):.1f} | {errors} |"
            )
    bad = Counter(s.status for s in site.samples if s.status != 200)
    if bad:
        where = {s.status: s.path for s in site.samples if s.status != 200}
        said = ", ".join(
            f"{n} x {code or 'no answer'} (e.g. {where[code]})" for code, n in sorted(bad.items())
        )
        print(f"\nnot 200: {said}")
    print()
    for label, parts in (("pages", False), ("parts", True)):
        by_phase = {
            phase: [
                s.seconds for s in site.samples if s.phase == phase and (s.kind in PARTS) == parts
            ]
            for phase in ("load", "idle")
        }
        loaded, idle = by_phase["load"], by_phase["idle"]
        if loaded and idle:
            print(
                f"{label} under load / idle: median {pct(loaded, 0.5) / pct(idle, 0.5):.2f}x, "
                f"p95 {pct(loaded, 0.95) / pct(idle, 0.95):.2f}x"
            )
    delays = live_delays(site.streams, [stamp(m.finished_at) for m in ms if m.finished_at])
    if delays:
        print(
            f"live: {len(site.streams)} event streams held open; a result reached an open "
            f"page's stream {pct(delays, 0.5):.2f} s after the match was recorded (median; "
            f"p95 {pct(delays, 0.95):.2f} s, {len(delays)} result-page pairs)"
        )
    for phase in ("load", "idle"):
        n = sum(s.phase == phase for s in site.samples)
        start, end = site.windows[phase]
        held = sum(max(0.0, min(r.closed, end) - max(r.opened, start)) for r in site.streams)
        if n:
            print(
                f"website CPU, {phase}: {cpu[phase]:.1f} s in {seconds[phase]:.0f} s "
                f"({cpu[phase] / seconds[phase]:.0%} of a core; {n / seconds[phase]:.1f} "
                f"requests/s, {held / (end - start):.1f} event streams open on average)"
            )


def live_delays(streams: list[StreamRecord], finished: list[float]) -> list[float]:
    """For each result recorded while a page's event stream was open (and past its first
    event), the seconds until that stream's next event: how live the pages are."""
    out = []
    for stream in streams:
        if not stream.events:
            continue
        for f in finished:
            if stream.events[0] < f < stream.closed - 2.0:  # its event had time to come
                after = [e for e in stream.events if e >= f]
                if after:
                    out.append(after[0] - f)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=24, help="users (default 24; issue: 200)")
    parser.add_argument("--programs", type=int, help="accepted programs (default 1.5 x users)")
    parser.add_argument("--workers", type=int, default=4, help="judge workers (default 4)")
    parser.add_argument("--backend", choices=("postgresql", "sqlite"), default="postgresql")
    parser.add_argument("--browsers", type=int, default=20, help="simulated users (default 20)")
    parser.add_argument("--logged-in", type=int, default=4, help="of them logged in (default 4)")
    parser.add_argument("--think", type=float, default=3.0, help="mean s on a page (3.0)")
    parser.add_argument("--idle-seconds", type=float, default=20.0, help="idle phase (20 s)")
    parser.add_argument("--variants", type=int, default=8, help="bot variants built (8)")
    parser.add_argument("--seed", type=int, default=1, help="who owns what (default 1)")
    args = parser.parse_args()
    programs = args.programs if args.programs is not None else args.users * 3 // 2
    if args.users < 5 or not args.users <= programs <= 3 * args.users:
        parser.error("give at least 5 users, and between 1 and 3 programs a user")
    if not 0 <= args.logged_in <= min(args.browsers, args.users) or args.workers < 1:
        parser.error("--logged-in must be at most --browsers and --users; --workers at least 1")
    print(f"load average before: {load()} ({os.cpu_count()} cores)")
    print(
        f"contest: {args.users} users, {programs} accepted programs ({args.variants} C "
        f"variants); ffa@1 on arena-15, 4 a game; {args.workers} workers on {args.backend}; "
        f"{args.browsers} browsers ({args.logged_in} logged in), think {args.think} s",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="lightcycle-bench-rounds-") as tmp:
        folder = Path(tmp)
        logs = folder / "logs"
        logs.mkdir()
        path = folder / "contest.toml"
        path.write_text(CONTEST)
        contest = load_contest(path)
        built = build_variants(contest, args.variants)
        with database_maker(args.backend, folder) as make:
            if make is None:
                raise SystemExit("no PostgreSQL here (see above): give --backend sqlite")
            with make() as url, JudgeStore(url) as store:
                people = populate(store, args.users, programs, built, args.seed)
                with (
                    website(path, url, logs) as (port, pid),
                    workers(path, url, args.workers, logs),
                ):
                    site = Site(port)
                    accounts = list(people.emails.items())[: args.logged_in]
                    browsers = [
                        Browser(site, i, args.think, email, people.programs[uid])
                        for i, (uid, email) in enumerate(accounts)
                    ]
                    browsers += [
                        Browser(site, i, args.think, None, [])
                        for i in range(len(accounts), args.browsers)
                    ]
                    for b in browsers:
                        b.start()
                    try:
                        seconds, cpu = play_round(
                            store, contest, site, args.idle_seconds, pid, args.seed
                        )
                    finally:
                        site.stop.set()
                        for b in browsers:
                            b.join(60)
                    failures = [b.failure for b in browsers if b.failure]
                completed, taken = worker_totals(logs)
                assert site.round_id is not None
                played = read_round(store, site.round_id)
    report(played, site, cpu, seconds)
    wrong = check(played, people.official, contest.official.group_size, completed, taken)
    wrong += [f"a browser could not log in: {f}" for f in failures]
    print()
    if wrong:
        print("CHECKS FAILED:")
        for line in wrong[:20]:
            print(f"  {line}")
    else:
        print(
            f"checks: ok: {len(played.matches)} matches, each recorded once (one done row and "
            f"job, {contest.official.group_size} seats written); the workers completed "
            f"{completed} jobs, none twice; every entrant the official program; the player "
            "out consistent with the ranks"
        )
    print(f"load average after: {load()}")
    if wrong:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
