"""The friendly-match form offers exactly the matches the judge accepts (issue 38, item 8).

`social.friendly_form` tells the form what each seat may take; `social.check_friendly`
refuses a request. Both must be one rule: the form once offered, in every seat, every
program the student may use, so a private program against a stranger's public one, a
friend's private program against someone its owner is not friends with, or a match with
none of the student's programs were offered and then refused. Here the form is walked
the way a student would (change one seat, get the new form) from its first state, and
the matches it offers are compared, both ways, with every match of the same programs
that `check_friendly` accepts. On SQLite and on PostgreSQL (the ``db_url`` fixture).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator, Sequence

import pytest
from sqlalchemy.engine import Engine

from lightcycle.judge.service import social
from lightcycle.judge.service.contest import Contest, FriendlySpec
from lightcycle.judge.service.store import JudgeStore
from tests.judge.service.fakes import CONTEST
from tests.judge.service.programs import insert_program

Seats = tuple[int | None, ...]

DUELS_TOO = dataclasses.replace(CONTEST, friendly=FriendlySpec(players=(2, 4)))
"""The test contest (4 players) with friendly duels allowed as well."""


@dataclasses.dataclass
class Class:
    """Ana's classmates and their programs, each named for what it is to Ana.

    Bob and Cy are Ana's friends but not each other's; Ana added Dee, who has not added
    her back (a request, not a friendship); Eve is a stranger; Gus has no program.
    """

    engine: Engine
    ids: dict[str, int]
    programs: dict[str, int]

    def __getattr__(self, name: str) -> int:
        if name in self.programs:
            return self.programs[name]
        return self.ids[name]


@pytest.fixture
def world(db_url: str) -> Iterator[Class]:
    with JudgeStore(db_url) as store:
        engine = store.engine
        ids = {
            n: store.create_user(f"{n}@example.org", "h")
            for n in ("ana", "bob", "cy", "dee", "eve", "gus")
        }
        for a, b in (("ana", "bob"), ("bob", "ana"), ("ana", "cy"), ("cy", "ana"), ("ana", "dee")):
            social.add_friend(engine, ids[a], f"{b}@example.org")

        def program(owner: str, name: str, state: str = "accepted", public: bool = False) -> int:
            return insert_program(engine, ids[owner], name, state=state, public=public)

        programs = {
            "own_public": program("ana", "AnaPub", public=True),
            "own_unjudged": program("ana", "AnaWip", state="testing"),
            "own_private": program("ana", "AnaPriv"),  # her newest: the form's first choice
            "friends_private": program("bob", "BobPriv"),
            "other_friends_private": program("cy", "CyPriv"),
            "strangers_public": program("eve", "EvePub", public=True),
            "strangers_private": program("eve", "EvePriv"),
            "requested_private": program("dee", "DeePriv"),
        }
        yield Class(engine, ids, programs)


def form(w: Class, contest: Contest, players: int, chosen: Seats = ()) -> social.FriendlyForm:
    with w.engine.connect() as conn:
        got = social.friendly_form(conn, contest, w.ana, players, chosen)
    assert got is not None
    return got


def offered(f: social.FriendlyForm, seat: int) -> set[int | None]:
    return {None if p is None else p.id for p in f.choices[seat]}


def accepted(w: Class, contest: Contest, seats: Sequence[int | None]) -> bool:
    with w.engine.connect() as conn:
        try:
            social.check_friendly(conn, contest, w.ana, seats)
        except social.SocialError:
            return False
    return True


def walk(w: Class, contest: Contest, players: int) -> set[Seats]:
    """Every match the form offers: a seat changed to one of its choices, in any form a
    student reaches by such changes from the first one."""
    start = form(w, contest, players).seats
    seen, todo, out = {start}, [start], set()
    while todo:
        seats = todo.pop()
        shown = form(w, contest, players, seats)
        assert shown.seats == seats  # the form keeps what the student chose
        for i in range(players):
            assert seats[i] in offered(shown, i)
            for choice in offered(shown, i):
                changed = (*seats[:i], choice, *seats[i + 1 :])
                out.add(changed)
                if changed not in seen:
                    seen.add(changed)
                    todo.append(changed)
    return out


def test_a_duel_form_offers_only_what_the_rule_accepts_case_by_case(world: Class) -> None:
    w = world
    first = form(w, DUELS_TOO, 2)
    assert first.seats == (w.own_private, None)  # her newest program, the reference bot
    assert offered(first, 0) == {w.own_private, w.own_public}  # one of hers must play
    # her private program meets her own, her friends' and the reference bot; not the
    # stranger's public one (they are not friends), nor anything not hers to use
    assert offered(first, 1) == {
        w.own_private,
        w.own_public,
        w.friends_private,
        w.other_friends_private,
        None,
    }
    public = form(w, DUELS_TOO, 2, (w.own_public, None))
    assert public.seats == (w.own_public, None)
    assert offered(public, 1) == offered(first, 1) | {w.strangers_public}
    against = form(w, DUELS_TOO, 2, (w.own_public, w.strangers_public))
    assert offered(against, 0) == {w.own_public}  # her private one may not meet Eve's
    # her program may sit in the second seat: then the first offers her classmates'
    second = form(w, DUELS_TOO, 2, (None, w.own_public))
    assert offered(second, 0) == offered(public, 1)


def test_a_friend_s_private_program_is_offered_only_with_its_owner_s_friends(
    world: Class,
) -> None:
    w = world
    seats = (w.own_public, w.friends_private, None, None)
    f = form(w, CONTEST, 4, seats)
    assert f.seats == seats
    # Cy's and Eve's programs would meet Bob's private one: Bob is friends with neither
    assert offered(f, 2) == {w.own_public, w.own_private, w.friends_private, None}
    assert offered(f, 0) == {w.own_public, w.own_private}  # the only program of hers


def test_a_refused_or_foreign_choice_gives_the_first_form_and_no_own_program_no_form(
    world: Class,
) -> None:
    w = world
    first = form(w, CONTEST, 4).seats
    for crafted in (
        (w.own_private, w.strangers_public, None, None),  # refused: not friends
        (w.own_private, w.strangers_private, None, None),  # not hers to use
        (None, None, None, None),  # none of hers
        (w.own_private, None),  # another number of seats
    ):
        assert form(w, CONTEST, 4, crafted).seats == first, crafted
    assert form(w, CONTEST, 3).seats == first  # 3 seats are not allowed here: 4
    with w.engine.connect() as conn:
        # Gus may use Ana's and Eve's public programs, but a match needs one of his
        assert social.friendly_form(conn, CONTEST, w.gus, 4) is None


@pytest.mark.parametrize(
    ("players", "contest", "names"),
    [
        (2, DUELS_TOO, None),  # every program, the unusable ones too
        (
            4,
            CONTEST,
            (
                "own_public",
                "own_private",
                "friends_private",
                "other_friends_private",
                "strangers_public",
            ),
        ),
    ],
)
def test_the_form_offers_exactly_the_matches_the_rule_accepts(
    world: Class, players: int, contest: Contest, names: tuple[str, ...] | None
) -> None:
    w = world
    programs = [w.programs[n] for n in names] if names else list(w.programs.values())
    everything = set(itertools.product([*programs, None], repeat=players))
    allowed = {seats for seats in everything if accepted(w, contest, seats)}
    shown = walk(w, contest, players)
    assert shown <= everything
    assert shown - allowed == set(), "offered, then refused"
    assert allowed - shown == set(), "accepted, never offered"
