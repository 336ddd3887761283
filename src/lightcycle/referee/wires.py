"""The program seats' pipes during one game: waiting for replies until each deadline.

`Replies.collect` is the one place the referee waits on programs. It waits for all of
them at once on one `poll` (`Poller`), reads each reply as it comes, and turns whatever
goes wrong (a deadline passed, a reply no protocol allows, a CPU budget spent, a pipe
closed) into a verdict through the game's ``fail`` callback, so a slow or failing seat
costs only its own time:

- a seat found dead is not judged while other seats' clocks run: its exit status and
  last stderr lines may take up to a second to arrive, so its ``crashed`` verdict waits
  until every reply is in (`Replies.settle`);
- a seat with a CPU budget is looked at while it thinks (its process tree's CPU time
  from ``/proc``), so a bot that burns its budget in child processes without answering
  is disqualified, not merely timed out; a seat without one costs no look at all.

The game (`lightcycle.referee.game`) decides what a verdict costs; this module only
finds them.
"""

from __future__ import annotations

import os
import re
import select
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lightcycle.protocols.base import Codec, ProtocolError
from lightcycle.referee.records import SeatRecord
from lightcycle.referee.verdicts import Verdict
from lightcycle.sandbox.process import BotProcess

now = time.perf_counter
"""The referee's clock: monotonic on every platform Python supports."""

CPU_POLL = 0.1
"""Seconds between looks at the CPU time of a seat with a CPU budget while it thinks, at
the closest: each look reads ``/proc`` for its process tree (1-5 ms, on the referee's
thread), so a bot near its budget costs the referee a few percent of a core and may
overshoot by this much per core. A seat far from its budget is looked at less often
(`cpu_wait`)."""

_CORES = os.cpu_count() or 1  # a process tree burns at most this many CPU-seconds a second

Fail = Callable[[int, Verdict], None]
"""How a wire reports a verdict: ``fail(seat, verdict)`` (`Game._fail`)."""


@dataclass(eq=False)
class Wire:
    """A program seat's live connection during one game.

    Attributes:
        seat: the seat it plays.
        proc: its process.
        codec: its protocol's codec for this seat and game.
        record: its seat's account (clock, CPU, verdict).
        buf: bytes read and not yet consumed by the codec.
        sent_at: when its current request was written (its clock runs from here).
        answered_at: when its last complete reply was read.
        deadline: when its current request times out.
        healthy: no verdict has taken it out of the game.
        watching_writes: its stdin is watched for room (input waits to be written).
        ended: found dead; its verdict waits for `Replies.settle`.
        out: told its team is out while the game goes on (a protocol's ``eliminated``
            message, e.g. ``aichallenge``'s ``end``): it is asked nothing more and may
            exit, which is no crash.
    """

    seat: int
    proc: BotProcess
    codec: Codec
    record: SeatRecord
    buf: bytearray = field(default_factory=bytearray)
    sent_at: float = 0.0
    answered_at: float = 0.0
    deadline: float = 0.0
    healthy: bool = True
    watching_writes: bool = False
    ended: bool = False
    out: bool = False


class Poller:
    """The pipes a game waits on: each program's stdout, and its stdin while input waits.

    A thin layer over `select.poll` that maps each ready descriptor straight to its wire:
    the referee waits once or twice a turn per game, and the `selectors` module's
    generality costs more than the wait itself when bots answer in microseconds.
    """

    def __init__(self) -> None:
        self._poll = select.poll()
        self._wires: dict[int, tuple[Wire, bool]] = {}

    def watch(self, fd: int, w: Wire, write: bool = False) -> None:
        """Wake for ``fd`` readable (stdout) or, with ``write``, writable (stdin)."""
        self._poll.register(fd, select.POLLOUT if write else select.POLLIN)
        self._wires[fd] = (w, write)

    def forget(self, fd: int) -> None:
        """Stop watching ``fd`` (nothing happens if it was not watched)."""
        if self._wires.pop(fd, None) is not None:
            self._poll.unregister(fd)

    def wait(self, timeout: float) -> list[tuple[Wire, bool]]:
        """The wires ready within ``timeout`` seconds, each with whether it was its stdin."""
        wires = self._wires
        return [wires[fd] for fd, _ in self._poll.poll(timeout * 1000.0) if fd in wires]


def cpu_wait(left: float) -> float:
    """Seconds until a seat with ``left`` CPU-seconds of budget could have spent them."""
    return max(CPU_POLL, left / _CORES)


def written_ahead(proc: BotProcess, limit: int) -> bytes:
    """What a process wrote before its game asked anything (a spare), up to ``limit``
    bytes and a read more, so an overlong write is still seen as one."""
    out = bytearray()
    while len(out) <= limit:
        data = proc.read()
        if not data:
            break
        out += data
    return bytes(out)


def crash_detail(w: Wire) -> str:
    """How a dead seat's process ended, with its last stderr lines (waits up to 1.5 s)."""
    status = w.proc.wait_exit(0.5)
    text = w.proc.status_text() if status is not None else "closed its output"
    if status is not None:
        # Let the drain thread read the last lines. It ends at once when the pipe
        # closes, so the wait costs time only when a leftover child holds stderr open;
        # 0.2 s was too short for a busy machine to schedule the thread (empty tails).
        w.proc.wait_stderr(1.0)
    tail = w.proc.stderr_tail(400).decode("utf-8", "replace").strip()
    limit = w.proc.limits.memory
    if limit and "memory limit" not in text and _OUT_OF_MEMORY.search(tail):
        # an allocation refused under the limit ends as an ordinary exit: name the limit
        text += f" (out of memory: its memory limit is {limit >> 20} MiB)"
    return f"{text}; stderr tail: {tail!r}" if tail else text


_OUT_OF_MEMORY = re.compile(
    r"MemoryError|bad_alloc|malloc|out of memory|cannot allocate memory|allocation failed",
    re.IGNORECASE,
)
"""What a program says on stderr when an allocation fails: Python, C++, C and the
kernel's own message (ENOMEM)."""


class Replies:
    """Waiting for the program seats' replies of one game (see the module docstring).

    Args:
        fail: records a verdict for a seat (the game's `Game._fail`, which also calls
            `unregister` and stops the process of a seat the verdict takes out).
    """

    def __init__(self, fail: Fail) -> None:
        self.poller = Poller()
        self._fail = fail
        self._ended: list[Wire] = []  # seats found dead, verdicts pending (`settle`)

    def watch(self, w: Wire) -> None:
        """Start reading ``w``'s output."""
        self.poller.watch(w.proc.stdout_fd, w)

    def unregister(self, w: Wire) -> None:
        """Stop watching ``w``'s pipes (a failed or dead seat)."""
        self.poller.forget(w.proc.stdout_fd)
        if w.watching_writes:
            w.watching_writes = False
            self.poller.forget(w.proc.stdin_fd)

    def defer_crash(self, w: Wire) -> None:
        """A seat found dead: its verdict waits until the clocks stop (`settle`).

        Its exit status and its last stderr lines may take up to a second to arrive;
        reading them now would stall the wait for the other seats' replies.
        """
        self.unregister(w)  # a closed pipe would wake every wait
        if not w.ended:
            w.ended = True
            self._ended.append(w)

    def settle(self) -> None:
        """Give each seat found dead its ``crashed`` verdict, with how it ended."""
        ended, self._ended = self._ended, []
        for w in ended:
            if w.healthy:
                self._fail(w.seat, Verdict("crashed", crash_detail(w)))

    def collect(
        self, wires: Sequence[Wire], read: Callable[[Wire], Any], stamped: bool = False
    ) -> dict[Wire, Any]:
        """Wait for a reply from each wire until its deadline; failures become verdicts.

        Args:
            wires: the programs asked.
            read: parses a reply out of a wire's buffer (None: not complete yet).
            stamped: each wire's ``sent_at`` is already the time its request was written
                (a turn); otherwise the clocks start now.
        """
        start = now()
        waiting: dict[int, Wire] = {}
        got: dict[Wire, Any] = {}
        checks: dict[int, float] = {}  # stdout fd -> when to look at its CPU time next
        for w in wires:
            if not w.healthy:
                continue
            if not stamped:
                w.sent_at = start
            clock = w.record.clock
            w.deadline = w.sent_at + clock.allowance()
            if w.watching_writes or w.proc.pending:
                self._modify(w)
            # a reply may already be buffered (a bot that answers at once)
            if not (w.buf and self._try(w, read, got)):
                fd = w.proc.stdout_fd
                waiting[fd] = w
                budget = clock.control.cpu
                if budget is not None:
                    checks[fd] = start + cpu_wait(budget - w.record.cpu)
        wait = self.poller.wait
        while waiting:
            t = now()
            soonest = min([w.deadline for w in waiting.values()])
            if soonest <= t:
                for fd, w in list(waiting.items()):
                    if w.deadline <= t:
                        del waiting[fd]
                        self._timeout(w)
                continue
            if checks:
                for fd, at in list(checks.items()):
                    if fd not in waiting:
                        del checks[fd]
                    elif at <= t:
                        later = self._cpu_check(waiting[fd])
                        if later is None:
                            del waiting[fd], checks[fd]
                        else:
                            checks[fd] = later
                if not waiting:
                    break
                soonest = min(soonest, *checks.values()) if checks else soonest
            for w, stdin in wait(max(0.0, soonest - t)):
                if stdin:
                    w.proc.flush()
                    self._modify(w)
                    continue
                fd = w.proc.stdout_fd
                data = w.proc.read()
                if not data:
                    if w.proc.stdout_eof:
                        waiting.pop(fd, None)
                        self.defer_crash(w)
                    continue
                w.buf += data
                if fd not in waiting:
                    if len(w.buf) > w.codec.max_reply:
                        self._fail(
                            w.seat, Verdict("bad_output", f"wrote {len(w.buf)} bytes unasked")
                        )
                    continue
                if self._try(w, read, got):
                    del waiting[fd]
        if self._ended:
            self.settle()
        for w in got:
            pending = w.proc.pending
            if pending and len(pending) > w.proc.limits.max_pending:
                self._fail(w.seat, Verdict("disqualified", "does not read its input"))
        return got

    def _try(self, w: Wire, read: Callable[[Wire], Any], got: dict[Wire, Any]) -> bool:
        try:
            value = read(w)
        except ProtocolError as exc:
            self._fail(w.seat, Verdict("bad_output", str(exc)))
            return True
        if value is None:
            return False
        w.answered_at = now()
        got[w] = value
        return True

    def _timeout(self, w: Wire) -> None:
        allowed = w.deadline - w.sent_at
        if w.proc.poll() is not None:
            self.defer_crash(w)
        else:
            self._fail(w.seat, Verdict("timeout", f"no complete reply within {allowed:.3f} s"))

    def _cpu_check(self, w: Wire) -> float | None:
        """Disqualify a thinking seat whose process tree has spent its CPU budget.

        A bot that burns CPU in child processes and never answers would otherwise only
        time out. Returns when to look again (``None``: disqualified).
        """
        budget = w.record.clock.control.cpu
        assert budget is not None
        used = w.record.cpu = w.proc.cpu_time() - w.record.cpu_base
        if w.record.clock.cpu_exceeded(used):
            self._fail(
                w.seat,
                Verdict("disqualified", f"used {used:.2f} s of CPU; the budget is {budget} s"),
            )
            return None
        return now() + cpu_wait(budget - used)

    def _modify(self, w: Wire) -> None:
        """Watch the wire's stdin for room exactly while input waits to be written."""
        want = bool(w.proc.pending)
        if not w.healthy or w.ended or want == w.watching_writes:
            return
        w.watching_writes = want
        if want:
            self.poller.watch(w.proc.stdin_fd, w, write=True)
        else:
            self.poller.forget(w.proc.stdin_fd)
