"""Friends, public programs, official programs, friendly matches and who sees a match.

Every rule of `lightcycle.judge.service.social` is tested allowed and refused (with the
refusal's words), on SQLite and on PostgreSQL (the ``db_url`` fixture). Accepted
submissions are inserted straight into the tables: what is tested is who may use them,
not how they were built (the worker's tests build and play real ones).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from lightcycle.judge.service import social
from lightcycle.judge.service.contest import Contest, FriendlySpec
from lightcycle.judge.service.social import SocialError
from lightcycle.judge.service.store import JudgeStore
from lightcycle.judge.service.tables import (
    MatchRow,
    UserRow,
    inserted_id,
    match_row,
    match_seats,
    matches,
    now,
    seat_row,
    submissions,
)
from lightcycle.storage import begin_write
from tests.judge.service.fakes import CONTEST
from tests.judge.service.programs import insert_program


@pytest.fixture
def store(db_url: str) -> Iterator[JudgeStore]:
    with JudgeStore(db_url) as s:
        yield s


class World:
    """Users ``ana``, ``bob``, ``cy``, ``dee`` (emails NAME@example.org) of one store."""

    def __init__(self, store: JudgeStore) -> None:
        self.store = store
        self.engine = store.engine
        self.ids = {
            n: store.create_user(f"{n}@example.org", "h") for n in ("ana", "bob", "cy", "dee")
        }

    def __getattr__(self, name: str) -> int:
        return self.ids[name]

    def program(
        self, owner: str, name: str, *, state: str = "accepted", public: bool = False
    ) -> int:
        """A submission of ``owner`` inserted as if judged (``state``)."""
        return insert_program(self.engine, self.ids[owner], name, state=state, public=public)

    def befriend(self, a: str, b: str) -> None:
        """Make ``a`` and ``b`` friends (both add each other)."""
        social.add_friend(self.engine, self.ids[a], f"{b}@example.org")
        social.add_friend(self.engine, self.ids[b], f"{a}@example.org")

    def check(self, who: str, seats: list[int | None], contest: Contest = CONTEST) -> None:
        with begin_write(self.engine) as conn:
            social.check_friendly(conn, contest, self.ids[who], seats)

    def refused(self, who: str, seats: list[int | None], contest: Contest = CONTEST) -> str:
        with pytest.raises(SocialError) as info:
            self.check(who, seats, contest)
        message = str(info.value)
        assert "\n" not in message
        return message

    def user(self, who: str) -> UserRow:
        row = self.store.user(self.ids[who])
        assert row is not None
        return row


@pytest.fixture
def w(store: JudgeStore) -> World:
    return World(store)


def emails(people: tuple[social.Person, ...]) -> list[str]:
    return [p.email for p in people]


# -- friends ---------------------------------------------------------------------------


def test_a_friendship_needs_both_to_add_each_other(w: World) -> None:
    assert social.add_friend(w.engine, w.ana, " BOB@Example.org ") is False
    with w.engine.connect() as conn:
        assert not social.are_friends(conn, w.ana, w.bob)
        ana, bob = social.friends(conn, w.ana), social.friends(conn, w.bob)
    assert (emails(ana.mutual), emails(ana.sent), emails(ana.received)) == (
        [],
        ["bob@example.org"],
        [],
    )
    assert (emails(bob.mutual), emails(bob.sent), emails(bob.received)) == (
        [],
        [],
        ["ana@example.org"],
    )
    assert social.add_friend(w.engine, w.bob, "ana@example.org") is True
    social.add_friend(w.engine, w.ana, "cy@example.org")
    with w.engine.connect() as conn:
        assert social.are_friends(conn, w.ana, w.bob) and social.are_friends(conn, w.bob, w.ana)
        assert not social.are_friends(conn, w.ana, w.cy)
        assert social.are_friends(conn, w.dee, w.dee)  # anyone plays with themself
        ana = social.friends(conn, w.ana)
    assert ana.mutual == (social.Person(w.bob, "bob@example.org"),)
    assert emails(ana.sent) == ["cy@example.org"] and ana.received == ()


def test_adding_yourself_an_unknown_email_or_someone_twice_is_refused(w: World) -> None:
    cases = [
        ("ANA@example.org", "ana@example.org is your own email; add a friend's email instead"),
        (
            "zed@example.org",
            "nobody has signed up with zed@example.org; check the email, or ask them to sign "
            "up first",
        ),
        ("  ", "type your friend's email, e.g. ana@example.org"),
    ]
    for email, message in cases:
        with pytest.raises(SocialError) as info:
            social.add_friend(w.engine, w.ana, email)
        assert str(info.value) == message
    social.add_friend(w.engine, w.ana, "bob@example.org")
    with pytest.raises(SocialError, match=r"^you already added bob@example.org \(they must add"):
        social.add_friend(w.engine, w.ana, "Bob@example.org")
    social.add_friend(w.engine, w.bob, "ana@example.org")
    with pytest.raises(SocialError, match=r"^you already added bob@example.org \(you are friends"):
        social.add_friend(w.engine, w.ana, "bob@example.org")
    with w.engine.connect() as conn:
        assert emails(social.friends(conn, w.ana).mutual) == ["bob@example.org"]


def test_removing_works_either_way(w: World) -> None:
    w.befriend("ana", "bob")
    assert social.remove_friend(w.engine, w.bob, w.ana)  # the one who did not add first
    with w.engine.connect() as conn:
        assert not social.are_friends(conn, w.ana, w.bob)
        assert social.friends(conn, w.ana) == social.Friends((), (), ())
        assert social.friends(conn, w.bob) == social.Friends((), (), ())
    social.add_friend(w.engine, w.ana, "cy@example.org")
    assert social.remove_friend(w.engine, w.ana, w.cy)  # a request withdrawn
    social.add_friend(w.engine, w.dee, "ana@example.org")
    assert social.remove_friend(w.engine, w.ana, w.dee)  # a request declined
    with w.engine.connect() as conn:
        assert social.friends(conn, w.ana) == social.Friends((), (), ())
        assert social.friends(conn, w.dee) == social.Friends((), (), ())
    assert not social.remove_friend(w.engine, w.ana, w.dee)  # nothing left: no error
    assert social.add_friend(w.engine, w.ana, "dee@example.org") is False  # starts afresh


# -- public and private ----------------------------------------------------------------


def test_only_the_owner_makes_a_program_public_and_never_private_again(w: World) -> None:
    sid = w.program("ana", "Zig")
    for who, target in ((w.bob, sid), (w.ana, sid + 100)):
        with pytest.raises(SocialError) as info:
            social.make_public(w.engine, who, target)
        assert str(info.value) == (
            f"submission {target} is not one of yours; only its owner can make it public"
        )
    social.make_private(w.engine, w.ana, sid)  # private stays private: nothing to refuse
    assert social.make_public(w.engine, w.ana, sid) is True
    assert social.make_public(w.engine, w.ana, sid) is False  # already: nothing changes
    sub = w.store.submission(sid)
    assert sub is not None and sub.public
    with pytest.raises(SocialError) as info:
        social.make_private(w.engine, w.ana, sid)
    assert str(info.value) == (
        f"Zig (submission {sid}) is public, and a public program can never be made private "
        "again; submit it again under a new name to have a private copy"
    )
    with pytest.raises(SocialError, match=f"^submission {sid} is not one of yours; only its"):
        social.make_private(w.engine, w.bob, sid)
    sub = w.store.submission(sid)
    assert sub is not None and sub.public


def test_a_program_being_judged_may_be_made_public_a_rejected_one_not(w: World) -> None:
    pending = w.program("ana", "Wip", state="testing")
    assert social.make_public(w.engine, w.ana, pending)
    failed = w.program("ana", "Bad", state="qualify_failed")
    with pytest.raises(SocialError) as info:
        social.make_public(w.engine, w.ana, failed)
    assert str(info.value) == (
        f"Bad (submission {failed}) was not accepted (qualify_failed) and will never play; "
        "make an accepted program public instead"
    )
    sub = w.store.submission(failed)
    assert sub is not None and not sub.public


# -- official play ---------------------------------------------------------------------


def test_the_official_program_is_the_chosen_one_else_the_newest_accepted(w: World) -> None:
    old = w.program("ana", "Old")
    new = w.program("ana", "New")
    w.program("ana", "Wip", state="building")
    bobs = w.program("bob", "Bobby")
    w.program("cy", "Broken", state="build_failed")
    with w.engine.connect() as conn:
        official = social.official_program(conn, w.ana)
        assert official is not None and official.id == new
        assert social.official_program(conn, w.cy) is None
        assert [(u, s.id) for u, s in social.official_players(conn)] == [
            (w.ana, new),
            (w.bob, bobs),
        ]
    social.set_official(w.engine, w.ana, old)
    with w.engine.connect() as conn:
        official = social.official_program(conn, w.ana)
        assert official is not None and official.id == old
        assert [(u, s.id) for u, s in social.official_players(conn)] == [
            (w.ana, old),
            (w.bob, bobs),
        ]
    assert w.user("ana").official_submission_id == old
    social.set_official(w.engine, w.ana, None)  # back to the newest
    with w.engine.connect() as conn:
        official = social.official_program(conn, w.ana)
        assert official is not None and official.id == new


def test_set_official_takes_only_your_own_accepted_program(w: World) -> None:
    mine = w.program("ana", "Mine")
    wip = w.program("ana", "Wip", state="qualifying")
    bobs = w.program("bob", "Bobby", public=True)
    with pytest.raises(SocialError) as info:
        social.set_official(w.engine, w.ana, bobs)
    assert str(info.value) == (
        f"submission {bobs} is not one of yours; choose one of your own programs"
    )
    with pytest.raises(SocialError) as info:
        social.set_official(w.engine, w.ana, wip)
    assert str(info.value) == (
        f"Wip (submission {wip}) is not accepted (qualifying); only an accepted program can "
        "play official matches"
    )
    assert w.user("ana").official_submission_id is None
    social.set_official(w.engine, w.ana, mine)
    assert w.user("ana").official_submission_id == mine


def test_a_chosen_program_that_is_no_longer_accepted_gives_way_to_the_newest(w: World) -> None:
    old = w.program("ana", "Old")
    new = w.program("ana", "New")
    social.set_official(w.engine, w.ana, old)
    with begin_write(w.engine) as conn:  # e.g. an admin rejudged it
        conn.execute(
            sa.update(submissions).where(submissions.c.id == old).values(state="internal_error")
        )
    with w.engine.connect() as conn:
        official = social.official_program(conn, w.ana)
        assert official is not None and official.id == new


# -- friendly matches ------------------------------------------------------------------


def test_usable_programs_are_own_public_and_friends_private_ones_accepted(w: World) -> None:
    w.befriend("ana", "bob")
    social.add_friend(w.engine, w.ana, "dee@example.org")  # one way: not a friend
    mine = w.program("ana", "Mine")
    bobs = w.program("bob", "Bobby")
    w.program("bob", "BobWip", state="testing")
    cys_public = w.program("cy", "CyPub", public=True)
    cys_private = w.program("cy", "CyPriv")
    w.program("dee", "DeePriv")
    mine_new = w.program("ana", "Mine2", public=True)
    with w.engine.connect() as conn:
        usable = [s.id for s in social.usable_programs(conn, w.ana)]
        assert usable == [mine_new, mine, cys_public, bobs]
        assert [s.id for s in social.usable_programs(conn, w.cy)] == [
            cys_private,
            cys_public,
            mine_new,
        ]


def test_a_friendly_match_has_an_allowed_number_of_seats(w: World) -> None:
    mine = w.program("ana", "Mine")
    w.check("ana", [mine, None, None, None])
    assert w.refused("ana", [mine, None]) == (
        "a friendly match has 4 players here, not 2; choose that many programs or Dummies"
    )
    assert social.friendly_seats(CONTEST) == (4,)
    contest = dataclasses.replace(CONTEST, friendly=FriendlySpec(players=(4, 2)))
    assert social.friendly_seats(contest) == (2, 4)
    w.check("ana", [mine, None], contest)
    w.check("ana", [mine, None, mine, None], contest)
    assert w.refused("ana", [mine, None, None], contest) == (
        "a friendly match has 2 or 4 players here, not 3; choose that many programs or Dummies"
    )


def test_a_friendly_match_needs_one_of_your_own_programs(w: World) -> None:
    public = w.program("bob", "Bobby", public=True)
    message = (
        "put at least one of your own programs in the match: its results are shown only to "
        "the owners of the programs playing"
    )
    assert w.refused("ana", [None, None, None, None]) == message
    assert w.refused("ana", [public, None, None, None]) == message
    mine = w.program("ana", "Mine")
    w.check("ana", [mine, mine, mine, mine])  # the same program in every seat
    w.check("ana", [public, w.program("ana", "Open", public=True), None, None])


def test_a_stranger_s_private_or_an_unknown_program_is_refused_without_its_name(
    w: World,
) -> None:
    mine = w.program("ana", "Mine")
    secret = w.program("bob", "Secret")
    social.add_friend(w.engine, w.bob, "ana@example.org")  # bob added ana; ana did not
    for sid in (secret, secret + 100):
        message = w.refused("ana", [mine, sid, None, None])
        assert message == (
            f"submission {sid} is not a program you can use (someone else's private one, or "
            "none); pick one from your list, or ask its owner to make it public or to be your "
            "friend"
        )
        assert "Secret" not in message
    social.add_friend(w.engine, w.ana, "bob@example.org")
    w.check("ana", [mine, secret, None, None])  # friends now


def test_only_accepted_programs_play(w: World) -> None:
    mine = w.program("ana", "Mine")
    wip = w.program("ana", "Wip", state="building")
    public_wip = w.program("bob", "Later", state="testing", public=True)
    assert w.refused("ana", [mine, wip, None, None]) == (
        f"your program Wip (submission {wip}) is not accepted (building); only accepted "
        "programs play, pick another"
    )
    assert w.refused("ana", [mine, public_wip, None, None]) == (
        f"the program Later (submission {public_wip}) is not accepted (testing); only "
        "accepted programs play, pick another"
    )


def test_public_programs_play_anyone(w: World) -> None:
    mine = w.program("ana", "Mine", public=True)
    bobs = w.program("bob", "Bobby", public=True)
    cys = w.program("cy", "Cyd", public=True)
    w.check("ana", [mine, bobs, cys, None])
    w.check("bob", [bobs, mine, cys, cys])


def test_your_private_program_plays_a_stranger_only_once_friends(w: World) -> None:
    mine = w.program("ana", "Mine")
    bobs = w.program("bob", "Bobby", public=True)
    seats: list[int | None] = [mine, bobs, None, None]
    start = f"your program Mine (submission {mine}) is private and its owner (you) is not "
    assert w.refused("ana", seats) == (
        start + "friends with the owner of Bobby: make Mine public, or become friends with "
        "the owner of Bobby (both add each other)"
    )
    social.add_friend(w.engine, w.ana, "bob@example.org")
    assert w.refused("ana", seats) == (
        start + "friends with the owner of Bobby: make Mine public, or ask bob@example.org "
        "to add you back"
    )
    social.remove_friend(w.engine, w.ana, w.bob)
    social.add_friend(w.engine, w.bob, "ana@example.org")
    assert w.refused("ana", seats) == (
        start + "friends with the owner of Bobby: make Mine public, or add bob@example.org "
        "back (they added you)"
    )
    social.add_friend(w.engine, w.ana, "bob@example.org")
    w.check("ana", seats)
    social.remove_friend(w.engine, w.bob, w.ana)
    w.refused("ana", seats)
    social.make_public(w.engine, w.ana, mine)
    w.check("ana", seats)


def test_a_friend_s_private_program_plays_only_with_its_owner_s_friends(w: World) -> None:
    w.befriend("ana", "bob")
    mine = w.program("ana", "Mine", public=True)
    bobs = w.program("bob", "Bobby")
    cys = w.program("cy", "Cyd", public=True)
    w.check("ana", [mine, bobs, None, None])
    assert w.refused("ana", [mine, bobs, cys, None]) == (
        f"Bobby (submission {bobs}) of bob@example.org is private and its owner is not "
        "friends with the owner of Cyd; pick another program, or ask bob@example.org to "
        "make Bobby public"
    )
    w.befriend("bob", "cy")  # every other user in the match is now bob's friend
    w.check("ana", [mine, bobs, cys, None])
    dees = w.program("dee", "Deed", public=True)
    w.refused("ana", [mine, bobs, cys, dees])  # bob and dee are not friends
    w.befriend("bob", "dee")
    w.check("ana", [mine, bobs, cys, dees])


def test_dummies_are_nobody_and_private_programs_play_them(w: World) -> None:
    mine = w.program("ana", "Mine")
    other_mine = w.program("ana", "Mine2")
    w.check("ana", [mine, None, other_mine, None])


def test_check_friendly_runs_inside_the_caller_s_transaction(w: World) -> None:
    mine = w.program("ana", "Mine")
    bobs = w.program("bob", "Bobby", public=True)
    with begin_write(w.engine) as conn:  # a friendship made in the same transaction counts
        for a, b in (("ana", "bob"), ("bob", "ana")):
            conn.execute(
                sa.insert(social.friends_table).values(
                    user_id=w.ids[a], friend_id=w.ids[b], created_at=now()
                )
            )
        social.check_friendly(conn, CONTEST, w.ana, [mine, bobs, None, None])


# -- who sees a match ------------------------------------------------------------------


def a_match(w: World, kind: str, seats: list[tuple[int | None, int | None]]) -> MatchRow:
    """A match of ``kind`` inserted with ``(submission_id, user_id)`` seats."""
    with begin_write(w.engine) as conn:
        mid = inserted_id(
            conn.execute(
                sa.insert(matches).values(
                    kind=kind,
                    state="done",
                    map="cube",
                    seed=1,
                    reason="",
                    created_at=now(),
                )
            )
        )
        for i, (sid, uid) in enumerate(seats):
            conn.execute(
                sa.insert(match_seats).values(
                    match_id=mid,
                    seat=i,
                    submission_id=sid,
                    user_id=uid,
                    name=f"p{i}",
                    detail="",
                    stderr_tail="",
                )
            )
        row = conn.execute(sa.select(matches).where(matches.c.id == mid)).one()
        seat_rows = conn.execute(
            sa.select(match_seats).where(match_seats.c.match_id == mid).order_by(match_seats.c.seat)
        ).all()
    return match_row(row, tuple(seat_row(s) for s in seat_rows))


def test_official_and_ladder_matches_are_public_friendly_ones_their_owners_only(
    w: World,
) -> None:
    w.store.set_admin("dee@example.org")
    ana_s, bob_s = w.program("ana", "Mine"), w.program("bob", "Bobby", public=True)
    seats = [(ana_s, w.ana), (bob_s, w.bob), (None, None), (None, None)]
    with w.engine.connect() as conn:
        for kind in ("official", "ladder"):
            match = a_match(w, kind, seats)
            assert social.may_see_match(conn, None, match)
            assert social.may_see_match(conn, w.user("cy"), match)
        friendly = a_match(w, "friendly", seats)
        bare = dataclasses.replace(friendly, seats=())  # seats read from the database
        for m in (friendly, bare):
            assert social.may_see_match(conn, w.user("ana"), m)
            assert social.may_see_match(conn, w.user("bob"), m)
            assert social.may_see_match(conn, w.user("dee"), m)  # an admin
            assert not social.may_see_match(conn, w.user("cy"), m)
            assert not social.may_see_match(conn, None, m)
        odd = dataclasses.replace(friendly, kind="mystery")  # an unknown kind: nobody
        assert not social.may_see_match(conn, w.user("ana"), odd)
