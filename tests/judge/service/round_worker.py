"""A worker process for the official round's kill -9 test: `run_worker` with the real
steps on `ROUND_DUEL` (its hooks start the round's next stages): `match_worker.main`
on that contest; started with `match_worker.start(URL, module=...)`.

Usage: python -m tests.judge.service.round_worker DB_URL
"""

from __future__ import annotations

import dataclasses

from lightcycle.judge.service.contest import OfficialSpec
from tests.judge.service.match_worker import main
from tests.judge.service.programs import DUEL

ROUND_DUEL = dataclasses.replace(
    DUEL,
    maps=("arena-10",),
    official=OfficialSpec(finalists=1, rounds_per_start=1, group_size=2, filler="builtin:random"),
)
"""The match tests' duel on a smaller map (short games), with elimination rounds of
duels until a champion, one round a start."""


if __name__ == "__main__":
    main(ROUND_DUEL)
