"""Official elimination rounds in the database: started, advanced stage by stage, read.

The rules are `lightcycle.judge.service.elimination`'s (its docstring states them); this
module keeps a round's state in ``judge_rounds`` and ``judge_round_entries`` and plays
its stages as official matches (`lightcycle.judge.service.matches.create_match`).

- **Start** (`start_round`, by the admin, the CLI or the schedule): the players still in
  the competition (every user with an official program,
  `lightcycle.judge.service.social.official_players`, who has not been put out by an
  earlier round) are snapshotted as the round's entries, with the program each plays:
  a program chosen or uploaded later plays from the next round on, never in this one.
  Stage 1's matches are created in the same transaction.
- **Advance** (`on_match_done` / `on_match_failed`, called by
  `lightcycle.judge.service.matches` inside the transaction that records a match): when
  the last match of the stage has ended, the stage is decided and the next stage's
  matches are created, or the round ends with its player out (and the next round of the
  same start begins: ``[official] rounds_per_start``), all in that one transaction. A
  worker killed at any moment therefore loses nothing and nothing happens twice: either
  the match and everything it caused are recorded, or none of it, and the match is
  replayed. The round's row is locked first (``FOR UPDATE``), so two workers recording
  a stage's last two matches at once cannot both miss that the stage is complete.
- **Nothing is stored that can be recomputed**: a stage's decision is recomputed from
  its matches (`roundviews.decisions` replays the round's stages with
  `elimination.decide`), and
  the groups and game seeds come from the round's seed. The entries' ``safe_stage`` and
  ``out`` are written for the pages and for who may enter the next round.
- **The schedule** (`due_rounds`, `start_due`): ``[official] schedule`` names times of
  day (UTC); a time passed less than `SCHEDULE_GRACE` ago and not handled yet starts
  rounds, unless a round is running then (the time is skipped, not postponed). Each time
  is handled once, whatever the number of judge processes asking (its settings row).
"""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from lightcycle.judge.service import elimination, social
from lightcycle.judge.service.contest import Contest
from lightcycle.judge.service.matches import Entrant, create_match
from lightcycle.judge.service.roundviews import (
    CANCELLED,
    FINALISTS,
    FINISHED,
    ROUNDS_LEFT,
    RULES,
    RUNNING,
    SCHEDULE_DONE,
    EntryView,
    HallOfFame,
    RoundDetail,
    RoundSummary,
    StageView,
    Standing,
    current_round,
    decisions,
    get_setting,
    hall_of_fame,
    official_version,
    round_detail,
    rounds_list,
    standings,
)
from lightcycle.judge.service.tables import (
    DONE,
    INTERNAL_ERROR,
    MatchRow,
    SubmissionRow,
    inserted_id,
    matches,
    now,
    round_entries,
    rounds,
    settings,
)
from lightcycle.storage import begin_write

SCHEDULE_GRACE = dt.timedelta(minutes=10)
"""How late a scheduled time may still start its round (the scheduler looks every few
seconds; a judge stopped at that time does not make it up hours later)."""

__all__ = [  # the read models live in roundviews; the pages find them here too
    "EntryView",
    "HallOfFame",
    "RoundDetail",
    "RoundError",
    "RoundSummary",
    "StageView",
    "Standing",
    "current_round",
    "due_rounds",
    "hall_of_fame",
    "official_version",
    "on_match_done",
    "on_match_failed",
    "round_detail",
    "rounds_list",
    "standings",
    "start_due",
    "start_round",
]


class RoundError(ValueError):
    """A round that cannot start now; the message is one line saying why."""


# -- starting -------------------------------------------------------------------------


def start_round(
    engine: Engine, contest: Contest, started_by: int | None = None, *, seed: int | None = None
) -> int:
    """Start an official round now (and, by ``[official] rounds_per_start``, the rounds
    after it); returns the round's id.

    Raises:
        RoundError: the contest is not in elimination mode, a round is running, or too
            few players remain (one line).
    """
    with begin_write(engine) as conn:
        rid = _start(conn, contest, started_by, seed)
        left = contest.official.rounds_per_start - 1 if contest.official.rounds_per_start else -1
        _set(conn, ROUNDS_LEFT, str(left))
    return rid


def _start(conn: Connection, contest: Contest, started_by: int | None, seed: int | None) -> int:
    """Snapshot the entries and create stage 1, in the caller's transaction."""
    spec = contest.official
    if spec.mode != "elimination":
        raise RoundError(
            f'the contest\'s [official] mode is "{spec.mode}": rounds are played only with '
            'mode = "elimination"'
        )
    running = current_round(conn)
    if running is not None:
        raise RoundError(
            f"round {running.number} is running (stage {running.stage}); wait for it to end"
        )
    players = _in_competition(conn)
    if len(players) <= spec.finalists:
        raise RoundError(
            f"{len(players)} players are in the competition and [official] finalists = "
            f"{spec.finalists}: a round needs at least {spec.finalists + 1}"
        )
    number = (conn.execute(sa.select(sa.func.max(rounds.c.number))).scalar() or 0) + 1
    seed = secrets.randbelow(elimination.MAX_SEED) if seed is None else seed
    try:
        with conn.begin_nested():
            rid = inserted_id(
                conn.execute(
                    sa.insert(rounds).values(
                        number=number,
                        state=RUNNING,
                        seed=seed,
                        stage=1,
                        started_by=started_by,
                        started_at=now(),
                        note="",
                    )
                )
            )
    except sa.exc.IntegrityError:  # another judge process started one at this moment
        raise RoundError("another round was started at the same moment; see it") from None
    conn.execute(
        sa.insert(round_entries),
        [
            {
                "round_id": rid,
                "user_id": uid,
                "submission_id": sub.id,
                "name": sub.name,
                "safe_stage": None,
                "out": False,
            }
            for uid, sub in players
        ],
    )
    _create_stage(conn, contest, rid, seed, 1, [uid for uid, _ in players])
    _set(conn, FINALISTS, str(spec.finalists))
    return rid


def _in_competition(conn: Connection) -> list[tuple[int, SubmissionRow]]:
    """The official players no finished round has put out, in user id order."""
    out = set(
        conn.execute(
            sa.select(round_entries.c.user_id)
            .join(rounds, rounds.c.id == round_entries.c.round_id)
            .where(round_entries.c.out.is_(True), rounds.c.state == FINISHED)
        ).scalars()
    )
    return [(uid, sub) for uid, sub in social.official_players(conn) if uid not in out]


def _create_stage(
    conn: Connection, contest: Contest, rid: int, seed: int, stage: int, players: Sequence[int]
) -> None:
    """The stage's groups (drawn by the stage's own generator) as queued matches."""
    entries = {
        r.user_id: r
        for r in conn.execute(sa.select(round_entries).where(round_entries.c.round_id == rid))
    }
    groups = elimination.make_groups(  # in the order `elimination.run_round` uses
        list(players), contest.official.group_size, elimination.stage_rng(seed, stage)
    )
    for grp, group in enumerate(groups):
        entrants: list[Entrant] = []
        for uid in group:
            if uid is None:
                entrants.append(Entrant(None, None, f"dummy {len(entrants) + 1}"))
            else:
                e = entries[uid]
                entrants.append(Entrant(e.submission_id, uid, e.name))
        create_match(
            conn,
            contest,
            kind="official",
            entrants=entrants,
            seed=elimination.match_seed(seed, stage, grp),
            round_id=rid,
            stage=stage,
            grp=grp,
        )


# -- advancing (the matches' hooks) ---------------------------------------------------


def on_match_done(conn: Connection, match: MatchRow, contest: Contest | None) -> None:
    """An official match ended: decide its stage if it was the last (module docstring).

    Raises:
        RuntimeError: no contest was given while a next stage must be created (a judge
            bug: the worker passes its contest); the transaction is then rolled back.
    """
    if match.round_id is None or match.stage is None:
        return
    row = conn.execute(
        sa.select(rounds).where(rounds.c.id == match.round_id).with_for_update()
    ).first()
    if row is None or row.state != RUNNING or row.stage != match.stage:
        return  # a stale match of a stage already decided, or of a cancelled round
    states = conn.execute(
        sa.select(matches.c.state).where(matches.c.round_id == row.id, matches.c.stage == row.stage)
    ).scalars()
    if any(s not in (DONE, INTERNAL_ERROR) for s in states):
        return
    stage, decision = decisions(conn, row.id, row.seed)[-1]
    if stage != row.stage:  # pragma: no cover -- the stage just checked complete
        raise RuntimeError(f"round {row.number}: stage {row.stage} did not decide")
    stamp = now()
    if decision.safe:
        conn.execute(
            sa.update(round_entries)
            .where(
                round_entries.c.round_id == row.id,
                round_entries.c.user_id.in_(decision.safe),
            )
            .values(safe_stage=stage)
        )
    if decision.cancelled:
        note = (
            f"cancelled at stage {stage}: {decision.progress.failed} matches failed (the "
            "judge's fault, see the admin page); nobody is out"
        )
        conn.execute(
            sa.update(rounds)
            .where(rounds.c.id == row.id)
            .values(state=CANCELLED, finished_at=stamp, note=note)
        )
        _set(conn, ROUNDS_LEFT, "0")
        return
    if decision.out is not None:
        entry = conn.execute(
            sa.select(round_entries).where(
                round_entries.c.round_id == row.id, round_entries.c.user_id == decision.out
            )
        ).one()
        conn.execute(
            sa.update(round_entries)
            .where(round_entries.c.round_id == row.id, round_entries.c.user_id == decision.out)
            .values(out=True)
        )
        conn.execute(
            sa.update(rounds)
            .where(rounds.c.id == row.id)
            .values(
                state=FINISHED,
                finished_at=stamp,
                out_user_id=entry.user_id,
                out_submission_id=entry.submission_id,
                out_name=entry.name,
                note=f"{entry.name} is out after {stage} stages ({RULES[decision.rule]})",
            )
        )
        _next_round(conn, contest, row)
        return
    if contest is None:
        raise RuntimeError(f"round {row.number}: stage {stage + 1} needs the contest")
    conn.execute(sa.update(rounds).where(rounds.c.id == row.id).values(stage=stage + 1))
    _create_stage(conn, contest, row.id, row.seed, stage + 1, list(decision.remaining))


def on_match_failed(conn: Connection, match: MatchRow, contest: Contest | None) -> None:
    """An official match ended ``internal_error``: it counts as ended (rule 5 of
    `elimination`), so the stage is decided as for a played one."""
    on_match_done(conn, match, contest)


def _next_round(conn: Connection, contest: Contest | None, finished: Any) -> None:
    """Start the next round of the same start, if ``rounds_per_start`` asks for one and
    more than ``finalists`` players remain."""
    left = int(get_setting(conn, ROUNDS_LEFT) or "0")
    if left == 0 or contest is None:
        return
    if len(_in_competition(conn)) <= contest.official.finalists:
        _set(conn, ROUNDS_LEFT, "0")
        return
    try:
        with conn.begin_nested():  # a refusal must not undo the match being recorded
            _start(conn, contest, finished.started_by, elimination.next_round_seed(finished.seed))
    except RoundError:
        _set(conn, ROUNDS_LEFT, "0")
        return
    _set(conn, ROUNDS_LEFT, str(left - 1 if left > 0 else -1))


# -- the schedule ---------------------------------------------------------------------


def due_rounds(conn: Connection, contest: Contest, when: dt.datetime) -> list[str]:
    """The scheduled times (``YYYY-MM-DD HH:MM``, UTC) due at ``when``: passed less than
    `SCHEDULE_GRACE` ago and not handled yet (empty outside elimination mode). A time
    missed while the judge was stopped is not made up hours later."""
    spec = contest.official
    if spec.mode != "elimination" or not spec.schedule:
        return []
    utc = when.astimezone(dt.UTC) if when.tzinfo else when.replace(tzinfo=dt.UTC)
    last = get_setting(conn, SCHEDULE_DONE) or ""
    due = []
    for day in (utc.date() - dt.timedelta(days=1), utc.date()):  # a time just before midnight
        for t in spec.schedule:
            hour, minute = (int(x) for x in t.split(":"))
            at = dt.datetime(day.year, day.month, day.day, hour, minute, tzinfo=dt.UTC)
            slot = f"{day.isoformat()} {t}"
            if at <= utc < at + SCHEDULE_GRACE and slot > last:
                due.append(slot)
    return due


def start_due(engine: Engine, contest: Contest, when: dt.datetime) -> int | None:
    """Handle the scheduled times due at ``when`` (`due_rounds`): start rounds as the
    admin would, unless a round is running or too few players remain. Called every
    few seconds by the website's scheduler; several judge processes may call it at once.

    Returns:
        The round started, or ``None``.
    """
    with begin_write(engine) as conn:
        get_setting(conn, SCHEDULE_DONE, lock=True)
        due = due_rounds(conn, contest, when)
        if not due:
            return None
        _set(conn, SCHEDULE_DONE, due[-1])
        if current_round(conn) is not None:
            return None
        try:
            with conn.begin_nested():
                rid = _start(conn, contest, None, None)
        except RoundError:
            return None
        spec = contest.official
        _set(conn, ROUNDS_LEFT, str(spec.rounds_per_start - 1 if spec.rounds_per_start else -1))
        return rid


def _set(conn: Connection, key: str, value: str) -> None:
    done = conn.execute(sa.update(settings).where(settings.c.key == key).values(value=value))
    if done.rowcount:
        return
    try:
        with conn.begin_nested():
            conn.execute(sa.insert(settings).values(key=key, value=value))
    except sa.exc.IntegrityError:  # another process inserted it at this moment
        conn.execute(sa.update(settings).where(settings.c.key == key).values(value=value))
