"""One server game as one coroutine: the referee's turn loop over sockets and threads.

Every turn each live remote seat's request is written first (its clock starts as it is
written), then every seat's reply is awaited at once: remote replies are parsed out of
the seat's buffer by its protocol codec as they arrive, built-in bots think on worker
threads. Each remote deadline is the seat's clock allowance plus the spec's latency
allowance, and a reply is charged its server-measured time less that allowance, so a
client is judged on its thinking, not on the network. Whatever goes wrong becomes the
seat's verdict exactly as in `lightcycle.referee.game` (``timeout``, ``bad_output``,
``illegal_move``, ``crashed`` for a bot that raises), plus ``disconnected`` for a client
that dropped and did not come back within the reconnect grace; the ruleset says what each
verdict forfeits (`referee.verdicts.effect`, ``team`` for ``disconnected``), and the
engine steps all of a turn's moves and forfeits together.

No thread per game and no blocking call on the loop: thousands of games share one event
loop, and a hostile client can stall only its own seat's reply, which its deadline ends.
"""

from __future__ import annotations

import asyncio
import logging
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from lightcycle.bots.api import plays_reproducibly
from lightcycle.core.moves import Forfeit, Move
from lightcycle.core.state import GameState
from lightcycle.maps.spec import MapSpec
from lightcycle.protocols.base import Answers, Codec, Params, ProtocolError
from lightcycle.referee.clock import Clock, TimeControl
from lightcycle.referee.players import unique_names
from lightcycle.referee.verdicts import OK, Verdict, effect, forfeit_team, judge_answers
from lightcycle.replay.model import Replay
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.legal import moves_this_turn
from lightcycle.rules.observe import View
from lightcycle.rules.ruleset import Ruleset
from lightcycle.server.seats import BuiltinSeat, RemoteSeat, Seat, SeatGone, SeatTimeout
from lightcycle.server.wire import end_message

__all__ = ["GameResult", "GameSpec", "Seat", "SeatOutcome", "run_game"]

log = logging.getLogger(__name__)
_now = time.monotonic

BUILTIN_SLACK = 5.0
"""Seconds past its allowance after which a built-in bot that has not returned is
forfeited for time (its thread cannot be stopped; the game goes on without it)."""


@dataclass(frozen=True)
class GameSpec:
    """Everything a game is played with, decided by the lobby.

    Attributes:
        game_id: uuid4 hex.
        queue: the queue it was made in.
        ruleset: the rules, settings applied.
        board: the map.
        map_name: the map's name as the queue lists it.
        seed: the game seed.
        time: every seat's time control.
        latency_allowance: seconds added to every remote deadline for the network.
        reconnect_grace: seconds a dropped remote seat keeps its place.
    """

    game_id: str
    queue: str
    ruleset: Ruleset
    board: MapSpec
    map_name: str
    seed: int
    time: TimeControl
    latency_allowance: float = 0.2
    reconnect_grace: float = 10.0


@dataclass
class SeatOutcome:
    """One seat's result (see docs/server.md)."""

    name: str
    account: str | None
    kind: str
    rank: int
    verdict: str
    detail: str
    result: str
    rtt_ms: float | None
    think_ms: float | None


@dataclass
class GameResult:
    """A finished server game."""

    spec: GameSpec
    seats: list[SeatOutcome]
    replay: Replay
    turns: int
    reason: str
    aborted: bool = False


@dataclass(eq=False)
class _Run:
    """One seat's account in one game."""

    index: int
    seat: Seat
    clock: Clock
    codec: Codec | None = None
    verdict: Verdict = OK
    failed: bool = False
    times: list[float] = field(default_factory=list)
    cpu_used: float = 0.0
    """CPU seconds a built-in bot has used in this game (`ClockView.cpu_left`)."""


def _read_move(codec: Codec, state: GameState, buf: bytearray) -> Answers | None:
    return codec.read_move(buf, state)


def _bot_text(seat: Seat) -> str:
    if isinstance(seat, BuiltinSeat):
        return seat.bot
    if isinstance(seat, RemoteSeat):
        return f"remote:{seat.protocol}" + (f":{seat.account}" if seat.account else "")
    return seat.kind


class _Game:
    def __init__(
        self,
        spec: GameSpec,
        seats: Sequence[Seat],
        on_frame: Callable[[GameState], None] | None,
    ) -> None:
        self.spec = spec
        self.on_frame = on_frame
        self.names = unique_names([s.name for s in seats])
        self.state = new_game(
            spec.ruleset, spec.board, seed=spec.seed, players=len(seats), names=self.names
        )
        self.runs = [_Run(i, s, Clock(spec.time)) for i, s in enumerate(seats)]
        self.seat_cycles = [
            [c.index for c in self.state.cycles if c.team == t] for t in range(len(seats))
        ]
        self.turn_verdicts: list[Verdict | None] = [None] * len(seats)
        self.turn_times: list[float | None] = [None] * len(seats)
        self.replay = Replay.start(
            self.state,
            spec.board,
            [{"name": n, "bot": _bot_text(s)} for n, s in zip(self.names, seats, strict=True)],
        )
        for run in self.runs:
            if isinstance(run.seat, RemoteSeat):
                run.seat.codec_class.check(self.state)  # UnsupportedGame: the lobby's error
                run.codec = run.seat.codec_class(run.index)

    # -- verdicts ----------------------------------------------------------------------
    def fail(self, run: _Run, verdict: Verdict) -> None:
        """Record a verdict; one that costs the whole seat stops asking it."""
        whole = effect(self.state, verdict.kind) == "team"
        if run.verdict.ok or (whole and not run.failed):
            run.verdict = verdict
        self.turn_verdicts[run.index] = verdict
        if not whole:
            return
        run.failed = True
        seat = run.seat
        if isinstance(seat, RemoteSeat):
            seat.done_asking()
            if verdict.kind == "bad_output":  # a client talking nonsense is cut off now
                seat.kick(f"bad output: {verdict.detail}"[:300])

    def frame(self) -> None:
        if self.on_frame is None:
            return
        try:
            self.on_frame(self.state)
        except Exception:  # a spectator's bug never ends a game
            log.exception("game %s: on_frame failed", self.spec.game_id)

    def params(self) -> Params:
        c = self.spec.time
        return Params(
            first_move_time=c.first_move if c.first_move is not None else c.move,
            move_time=c.move,
            names=tuple(self.names),
            extra=(("ruleset", self.spec.ruleset.id),),
            time=c.to_dict(),
        )

    # -- asking ------------------------------------------------------------------------
    async def ask_remote(
        self, run: _Run, parse: Callable[[bytearray], Any], charge: bool, late: str = ""
    ) -> Any:
        """One reply from a remote seat, or ``None`` with the seat's verdict recorded."""
        seat = run.seat
        assert isinstance(seat, RemoteSeat)
        lat = self.spec.latency_allowance
        try:
            value, sent, got = await seat.reply(
                parse, run.clock.allowance() + lat, self.spec.reconnect_grace
            )
        except ProtocolError as exc:
            self.fail(run, Verdict("bad_output", str(exc)))
            return None
        except SeatTimeout as exc:
            self.fail(run, Verdict("timeout", str(exc)))
            return None
        except SeatGone as exc:
            self.fail(run, Verdict("disconnected", str(exc)))
            return None
        finally:
            seat.done_asking()
        elapsed = got - sent
        if charge:
            if not late:  # a move (not the set-up's 'ready'): timed in the replay
                run.times.append(elapsed)
                self.turn_times[run.index] = elapsed
            if not run.clock.charge(max(0.0, elapsed - lat)):
                self.fail(run, Verdict("timeout", late or f"took {elapsed:.3f} s"))
                return None
        return value

    async def think(self, run: _Run, state: GameState, cpu: list[int] | None) -> Any:
        """A built-in bot's move on a worker thread, timed as the referee times it."""
        seat = run.seat
        assert isinstance(seat, BuiltinSeat)
        bot = seat.instance
        allowance = run.clock.allowance()
        limit = allowance if allowance != float("inf") else None
        clock = run.clock.view(run.cpu_used)

        def move() -> tuple[object, float, int]:
            t0 = time.perf_counter()
            c0 = time.thread_time_ns()
            answer = bot.move(View(state, run.index, limit, clock))
            return answer, time.perf_counter() - t0, (time.thread_time_ns() - c0) // 1000

        try:
            wait = None if limit is None else max(limit * 3, limit + BUILTIN_SLACK)
            async with asyncio.timeout(wait):
                answer, elapsed, used = await asyncio.to_thread(move)
        except TimeoutError:
            self.fail(run, Verdict("timeout", f"no move within {wait:.1f} s"))
            return None
        except Exception as exc:  # a bot's bug costs its seat, nothing more
            self.fail(run, Verdict("crashed", f"move() raised {type(exc).__name__}: {exc}"))
            return None
        if cpu is not None:
            cpu[run.index] = used
        run.cpu_used += used / 1e6
        run.times.append(elapsed)
        self.turn_times[run.index] = elapsed
        if not run.clock.charge(elapsed) and not plays_reproducibly(bot):
            self.fail(run, Verdict("timeout", f"took {elapsed:.3f} s"))
            return None
        return answer

    # -- the game ----------------------------------------------------------------------
    async def setup(self) -> None:
        """Start the built-in bots, read pending hellos, send the starts, await readies."""
        jobs = []
        for run in self.runs:
            seat = run.seat
            if isinstance(seat, BuiltinSeat):
                jobs.append(self._start_bot(run, seat))
        greeting = [
            r
            for r in self.runs
            if isinstance(r.seat, RemoteSeat)
            and r.seat.hello_pending
            and r.codec is not None
            and r.codec.hello
        ]
        for run in greeting:
            codec = run.codec
            assert codec is not None
            assert isinstance(run.seat, RemoteSeat)
            run.seat.expect()  # the name line is asked for now: its clock starts here
            jobs.append(self.ask_remote(run, codec.read_hello, False))
        await asyncio.gather(*jobs)
        params = self.params()
        readying = []
        for run in self.runs:
            if isinstance(run.seat, RemoteSeat) and run.codec is not None and not run.failed:
                run.seat.send(run.codec.start(self.state, params), 0, start=True)
                if run.codec.wants_ready:
                    readying.append(run)
        await asyncio.gather(
            *(
                self.ask_remote(r, self._ready(r), True, "no 'ready' reply in time")
                for r in readying
            )
        )

    @staticmethod
    def _ready(run: _Run) -> Callable[[bytearray], bool | None]:
        codec = run.codec
        assert codec is not None
        return lambda buf: True if codec.read_ready(buf) else None

    async def _start_bot(self, run: _Run, seat: BuiltinSeat) -> None:
        try:
            await asyncio.to_thread(seat.instance.start, View(self.state, run.index))
        except Exception as exc:  # a bot's bug costs its seat, nothing more
            self.fail(run, Verdict("crashed", f"start() raised {type(exc).__name__}: {exc}"))

    async def turn(self) -> None:
        state = self.state
        n = len(self.runs)
        self.turn_verdicts = [None] * n
        self.turn_times = [None] * n
        cpu = [0] * n if "cpu" in self.spec.ruleset.measures else None
        live = [
            r
            for r in self.runs
            if not r.failed and any(moves_this_turn(state, i) for i in self.seat_cycles[r.index])
        ]
        jobs: dict[int, Any] = {}
        for run in live:
            seat = run.seat
            if isinstance(seat, RemoteSeat):
                codec = run.codec
                assert codec is not None
                stray = seat.stray(codec)
                if stray:
                    self.fail(run, Verdict("bad_output", f"wrote before being asked: {stray!r}"))
                    continue
                seat.send(codec.turn(state), state.turn + 1, request=True)
                jobs[run.index] = self.ask_remote(run, partial(_read_move, codec, state), True)
            elif isinstance(seat, BuiltinSeat):
                jobs[run.index] = self.think(run, state, cpu)
        got = dict(zip(jobs, await asyncio.gather(*jobs.values()), strict=True))
        times = self.turn_times
        answers: dict[int, Answers] = {}
        for i, value in got.items():
            run = self.runs[i]
            if value is None or run.failed:
                continue
            if isinstance(value, dict):
                answers[i] = value
            else:
                mine = [c.index for c in state.cycles_of(i) if moves_this_turn(state, c.index)]
                answers[i] = {mine[0]: value}
        moves: dict[int, Move | Forfeit] = {}
        for run in live:
            if run.failed:
                moves.update(forfeit_team(state, run.index, run.verdict))
                continue
            seat_moves, verdict = judge_answers(state, run.index, answers.get(run.index, {}))
            moves.update(seat_moves)
            if not verdict.ok:
                self.fail(run, verdict)
        verdicts = [v.to_dict() if v is not None else None for v in self.turn_verdicts]
        self.replay.record(state, moves, times=times, verdicts=verdicts, cpu=cpu)
        after = self.state = step(state, moves, cpu)
        if after.outcome is None:
            standing = {c.team for c in after.cycles if c.alive}
            for run in live:
                seat = run.seat
                if run.index not in standing and isinstance(seat, RemoteSeat) and run.codec:
                    seat.send(run.codec.eliminated(after), after.turn + 1)

    async def finish(self) -> None:
        """Send each remote seat its end and close it; collect the bots' reports."""
        state = self.state
        outcome = state.outcome
        assert outcome is not None
        closing = []
        for run in self.runs:
            seat = run.seat
            if not isinstance(seat, RemoteSeat) or run.codec is None:
                continue
            end = run.codec.end(state)
            seat.send(end, state.turn + 1)
            summary = b""
            if seat.framed:
                summary = end_message(
                    self.result_word(run),
                    run.verdict.kind,
                    run.verdict.detail,
                    self.spec.game_id,
                    list(outcome.ranks),
                )
            closing.append(seat.finish(summary))
        await asyncio.gather(*closing)

    def result_word(self, run: _Run) -> str:
        outcome = self.state.outcome
        assert outcome is not None
        if outcome.winner == run.index:
            return "win"
        return "draw" if outcome.ranks[run.index] == 1 else "loss"

    async def abort(self, why: str) -> None:
        """Tell every remote seat the game is cut short, with ``why``, and close it.

        A Scheme-port client in the middle of its game gets a result it can read (a
        draw and the reason), others the one-line refusal (`RemoteSeat.abort`); all at
        once, so one client's wait is never another's.
        """
        seats = [run.seat for run in self.runs if isinstance(run.seat, RemoteSeat)]
        await asyncio.gather(*(seat.abort(why) for seat in seats))

    async def run(self) -> GameResult:
        for run in self.runs:
            if isinstance(run.seat, RemoteSeat):
                run.seat.in_game = True
        try:
            await self.setup()
            self.frame()
            while self.state.outcome is None:
                await self.turn()
                self.frame()
            await self.finish()
        except asyncio.CancelledError:
            await asyncio.shield(self.abort("the server stopped; this game is aborted"))
            raise
        except Exception as exc:  # a server bug: the lobby records it aborted and logs it
            await self.abort(f"server error ({type(exc).__name__}); this game is aborted")
            raise
        self.replay.finish(self.state)
        outcome = self.state.outcome
        assert outcome is not None
        return GameResult(
            spec=self.spec,
            seats=[self.outcome_of(r) for r in self.runs],
            replay=self.replay,
            turns=self.state.turn,
            reason=outcome.reason,
        )

    def outcome_of(self, run: _Run) -> SeatOutcome:
        outcome = self.state.outcome
        assert outcome is not None
        seat = run.seat
        rtt = seat.median_rtt_ms() if isinstance(seat, RemoteSeat) else None
        return SeatOutcome(
            name=self.names[run.index],
            account=seat.account,
            kind=seat.kind,
            rank=outcome.ranks[run.index],
            verdict=run.verdict.kind,
            detail=run.verdict.detail,
            result=self.result_word(run),
            rtt_ms=rtt,
            think_ms=statistics.median(run.times) * 1000.0 if run.times else None,
        )


async def run_game(
    spec: GameSpec,
    seats: Sequence[Seat],
    on_frame: Callable[[GameState], None] | None = None,
) -> GameResult:
    """Play one game to its end and return its result and replay.

    Remote seats must already have a connection (`RemoteSeat.attach`); each is sent its
    end and closed when the game is over. ``on_frame(state)`` is called at the start and
    after every turn; an exception from it is logged and ignored.

    Cancelling the task stops the game: every remote seat is told the game is aborted (a
    Scheme-port client in its game as a draw it can read, `RemoteSeat.abort`) and
    closed, and the cancellation goes on (the lobby records the game as aborted); an
    exception from the game itself tells the seats the same way and goes on too.

    Raises:
        UnsupportedGame: a remote seat's protocol cannot carry this game.
    """
    return await _Game(spec, seats, on_frame).run()
