"""The judge's store: schema, users, submissions, and one step's result recorded whole."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from lightcycle.judge.service.store import (
    MIGRATIONS,
    SCHEMA_REVISION,
    VERSION_TABLE,
    JudgeStore,
    SubmitError,
)
from lightcycle.judge.service.tables import metadata
from tests.judge.service.fakes import FakeResult, passing


def test_the_newest_migration_is_the_stores_revision() -> None:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    assert ScriptDirectory.from_config(cfg).get_current_head() == SCHEMA_REVISION


def test_the_migrations_build_exactly_the_stores_tables(db_url: str) -> None:
    with JudgeStore(db_url) as store, store.engine.connect() as conn:
        ctx = MigrationContext.configure(
            conn, opts={"include_name": lambda name, kind, _parent: name != VERSION_TABLE}
        )
        assert compare_metadata(ctx, metadata) == []
        assert sa.inspect(conn).has_table(VERSION_TABLE)
        assert not sa.inspect(conn).has_table("alembic_version")


def test_users_round_trip(tmp_path: Path) -> None:
    with JudgeStore(f"sqlite:///{tmp_path / 'j.db'}") as store:
        uid = store.create_user(" Alice@Example.ORG ", "hash1")
        with pytest.raises(ValueError, match="already has an account"):
            store.create_user("alice@example.org", "hash2")
        user = store.user_by_email("ALICE@example.org")
        assert user is not None and user.id == uid and user.email == "alice@example.org"
        assert not user.is_admin and user.password_hash == "hash1"
        assert store.set_admin("alice@EXAMPLE.org") and not store.set_admin("bob@example.org")
        again = store.user(uid)
        assert again is not None and again.is_admin
        assert store.user(uid + 1) is None


def test_a_submission_round_trip_to_accepted_with_its_name_reserved(db_url: str) -> None:
    with JudgeStore(db_url) as store:
        alice = store.create_user("alice@example.org", "h")
        bob = store.create_user("bob@example.org", "h")
        sid = store.submit(alice, "Speedy", "c", "bot.c", b"int main(){}")
        sub = store.submission(sid)
        assert sub is not None and (sub.state, sub.name, sub.filename) == (
            "uploaded",
            "Speedy",
            "bot.c",
        )
        assert store.blob(sub.source_sha256) == b"int main(){}"
        assert [j.kind for j in store.jobs_of(sid)] == ["build"]
        for kind, state in (("build", "testing"), ("test", "qualifying"), ("qualify", "accepted")):
            job = store.claim("w1")
            assert job is not None and job.kind == kind and job.attempts == 1
            running = store.submission(sid)
            assert running is not None and running.state == {"build": "building"}.get(
                kind, running.state
            )
            assert store.heartbeat(job.id, "w1") and not store.heartbeat(job.id, "w2")
            assert store.complete(job, "w1", passing(job))
            assert not store.complete(job, "w1", passing(job))  # recorded once
            done = store.submission(sid)
            assert done is not None and done.state == state
        assert store.claim("w1") is None
        final = store.submission(sid)
        assert final is not None and final.accepted_at is not None
        assert final.artifact_sha256 is not None
        assert store.blob(final.artifact_sha256) == f"artifact of {sid}".encode()
        assert [(s.kind, s.ok) for s in final.steps] == [
            ("build", True),
            ("test", True),
            ("qualify", True),
        ]
        assert len(final.games) == 4 and all(g.replay is None for g in final.games)
        game = store.game(final.games[0].id)
        assert game is not None and game.replay == '{"game": 0}' and game.seats[0]["name"] == "me"
        assert [j.state for j in store.jobs_of(sid)] == ["done", "done", "done"]
        # the name is Alice's now, in any case; Alice may submit under it again
        with pytest.raises(SubmitError, match="belongs to someone else"):
            store.submit(bob, "SPEEDY", "c", "bot.c", b"x")
        store.submit(alice, "speedy", "python", "bot.py", b"x")
        assert [s.name for s in store.submissions_of(alice)] == ["speedy", "Speedy"]
        assert store.submissions_of(bob) == []


@pytest.mark.parametrize("name", ["", "thirteen_char", "sp ace", "ünï", "a/b"])
def test_bad_player_names_are_refused(tmp_path: Path, name: str) -> None:
    with JudgeStore(f"sqlite:///{tmp_path / 'j.db'}") as store:
        uid = store.create_user("a@example.org", "h")
        with pytest.raises(SubmitError, match="1-12 letters"):
            store.submit(uid, name, "c", "bot.c", b"x")
        assert store.submissions_of(uid) == []


def test_a_name_accepted_for_another_user_meanwhile_fails_the_later_one(tmp_path: Path) -> None:
    with JudgeStore(f"sqlite:///{tmp_path / 'j.db'}") as store:
        a = store.create_user("a@example.org", "h")
        b = store.create_user("b@example.org", "h")
        first, second = (
            store.submit(a, "Neo", "c", "a.c", b"a"),
            store.submit(b, "neo", "c", "b.c", b"b"),
        )
        for sid in (first, second):
            job = store.claim("w")
            assert job is not None and job.submission_id == sid
            assert store.complete(job, "w", FakeResult(True, "accepted", "", "", 0.0))
        lost = store.submission(second)
        assert (
            lost is not None
            and lost.state == "qualify_failed"
            and "taken by another" in lost.reason
        )
        won = store.submission(first)
        assert won is not None and won.state == "accepted"


def test_a_failed_step_ends_the_submission_with_its_reason(tmp_path: Path) -> None:
    with JudgeStore(f"sqlite:///{tmp_path / 'j.db'}") as store:
        sid = store.submit(store.create_user("a@example.org", "h"), "X", "c", "x.c", b"x")
        job = store.claim("w")
        assert job is not None
        failed = FakeResult(
            False, "build_failed", "x.c:1: error: expected ';'", "full log", 0.1, next_kind="test"
        )
        assert store.complete(job, "w", failed)
        sub = store.submission(sid)
        assert sub is not None and (sub.state, sub.reason) == (
            "build_failed",
            "x.c:1: error: expected ';'",
        )
        assert sub.steps[0].log == "full log" and not sub.steps[0].ok
        assert store.claim("w") is None  # a final state enqueues nothing
