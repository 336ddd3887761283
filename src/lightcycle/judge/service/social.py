"""Friends, public and private programs, and who may use and see what (the course's 4.2).

The course's rules, made exact:

- **Friends** are added by email; a friendship exists only when both users added each
  other (two rows of ``judge_friends``, one per direction). Until then the adder's row is
  a request the other user sees as *received*. Removing a friend deletes both rows, so it
  works either way: ending a friendship, withdrawing a request, or declining one.
  Adding an email nobody signed up with says so: the judge's sign-up page already tells
  anyone whether an email has an account, so hiding it here would protect nothing and
  only confuse a student who mistyped a friend's address.
- **Programs** are private by default. The owner (only) may make one public, and a public
  program can never be made private again. A submission still being judged may be made
  public (it plays once accepted); a rejected one may not: it can never play.
- **A friendly match** (`check_friendly`) seats the user's own accepted programs, anyone's
  public accepted programs, friends' private accepted programs and the contest's
  reference bot (a Dummy, submission ``None``); at least one program must be the user's
  (its results are shown only to the owners of the programs in it), the number of seats
  must be one the contest allows, and a private program plays only if its owner is a
  friend of EVERY other user with a program in the match (Dummies are nobody).
  The friendly-match form asks the same rule (`friendly_form`) which program each seat
  may take, so it offers only matches that `check_friendly` then accepts.
- **Who sees a match** (`may_see_match`): official and ladder matches are public (logged
  out too); a friendly match only to the owners of its programs and to admins.
- **The official program** (`official_program`) is the one the user chose
  (`set_official`) while it is theirs and accepted, else their newest accepted one.

Every refusal is a `SocialError` whose message is one line naming the program or person
and what to do. A program the user may not use is named by its number only, so that a
refusal never reveals a stranger's private program or email.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from lightcycle.judge.service import tables
from lightcycle.judge.service.contest import Contest
from lightcycle.judge.service.tables import (
    FINAL_STATES,
    MatchRow,
    SubmissionRow,
    UserRow,
    match_seats,
    now,
    submission_row,
    submissions,
    users,
)
from lightcycle.storage import begin_write

friends_table = tables.friends
"""``judge_friends`` (a row: ``user_id`` added ``friend_id``); renamed, as `friends` is
the friends page's read model here."""

ACCEPTED = "accepted"
"""The only state in which a program plays."""


class SocialError(ValueError):
    """A refused social action (a friend request, a switch, a friendly match); one line."""


@dataclass(frozen=True)
class Person:
    """Another user as the friends page shows them: only the id and the email."""

    id: int
    email: str


@dataclass(frozen=True)
class Friends:
    """A user's friends page, each list sorted by email.

    Attributes:
        mutual: users both added each other with: the friends.
        sent: users this user added who have not added them back (yet).
        received: users who added this user, not added back: adding them (by email)
            makes the friendship; removing declines.
    """

    mutual: tuple[Person, ...]
    sent: tuple[Person, ...]
    received: tuple[Person, ...]


# -- friends ---------------------------------------------------------------------------


def add_friend(engine: Engine, user_id: int, email: str) -> bool:
    """Add the user with ``email`` as a friend of ``user_id`` (one direction).

    Returns:
        ``True`` when this makes a friendship (they had added ``user_id`` already),
        ``False`` when it waits for them to add ``user_id`` back.

    Raises:
        SocialError: an empty email, one nobody signed up with, the user's own, or a
            user already added.
    """
    wanted = email.strip().lower()
    if not wanted:
        raise SocialError("type your friend's email, e.g. ana@example.org")
    with begin_write(engine) as conn:
        other = conn.execute(sa.select(users.c.id).where(users.c.email == wanted)).first()
        if other is None:
            raise SocialError(
                f"nobody has signed up with {wanted}; check the email, or ask them to sign up first"
            )
        friend_id = int(other.id)
        if friend_id == user_id:
            raise SocialError(f"{wanted} is your own email; add a friend's email instead")
        rows = _rows_between(conn, [user_id, friend_id])
        if (user_id, friend_id) in rows:
            state = "you are friends" if (friend_id, user_id) in rows else "they must add you too"
            raise SocialError(f"you already added {wanted} ({state})")
        try:
            with conn.begin_nested():
                conn.execute(
                    sa.insert(friends_table).values(
                        user_id=user_id, friend_id=friend_id, created_at=now()
                    )
                )
        except sa.exc.IntegrityError:  # the same request sent twice at once
            raise SocialError(f"you already added {wanted}") from None
        return (friend_id, user_id) in rows


def remove_friend(engine: Engine, user_id: int, friend_id: int) -> bool:
    """End what is between two users, either way: a friendship, a request sent or received.

    Both directions are deleted, so the other user no longer sees a request either; to
    become friends again both must add each other again.

    Returns:
        ``False`` when there was nothing between them (a page submitted twice: no error).
    """
    with begin_write(engine) as conn:
        result = conn.execute(
            sa.delete(friends_table).where(
                sa.or_(
                    sa.and_(
                        friends_table.c.user_id == user_id,
                        friends_table.c.friend_id == friend_id,
                    ),
                    sa.and_(
                        friends_table.c.user_id == friend_id,
                        friends_table.c.friend_id == user_id,
                    ),
                )
            )
        )
    return bool(result.rowcount)


def friends(conn: Connection, user_id: int) -> Friends:
    """A user's friends, requests sent and requests received (see `Friends`)."""
    out = {
        r.friend_id
        for r in conn.execute(
            sa.select(friends_table.c.friend_id).where(friends_table.c.user_id == user_id)
        )
    }
    into = {
        r.user_id
        for r in conn.execute(
            sa.select(friends_table.c.user_id).where(friends_table.c.friend_id == user_id)
        )
    }
    emails = _emails(conn, out | into)

    def people(ids: set[int]) -> tuple[Person, ...]:
        return tuple(sorted((Person(i, emails[i]) for i in ids), key=lambda p: p.email))

    return Friends(people(out & into), people(out - into), people(into - out))


def are_friends(conn: Connection, a: int, b: int) -> bool:
    """Whether ``a`` and ``b`` added each other; a user counts as their own friend (a
    private program may always play against its owner's other programs)."""
    if a == b:
        return True
    rows = _rows_between(conn, [a, b])
    return (a, b) in rows and (b, a) in rows


# -- public and private ----------------------------------------------------------------


def make_public(engine: Engine, user_id: int, sid: int) -> bool:
    """Make the owner's submission ``sid`` public: anyone may then put it in a friendly
    match. This can never be undone (the course's rule).

    Returns:
        ``False`` when it was public already (nothing changed).

    Raises:
        SocialError: not the user's submission (or none such: the same words, so that
            nobody learns of another's private program), or one that was rejected.
    """
    with begin_write(engine) as conn:
        sub = _own(conn, user_id, sid, "only its owner can make it public")
        if sub.public:
            return False
        if sub.state in FINAL_STATES and sub.state != ACCEPTED:
            raise SocialError(
                f"{_label(sub)} was not accepted ({sub.state}) and will never play; "
                "make an accepted program public instead"
            )
        conn.execute(sa.update(submissions).where(submissions.c.id == sid).values(public=True))
    return True


def make_private(engine: Engine, user_id: int, sid: int) -> None:
    """Refuse to make a public program private again (a private one stays as it is).

    There is no way back from public, by the course's rule; this exists so that a page
    or command asking for it gets the reason, not a silent success.

    Raises:
        SocialError: always for a public program; a submission not the user's.
    """
    with engine.connect() as conn:
        sub = _own(conn, user_id, sid, "only its owner can change it")
    if sub.public:
        raise SocialError(
            f"{_label(sub)} is public, and a public program can never be made private "
            "again; submit it again under a new name to have a private copy"
        )


# -- official play ---------------------------------------------------------------------


def set_official(engine: Engine, user_id: int, sid: int | None) -> None:
    """Choose the program that plays the user's official matches (from the next round).

    ``None`` goes back to the default: the user's newest accepted submission.

    Raises:
        SocialError: not the user's submission, or one not accepted.
    """
    with begin_write(engine) as conn:
        if sid is not None:
            sub = _own(conn, user_id, sid, "choose one of your own programs")
            if sub.state != ACCEPTED:
                raise SocialError(
                    f"{_label(sub)} is not accepted ({sub.state}); only an accepted program "
                    "can play official matches"
                )
        conn.execute(
            sa.update(users).where(users.c.id == user_id).values(official_submission_id=sid)
        )


def official_program(conn: Connection, user_id: int) -> SubmissionRow | None:
    """The program that plays for ``user_id`` officially: the chosen one while it is
    still theirs and accepted, else their newest accepted submission (the highest id:
    the newest upload, whatever order the builds finished in); ``None``: they have none."""
    chosen = conn.execute(
        sa.select(users.c.official_submission_id).where(users.c.id == user_id)
    ).scalar()
    accepted = _accepted_of(conn, [user_id]).get(user_id, [])
    return _pick(accepted, chosen)


def official_players(conn: Connection) -> list[tuple[int, SubmissionRow]]:
    """Every user with an official program (see `official_program`), as
    ``(user_id, program)`` in user id order: who an official round or the ladder plays."""
    chosen = {
        r.id: r.official_submission_id
        for r in conn.execute(sa.select(users.c.id, users.c.official_submission_id))
    }
    accepted = _accepted_of(conn, None)
    out: list[tuple[int, SubmissionRow]] = []
    for uid in sorted(accepted):
        sub = _pick(accepted[uid], chosen.get(uid))
        if sub is not None:
            out.append((uid, sub))
    return out


# -- friendly matches ------------------------------------------------------------------


def friendly_seats(contest: Contest) -> tuple[int, ...]:
    """The numbers of seats a friendly match may have: ``[friendly] players`` (which
    defaults to the contest's ``players``), sorted."""
    return tuple(sorted(set(contest.friendly.players or (contest.players,))))


def usable_programs(conn: Connection, user_id: int) -> list[SubmissionRow]:
    """The accepted programs ``user_id`` may put in a friendly match: their own, anyone's
    public ones and their friends' private ones; their own first, then the others, each
    newest first.

    A friend's private program also needs its owner to be a friend of everyone else in
    the match: `check_friendly` checks that once the match's programs are known.
    """
    mates = _mutual_of(conn, user_id)
    rows = conn.execute(
        sa.select(submissions)
        .where(
            submissions.c.state == ACCEPTED,
            sa.or_(
                submissions.c.user_id == user_id,
                submissions.c.public == sa.true(),
                submissions.c.user_id.in_(mates) if mates else sa.false(),
            ),
        )
        .order_by(submissions.c.id.desc())
    ).all()
    subs = [submission_row(r) for r in rows]
    return [s for s in subs if s.user_id == user_id] + [s for s in subs if s.user_id != user_id]


def check_friendly(
    conn: Connection, contest: Contest, user_id: int, submission_ids: Sequence[int | None]
) -> None:
    """Refuse a friendly match ``user_id`` may not start (see the module docstring).

    ``submission_ids`` lists the seats: a submission id, or ``None`` for the contest's
    reference bot (a Dummy). The same program may sit in several seats (as in the
    qualifying game against itself). Run inside the transaction that creates the match.

    Raises:
        SocialError: the first rule the match breaks, naming the program and what to do.
    """
    wanted = sorted({s for s in submission_ids if s is not None})
    found = [
        submission_row(r)
        for r in conn.execute(sa.select(submissions).where(submissions.c.id.in_(wanted)))
    ]
    problem = _refusal(contest, _circle(conn, user_id, found), submission_ids)
    if problem is not None:
        raise SocialError(problem)


@dataclass(frozen=True)
class FriendlyForm:
    """The friendly-match form as the rule allows it (see `friendly_form`).

    Attributes:
        seats: each seat's program id (``None``: the reference bot), a match that
            `check_friendly` accepts.
        choices: for each seat, what it may be changed to while the other seats stay as
            they are (a program, or ``None``: the reference bot), in the order of
            `usable_programs` then the reference bot; the seat's own choice among them.
    """

    seats: tuple[int | None, ...]
    choices: tuple[tuple[SubmissionRow | None, ...], ...]


def friendly_form(
    conn: Connection,
    contest: Contest,
    user_id: int,
    players: int,
    chosen: Sequence[int | None] = (),
) -> FriendlyForm | None:
    """What the friendly-match form of ``user_id`` offers: only matches the rule accepts.

    The form asks here rather than listing `usable_programs` in every seat because which
    programs may meet depends on the others in the match (a private program plays only
    with its owner's friends, and one of the user's own programs must play): each seat
    offers exactly the choices with which `check_friendly`'s rule, run on the whole match,
    still accepts it. A page that asks again after each change (with the seats chosen
    so far) therefore only ever shows, and lets the student submit, accepted matches, and
    every accepted match is reachable one seat at a time (put an own program in its
    seat, then fill the others).

    Args:
        conn: a connection (a read: nothing is written).
        contest: the contest (the numbers of seats it allows).
        user_id: the student filling the form.
        players: the number of seats; one the contest does not allow means its first.
        chosen: the seats as the student left them (ids, ``None``: the reference bot);
            empty, another number of seats or a match the rule refuses (a friendship
            ended meanwhile, a crafted address) means the default: the user's newest
            program against reference bots.

    Returns:
        The form, or ``None`` when the user has no accepted program of their own: then
        no friendly match of theirs can be accepted.
    """
    counts = friendly_seats(contest)
    count = players if players in counts else counts[0]
    usable = usable_programs(conn, user_id)
    own = [s for s in usable if s.user_id == user_id]
    if not own:
        return None
    circle = _circle(conn, user_id, usable)
    seats: tuple[int | None, ...] = (own[0].id,) + (None,) * (count - 1)
    if len(chosen) == count and _refusal(contest, circle, chosen) is None:
        seats = tuple(chosen)
    options: list[SubmissionRow | None] = [*usable, None]

    def fits(seat: int, option: SubmissionRow | None) -> bool:
        changed = list(seats)
        changed[seat] = None if option is None else option.id
        return _refusal(contest, circle, changed) is None

    choices = tuple(tuple(o for o in options if fits(i, o)) for i in range(len(seats)))
    return FriendlyForm(seats, choices)


@dataclass(frozen=True)
class _Circle:
    """What the friendly-match rule reads, loaded once (`_circle`).

    Attributes:
        user_id: the user asking for the match.
        programs: the submissions that may be in it, by id (any other id is unknown).
        rows: the ``judge_friends`` rows among the user and the programs' owners.
        emails: the emails of the user and the owners, for a refusal's words.
    """

    user_id: int
    programs: dict[int, SubmissionRow]
    rows: set[tuple[int, int]]
    emails: dict[int, str]

    def mutual(self, a: int, b: int) -> bool:
        """Whether ``a`` and ``b`` are friends (a user is their own)."""
        return a == b or ((a, b) in self.rows and (b, a) in self.rows)


def _circle(conn: Connection, user_id: int, programs: Iterable[SubmissionRow]) -> _Circle:
    """The `_Circle` of ``user_id`` around ``programs``, read in ``conn``'s transaction."""
    found = {p.id: p for p in programs}
    owners = {p.user_id for p in found.values()} | {user_id}
    return _Circle(user_id, found, _rows_between(conn, owners), _emails(conn, owners))


def _refusal(contest: Contest, circle: _Circle, submission_ids: Sequence[int | None]) -> str | None:
    """The friendly-match rule: why ``circle.user_id`` may not start a match of these
    seats (the first rule broken, one line), or ``None`` when they may.

    One pure function over `_Circle`, so that `check_friendly` (a request) and
    `friendly_form` (the choices offered) cannot disagree: the form runs it for every
    choice it considers.
    """
    allowed = friendly_seats(contest)
    if len(submission_ids) not in allowed:
        return (
            f"a friendly match has {_either(allowed)} players here, not "
            f"{len(submission_ids)}; choose that many programs or Dummies"
        )
    user_id, found = circle.user_id, circle.programs
    wanted = sorted({s for s in submission_ids if s is not None})
    for s in wanted:
        sub = found.get(s)
        if sub is None or (
            sub.user_id != user_id and not (sub.public or circle.mutual(sub.user_id, user_id))
        ):
            return (
                f"submission {s} is not a program you can use (someone else's private one, "
                "or none); pick one from your list, or ask its owner to make it public or to "
                "be your friend"
            )
        if sub.state != ACCEPTED:
            whose = "your" if sub.user_id == user_id else "the"
            return (
                f"{whose} program {_label(sub)} is not accepted ({sub.state}); only accepted "
                "programs play, pick another"
            )
    if not any(found[s].user_id == user_id for s in wanted):
        return (
            "put at least one of your own programs in the match: its results are shown only "
            "to the owners of the programs playing"
        )
    players = {found[s].user_id for s in wanted}
    for s in wanted:
        sub = found[s]
        if sub.public:
            continue
        for other in sorted(players - {sub.user_id}):
            if not circle.mutual(sub.user_id, other):
                return _not_friends(sub, other, user_id, found, wanted, circle.emails, circle.rows)
    return None


def _not_friends(
    sub: SubmissionRow,
    other: int,
    user_id: int,
    found: dict[int, SubmissionRow],
    wanted: Iterable[int],
    emails: dict[int, str],
    rows: set[tuple[int, int]],
) -> str:
    """The refusal of private ``sub`` playing with ``other``'s program, with what to do.

    The requesting user sees only emails they already know (someone they added or who
    added them); anyone else is named by one of their programs in the match. (``sub``
    is the user's own or a friend's: `check_friendly` refused any other private one.)
    """
    theirs = next(found[t] for t in wanted if found[t].user_id == other)
    if sub.user_id != user_id:
        return (
            f"{_label(sub)} of {emails[sub.user_id]} is private and its owner is not friends "
            f"with the owner of {theirs.name}; pick another program, or ask "
            f"{emails[sub.user_id]} to make {sub.name} public"
        )
    if (user_id, other) in rows:
        todo = f"ask {emails[other]} to add you back"
    elif (other, user_id) in rows:
        todo = f"add {emails[other]} back (they added you)"
    else:
        todo = f"become friends with the owner of {theirs.name} (both add each other)"
    return (
        f"your program {_label(sub)} is private and its owner (you) is not friends with the "
        f"owner of {theirs.name}: make {sub.name} public, or {todo}"
    )


# -- who sees a match ------------------------------------------------------------------


def may_see_match(conn: Connection, user: UserRow | None, match: MatchRow) -> bool:
    """Whether ``user`` (``None``: logged out) may see ``match`` and its replay.

    Official and ladder matches are public; a friendly match is shown to the owners of
    its programs and to admins only (anyone else is told it does not exist). The seats
    are read from the database when ``match`` came without them.
    """
    if match.kind in ("official", "ladder"):
        return True
    if match.kind != "friendly" or user is None:
        return False
    if user.is_admin:
        return True
    if match.seats:
        seated = {seat.user_id for seat in match.seats}
    else:
        seated = {
            r.user_id
            for r in conn.execute(
                sa.select(match_seats.c.user_id).where(match_seats.c.match_id == match.id)
            )
        }
    return user.id in seated


# -- helpers ---------------------------------------------------------------------------


def _label(sub: SubmissionRow) -> str:
    """How a refusal names a program the user may know: its name and number."""
    return f"{sub.name} (submission {sub.id})"


def _either(counts: Sequence[int]) -> str:
    """``2``, ``2 or 4``, ``2, 3 or 4``."""
    words = [str(n) for n in counts]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _own(conn: Connection, user_id: int, sid: int, what: str) -> SubmissionRow:
    """The user's submission ``sid``, or a `SocialError` that does not say whether
    someone else has one by that number."""
    r = conn.execute(sa.select(submissions).where(submissions.c.id == sid)).first()
    if r is None or r.user_id != user_id:
        raise SocialError(f"submission {sid} is not one of yours; {what}")
    return submission_row(r)


def _rows_between(conn: Connection, ids: Iterable[int]) -> set[tuple[int, int]]:
    """The ``(user_id, friend_id)`` rows among ``ids``."""
    group = sorted(set(ids))
    return {
        (r.user_id, r.friend_id)
        for r in conn.execute(
            sa.select(friends_table.c.user_id, friends_table.c.friend_id).where(
                friends_table.c.user_id.in_(group), friends_table.c.friend_id.in_(group)
            )
        )
    }


def _mutual_of(conn: Connection, user_id: int) -> list[int]:
    """The ids of ``user_id``'s friends (both added each other)."""
    back = friends_table.alias("back")
    return [
        int(r.friend_id)
        for r in conn.execute(
            sa.select(friends_table.c.friend_id)
            .join(
                back,
                sa.and_(
                    back.c.user_id == friends_table.c.friend_id,
                    back.c.friend_id == friends_table.c.user_id,
                ),
            )
            .where(friends_table.c.user_id == user_id)
        )
    ]


def _emails(conn: Connection, ids: Iterable[int]) -> dict[int, str]:
    """The emails of users ``ids``."""
    group = sorted(set(ids))
    if not group:
        return {}
    return {
        r.id: r.email
        for r in conn.execute(sa.select(users.c.id, users.c.email).where(users.c.id.in_(group)))
    }


def _accepted_of(conn: Connection, user_ids: list[int] | None) -> dict[int, list[SubmissionRow]]:
    """Accepted submissions per user (all users for ``None``), newest (highest id) first."""
    query = sa.select(submissions).where(submissions.c.state == ACCEPTED)
    if user_ids is not None:
        query = query.where(submissions.c.user_id.in_(user_ids))
    out: dict[int, list[SubmissionRow]] = {}
    for r in conn.execute(query.order_by(submissions.c.id.desc())):
        out.setdefault(r.user_id, []).append(submission_row(r))
    return out


def _pick(accepted: list[SubmissionRow], chosen: int | None) -> SubmissionRow | None:
    """The chosen program if among ``accepted`` (newest first), else the newest."""
    for sub in accepted:
        if sub.id == chosen:
            return sub
    return accepted[0] if accepted else None
