"""The server's store: games start ``running``, end whole in one transaction, and a
server that died leaves them ``aborted`` on the next open, never half-written."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from lightcycle.server.ladder import Rater
from lightcycle.server.store import (
    ABORTED_ON_OPEN,
    MIGRATIONS,
    SCHEMA_REVISION,
    VERSION_TABLE,
    SeatRow,
    ServerStore,
    metadata,
)
from lightcycle.storage import StorageError


def _url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'server.db'}"


def _start(store: ServerStore, gid: str, names: list[tuple[str, str | None, str]]) -> None:
    store.start_game(
        gid,
        queue="torus",
        ruleset="torus@1",
        map="torus-20@1",
        seed=7,
        seats=[SeatRow(i, n, a, k) for i, (n, a, k) in enumerate(names)],
    )


ALICE_VS_BOT = [("alice", "alice", "remote"), ("builtin:medium", None, "builtin")]


def _finished(rank_alice: int, rank_bot: int) -> list[SeatRow]:
    res = {1: "win", 2: "loss"}
    if rank_alice == rank_bot:
        res = {1: "draw"}
    return [
        SeatRow(0, "alice", "alice", "remote", rank_alice, res[rank_alice], "ok", "", 1.5, 20.0),
        SeatRow(1, "builtin:medium", None, "builtin", rank_bot, res[rank_bot], "ok", "", None, 3.0),
    ]


def test_the_newest_migration_is_the_stores_revision() -> None:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    assert ScriptDirectory.from_config(cfg).get_current_head() == SCHEMA_REVISION


def test_the_migrations_build_exactly_the_stores_tables(tmp_path: Path) -> None:
    with ServerStore(_url(tmp_path)) as store, store.engine.connect() as conn:
        ctx = MigrationContext.configure(
            conn,
            opts={"include_name": lambda name, kind, _parent: name != VERSION_TABLE},
        )
        assert compare_metadata(ctx, metadata) == []
        assert sa.inspect(conn).has_table(VERSION_TABLE)
        assert not sa.inspect(conn).has_table("alembic_version")  # its own version table


def test_a_game_round_trip_with_its_ratings(tmp_path: Path) -> None:
    with ServerStore(_url(tmp_path)) as store:
        _start(store, "g1", ALICE_VS_BOT)
        running = store.game("g1")
        assert running is not None and running.status == "running" and running.replay is None
        assert [s.name for s in running.seats] == ["alice", "builtin:medium"]
        assert running.seats[0].result is None
        done = store.finish_game(
            "g1",
            status="finished",
            reason="builtin:medium crashed",
            turns=42,
            replay='{"format": "x"}',
            seats=_finished(1, 2),
            rated={0: "alice", 1: "builtin:medium"},
            rate=Rater([("alice", 1), ("builtin:medium", 2)]),
        )
        assert done.status == "finished" and done.turns == 42 and done.finished_at
        assert done.replay is None  # lists and returns leave the replay out
        full = store.game("g1")
        assert full is not None and full.replay == '{"format": "x"}'
        a, b = full.seats
        assert (a.rank, a.result, a.verdict, a.rtt_ms, a.think_ms) == (1, "win", "ok", 1.5, 20.0)
        assert (a.rating_before, a.rating_after) == (2000.0, 2012.0)
        assert (b.rating_before, b.rating_after) == (2000.0, 1988.0)
        ladder = store.ladder("torus")
        assert [(r.name, r.rating, r.games, r.wins, r.losses) for r in ladder] == [
            ("alice", 2012.0, 1, 1, 0),
            ("builtin:medium", 1988.0, 1, 0, 1),
        ]
        # a second game reads the ratings the first one wrote: 2012 vs 1988 drawn
        # E(alice) = 1/(1+10^(-24/400)) = 0.5344839447 (bc -l);
        # alice: 2012 + 24*(0.5-0.5344839447) = 2011.1723853266
        _start(store, "g2", ALICE_VS_BOT)
        store.finish_game(
            "g2",
            status="finished",
            reason="both crashed",
            turns=3,
            replay=None,
            seats=_finished(1, 1),
            rated={0: "alice", 1: "builtin:medium"},
            rate=Rater([("alice", 1), ("builtin:medium", 1)]),
        )
        alice = store.ladder("torus")[0]
        assert alice.rating == pytest.approx(2011.172385326556044, abs=1e-9)
        assert (alice.games, alice.wins, alice.draws, alice.losses) == (2, 1, 1, 0)
        assert store.ladder("other") == []
        assert [g.id for g in store.recent_games()] == ["g2", "g1"]
        assert [g.id for g in store.recent_games(limit=1)] == ["g2"]
        assert store.recent_games(queue="other") == []
        assert [g.id for g in store.player_games("ALICE")] == ["g2", "g1"]
        assert store.player_games("nobody") == [] and store.game("nope") is None
        with pytest.raises(KeyError):  # a game ends once
            store.finish_game("g1", status="aborted", reason="", turns=0, replay=None, seats=None)


def test_a_failure_inside_the_end_leaves_the_game_running_and_no_rating(tmp_path: Path) -> None:
    def broken(before: object) -> dict[str, float]:
        raise RuntimeError("the disk is full")

    with ServerStore(_url(tmp_path)) as store:
        _start(store, "g1", ALICE_VS_BOT)
        with pytest.raises(RuntimeError):
            store.finish_game(
                "g1",
                status="finished",
                reason="r",
                turns=9,
                replay="{}",
                seats=_finished(1, 2),
                rated={0: "alice", 1: "builtin:medium"},
                rate=broken,
            )
        game = store.game("g1")
        assert game is not None and game.status == "running" and game.turns == 0
        assert game.seats[0].result is None and store.ladder("torus") == []


def test_an_aborted_game_changes_no_rating(tmp_path: Path) -> None:
    with ServerStore(_url(tmp_path)) as store:
        _start(store, "g1", ALICE_VS_BOT)
        store.finish_game(
            "g1",
            status="aborted",
            reason="stopped",
            turns=5,
            replay=None,
            seats=_finished(1, 2),
            rated={0: "alice", 1: "builtin:medium"},
            rate=Rater([("alice", 1), ("builtin:medium", 2)]),
        )
        assert store.ladder("torus") == []
        game = store.game("g1")
        assert game is not None and game.status == "aborted" and game.seats[0].rating_after is None


KILLED = """
import sys, time
from lightcycle.server.store import SeatRow, ServerStore
store = ServerStore(sys.argv[1])
store.start_game("mid", queue="torus", ruleset="torus@1", map="torus-20@1", seed=1,
                 seats=[SeatRow(0, "alice", "alice", "remote"), SeatRow(1, "bob", None, "remote")])
print("started", flush=True)
time.sleep(60)
"""


def test_a_killed_server_leaves_its_game_aborted_on_the_next_open(tmp_path: Path) -> None:
    url = _url(tmp_path)
    with ServerStore(url) as store:
        _start(store, "before", ALICE_VS_BOT)
        store.finish_game(
            "before", status="finished", reason="r", turns=1, replay="{}", seats=_finished(1, 2)
        )
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(KILLED), url],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "started"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        if proc.stdout is not None:
            proc.stdout.close()
    with ServerStore(url) as store:
        assert store.aborted_on_open == 1
        game = store.game("mid")
        assert game is not None and game.status == "aborted" and game.reason == ABORTED_ON_OPEN
        assert [s.name for s in game.seats] == ["alice", "bob"] and game.seats[0].rank is None
        finished = store.game("before")
        assert finished is not None and finished.status == "finished"  # nothing lost
    with ServerStore(url) as store:
        assert store.aborted_on_open == 0


def test_accounts_are_unique_without_regard_to_case(tmp_path: Path) -> None:
    with ServerStore(_url(tmp_path)) as store:
        assert store.create_account("Alice", "scrypt$hash")
        assert not store.create_account("alice", "scrypt$other")
        row = store.account("ALICE")
        assert row is not None and (row.name, row.secret_hash) == ("Alice", "scrypt$hash")
        store.touch_account("alice", "scrypt$stronger")
        again = store.account("alice")
        assert again is not None and again.secret_hash == "scrypt$stronger" and again.last_login
        assert store.account("bob") is None


def test_a_bad_database_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(StorageError) as info:
        ServerStore(f"sqlite:///{tmp_path / 'missing' / 'x.db'}")
    assert "\n" not in str(info.value)


def test_the_first_schema_upgrades_to_longer_account_names(tmp_path: Path) -> None:
    """A database made by the first schema keeps its accounts, and then takes the names
    of 17-40 characters the course's clients send."""
    from alembic import command

    from lightcycle.storage.engine import begin_write, open_engine
    from lightcycle.storage.migrate import _config

    engine = open_engine(_url(tmp_path))
    cfg = _config(MIGRATIONS, VERSION_TABLE)
    with begin_write(engine) as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "s0001")
        conn.execute(
            sa.text(
                "INSERT INTO server_accounts (name_key, name, secret_hash, created_at) "
                "VALUES ('alice', 'Alice', 'h', '2026-01-01T00:00:00Z')"
            )
        )
    engine.dispose()
    with ServerStore(_url(tmp_path)) as store:
        old = store.account("alice")
        assert old is not None and old.name == "Alice"
        long = "Scheme Test Client of the course, v2"
        assert store.create_account(long, "h2")
        found = store.account(long.upper())
        assert found is not None and found.name == long
        with store.engine.connect() as conn:
            column = next(
                c for c in sa.inspect(conn).get_columns("server_accounts") if c["name"] == "name"
            )
        assert column["type"].length == 64
