"""A match kind's hooks for the tests (what rounds and the ladder are to the judge).

Each call writes a row of ``judge_settings`` through the connection it is given, so a
test sees that the hook ran inside the transaction that ended the match: its row is
there exactly when the match's end is. A seat named ``explode`` makes ``on_match_done``
fail, as a buggy hook would.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from lightcycle.judge.service.contest import Contest
from lightcycle.judge.service.tables import MatchRow, settings


def on_match_done(conn: Connection, match: MatchRow, contest: Contest | None) -> None:
    if any(seat.name == "explode" for seat in match.seats):
        raise RuntimeError("the hook exploded")
    _note(conn, "done", match, contest)


def on_match_failed(conn: Connection, match: MatchRow, contest: Contest | None) -> None:
    _note(conn, "failed", match, contest)


def _note(conn: Connection, what: str, match: MatchRow, contest: Contest | None) -> None:
    ranks = ",".join(str(seat.rank) for seat in match.seats)
    value = f"{match.state} ranks={ranks} contest={contest.name if contest else None}"
    conn.execute(sa.insert(settings).values(key=f"{what}:{match.id}", value=value))


def notes(conn: Connection) -> dict[str, str]:
    """Every hook call so far: ``done:ID`` / ``failed:ID`` -> what the hook saw."""
    rows = conn.execute(sa.select(settings)).all()
    return {r.key: r.value for r in rows if r.key.startswith(("done:", "failed:"))}
