"""open_engine and migrate on real databases: SQLite files and a throwaway PostgreSQL."""

from __future__ import annotations

import socket
import sqlite3
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa

from lightcycle.storage import (
    StorageError,
    begin_write,
    current_revisions,
    display_url,
    migrate,
    open_engine,
)

ENV = "from lightcycle.storage import run_migrations\n\nrun_migrations()\n"

REVISION = """
import time

import sqlalchemy as sa
from alembic import op

revision = {revision!r}
down_revision = {down!r}
branch_labels = None
depends_on = None


def upgrade() -> None:
    time.sleep({pause})  # widens the window of the concurrent-opening test
    for name in {tables!r}:
        op.create_table(name, sa.Column("id", sa.Integer, primary_key=True))
    {extra}
"""


def component(
    folder: Path,
    revision: str,
    tables: list[str],
    *,
    down: str | None = None,
    extra: str = "",
    pause: float = 0.0,
) -> Path:
    """A component's migrations folder with one more revision that creates ``tables``."""
    (folder / "versions").mkdir(parents=True, exist_ok=True)
    (folder / "env.py").write_text(ENV)
    (folder / "versions" / f"v{revision}.py").write_text(
        REVISION.format(revision=revision, down=down, tables=tables, extra=extra, pause=pause)
    )
    return folder


def tables(engine: sa.Engine) -> set[str]:
    with engine.connect() as conn:
        return set(sa.inspect(conn).get_table_names())


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database of each kind."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'db.sqlite'}"
    return str(request.getfixturevalue("postgres_url"))


def test_two_components_share_one_database_each_with_its_version_table(
    url: str, tmp_path: Path
) -> None:
    alpha = component(tmp_path / "alpha", "0001", ["alpha_things"])
    beta = component(tmp_path / "beta", "0001", ["beta_things"])
    engine = open_engine(url)
    migrate(engine, alpha, "lightcycle_alpha_version")
    migrate(engine, beta, "lightcycle_beta_version")
    assert tables(engine) == {
        "alpha_things",
        "beta_things",
        "lightcycle_alpha_version",
        "lightcycle_beta_version",
    }
    # alpha moves on; beta's revision is untouched, and opening again changes nothing
    component(alpha, "0002", ["alpha_more"], down="0001")
    migrate(engine, alpha, "lightcycle_alpha_version")
    migrate(engine, beta, "lightcycle_beta_version", head="0001")
    assert current_revisions(engine, "lightcycle_alpha_version") == {"0002"}
    assert current_revisions(engine, "lightcycle_beta_version") == {"0001"}
    assert "alpha_more" in tables(engine)
    engine.dispose()


def test_an_interrupted_migration_leaves_nothing_half_made(url: str, tmp_path: Path) -> None:
    # the second revision creates two tables, then fails: neither revision may remain
    folder = component(tmp_path / "c", "0001", ["first"])
    component(folder, "0002", ["second", "third"], down="0001", extra='op.execute("NOT SQL")')
    engine = open_engine(url)
    with pytest.raises(StorageError, match=r"cannot migrate the database .*lightcycle_c_version"):
        migrate(engine, folder, "lightcycle_c_version")
    assert tables(engine) == set()
    (folder / "versions" / "v0002.py").unlink()  # the fixed release: the next open migrates
    migrate(engine, folder, "lightcycle_c_version")
    assert tables(engine) == {"first", "lightcycle_c_version"}
    engine.dispose()


def test_a_killed_migration_leaves_nothing_on_sqlite(tmp_path: Path) -> None:
    """A kill (KeyboardInterrupt here) between two tables of one revision rolls back."""
    folder = component(
        tmp_path / "c", "0001", ["one", "two"], extra="raise KeyboardInterrupt  # the kill"
    )
    engine = open_engine(f"sqlite:///{tmp_path / 'k.db'}")
    with pytest.raises(KeyboardInterrupt):
        migrate(engine, folder, "lightcycle_c_version")
    engine.dispose()
    raw = sqlite3.connect(tmp_path / "k.db")
    assert raw.execute("SELECT name FROM sqlite_master").fetchall() == []
    raw.close()


def test_processes_opening_a_fresh_database_at_once_migrate_it_once(
    url: str, tmp_path: Path
) -> None:
    folder = component(tmp_path / "c", "0001", ["jobs"], pause=0.3)
    errors: list[BaseException] = []

    def opener() -> None:
        engine = open_engine(url)
        try:
            migrate(engine, folder, "lightcycle_c_version")
        except BaseException as exc:  # reported below, in the test's thread
            errors.append(exc)
        finally:
            engine.dispose()

    threads = [threading.Thread(target=opener) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == []
    engine = open_engine(url)
    assert current_revisions(engine, "lightcycle_c_version") == {"0001"}
    engine.dispose()


def test_a_database_from_a_newer_release_is_refused(url: str, tmp_path: Path) -> None:
    folder = component(tmp_path / "c", "0001", ["jobs"])
    engine = open_engine(url)
    migrate(engine, folder, "lightcycle_c_version")
    with engine.begin() as conn:
        conn.exec_driver_sql("UPDATE lightcycle_c_version SET version_num = '0099'")
    with pytest.raises(StorageError, match=r"\['0099'\].*newer lightcycle"):
        migrate(engine, folder, "lightcycle_c_version")
    engine.dispose()


def test_sqlite_is_set_up_for_concurrent_use(tmp_path: Path) -> None:
    engine = open_engine(f"sqlite:///{tmp_path / 'db.sqlite'}")
    with engine.connect() as conn:
        pragma = {
            name: conn.exec_driver_sql(f"PRAGMA {name}").scalar()
            for name in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout")
        }
    assert pragma == {
        "journal_mode": "wal",
        "synchronous": 1,
        "foreign_keys": 1,
        "busy_timeout": 30000,
    }
    engine.dispose()


def test_begin_write_holds_sqlites_write_lock_from_its_start(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    engine = open_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE t (x INTEGER)")
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    with engine.begin() as conn:  # a plain transaction that has only read: no lock
        conn.exec_driver_sql("SELECT count(*) FROM t").scalar()
        other.execute("INSERT INTO t VALUES (1)")
    with begin_write(engine) as conn:
        conn.exec_driver_sql("SELECT count(*) FROM t").scalar()
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            other.execute("INSERT INTO t VALUES (2)")
        conn.exec_driver_sql("INSERT INTO t VALUES (3)")
    assert sorted(x for (x,) in other.execute("SELECT x FROM t")) == [1, 3]
    other.close()
    engine.dispose()


def test_a_missing_folder_is_an_error_unless_asked_to_make_it(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'new' / 'db.sqlite'}"
    with pytest.raises(StorageError, match=r"its folder .*new does not exist; create it"):
        open_engine(url)
    open_engine(url, make_folder=True).dispose()
    assert (tmp_path / "new" / "db.sqlite").is_file()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("nonsense", "bad database URL 'nonsense'"),
        ("mysql://u@localhost/db", "lightcycle stores its data in SQLite or PostgreSQL"),
        ("postgresql+nosuchdriver://u@localhost/db", "bad database URL"),
        ("sqlite:////proc/no-such-folder/t.db", "its folder /proc/no-such-folder does not exist"),
    ],
)
def test_bad_urls_are_one_line_that_says_what_to_do(url: str, message: str) -> None:
    with pytest.raises(StorageError, match=message) as info:
        open_engine(url)
    assert "\n" not in str(info.value)


def test_an_unreachable_server_is_named_without_its_password() -> None:
    pytest.importorskip("psycopg", reason="psycopg missing: pip install 'lightcycle[postgres]'")
    with socket_nobody_listens_on() as port:
        url = f"postgresql://lightcycle:s3cret@127.0.0.1:{port}/db"
        with pytest.raises(StorageError) as info:
            open_engine(url)
    text = str(info.value)
    shown = f"postgresql+psycopg://lightcycle:***@127.0.0.1:{port}/db"
    assert text.startswith(f"cannot open the database {shown}: ")
    assert "s3cret" not in text and "\n" not in text


def test_a_missing_driver_names_the_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # what an install without it sees
    with pytest.raises(StorageError, match=r"pip install 'lightcycle\[postgres\]'"):
        open_engine("postgresql://u@127.0.0.1/db")


def test_display_url_hides_the_password() -> None:
    assert display_url("postgresql://u:pw@h:5/d") == "postgresql://u:***@h:5/d"
    assert display_url(sa.engine.make_url("postgresql://u:pw@h/d")) == "postgresql://u:***@h/d"
    assert display_url("sqlite:///a/b.db") == "sqlite:///a/b.db"


@contextmanager
def socket_nobody_listens_on() -> Iterator[int]:
    """A 127.0.0.1 port bound but not listening: connections to it are refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])
