"""How long a searching bot thinks on a move: the budget from the time control.

A pure function of what the referee says (`View.time_limit`, `View.clock`), the turn,
an estimate of the moves left and how critical the position is, so the policy is
tested with plain numbers (``tests/bots/vectors/timing.txt``) and shared by the pure
and the compiled search (they differ in speed, not in how they spend the clock).

The answer is two times, in seconds from the start of the move:

- ``target``: what the move should take at most. The search starts no iteration it
  expects to end after it; a critical position raises it.
- ``hard``: where the search stops whatever it is doing (an iteration cut short still
  counts where it proved a better root move): the target on a quiet move, up to the
  limit less the margin on a critical one.

How strong engines spend a clock, in the controls this project has:

- a per-move limit: nothing carries over, so aim at most of it (`TARGET` of it, all
  of it on a critical move), less the safety margin (`MARGIN`); a quiet move stops at
  its target, a critical one goes on towards the limit less the margin;
- a bank: spend it evenly over the moves left, more on a critical move;
- an average limit: the allowance already holds what earlier moves saved; spend the
  savings over the moves left, more on a critical move;
- a whole-game CPU budget: what is left, less a reserve (`CPU_RESERVE`), over the moves
  left.
"""

from __future__ import annotations

from dataclasses import dataclass

from lightcycle.rules.observe import ClockView

DEFAULT_LIMIT = 0.1
"""Seconds per move assumed when the referee gives no limit at all."""

MARGIN = 0.02
"""Seconds kept below every limit for what the bot's own clock does not see.

Measured on the 2-core VM with ``bench/move_timing.py`` (docs/benchmarks.md, "Time per
move"), 100 ms a move, one spinning process beside the games: the referee's own share
of a move (from its clock's start to the bot's, and from the answer back: the View, the
accounting) is 0.1 ms at the median and 1.5 ms at p99, 20 ms at worst over 9,000
moves; a search overruns its stop by the poll interval (compiled: 64 nodes, well under
1 ms; pure Python: one leaf's separated-region bound, a few ms on a big board); and a
running thread is off the processor for at most 10.7 ms in a 100 ms window (p99.9, at
a 1-minute load of 1-2; the longest gap is what a move overruns its stop by). 20 ms
covers these. What no margin covers is the host's stalls of 50-250 ms when the machine
is oversubscribed (they forfeit a move whatever its length): they are why a quiet move
stops at its target and only a critical one goes on (a shorter move meets fewer).
"""

TARGET = 0.8
"""Share of the affordable time per move by which a quiet move's last iteration is to
end (less the margin). Iterations grow unevenly (`RATIO_MIN`), so most moves end
well before it."""

STRETCH = 0.25
"""How much longer than normal a fully critical move may aim (``TARGET * (1 +
STRETCH)`` = the whole per-move limit, less the margin)."""

HARD = 1 / TARGET
"""The most a critical move may take, as a multiple of the affordable time per move
(a per-move limit: the limit itself, less the margin; with a bank or savings it draws
on them)."""

FIRST = 0.5
"""Share of the first move's limit it aims at: the first move pays for set-up too
(tables, the compiled code's first calls) that the bot's clock does not all see."""

CPU_RESERVE = 0.1
"""Share of a whole-game CPU budget kept back against a longer game than estimated."""

HORIZON_MIN = 4
HORIZON_MAX = 100
"""Bounds on the moves-left estimate a bank, savings or CPU budget is shared over: a
bank is not spent on a few moves on a wrong estimate, nor hoarded for a long game."""

FLOOR = 0.002
"""The least a move is given (seconds): a search always finishes its first plies."""


@dataclass(frozen=True)
class Budget:
    """When to stop thinking, in seconds from the start of the move.

    Attributes:
        target: start no iteration expected to end later.
        hard: stop whatever is running (the target, on a quiet move).
    """

    target: float
    hard: float


def plan(
    limit: float | None,
    clock: ClockView | None,
    turn: int,
    moves_left: int,
    critical: float = 0.0,
) -> Budget:
    """The move's budget.

    Args:
        limit: `View.time_limit`: what this move may take (bank or savings included).
        clock: `View.clock`, or ``None`` where the referee does not say (then ``limit``
            is taken to be a plain per-move limit).
        turn: the turn (0: the first move, which pays for set-up).
        moves_left: an estimate of the bot's moves left in the game (free cells it
            reaches, halved for two cycles), to share a bank, savings or CPU over.
        critical: 0 (a quiet move) to 1 (few safe moves, heads close, the value
            swinging between iterations): a critical move may take more.
    """
    crit = min(max(critical, 0.0), 1.0)
    allowed = DEFAULT_LIMIT if limit is None else limit
    ceiling = max(FLOOR, allowed - MARGIN)
    first = turn == 0 if clock is None else clock.moves == 0
    if first:
        target = max(FLOOR, min(ceiling, FIRST * allowed))
        return Budget(target, max(target, min(ceiling, HARD * FIRST * allowed)))
    horizon = min(max(moves_left, HORIZON_MIN), HORIZON_MAX)
    nominal = allowed
    if clock is not None:
        if clock.move is not None:
            nominal = clock.move + clock.bank_left / horizon
        if clock.average is not None:
            saved = max(0.0, allowed - clock.average)
            nominal = min(nominal, clock.average + saved / horizon)
        if clock.cpu_left is not None:
            nominal = min(nominal, clock.cpu_left * (1 - CPU_RESERVE) / horizon)
    nominal = min(nominal, allowed)
    stretch = 1 + STRETCH * crit
    target = min(ceiling, max(FLOOR, TARGET * nominal * stretch - MARGIN))
    # a quiet move stops at its target: the longer a move, the likelier one of the
    # machine's stalls lands in it; only a critical move goes on towards the hard stop
    most = min(ceiling, max(target, HARD * nominal * stretch - MARGIN))
    hard = target + crit * (most - target)
    return Budget(target, hard)


def moves_left(reachable: int, cycles: int = 2) -> int:
    """The moves-left estimate: free cells reachable shared by the cycles in play."""
    return min(HORIZON_MAX, max(1, reachable // max(1, cycles)))


SWING = 30
"""A change of the search's value between two iterations (in its units: about 10 a
cell of open territory) that makes a move fully critical on that count alone; less
counts in proportion."""


def criticality(safe_moves: int, head_gap: int | None, swing: float = 0.0) -> float:
    """How critical a duel position is, 0 to 1: the signals strong engines spend on.

    Args:
        safe_moves: the bot's free moves (2 of 3: one way is already shut).
        head_gap: steps between the heads through free cells (``None``: farther than
            the bot looked, or cut off): close heads mean a fight and a separation in
            sight, where one move decides the endgame.
        swing: how much the search's value moved between its last two iterations (a
            deeper look changed its mind: the position is not understood yet).
    """
    c = 0.0
    if safe_moves == 2:
        c += 0.25
    if head_gap is not None:
        c += 0.5 if head_gap <= 3 else 0.25 if head_gap <= 6 else 0.0
    c += 0.5 * min(1.0, max(0.0, swing) / SWING)
    return min(1.0, c)


RATIO_MIN = 2.0
RATIO_MAX = 4.0
RATIO_FIRST = 4.0
"""The next iteration's cost as a multiple of the last one's: measured from the last
two iterations and clamped to [`RATIO_MIN`, `RATIO_MAX`]; `RATIO_FIRST` before two
iterations are measured. Strong's iterations vary widely (795 ratios over 4 games,
compiled, 100 ms a move: p10 0.26, median 1.65, p75 3.0, p90 7.1): the transposition
table makes one iteration nearly free, and the next dear again. Clamped to 1.5..6 the
prediction stopped too early or too late: moves took 28 ms on average, no more than the
legacy clock's 29; clamped to 2..4, 40 ms against 32, a 0.4 ply deeper."""


START = 0.5
"""Share of the target before which the next iteration starts whatever its predicted cost.

An iteration cut short is not lost (`SearchOptions.partial`: the previous best root move
is searched first, and any move proven better afterwards is played), so the prediction
only has to keep the search from starting what it cannot use. Predictions alone left most
of the clock unspent: iterations vary 0.3x-7x the last one, and a move stopped as soon as
one looked too dear (strong thought 25 ms of a 100 ms limit)."""


def start_next(elapsed: float, predicted: float, target: float, share: float = START) -> bool:
    """Whether to start another iteration.

    Args:
        elapsed: seconds since the move started.
        predicted: the next iteration's predicted cost (`next_cost`).
        target: the move's target (`Budget.target`, raised on a critical move).
        share: below this share of the target an iteration always starts (`START`).
    """
    return elapsed < share * target or elapsed + predicted <= target


def next_cost(last: float, before: float | None) -> float:
    """The predicted cost of the next iteration from the costs of the last two."""
    if before is None or before <= 0:
        return last * RATIO_FIRST
    return last * min(RATIO_MAX, max(RATIO_MIN, last / before))
