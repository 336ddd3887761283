"""A seat's account of one game (`SeatRecord`): its clock, CPU, verdict and report.

The turn loop (`game`) keeps one per seat and decides what each verdict costs; the
waits (`wires`) charge a program seat's clock and CPU and note its verdicts as its
replies come in. Both need the record, so it lives here, below both: `game` imports
`wires`, never the reverse.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lightcycle.referee.clock import Clock
from lightcycle.referee.player_base import Player
from lightcycle.referee.verdicts import OK, Verdict


@dataclass
class SeatRecord:
    """One seat's account of one game.

    Attributes:
        player: who sat here.
        clock: the seat's time account.
        verdict: the first verdict other than ``ok`` (``ok`` if none).
        cpu: CPU seconds the bot's process tree used in this game (programs: measured
            every game, budget or not, read each turn under a budget and at the end;
            in-process bots: the thread CPU time of their moves).
        cpu_base: the process tree's CPU reading (seconds) when this game began: 0 for
            a process new to this game (its start-up counts, whether it was started for
            the game or as a spare ahead of it), its reading so far for a process kept
            from earlier games (their CPU does not count again).
        cpu_mark: the CPU reading (seconds) at the end of the seat's last turn, for
            rulesets that are handed each turn's CPU time.
        fresh_process: whether this game took a new process.
        failed: whether a verdict took the whole seat out of the game.
        info: what an in-process bot reported about the game (`Bot.report`), such as
            its mean search depth.
    """

    player: Player
    clock: Clock
    verdict: Verdict = OK
    cpu: float = 0.0
    cpu_base: float = 0.0
    cpu_mark: float = 0.0
    fresh_process: bool = False
    failed: bool = False
    info: dict[str, float] = field(default_factory=dict)
