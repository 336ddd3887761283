"""The tournament runner: schedule, play on every core, commit in order, resume.

``run_tournament(plan)`` does, until the format has nothing left to schedule:

1. ask the format for the schedule given the results stored so far, check that the
   matches already stored are exactly its first ones (the same file and seed give the
   same schedule), and store the new ones;
2. play the missing matches through a `concurrent.futures.Executor`: by default a
   process pool with one worker per core (``workers=1`` plays in this process; any
   executor can be passed in, a cluster's for instance). Matches go out in batches of
   about `BATCH_SECONDS` of play (`BatchSizer`), two batches in flight per worker, so a
   pool's per-task cost stays small beside games of a few milliseconds;
3. commit each result with its rating updates, **in schedule order**: a match that
   finishes early waits in memory for the ones before it. Ratings then do not depend on
   the number of workers or on interruptions, and the stored results are always a
   prefix of the schedule. The consecutive matches ready at one moment go into one
   transaction (each whole, with its updates), which saves a commit per match.

Killed at any moment, the store holds a prefix of whole matches; the same command then
plays only what is missing. What a kill loses is the games running or finished but not
yet committed (at most the batches in flight, plus any waiting for a slower earlier
one); they are played again, with the same seeds, so the results are the same.

Before resuming, the runner runs the consistency check (`lightcycle.tournament.check`)
and refuses a store that fails it.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass

from lightcycle.tournament.check import check
from lightcycle.tournament.elimination import format_notes
from lightcycle.tournament.plan import Plan
from lightcycle.tournament.play import (
    MatchBatch,
    MatchOrder,
    MatchSetup,
    PackedSetup,
    init_worker,
    play_batch,
    pool_batch,
)
from lightcycle.tournament.ratings import RatingBook, RatingUpdate
from lightcycle.tournament.results import MatchResult, SeatResult
from lightcycle.tournament.schedule import Format, Pairing
from lightcycle.tournament.standings import Standing, Tally
from lightcycle.tournament.store import MatchRow, Store, StoreError, TournamentRow
from lightcycle.tournament.workers import InlineExecutor, PlayerCache, default_workers


@dataclass(frozen=True)
class RunProgress:
    """What the runner hands ``on_match`` after each commit (live displays).

    Several matches may be committed in one transaction; ``on_match`` is then called for
    each of them in schedule order, and ``tally``, ``book`` and ``results`` already hold
    the whole transaction. They are the runner's live objects: read them during the call,
    do not keep them.

    Attributes:
        done: matches finished, earlier runs included.
        scheduled: matches scheduled so far.
        final: whether ``scheduled`` is the whole tournament (Swiss and elimination
            schedule round by round).
        played: games played by this run.
        resumed: matches that were already stored when this run began.
        elapsed: seconds since this run began.
        tally: the standings so far.
        book: the ratings so far.
        format: the tournament's format (it ranks an elimination).
        results: the places of every finished match, by key.
    """

    done: int
    scheduled: int
    final: bool
    played: int
    resumed: int
    elapsed: float
    tally: Tally
    book: RatingBook
    format: Format
    results: Mapping[str, tuple[int, ...]]

    def standings(self) -> list[Standing]:
        """The standings so far, in the format's own order (as `tournament report` ranks)."""
        return self.tally.standings(self.book, self.format.ranking(self.results))

    def notes(self) -> dict[int, str]:
        """A word per entrant from the format so far (``out r3``), as the report shows."""
        return format_notes(self.format, self.results)


@dataclass(frozen=True)
class RunSummary:
    """What a run did.

    Attributes:
        tournament: the tournament's name.
        played: games this run played.
        byes: byes this run recorded.
        resumed: matches already stored when it began.
        total: matches in the whole tournament.
        wall_seconds: how long it ran.
        workers: parallel workers used.
    """

    tournament: str
    played: int
    byes: int
    resumed: int
    total: int
    wall_seconds: float
    workers: int


OnMatch = Callable[[MatchRow, MatchResult, RunProgress], None]


def _bye_points(plan: Plan) -> float:
    return float(getattr(plan.format, "bye_points", 1.0))


def open_tournament(plan: Plan, store: Store) -> TournamentRow:
    """The plan's tournament in ``store``: created on first use, else checked against it.

    A stored tournament with no finished match takes the file as it is now (its stored
    configuration, entrants and schedule are replaced): no result depends on the old one.

    Raises:
        StoreError: the stored tournament was started from a different file (the
            message lists what changed), or its entrants differ.
    """
    config = plan.config
    row = store.tournament(config.name)
    wanted = config.fingerprint_json()
    entrant_rows = [(e.name, e.spec_text, e.filler) for e in plan.entrants]
    if row is None:
        store.create_tournament(config.name, config.format, wanted, entrant_rows)
        row = store.tournament(config.name)
        assert row is not None
        return row
    stored = [(e.name, e.spec, e.filler) for e in store.entrants(row.id)]
    if (row.config != wanted or stored != entrant_rows) and not any(
        m.result_id is not None for m in store.matches(row.id)
    ):
        # nothing was played: the file may change freely (a run that stopped before its
        # first game, a bot fixed, a map added) and the stored one is replaced
        store.replace_tournament(row.id, config.format, wanted, entrant_rows)
        row = store.tournament(config.name)
        assert row is not None
        return row
    if row.config != wanted:
        old, new = json.loads(row.config), json.loads(wanted)
        changed = ", ".join(
            f"{k}: {json.dumps(old.get(k))} -> {json.dumps(new.get(k))}"
            for k in sorted(set(old) | set(new))
            if old.get(k) != new.get(k)
        )
        raise StoreError(
            f"tournament {config.name!r} in {store.url} was started from a different file "
            f"({changed}). Put the old values back to resume it, or set another name or "
            "out folder to start a new tournament."
        )
    if stored != entrant_rows:
        raise StoreError(
            f"tournament {config.name!r} in {store.url} has other entrants "
            f"({', '.join(n for n, _, _ in stored)}) than the file gives "
            f"({', '.join(n for n, _, _ in entrant_rows)}); start a new tournament"
        )
    return row


def _same(m: MatchRow, p: Pairing, map_id: str) -> bool:
    return (m.key, m.round, m.seats, m.map, m.seed) == (p.key, p.round, p.seats, map_id, p.seed)


def _sync_schedule(plan: Plan, store: Store, tid: int, pairings: list[Pairing]) -> list[MatchRow]:
    """Store the pairings not stored yet; check the stored ones are the same."""
    stored = store.matches(tid)
    if len(stored) > len(pairings):
        extra = stored[len(pairings)]
        raise StoreError(
            f"the store schedules match {extra.key}, which this file does not: "
            "it was started from a different file; run `lightcycle tournament check`"
        )
    for m, p in zip(stored, pairings, strict=False):
        if not _same(m, p, plan.maps[p.map].id):
            raise StoreError(
                f"stored match {m.key} ({m.label}) differs from the schedule's {p.key} "
                f"({p.label}): the store was written from a different file or version"
            )
    new = pairings[len(stored) :]
    store.add_matches(
        tid,
        [
            {
                "key": p.key,
                "seq": len(stored) + i,
                "round": p.round,
                "label": p.label,
                "map": plan.maps[p.map].id,
                "seed": p.seed,
                "seats": p.seats,
            }
            for i, p in enumerate(new)
        ],
    )
    return store.matches(tid) if new else stored


def match_setup(plan: Plan) -> MatchSetup:
    """What every match of the plan shares, as workers receive it."""
    return MatchSetup(
        maps=plan.maps,
        rulesets=plan.rulesets,
        names=tuple(e.name for e in plan.entrants),
        specs=tuple(e.spec for e in plan.entrants),
        controls=plan.controls,
        limits=plan.limits,
        out_dir=str(plan.config.out),
    )


BATCH_SECONDS = 0.1
"""Playing time a batch of matches aims at: short enough that progress and the live table
move several times a second and a kill loses little, long enough that a pool's round
trip per task (about half a millisecond of CPU) is small beside the games."""

MAX_BATCH = 64
"""Matches a batch holds at most, whatever the games' length."""


class BatchSizer:
    """How many matches the next batch holds, from how long games have taken so far.

    The first batches hold one match each (nothing is known yet); after that a batch
    holds about `BATCH_SECONDS` of games, but never more than an even share of what is
    left among the batches in flight (at least two shares), so the last matches of a
    round spread over every worker instead of queueing behind one, and even one worker
    commits the end of a round in several steps.

    Args:
        in_flight: batches kept running at once.
    """

    def __init__(self, in_flight: int) -> None:
        self.in_flight = in_flight
        self.games = 0
        self.seconds = 0.0

    def add(self, results: list[MatchResult]) -> None:
        """Learn from a finished batch."""
        self.games += len(results)
        self.seconds += sum(r.wall_seconds for r in results)

    def size(self, left: int) -> int:
        """The next batch's size with ``left`` matches still to send."""
        if self.games == 0:
            return 1
        per_game = max(self.seconds / self.games, 1e-4)
        share = -(-left // max(2, self.in_flight))  # ceil
        return max(1, min(MAX_BATCH, int(BATCH_SECONDS / per_game), share))


def run_tournament(
    plan: Plan,
    store: Store | None = None,
    workers: int | None = None,
    executor: Executor | None = None,
    on_match: OnMatch | None = None,
) -> RunSummary:
    """Play the tournament to its end, or whatever is missing of it.

    Args:
        plan: the tournament (`lightcycle.tournament.plan.make_plan`).
        store: the database; ``None`` opens the plan's (and closes it at the end).
        workers: matches played at once; ``None``: the file's ``workers``, else one per
            core; 1: in this process.
        executor: where matches run instead of the default pool (not shut down here);
            its workers start players per match unless it ran `init_worker`.
        on_match: called in this process after each commit.

    Raises:
        StoreError: the store holds another tournament under this name, or fails the
            consistency check (run ``lightcycle tournament check``).
    """
    t0 = time.perf_counter()
    own_store = store is None
    db = store if store is not None else Store(plan.config.database_url)
    workers = workers or plan.config.workers or default_workers()
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    plan.config.out.mkdir(parents=True, exist_ok=True)
    own_pool: ProcessPoolExecutor | None = None
    inline: PlayerCache | None = None
    try:
        row = open_tournament(plan, db)
        tid = row.id
        problems = [p for p in check(db, tid) if p.repairable]
        if problems:
            first = problems[0]
            raise StoreError(
                f"the store fails its consistency check at match {first.key}: {first.message}. "
                f"Run `lightcycle tournament check FILE --repair` to delete the results from "
                "there on, then run again to play them"
            )
        names = [e.name for e in plan.entrants]
        ids = db.entrant_ids(tid)
        book = RatingBook()
        tally = Tally(names, [e.index for e in plan.entrants if e.filler], _bye_points(plan))
        results: dict[str, tuple[int, ...]] = {}
        updates = db.rating_updates(tid)
        for sr in db.results(tid):
            assert sr.match.result_id is not None
            book.apply(updates.get(sr.match.result_id, []))
            tally.add(sr.result)
            results[sr.match.key] = sr.result.ranks
        resumed = len(results)
        played = byes = 0
        map_index = {spec.id: i for i, spec in enumerate(plan.maps)}

        if executor is None and workers == 1:
            inline = PlayerCache()
            executor = InlineExecutor()
        runner = executor
        # a second batch queued per worker hides the round trip and the commit between them
        in_flight = 1 if inline is not None else 2 * workers
        sizer = BatchSizer(in_flight)
        setup = PackedSetup.pack(match_setup(plan))

        def submit(batch: MatchBatch) -> Future[list[MatchResult]]:
            nonlocal own_pool, runner
            if inline is not None:
                assert runner is not None
                return runner.submit(play_batch, batch, inline)
            if runner is None:
                # spawn, not fork: the parent may run threads (a progress display), and
                # forking a threaded process can copy a held lock into the child.
                own_pool = ProcessPoolExecutor(
                    max_workers=workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=init_worker,
                    initargs=(os.getpid(),),
                )
                runner = own_pool
            return runner.submit(pool_batch, batch)

        while True:
            sched = plan.format.schedule(results)
            scheduled = _sync_schedule(plan, db, tid, sched.pairings)
            pending = [m for m in scheduled if m.result_id is None]
            if not pending:
                if sched.final:
                    break
                raise RuntimeError(  # pragma: no cover -- a format bug, not a user error
                    f"{plan.format.name} scheduled nothing new with every match played"
                )
            running: dict[Future[list[MatchResult]], list[int]] = {}
            finished: dict[int, MatchResult] = {}
            next_submit = next_commit = 0
            try:
                while next_commit < len(pending):
                    # every match ready in schedule order goes into one transaction, each
                    # with its own rating updates (rated here, in order, before the commit)
                    ready: list[tuple[MatchRow, MatchResult, list[RatingUpdate]]] = []
                    while next_commit < len(pending):
                        m = pending[next_commit]
                        ups: list[RatingUpdate] = []
                        if len(m.seats) == 1:
                            seat = SeatResult(0, m.seats[0], 1, outcome="bye")
                            res = MatchResult(m.key, "bye", 0, (seat,))
                        elif next_commit in finished:
                            res = finished.pop(next_commit)
                            ups = book.rate([(names[s.entrant], s.rank) for s in res.seats])
                        else:
                            break
                        ready.append((m, res, ups))
                        next_commit += 1
                    if ready:
                        db.record_many(tid, ready, ids)
                        for m, res, _ in ready:
                            tally.add(res)
                            results[m.key] = res.ranks
                        done_before = len(results) - len(ready)
                        for i, (m, res, _) in enumerate(ready):
                            if len(res.seats) == 1:
                                byes += 1
                            else:
                                played += 1
                            if on_match is not None:
                                on_match(
                                    m,
                                    res,
                                    RunProgress(
                                        done_before + i + 1,
                                        len(scheduled),
                                        sched.final,
                                        played,
                                        resumed,
                                        time.perf_counter() - t0,
                                        tally,
                                        book,
                                        plan.format,
                                        results,
                                    ),
                                )
                    next_submit = max(next_submit, next_commit)
                    while next_submit < len(pending) and len(running) < in_flight:
                        size = sizer.size(len(pending) - next_submit)
                        batch: list[int] = []
                        while next_submit < len(pending) and len(batch) < size:
                            if len(pending[next_submit].seats) > 1:
                                batch.append(next_submit)
                            next_submit += 1
                        if batch:
                            orders = tuple(
                                MatchOrder(
                                    pending[i].key,
                                    map_index[pending[i].map],
                                    pending[i].seed,
                                    pending[i].seats,
                                )
                                for i in batch
                            )
                            running[submit(MatchBatch(setup, orders))] = batch
                    if not running:
                        continue
                    done, _ = wait(list(running), return_when=FIRST_COMPLETED)
                    for fut in done:
                        indices = running.pop(fut)
                        played_batch = fut.result()
                        sizer.add(played_batch)
                        finished.update(zip(indices, played_batch, strict=True))
            finally:
                for fut in running:
                    fut.cancel()
        total = len(db.matches(tid))
    finally:
        if own_pool is not None:
            own_pool.shutdown(wait=True, cancel_futures=True)
        if inline is not None:
            inline.shutdown()
        if own_store:
            db.close()
    return RunSummary(
        tournament=plan.config.name,
        played=played,
        byes=byes,
        resumed=resumed,
        total=total,
        wall_seconds=time.perf_counter() - t0,
        workers=workers,
    )
