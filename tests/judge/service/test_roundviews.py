"""The official read models ask the database a fixed number of questions: a round of 40
matches costs the pages as many statements as a round of 8 (statements counted with
SQLAlchemy's ``before_cursor_execute`` event on a real SQLite database), and they read
what the round holds."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from lightcycle.judge.service import roundviews
from lightcycle.judge.service.contest import Contest, OfficialSpec
from lightcycle.judge.service.matches import MatchResult, SeatResult, record_match
from lightcycle.judge.service.rounds import start_round
from lightcycle.judge.service.store import JudgeStore
from lightcycle.storage import begin_write
from tests.judge.service.programs import accepted_players, open_matches

DUELS = Contest(
    name="t",
    title="t",
    ruleset="classic@1",
    maps=("ring",),
    players=2,
    official=OfficialSpec(finalists=1, group_size=2, rounds_per_start=1),
)
"""Duels: a round of 2n players starts with n matches."""

READS: dict[str, Callable[[sa.Connection, int], Any]] = {
    "round_detail": roundviews.round_detail,
    "standings": lambda conn, rid: roundviews.standings(conn),
    "hall_of_fame": lambda conn, rid: roundviews.hall_of_fame(conn),
    "rounds_list": lambda conn, rid: roundviews.rounds_list(conn),
    "current_round": lambda conn, rid: roundviews.current_round(conn),
    "decisions": lambda conn, rid: roundviews.decisions(conn, rid, 1),
    "official_version": lambda conn, rid: roundviews.official_version(conn),
}
"""Every read model of the official pages, called on a round's id."""


@contextmanager
def counting(engine: sa.Engine) -> Iterator[list[str]]:
    """The SQL statements ``engine`` executes inside the block."""
    seen: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append(statement)

    sa.event.listen(engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        sa.event.remove(engine, "before_cursor_execute", count)


def round_of_duels(path: Path, n: int) -> tuple[JudgeStore, int]:
    """A round of ``n`` duels in a new database at ``path`` whose first stage is played
    (seat 0 wins) and decided, so its second stage is queued: (the open store, round id)."""
    store = JudgeStore(f"sqlite:///{path}")
    accepted_players(store, 2 * n, "p")
    rid = start_round(store.engine, DUELS, seed=5)
    first = open_matches(store, "official")
    assert len(first) == n
    for m in first:
        seats = tuple(SeatResult(r, None, "ok", "", None, 0.1, 2.0, "") for r in (1, 2))
        with begin_write(store.engine) as conn:
            record_match(conn, m.id, MatchResult("won", "{}", "ring@1", seats), DUELS)
    return store, rid


@pytest.fixture
def played(tmp_path: Path) -> Iterator[Callable[[int], tuple[JudgeStore, int]]]:
    """`round_of_duels` in tmp_path, its stores closed after the test."""
    stores: list[JudgeStore] = []

    def make(n: int) -> tuple[JudgeStore, int]:
        store, rid = round_of_duels(tmp_path / f"judge{n}.db", n)
        stores.append(store)
        return store, rid

    yield make
    for store in stores:
        store.close()


def statements(store: JudgeStore, rid: int) -> dict[str, int]:
    """How many statements each read model runs for round ``rid``."""
    out = {}
    with store.engine.connect() as conn:
        for name, read in READS.items():
            with counting(store.engine) as seen:
                read(conn, rid)
            out[name] = len(seen)
    return out


def test_the_read_models_ask_as_much_for_40_matches_as_for_8(
    played: Callable[[int], tuple[JudgeStore, int]],
) -> None:
    small, large = played(8), played(40)
    assert statements(*small) == statements(*large)
    assert statements(*large)["round_detail"] <= 8  # two for all the matches and seats


def test_the_round_detail_holds_every_match_in_group_order(
    played: Callable[[int], tuple[JudgeStore, int]],
) -> None:
    store, rid = played(8)
    with store.engine.connect() as conn:
        detail = roundviews.round_detail(conn, rid)
    assert detail is not None
    first, second = detail.stages
    assert [m.grp for m in first.matches] == list(range(8)) and first.decided
    assert all(m.state == "done" and len(m.seats) == 2 for m in first.matches)
    assert [s.rank for s in first.matches[0].seats] == [1, 2]
    assert len(first.safe) == 8 and len(first.remaining) == 8
    assert [m.grp for m in second.matches] == list(range(4)) and not second.decided
    assert {s.name for m in second.matches for s in m.seats} == set(first.remaining)


def test_every_rule_a_page_names_says_what_it_does() -> None:
    """A stage's heading names the rule that decided it: each says who went on and why,
    not only whose rule it is ("the course's rule" said nothing)."""
    from lightcycle.judge.service.roundviews import RULES

    assert "more than half" in RULES["course"]
    for rule, text in RULES.items():
        assert len(text.split()) >= 6 and "the course's rule" not in text, rule
