"""The checks of bench/judge_rounds.py: that an official round played by real workers was
recorded once and decided as the course says.

Read straight from the judge's tables after the round (`read_round`), so the checks trust
nothing the judge's own read models compute: every match one done row and one done
``match:ID`` job, every seat written; the workers' own logs (`worker_totals`) completed
exactly one job a match; the round's entrants are each user's official program as the
benchmark set them; and the stages agree with the ranks: each player played stages 1, 2,
... once each until it went on (or was the one left out), and a stage's players who went
on are those the course's rule names (`goes_on`), except where the rules for ties decide.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from lightcycle.judge.service import tables as t
from lightcycle.judge.service.store import JudgeStore


@dataclass
class Played:
    """The round as recorded: its row, entries, matches (with seats) and jobs."""

    round: Any
    entries: list[Any]
    matches: list[Any]
    seats: dict[int, list[Any]]
    jobs: dict[int, list[Any]]


def read_round(store: JudgeStore, rid: int) -> Played:
    """Everything the checks and the report need, in one read."""
    with store.engine.connect() as conn:
        row = conn.execute(sa.select(t.rounds).where(t.rounds.c.id == rid)).one()
        entries = conn.execute(
            sa.select(t.round_entries).where(t.round_entries.c.round_id == rid)
        ).all()
        cols = [c for c in t.matches.c if c.name != "replay"]
        matches = conn.execute(
            sa.select(*cols).where(t.matches.c.round_id == rid).order_by(t.matches.c.id)
        ).all()
        ids = [m.id for m in matches]
        seats: dict[int, list[Any]] = {i: [] for i in ids}
        jobs: dict[int, list[Any]] = {i: [] for i in ids}
        for s in conn.execute(sa.select(t.match_seats).where(t.match_seats.c.match_id.in_(ids))):
            seats[s.match_id].append(s)
        for j in conn.execute(sa.select(t.jobs).where(t.jobs.c.match_id.in_(ids))):
            jobs[j.match_id].append(j)
    return Played(row, list(entries), list(matches), seats, jobs)


def goes_on(seats: list[Any], seat: Any) -> bool:
    """The course's rule: a strictly better rank than more than half of its rivals."""
    rivals = [s for s in seats if s.seat != seat.seat]
    beaten = sum(
        s.rank is not None and seat.rank is not None and seat.rank < s.rank for s in rivals
    )
    return bool(beaten * 2 > len(rivals))


def check(
    played: Played, official: dict[int, int], group: int, completed: int, taken: int
) -> list[str]:
    """What is wrong with the recorded round (empty: every check passed)."""
    wrong = []
    r = played.round
    if r.state != "done" or r.finished_at is None:
        wrong.append(f"the round ended {r.state}, finished_at {r.finished_at}")
    states = Counter(m.state for m in played.matches)
    if set(states) != {"done"}:
        wrong.append(f"matches not all done: {dict(states)}")
    for m in played.matches:
        jobs, seats = played.jobs[m.id], played.seats[m.id]
        if len(jobs) != 1 or jobs[0].key != f"match:{m.id}" or jobs[0].state != "done":
            said = "; ".join(f"{j.key} {j.state} {j.error[:300]}".strip() for j in jobs)
            wrong.append(f"match {m.id}: jobs: {said or 'none'}")
        if len(seats) != group or any(s.rank is None or s.verdict is None for s in seats):
            wrong.append(f"match {m.id}: {len(seats)} seats, some without a result")
    if completed != len(played.matches):
        wrong.append(
            f"the workers completed {completed} jobs for {len(played.matches)} matches "
            f"({taken} taken away from a slow worker): a job done twice or lost"
        )
    entered = {e.user_id: e.submission_id for e in played.entries}
    if entered != official:
        bad = [u for u in set(entered) | set(official) if entered.get(u) != official.get(u)]
        wrong.append(
            f"{len(bad)} entrants are not their user's official program (e.g. user {bad[0]})"
        )
    out = [e for e in played.entries if e.out]
    if (
        len(out) != 1
        or out[0].user_id != r.out_user_id
        or out[0].submission_id != r.out_submission_id
    ):
        wrong.append(f"out: entries {[e.user_id for e in out]}, round says {r.out_user_id}")
    if any(e.safe_stage is None for e in played.entries if not e.out) or any(
        e.safe_stage is not None for e in out
    ):
        wrong.append("a player is both out and safe, or neither")
    wrong += check_stages(played)
    return wrong


def check_stages(played: Played) -> list[str]:
    """Each player played stages 1, 2, ... one match each, up to the stage it went on in
    (the last one for the player out); a stage's safe players are those the course's rule
    says, except where the tie rules decide (nobody, or everybody, goes on by the rule)."""
    wrong = []
    stages: dict[int, list[int]] = {}
    by_stage: dict[int, list[Any]] = {}
    for m in played.matches:
        by_stage.setdefault(m.stage, []).append(m)
        for s in played.seats[m.id]:
            if s.user_id is not None:
                stages.setdefault(s.user_id, []).append(m.stage)
    last = max(by_stage, default=0)
    for e in played.entries:
        mine = sorted(stages.get(e.user_id, []))
        upto = last if e.out else e.safe_stage
        if mine != list(range(1, (upto or 0) + 1)):
            wrong.append(f"user {e.user_id} played stages {mine}, safe at {e.safe_stage}")
    safe = {e.user_id: e.safe_stage for e in played.entries}
    for stage, ms in sorted(by_stage.items()):
        players = {s.user_id for m in ms for s in played.seats[m.id] if s.user_id is not None}
        ruled = {
            s.user_id
            for m in ms
            for s in played.seats[m.id]
            if s.user_id is not None and goes_on(played.seats[m.id], s)
        }
        recorded = {u for u in players if safe.get(u) == stage}
        if ruled != recorded and ruled and ruled != players:
            wrong.append(f"stage {stage}: {len(recorded)} went on, the rule says {len(ruled)}")
    return wrong


def worker_totals(logs: Path) -> tuple[int, int]:
    """Jobs the workers completed, and jobs taken away from one (from their logs)."""
    completed = taken = 0
    for log in logs.glob("worker-*.log"):
        text = log.read_text(errors="replace")
        completed += sum(int(n) for n in re.findall(r"stopped: (\d+) jobs done", text))
        taken += text.count("was taken away")
    return completed, taken
