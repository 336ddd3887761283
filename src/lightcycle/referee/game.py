"""One game between players of any kind: the timed, simultaneous turn loop.

Every turn the referee writes each live program's request first, starting each
program's clock as its request is written, then waits for all programs at once on one
`poll` while the in-process bots think on a worker thread: nobody is asked after
anybody else, nobody's clock runs while another bot thinks, and a slow or silent bot
costs only its own time. Each reply is read
by its protocol's codec; whatever goes wrong becomes that seat's verdict, the ruleset says
which cycles the verdict forfeits, and the engine steps all forfeits and moves of the turn
together.

Every bot is timed, but a built-in bot whose moves do not depend on the clock (the
fixed rungs, and ``strong`` or ``medium`` with ``nodes=N``: `Bot.reproducible`) is never
forfeited for time: its games are then the same on a busy machine as on an idle one.

While other seats' clocks run, the turn loop never waits on a failed seat: its process
group gets SIGKILL at once and the rest of its tear-down (waiting for its PID namespace
to go, reaping, its log) happens on the spare pool's reaper thread; a crash's exit status
and last stderr lines, which may take a moment to arrive, are read once the turn's
replies are in. A seat with a CPU budget is watched while it thinks, so a bot that burns
its budget in child processes without answering is disqualified, not merely timed out.
The waiting itself (the poll loop, deadlines, CPU looks, deferred crashes) is
`lightcycle.referee.wires`; this module decides what each verdict costs.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lightcycle.bots.api import plays_reproducibly
from lightcycle.bots.collection import no_collection
from lightcycle.core.moves import Forfeit, Move, Outcome
from lightcycle.core.state import GameState
from lightcycle.maps.spec import MapSpec
from lightcycle.protocols.base import Answers, Params
from lightcycle.referee.clock import Clock, TimeControl
from lightcycle.referee.players import InProcessPlayer, Player, ProgramPlayer
from lightcycle.referee.records import SeatRecord
from lightcycle.referee.verdicts import Verdict, effect, forfeit_team, judge_answers
from lightcycle.referee.wires import Replies, Wire, written_ahead
from lightcycle.referee.wires import now as _now
from lightcycle.replay.model import Replay
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.legal import moves_this_turn
from lightcycle.rules.observe import View
from lightcycle.rules.ruleset import Ruleset
from lightcycle.sandbox.levels import seat_record
from lightcycle.sandbox.pool import kill_now


@dataclass
class GameRecord:
    """A finished game: the result, the replay, and per-seat records."""

    outcome: Outcome
    final: GameState
    replay: Replay
    seats: list[SeatRecord]
    wall_seconds: float = 0.0

    @property
    def names(self) -> list[str]:
        """The seat names, in seat order."""
        return [s["name"] for s in self.replay.seats]

    def forfeited(self, seat: int) -> bool:
        """Whether the seat left the game by a verdict rather than by the rules."""
        return self.seats[seat].failed


class Game:
    """Runs one game (use `play_game`)."""

    def __init__(
        self,
        players: Sequence[Player],
        spec: MapSpec,
        ruleset: Ruleset,
        seed: int,
        controls: Sequence[TimeControl],
        log_prefix: str = "game",
        on_turn: Callable[[GameState], None] | None = None,
        extra_params: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self.players = list(players)
        self.spec = spec
        self.ruleset = ruleset
        self.seed = seed
        self.controls = list(controls)
        self.log_prefix = log_prefix
        self.on_turn = on_turn
        self.extra_params = extra_params
        self.names = [p.name for p in players]
        self.state = new_game(ruleset, spec, seed=seed, players=len(players), names=self.names)
        self.records = [SeatRecord(p, Clock(c)) for p, c in zip(players, controls, strict=True)]
        # each seat's cycle indices: seats and cycles are fixed for the game
        self.seat_cycles = [
            [c.index for c in self.state.cycles if c.team == t] for t in range(len(players))
        ]
        self.wires: dict[int, Wire] = {}
        self.bots: dict[int, Any] = {}
        self.turn_verdicts: list[Verdict | None] = [None] * len(players)
        self.replies = Replies(self._fail)
        self.measure_cpu = "cpu" in ruleset.measures

    # -- set-up ------------------------------------------------------------------------
    def _params(self, seat: int) -> Params:
        c = self.controls[seat]
        return Params(
            first_move_time=c.first_move if c.first_move is not None else c.move,
            move_time=c.move,
            names=tuple(self.names),
            extra=(("ruleset", self.ruleset.id), *self.extra_params),
            time=c.to_dict(),
        )

    def _fail(self, seat: int, verdict: Verdict) -> None:
        """Record a verdict; one that costs the whole seat also stops its process."""
        rec = self.records[seat]
        whole = effect(self.state, verdict.kind) == "team"
        if rec.verdict.ok or (whole and not rec.failed):
            rec.verdict = verdict
        self.turn_verdicts[seat] = verdict
        if not whole:
            return
        rec.failed = True
        w = self.wires.get(seat)
        if w is not None and w.healthy:
            w.healthy = False
            self.replies.unregister(w)
            self._read_cpu(w)
            self._stop_now(w)  # a failed bot must not go on using the machine

    def _read_cpu(self, w: Wire) -> None:
        """The seat's CPU so far, whatever its time control: every game shows it (one read
        of ``/proc`` at the seat's end, so no cost on a turn without a CPU budget)."""
        w.record.cpu = max(w.record.cpu, w.proc.cpu_time() - w.record.cpu_base)

    def _stop_now(self, w: Wire) -> None:
        """SIGKILL a failed seat's bot now; the rest of its tear-down happens off the loop.

        Waiting here until its processes are gone (a PID namespace takes a while to be
        torn down) would hold up every other seat's reply, so their clocks would run on
        while the referee waits: the pool's reaper thread does the waiting.
        """
        player = w.record.player
        if isinstance(player, ProgramPlayer) and player.process is w.proc:
            player.stop(kill=True)
        else:
            kill_now(w.proc)

    def setup(self) -> None:
        """Start or reuse each seat's process, greet it, send the start, await readies."""
        for seat, player in enumerate(self.players):
            if isinstance(player, InProcessPlayer):
                bot = player.new_game()
                self.bots[seat] = bot
                try:
                    bot.start(View(self.state, seat))
                except Exception as exc:  # a bot's bug costs its seat, nothing more
                    self._fail(
                        seat, Verdict("crashed", f"start() raised {type(exc).__name__}: {exc}")
                    )
                continue
            assert isinstance(player, ProgramPlayer)
            player.protocol.check(self.state)
            proc, fresh = player.ensure_process(f"{self.log_prefix}-seat{seat + 1}.log")
            rec = self.records[seat]
            rec.fresh_process = fresh
            # a spare's start-up CPU counts, as it would had the game started the process
            if not fresh:  # a kept process: its earlier games' CPU does not count
                rec.cpu_base = proc.cpu_time()
            rec.cpu_mark = rec.cpu_base
            w = Wire(seat, proc, player.protocol(seat), rec)
            if not fresh:  # what it wrote after its last reply counts as written ahead
                w.buf += player.take_leftover()
            else:  # a process started ahead (a spare) may have written: judged now
                w.buf += written_ahead(proc, w.codec.max_reply)
            self.wires[seat] = w
            self.replies.watch(w)
        greeting = [w for w in self.wires.values() if w.codec.hello and w.record.fresh_process]
        if greeting:
            self.replies.collect(greeting, lambda w: w.codec.read_hello(w.buf))  # names are fixed
        for seat, w in self.wires.items():
            if w.healthy:
                w.proc.send(w.codec.start(self.state, self._params(seat)))
        readying = [w for w in self.wires.values() if w.healthy and w.codec.wants_ready]
        if readying:
            got = self.replies.collect(
                readying, lambda w: True if w.codec.read_ready(w.buf) else None
            )
            for w in got:
                if not w.record.clock.charge(w.answered_at - w.sent_at):
                    self._fail(w.seat, Verdict("timeout", "no 'ready' reply in time"))

    # -- turns -------------------------------------------------------------------------
    def turn(self) -> None:
        """Play one turn."""
        state = self.state
        records = self.records
        self.turn_verdicts = [None] * len(self.players)
        times: list[float | None] = [None] * len(self.players)
        cpu = [0] * len(self.players) if self.measure_cpu else None
        live = [
            t
            for t, mine in enumerate(self.seat_cycles)
            if not records[t].failed and any(moves_this_turn(state, i) for i in mine)
        ]
        # Every request is encoded first, then all are written back to back, each clock
        # starting at its own write: a program thinks while the others' requests go
        # out, not while they are being encoded.
        wires = self.wires
        requests: list[tuple[Wire, bytes]] = []
        for seat in live:
            w = wires.get(seat)
            if w is None:
                continue
            if w.buf:
                stray = w.codec.stray(w.buf)
                if stray:
                    self._fail(seat, Verdict("bad_output", f"wrote before being asked: {stray!r}"))
                    continue
            requests.append((w, w.codec.turn(state)))
        asking: list[Wire] = []
        for w, request in requests:
            proc = w.proc
            proc.send(request)
            w.sent_at = _now()  # its clock runs from here, whatever the others do
            if proc.broken_pipe:
                self.replies.defer_crash(w)  # judged once the replies are in (`collect`)
                continue
            asking.append(w)
        answers: dict[int, Answers] = {}
        thinking = [seat for seat in live if seat in self.bots] if self.bots else []

        def read(w: Wire) -> Answers | None:
            return w.codec.read_move(w.buf, state)

        if asking and thinking:
            # The in-process bots think on a worker thread while this one reads the
            # programs' replies as they come, so a program's time is its own: it is
            # neither charged nor granted the time an in-process bot spends.
            worker = threading.Thread(
                target=self._think,
                args=(state, thinking, times, cpu, answers),
                name="lightcycle-bots",
                daemon=True,
            )
            worker.start()
            try:
                got = self.replies.collect(asking, read, True)
            finally:
                worker.join()
        else:
            if thinking:
                self._think(state, thinking, times, cpu, answers)
            # also with nobody asked: a seat found dead while writing is judged here
            got = self.replies.collect(asking, read, True)
        self._judge_programs(asking, got, times, cpu, answers)
        moves: dict[int, Move | Forfeit] = {}
        for seat in live:
            rec = records[seat]
            if rec.failed:
                moves.update(forfeit_team(state, seat, rec.verdict))
                continue
            seat_moves, verdict = judge_answers(state, seat, answers.get(seat, {}))
            moves.update(seat_moves)
            if not verdict.ok:
                self._fail(seat, verdict)
        verdicts = [v.to_dict() if v is not None else None for v in self.turn_verdicts]
        self.replay.record(state, moves, times=times, verdicts=verdicts, cpu=cpu)
        after = self.state = step(state, moves, cpu)
        if after.outcome is None and self.wires:
            standing = {c[1] for c in after.cycles if c[4]}
            for seat in live:
                w = self.wires.get(seat)
                if seat not in standing and w is not None and w.healthy and not w.out:
                    told = w.codec.eliminated(after)
                    if told:  # its game is over: it may exit now, and that is no crash
                        w.proc.send(told)
                        w.out = True
                        self.replies.unregister(w)
                        self._read_cpu(w)

    def _think(
        self,
        state: GameState,
        seats: Sequence[int],
        times: list[float | None],
        cpu: list[int] | None,
        answers: dict[int, Answers],
    ) -> None:
        """Ask the in-process bots of ``seats`` for their moves, each on its own clock.

        No garbage collection while they think: a full one takes 60-160 ms in a worker
        with the compiled search loaded, and it would land on the seat being timed (the
        searching bots hold it off for their own moves, so one fell due at the first
        allocation after a move, in the next seat's window). What they allocate is
        collected after, off every clock.
        """
        records = self.records
        with no_collection():
            for seat in seats:
                bot = self.bots[seat]
                t0 = _now()
                c0 = time.thread_time_ns()
                try:
                    rec = records[seat]
                    allowance = rec.clock.allowance()
                    limit = allowance if allowance != float("inf") else None
                    answer = bot.move(View(state, seat, limit, rec.clock.view(rec.cpu)))
                except Exception as exc:  # a bot's bug costs its seat, nothing more
                    said = getattr(exc, "verdict", None)  # an HTTP bot's failure names its verdict
                    if not isinstance(said, Verdict):
                        said = Verdict("crashed", f"move() raised {type(exc).__name__}: {exc}")
                    self._fail(seat, said)
                    continue
                elapsed = _now() - t0
                used_ns = time.thread_time_ns() - c0
                records[seat].cpu += used_ns / 1e9
                if cpu is not None:
                    cpu[seat] = used_ns // 1000
                times[seat] = elapsed
                # A bot whose moves are fixed by its own budget is timed (the tables show
                # its move times) but never forfeited for time: its play does not depend on
                # the clock, so a forfeit would let only the machine's load decide the game.
                in_time = records[seat].clock.charge(elapsed)
                if not in_time and not plays_reproducibly(bot):
                    self._fail(seat, Verdict("timeout", f"took {elapsed:.3f} s"))
                    continue
                mine = [c.index for c in state.cycles_of(seat) if moves_this_turn(state, c.index)]
                answers[seat] = answer if isinstance(answer, dict) else {mine[0]: answer}

    def _judge_programs(
        self,
        asking: Sequence[Wire],
        got: dict[Wire, Any],
        times: list[float | None],
        cpu: list[int] | None,
        answers: dict[int, Answers],
    ) -> None:
        """Charge each program's clock for its reply and read its CPU use."""
        if asking:
            for w, value in got.items():
                if not w.healthy:
                    continue
                elapsed = w.answered_at - w.sent_at
                times[w.seat] = elapsed
                if not w.record.clock.charge(elapsed):
                    self._fail(w.seat, Verdict("timeout", f"took {elapsed:.3f} s"))
                    continue
                answers[w.seat] = value
            for w in asking:
                if cpu is not None and w.healthy:
                    now_cpu = w.proc.cpu_time()
                    cpu[w.seat] = max(0, round((now_cpu - w.record.cpu_mark) * 1e6))
                    w.record.cpu_mark = now_cpu
                control = w.record.clock.control
                if w.healthy and control.cpu is not None:
                    w.record.cpu = w.proc.cpu_time() - w.record.cpu_base
                    if w.record.clock.cpu_exceeded(w.record.cpu):
                        self._fail(
                            w.seat,
                            Verdict(
                                "disqualified",
                                f"used {w.record.cpu:.2f} s of CPU; the budget is {control.cpu} s",
                            ),
                        )

    # -- the whole game ----------------------------------------------------------------
    def run(self) -> GameRecord:
        """Play the game to its end and close what must be closed."""
        t0 = _now()
        seats = [
            {"name": n, "bot": p.spec.text} for n, p in zip(self.names, self.players, strict=True)
        ]
        self.replay = Replay.start(self.state, self.spec, seats)
        try:
            self.setup()
            if self.on_turn:
                self.on_turn(self.state)
            while self.state.outcome is None:
                self.turn()
                if self.on_turn:
                    self.on_turn(self.state)
        finally:
            self._finish()
        self.replay.finish(self.state)
        assert self.state.outcome is not None
        return GameRecord(self.state.outcome, self.state, self.replay, self.records, _now() - t0)

    def sandbox_records(self) -> list[dict[str, Any] | None] | None:
        """Per seat what confined its program (`seat_record`), ``None`` for a seat played
        in this process; ``None`` in all for a game without programs."""
        records: list[dict[str, Any] | None] = [None] * len(self.players)
        for seat, w in self.wires.items():
            records[seat] = seat_record(w.proc)
        return records if self.wires else None

    def _finish(self) -> None:
        reports: list[dict[str, Any]] = [{} for _ in self.players]
        for seat, bot in self.bots.items():
            try:
                said = bot.report()
                self.records[seat].info = {
                    k: float(v) for k, v in said.items() if isinstance(v, int | float)
                }
                # per-move lists go to the replay only, as plain numbers
                reports[seat] = {
                    k: [float(x) for x in v] if isinstance(v, list) else float(v)
                    for k, v in said.items()
                }
            except Exception:  # a report is a courtesy: a bug in it loses only the report
                self.records[seat].info = {}
                reports[seat] = {}
            end = getattr(bot, "end", None)  # an HTTP bot's POST /end
            if end is not None and self.state.outcome is not None:
                with contextlib.suppress(Exception):  # the game is over: nothing depends on it
                    end(View(self.state, seat))
        if any(reports):
            self.replay.reports = reports
        self.replay.sandbox = self.sandbox_records()
        for _seat, w in self.wires.items():
            player = w.record.player
            assert isinstance(player, ProgramPlayer)
            if w.healthy:
                self._read_cpu(w)
            if w.out:  # told already, and maybe gone: stopped in the background
                player.stop(grace=0.05)
                continue
            if w.healthy and self.state.outcome is not None:
                w.proc.send(w.codec.end(self.state))
            if w.healthy and player.reuses and self.state.outcome is not None:
                player.keep(bytes(w.buf))
            else:  # ended in the background: the next game need not wait for it
                player.stop(grace=0.05 if w.healthy else 0.0)


def play_game(
    players: Sequence[Player],
    spec: MapSpec,
    ruleset: Ruleset,
    seed: int = 0,
    controls: TimeControl | Sequence[TimeControl] | None = None,
    log_prefix: str = "game",
    on_turn: Callable[[GameState], None] | None = None,
    extra_params: tuple[tuple[str, str], ...] = (),
) -> GameRecord:
    """Play one game and return its record.

    Args:
        players: one per seat (`InProcessPlayer` or `ProgramPlayer`).
        spec: the map.
        ruleset: the rules, settings applied.
        seed: the game seed.
        controls: one time control for all seats, or one per seat.
        log_prefix: file name prefix of the bots' stderr logs.
        on_turn: called with every state (live display).
        extra_params: more ``key value`` parameters for protocols that announce them.

    Raises:
        UnsupportedGame: a player's protocol cannot carry this game.
    """
    if controls is None:
        controls = TimeControl()
    if isinstance(controls, TimeControl):
        controls = [controls] * len(players)
    return Game(players, spec, ruleset, seed, controls, log_prefix, on_turn, extra_params).run()
