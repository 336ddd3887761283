"""The store: migrations shipped in the package, WAL, one transaction per match, unique keys.

The tests that hold for any database run on SQLite and on a throwaway PostgreSQL server
(tests/storage/postgres.py; they skip with the reason where PostgreSQL cannot be had).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from lightcycle.tournament.ratings import RatingBook
from lightcycle.tournament.results import MatchResult, SeatResult
from lightcycle.tournament.store import MIGRATIONS, SCHEMA_REVISION, Store, StoreError, metadata


def _store(tmp_path: Path) -> Store:
    return Store(f"sqlite:///{tmp_path / 'sub' / 't.db'}")


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database URL of each kind; the SQLite file's folder does not exist yet."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'sub' / 't.db'}"
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
def store(url: str) -> Iterator[Store]:
    """An empty store on each kind of database."""
    opened = Store(url)
    yield opened
    opened.close()


def _setup(store: Store) -> int:
    tid = store.create_tournament("t", "round-robin", "{}", [("A", "a", False), ("B", "b", False)])
    store.add_matches(
        tid,
        [
            {
                "key": "m1",
                "seq": 0,
                "round": 1,
                "label": "",
                "map": "ring@1",
                "seed": 5,
                "seats": (0, 1),
            },
            {
                "key": "m2",
                "seq": 1,
                "round": 1,
                "label": "",
                "map": "ring@1",
                "seed": 6,
                "seats": (1, 0),
            },
        ],
    )
    return tid


def _result(key: str) -> MatchResult:
    return MatchResult(
        key, "last cycle standing", 9, (SeatResult(0, 0, 1, outcome="win"), SeatResult(1, 1, 2))
    )


def test_several_matches_commit_in_one_transaction_each_whole(store: Store) -> None:
    tid = _setup(store)
    ids = store.entrant_ids(tid)
    m1, m2 = store.matches(tid)
    book = RatingBook()
    u1 = book.rate([("A", 1), ("B", 2)])
    u2 = book.rate([("B", 1), ("A", 2)])
    bad = [*u2[:-1], replace(u2[-1], entrant="Nobody")]
    # the second match fails after the first was written: the transaction holds both,
    # so neither is stored
    with pytest.raises(KeyError):
        store.record_many(tid, [(m1, _result("m1"), u1), (m2, _result("m2"), bad)], ids)
    assert store.results(tid) == []
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM rating_updates").scalar() == 0
    store.record_many(tid, [(m1, _result("m1"), u1), (m2, _result("m2"), u2)], ids)
    stored = store.results(tid)
    assert [r.match.key for r in stored] == ["m1", "m2"]
    updates = store.rating_updates(tid)
    assert [updates[r.match.result_id or -1] for r in stored] == [u1, u2]


def test_the_newest_migration_is_the_stores_revision() -> None:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    assert ScriptDirectory.from_config(cfg).get_current_head() == SCHEMA_REVISION


def test_the_migrations_build_exactly_the_stores_tables(store: Store) -> None:
    with store.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    assert diff == []


def test_sqlite_in_wal_mode_with_foreign_keys(tmp_path: Path) -> None:
    store = _store(tmp_path)
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    store.close()
    raw = sqlite3.connect(tmp_path / "sub" / "t.db")
    assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)  # kept in the file
    assert raw.execute("SELECT version_num FROM alembic_version").fetchone() == (SCHEMA_REVISION,)


def test_opening_again_keeps_everything(url: str) -> None:
    store = Store(url)
    tid = _setup(store)
    store.close()
    again = Store(url)
    assert [m.key for m in again.matches(tid)] == ["m1", "m2"]
    assert again.matches(tid)[0].seats == (0, 1)
    again.close()


def test_a_result_and_its_rating_updates_commit_together(store: Store) -> None:
    tid = _setup(store)
    ids = store.entrant_ids(tid)
    m1 = store.matches(tid)[0]
    ups = RatingBook().rate([("A", 1), ("B", 2)])
    store.record(tid, m1, _result("m1"), ups, ids)
    (stored,) = store.results(tid)
    assert stored.result == _result("m1")
    assert stored.match.result_id is not None
    assert store.rating_updates(tid)[stored.match.result_id] == ups
    # the same match again: the unique constraint refuses it, nothing is added
    with pytest.raises(sa.exc.IntegrityError):
        store.record(tid, m1, _result("m1"), ups, ids)
    # a failure after the result row is written (an unknown entrant in the updates)
    # rolls the whole match back: no result without its updates
    m2 = store.matches(tid)[1]
    bad = RatingBook().rate([("B", 1), ("A", 2)])
    bad[-1] = replace(bad[-1], entrant="Nobody")
    with pytest.raises(KeyError):
        store.record(tid, m2, _result("m2"), bad, ids)
    assert [r.match.key for r in store.results(tid)] == ["m1"]
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM results").scalar() == 1
        assert conn.exec_driver_sql("SELECT count(*) FROM result_seats").scalar() == 2
        assert conn.exec_driver_sql("SELECT count(*) FROM rating_updates").scalar() == 4


def test_match_keys_are_unique_per_tournament(store: Store) -> None:
    tid = _setup(store)
    row = {
        "key": "m1",
        "seq": 9,
        "round": 1,
        "label": "",
        "map": "ring@1",
        "seed": 1,
        "seats": (0, 1),
    }
    with pytest.raises(sa.exc.IntegrityError):
        store.add_matches(tid, [row])
    other = store.create_tournament(
        "u", "round-robin", "{}", [("A", "a", False), ("B", "b", False)]
    )
    store.add_matches(other, [row])  # another tournament may use the same key
    assert len(store.tournaments()) == 2


def test_delete_results_from_a_point_on(store: Store) -> None:
    tid = _setup(store)
    ids = store.entrant_ids(tid)
    book = RatingBook()
    for m in store.matches(tid):
        store.record(tid, m, _result(m.key), book.rate([("A", 1), ("B", 2)]), ids)
    assert store.delete_results(tid, 1) == 1
    assert [r.match.key for r in store.results(tid)] == ["m1"]
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM rating_updates").scalar() == 4


def test_an_interrupted_migration_leaves_no_half_made_schema(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from alembic.operations import Operations

    real = Operations.create_table
    made: list[str] = []

    def create_table(self: Operations, name: str, *args: object, **kw: object) -> object:
        if len(made) == 3:
            raise KeyboardInterrupt  # a kill half way through the first migration
        made.append(name)
        return real(self, name, *args, **kw)

    monkeypatch.setattr(Operations, "create_table", create_table)
    with pytest.raises(KeyboardInterrupt):
        Store(url)
    engine = sa.create_engine(url)  # a plain engine: nothing of the store's set-up
    with engine.connect() as conn:
        assert sa.inspect(conn).get_table_names() == []
    engine.dispose()
    monkeypatch.setattr(Operations, "create_table", real)
    store = Store(url)  # the next run migrates from scratch
    assert store.tournaments() == []
    store.close()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("nonsense", "bad database URL"),
        ("postgresql+nosuchdriver://u@localhost/db", "bad database URL"),
        ("sqlite:////proc/no-such-folder/t.db", "cannot make the database's folder"),
    ],
)
def test_bad_urls_say_what_to_do(url: str, message: str) -> None:
    with pytest.raises(StoreError, match=message):
        Store(url)


def test_a_tournament_without_results_takes_a_new_configuration(store: Store) -> None:
    tid = _setup(store)
    entrants = [("A", "a", False), ("C", "c", False), ("D", "d", False)]
    store.replace_tournament(tid, "gauntlet", '{"seed": 2}', entrants)
    row = store.tournament("t")
    assert row is not None and (row.id, row.format, row.config) == (tid, "gauntlet", '{"seed": 2}')
    assert [(e.name, e.spec, e.filler) for e in store.entrants(tid)] == entrants
    assert store.matches(tid) == []  # the next run schedules from the new file


def test_a_tournament_with_a_result_keeps_its_configuration(store: Store) -> None:
    tid = _setup(store)
    first = store.matches(tid)[0]
    ups = RatingBook().rate([("A", 1), ("B", 2)])
    store.record(tid, first, _result(first.key), ups, store.entrant_ids(tid))
    with pytest.raises(StoreError, match="results cannot change"):
        store.replace_tournament(tid, "gauntlet", "{}", [("C", "c", False), ("D", "d", False)])
    row = store.tournament("t")
    assert row is not None and (row.format, row.config) == ("round-robin", "{}")
    assert [e.name for e in store.entrants(tid)] == ["A", "B"] and len(store.matches(tid)) == 2
