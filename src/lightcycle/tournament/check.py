"""The consistency check: do the stored ratings follow from the stored results?

The runner commits a match's result and its rating updates in one transaction, in
schedule order, so a healthy store satisfies, for every tournament:

1. the played matches are the first ones of the schedule (nothing played after a gap);
2. every game's result has exactly one update per seat and rating system, and a bye none;
3. each result's seats are the scheduled ones;
4. recomputing both ratings from the results alone, in schedule order, gives back every
   stored update exactly, float for float;
5. every replay path stored points to a file (reported, not an inconsistency of the
   database: replays may have been moved).

A store that fails 1-4 was written some other way than by the runner (a bug, a hand
edit, a copy taken mid-write by a tool that ignores the journal): the runner refuses to
resume it, and ``lightcycle tournament check --repair`` deletes the results from the
first problem on, so the next run plays those matches again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lightcycle.tournament.ratings import SYSTEMS, RatingBook, RatingUpdate
from lightcycle.tournament.store import Store


@dataclass(frozen=True)
class Problem:
    """One inconsistency.

    Attributes:
        seq: the position of the match in the schedule (results from here on are suspect).
        key: the match key.
        message: what is wrong.
        repairable: whether deleting results from ``seq`` on fixes it (missing replay
            files are not).
    """

    seq: int
    key: str
    message: str
    repairable: bool = True


def check(store: Store, tid: int, out_dir: Path | None = None) -> list[Problem]:
    """Every inconsistency of tournament ``tid`` (empty: consistent).

    Args:
        store: the database.
        tid: the tournament's id.
        out_dir: the output folder, to check that the replay files exist.
    """
    problems: list[Problem] = []
    entrants = store.entrants(tid)
    names = {e.index: e.name for e in entrants}
    scheduled = store.matches(tid)
    gap = next((m for m in scheduled if m.result_id is None), None)
    if gap is not None:
        for m in scheduled:
            if m.seq > gap.seq and m.result_id is not None:
                problems.append(
                    Problem(
                        m.seq,
                        m.key,
                        f"played although {gap.key} (earlier in the schedule) is not: ratings "
                        "are applied in schedule order",
                    )
                )
                break
    stored = store.rating_updates(tid)
    book = RatingBook()
    for sr in store.results(tid):
        m, res = sr.match, sr.result
        assert m.result_id is not None
        updates = stored.get(m.result_id, [])
        seats = tuple(s.entrant for s in res.seats)
        if seats != m.seats:
            problems.append(
                Problem(m.seq, m.key, f"result seats {list(seats)} but scheduled {list(m.seats)}")
            )
            continue
        if len(res.seats) == 1:
            if updates:
                problems.append(Problem(m.seq, m.key, "a bye with rating updates"))
            continue
        placements = [(names[s.entrant], s.rank) for s in res.seats]
        expected = len(res.seats) * len(SYSTEMS)
        if len(updates) != expected:
            what = "no rating update" if not updates else f"{len(updates)} rating updates"
            problems.append(
                Problem(
                    m.seq,
                    m.key,
                    f"result stored with {what} (expected {expected}): a split commit",
                )
            )
            book.rate(placements)  # go on as if they were there, to find later problems too
            continue
        recomputed = book.rate(placements)
        if sorted(recomputed, key=_order) != sorted(updates, key=_order):
            for want, got in zip(
                sorted(recomputed, key=_order), sorted(updates, key=_order), strict=True
            ):
                if want != got:
                    problems.append(
                        Problem(
                            m.seq,
                            m.key,
                            f"stored {got.system} update of {got.entrant} "
                            f"({got.before!r} -> {got.after!r}) differs from the one "
                            f"recomputed from the results ({want.before!r} -> {want.after!r})",
                        )
                    )
                    break
            book.apply(updates)  # go on from what is stored, to find later problems too
        if out_dir is not None and res.replay is not None and not (out_dir / res.replay).is_file():
            problems.append(
                Problem(m.seq, m.key, f"replay {res.replay} is missing", repairable=False)
            )
    problems.sort(key=lambda p: p.seq)
    return problems


def _order(u: RatingUpdate) -> tuple[str, str]:
    return (u.system, u.entrant)
