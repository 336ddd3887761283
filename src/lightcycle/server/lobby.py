"""The lobby: who is logged in, who waits in which queue, and the games they start.

The TCP side (`lightcycle.server.tcp`) logs a client in (`Lobby.login`) and then, with a
seat for its connection, waits in a queue (`Lobby.play`), which returns the game's result
once the game is played and recorded. The web side (`lightcycle.server.web`) reads
`Lobby.waiting`, `Lobby.challenges` and the store.

Everything here runs on the server's one asyncio loop and never blocks on a client: a
queue is a list, timers are the loop's, and each game is its own task, so a slow or
hostile client costs only its own seat (docs/server.md, "Queues and challenges").

- **Queues** are FIFO: a game starts as soon as ``players`` seats wait. A seat that has
  waited ``fill_after`` seconds starts a game at once, with the queue's built-in
  ``fill_bot`` in the empty seats (with the other seats that wait, oldest first).
- **Challenges**: A joins with ``challenge=B`` and waits for B alone; B joins the same
  queue with ``accept=A`` and the two play (with fill bots in any further seats). B
  declines by joining that queue with ``accept`` naming someone else, or by logging out;
  a challenge not accepted within `CHALLENGE_TIMEOUT` seconds expires. A's ``play`` then
  raises `Refused` saying which.
- **Logins**: a name with a secret is an account, claimed by its first login; a second
  login of an account replaces the first (which is kicked; if it sits in a game, the new
  connection takes its seat, `Lobby.seat_of`) or is refused, as ``second_login`` says.
- **Each game**: its id (uuid4 hex), seed and map (drawn from the pool by the lobby's
  RNG) make a `GameSpec`; the game is written ``running`` to the store, shown to the
  `LiveHub`, played by `run_game`, then recorded with its seats, replay and rating
  changes in one transaction. `Lobby.close` cancels games in flight: they are recorded
  ``aborted``, never half-written.
- **Game writes never stall the loop**: a game's start and end (its replay turned into
  JSON, its one transaction, SQLite's commit) run on one writer thread, in the order they
  were asked for, while the loop goes on with the other games; the game's players hear
  their result once it is written, as before.
"""

from __future__ import annotations

import asyncio
import logging
import random
import uuid
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from lightcycle.core.state import GameState
from lightcycle.maps.spec import MapSpec
from lightcycle.server import accounts, ladder
from lightcycle.server.accounts import SecretError, name_key
from lightcycle.server.config import QueueConfig, ServerConfig
from lightcycle.server.game import GameResult, GameSpec, run_game
from lightcycle.server.seats import BuiltinSeat, Seat
from lightcycle.server.store import ABORTED, FINISHED, SeatRow, ServerStore, now
from lightcycle.viewer.live import LiveHub

log = logging.getLogger(__name__)
T = TypeVar("T")

CHALLENGE_TIMEOUT = 60.0
"""Seconds a challenge waits for its answer: enough for a person to start a bot after
being told, short enough that a challenger is not left waiting for nobody."""

Runner = Callable[
    [GameSpec, Sequence[Seat], Callable[[GameState], None] | None], Awaitable[GameResult]
]
"""Plays one game: `lightcycle.server.game.run_game`, or a stand-in in tests."""


class Refused(Exception):
    """A login or a join the lobby turns down; ``str(exc)`` is the one line for the client."""


@dataclass(eq=False)
class Login:
    """One logged-in connection.

    Attributes:
        name: the name it plays under (an account's name as registered).
        account: the account (``None``: anonymous).
        address: the client's address, for logs and limits.
        kick: closes that connection with a message (set by the TCP side).
        done: its game is over: the name is free for a new login at once.
    """

    name: str
    account: str | None
    address: str
    kick: Callable[[str], None] | None = None
    done: bool = False  # its game is over (a connection plays one game)


@dataclass(eq=False)
class _Waiter:
    """A seat waiting in a queue (or for the answer to a challenge)."""

    login: Login
    seat: Seat
    queue: str
    challenge: str | None
    joined: float
    future: asyncio.Future[GameResult]
    timer: asyncio.TimerHandle | None = None

    def fail(self, message: str) -> None:
        if self.timer is not None:
            self.timer.cancel()
        if not self.future.done():
            self.future.set_exception(Refused(message))


@dataclass(eq=False)
class _Live:
    """A game in flight."""

    spec: GameSpec
    seats: list[Seat]
    task: asyncio.Task[None] | None = None
    players: list[_Waiter] = field(default_factory=list)


def _retrieve(fut: asyncio.Future[Any]) -> None:
    """Mark a future's exception as seen: its waiter may have gone (a dropped client)."""
    if not fut.cancelled():
        fut.exception()


class Lobby:
    """Logins, queues, challenges and the games they start (see the module docstring).

    Args:
        config: the server's configuration.
        store: where games, accounts and ratings go.
        hub: where live games are shown (``None``: nowhere).
        runner: plays a game (default `run_game`).
        seed: seeds the RNG that draws game seeds, maps and seat order (``None``: fresh
            every run).
        challenge_timeout: seconds a challenge waits (`CHALLENGE_TIMEOUT`).
    """

    def __init__(
        self,
        config: ServerConfig,
        store: ServerStore,
        hub: LiveHub | None = None,
        *,
        runner: Runner | None = None,
        seed: int | None = None,
        challenge_timeout: float = CHALLENGE_TIMEOUT,
    ) -> None:
        self.config = config
        self.store = store
        self.hub = hub
        self.runner: Runner = runner if runner is not None else run_game
        self.challenge_timeout = challenge_timeout
        self._rng = random.Random(seed)
        self._pools: dict[str, list[MapSpec]] = {}
        self._logins: dict[str, Login] = {}
        self._waiting: dict[str, list[_Waiter]] = {q: [] for q in config.queues}
        self._games: dict[str, _Live] = {}
        self._closing = False
        self._writer: ThreadPoolExecutor | None = None  # made at the first game write

    # -- life ------------------------------------------------------------------------------
    async def start(self) -> None:
        """Resolve every queue's map pool (checked when the file was loaded)."""
        for name in self.config.queues:
            self._pool(name)

    async def close(self) -> None:
        """Stop: waiters are refused, games in flight cancelled and recorded aborted,
        logins kicked. Returns once every game task has ended."""
        self._closing = True
        for waiters in self._waiting.values():
            for w in list(waiters):
                w.fail("the server is shutting down")
            waiters.clear()
        tasks = [g.task for g in self._games.values() if g.task is not None]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        for login in list(self._logins.values()):
            if login.kick is not None:
                login.kick("the server is shutting down")
        self._logins.clear()
        writer, self._writer = self._writer, None
        if writer is not None:  # its queue is empty: every game task above has ended
            await asyncio.get_running_loop().run_in_executor(None, writer.shutdown)

    def _submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> asyncio.Future[T]:
        """Start a store write on the writer thread, after those already asked for (an
        in-memory database is written at once: other threads would not see it)."""
        loop = asyncio.get_running_loop()
        if self.store.in_memory:
            done: asyncio.Future[T] = loop.create_future()
            try:
                done.set_result(fn(*args, **kwargs))
            except Exception as exc:
                done.set_exception(exc)
            return done
        if self._writer is None:
            self._writer = ThreadPoolExecutor(1, thread_name_prefix="lightcycle-db")
        return loop.run_in_executor(self._writer, partial(fn, *args, **kwargs))

    async def _write(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """`_submit` and wait. A cancelled caller still waits for its write to end (it
        cannot be stopped half way), so the order of writes holds and nothing is left
        between its transactions."""
        fut = self._submit(fn, *args, **kwargs)
        try:
            return await asyncio.shield(fut)
        except asyncio.CancelledError:
            await asyncio.wait([fut])
            raise

    def _pool(self, queue: str) -> list[MapSpec]:
        pool = self._pools.get(queue)
        if pool is None:
            pool = self._pools[queue] = self.config.queues[queue].pool()
        return pool

    def _queue(self, queue: str) -> QueueConfig:
        q = self.config.queues.get(queue)
        if q is None:
            known = ", ".join(sorted(self.config.queues))
            raise Refused(f"unknown queue {queue!r}; queues here: {known}")
        return q

    # -- logins ----------------------------------------------------------------------------
    async def login(self, name: str, secret: str | None, queue: str, address: str) -> Login:
        """Log a client in to play in ``queue`` (see the module docstring).

        The secret is hashed on a thread (scrypt: 16 MiB and about 75 ms of CPU on the
        2-core VM), so a login never stalls the games on the event loop; the database is
        read and written here, as everywhere in the lobby.

        Raises:
            Refused: a bad name or secret, a wrong secret, a registered name without its
                secret, anonymous play where the queue allows none, a name in use, a second
                login where ``second_login`` is ``refuse``, an unknown queue.
        """
        if self._closing:
            raise Refused("the server is shutting down; try again later")
        try:
            accounts.check_name(name)
            if secret is not None:
                accounts.check_secret(secret)
        except SecretError as exc:
            raise Refused(str(exc)) from None
        q = self._queue(queue)
        account = await self._authenticate(name, secret, q)
        if self._closing:  # it closed while the secret was hashed
            raise Refused("the server is shutting down; try again later")
        shown = account if account is not None else name
        key = name_key(shown)
        old = self._logins.get(key)
        if old is not None and self._game_over(old):
            self.logout(old)  # its result is sent and its connection closing: not in use
            old = None
        if old is not None:
            if account is None or old.account is None:
                raise Refused(f"the name {old.name} is in use; pick another")
            if self.config.second_login == "refuse" and not self._dropped(shown):
                raise Refused(
                    f"{shown} is already logged in; this server refuses a second login "
                    "(close the other connection first)"
                )
            self._drop(old, f"replaced by a new login of {shown} from {address}", decline=False)
            if old.kick is not None:
                old.kick(f"replaced by a new login of {shown}")
        login = Login(shown, account, address)
        self._logins[key] = login
        return login

    async def _authenticate(self, name: str, secret: str | None, q: QueueConfig) -> str | None:
        """The account ``name`` logs in to (claimed now if new), or ``None`` (anonymous)."""
        row = self.store.account(name)
        if secret is None:
            if row is not None:
                raise Refused(
                    f"{row.name} is a registered account: log in with its secret, or pick "
                    "another name"
                )
            if not q.anonymous:
                raise Refused(
                    f"queue {q.name} takes accounts only: give a secret with your name "
                    "(the first login with a secret claims the name)"
                )
            return None
        if row is None:
            hashed = await asyncio.to_thread(accounts.hash_secret, secret)
            if self.store.create_account(name, hashed):
                log.info("account %s claimed", name)
                return name
            row = self.store.account(name)  # claimed a moment ago by another login
            if row is None:  # pragma: no cover -- accounts are never deleted
                raise Refused(f"cannot register {name}; try again")
        if not await asyncio.to_thread(accounts.verify_secret, secret, row.secret_hash):
            raise Refused(f"wrong secret for {row.name}")
        fresh = None
        if accounts.needs_rehash(row.secret_hash):
            fresh = await asyncio.to_thread(accounts.hash_secret, secret)
        self.store.touch_account(row.name, fresh)
        return row.name

    def _game_over(self, login: Login) -> bool:
        """Whether ``login``'s game has ended for its seat (its end is sent): a client
        that reads its result and joins again at once must not find its name in use."""
        return login.done or any(
            w.login is login and bool(getattr(w.seat, "finished", False))
            for g in self._games.values()
            for w in g.players
        )

    def logout(self, login: Login) -> None:
        """Forget a connection that closed: its waits end, challenges to it are declined.

        A login already replaced by a newer one of the same account changes nothing for
        the newer one.
        """
        key = name_key(login.name)
        current = self._logins.get(key) is login
        if current:
            del self._logins[key]
        self._drop(login, "logged out", decline=current)

    def _drop(self, login: Login, why: str, *, decline: bool = True) -> None:
        for waiters in self._waiting.values():
            for w in list(waiters):
                if w.login is login:
                    waiters.remove(w)
                    w.fail(why)
                elif (
                    decline
                    and w.challenge is not None
                    and name_key(w.challenge) == name_key(login.name)
                ):
                    waiters.remove(w)
                    w.fail(f"{login.name} declined the challenge (left the server)")

    def _dropped(self, account: str) -> bool:
        """Whether ``account`` sits in a game with no connection: logging in again is its
        way back to the seat within the grace (the Scheme port has no resume token), not
        a second login, so ``second_login = "refuse"`` lets it in."""
        return getattr(self.seat_of(account), "connected", True) is False

    def seat_of(self, account: str) -> Seat | None:
        """The seat ``account`` holds in a game in flight (a replacing login takes it)."""
        key = name_key(account)
        for game in self._games.values():
            for seat in game.seats:
                if seat.account is not None and name_key(seat.account) == key:
                    return seat
        return None

    # -- for the web -----------------------------------------------------------------------
    def waiting(self) -> dict[str, list[str]]:
        """Queue -> names waiting in it (challengers included), oldest first."""
        return {q: [w.login.name for w in ws] for q, ws in self._waiting.items()}

    def challenges(self) -> list[tuple[str, str, str]]:
        """``(challenger, challenged, queue)`` of every challenge waiting for its answer."""
        return [
            (w.login.name, w.challenge, q)
            for q, ws in self._waiting.items()
            for w in ws
            if w.challenge is not None
        ]

    def live_games(self) -> list[GameSpec]:
        """The specs of the games in flight."""
        return [g.spec for g in self._games.values()]

    # -- playing ---------------------------------------------------------------------------
    async def play(
        self,
        login: Login,
        seat: Seat,
        queue: str,
        *,
        challenge: str | None = None,
        accept: str | None = None,
    ) -> GameResult:
        """Wait in ``queue`` with ``seat``, play the game, return its recorded result.

        Args:
            login: a current login (`login`).
            seat: the connection's seat.
            queue: the queue to play in.
            challenge: wait for this player to accept, instead of the queue.
            accept: accept the challenge this player made in this queue.

        Raises:
            Refused: an unknown queue, anonymous play where the queue allows none, a
                login that is no longer current, a challenge declined or expired, no such
                challenge to accept, the server shutting down, a game aborted.
        """
        if self._closing:
            raise Refused("the server is shutting down; try again later")
        q = self._queue(queue)
        if self._logins.get(name_key(login.name)) is not login:
            raise Refused("not logged in (or replaced by a newer login)")
        if login.account is None and not q.anonymous:
            raise Refused(f"queue {q.name} takes accounts only: log in with a secret")
        if challenge is not None and accept is not None:
            raise Refused("give challenge or accept, not both")
        for other in (challenge, accept):
            if other is not None:
                try:
                    accounts.check_name(other)
                except SecretError as exc:
                    raise Refused(str(exc)) from None
                if name_key(other) == name_key(login.name):
                    raise Refused("you cannot challenge yourself")
        waiters = self._waiting[queue]
        if any(w.login is login for ws in self._waiting.values() for w in ws):
            raise Refused(f"{login.name} is already waiting for a game")
        if any(w.login is login for g in self._games.values() for w in g.players):
            raise Refused(f"{login.name} is already in a game")
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[GameResult] = loop.create_future()
        fut.add_done_callback(_retrieve)
        waiter = _Waiter(login, seat, queue, challenge, loop.time(), fut)
        if accept is not None:
            self._accept(q, waiter, accept)
        elif challenge is not None:
            if any(
                w.login.name == login.name
                and w.challenge
                and name_key(w.challenge) == name_key(challenge)
                for w in waiters
            ):
                raise Refused(f"you already challenged {challenge}")
            waiters.append(waiter)
            waiter.timer = loop.call_later(
                self.challenge_timeout, self._expire, waiter, self.challenge_timeout
            )
        else:
            waiters.append(waiter)
            self._match(q)
            if not fut.done() and waiter in waiters and q.fill_after is not None:
                waiter.timer = loop.call_later(q.fill_after, self._fill, waiter)
        try:
            return await asyncio.shield(fut)
        except asyncio.CancelledError:
            if waiter in waiters:  # still waiting: the client went away
                waiters.remove(waiter)
                if waiter.timer is not None:
                    waiter.timer.cancel()
                if not fut.done():
                    fut.cancel()
            raise

    def _accept(self, q: QueueConfig, waiter: _Waiter, challenger: str) -> None:
        waiters = self._waiting[q.name]
        me = name_key(waiter.login.name)
        found = None
        for w in list(waiters):
            if w.challenge is None or name_key(w.challenge) != me:
                continue
            if name_key(w.login.name) == name_key(challenger) and found is None:
                found = w
            else:  # accepting one challenge declines the others in this queue
                waiters.remove(w)
                w.fail(f"{waiter.login.name} declined the challenge")
        if found is None:
            raise Refused(
                f"no challenge from {challenger} to {waiter.login.name} in queue {q.name}"
            )
        waiters.remove(found)
        self._start(q, [found, waiter])

    def _expire(self, waiter: _Waiter, after: float) -> None:
        waiters = self._waiting.get(waiter.queue, [])
        if waiter in waiters:
            waiters.remove(waiter)
            waiter.fail(f"{waiter.challenge} did not accept the challenge within {after:g} s")

    def _match(self, q: QueueConfig) -> None:
        """Start games while enough seats wait in the queue (challengers wait apart)."""
        while True:
            ready = [w for w in self._waiting[q.name] if w.challenge is None]
            if len(ready) < q.players:
                return
            chosen = ready[: q.players]
            for w in chosen:
                self._waiting[q.name].remove(w)
            self._start(q, chosen)

    def _fill(self, waiter: _Waiter) -> None:
        """A seat waited ``fill_after``: start its game now with fill bots in the rest."""
        waiters = self._waiting.get(waiter.queue, [])
        if waiter not in waiters or self._closing:
            return
        q = self.config.queues[waiter.queue]
        ready = [w for w in waiters if w.challenge is None]
        chosen = [waiter, *[w for w in ready if w is not waiter]][: q.players]
        for w in chosen:
            waiters.remove(w)
        self._start(q, chosen)

    def _start(self, q: QueueConfig, players: list[_Waiter]) -> None:
        """Make the game for ``players`` (fill bots in the empty seats) and start its task."""
        for w in players:
            if w.timer is not None:
                w.timer.cancel()
                w.timer = None
        seats: list[Seat] = [w.seat for w in players]
        for n in range(q.players - len(seats)):
            seats.append(
                BuiltinSeat(bot=q.fill_bot, name=q.fill_bot if n == 0 else f"{q.fill_bot}#{n + 1}")
            )
        pool = self._pool(q.name)
        seed = self._rng.getrandbits(31)
        board = pool[self._rng.randrange(len(pool))]
        self._rng.shuffle(seats)  # nobody keeps the better start by joining first
        spec = GameSpec(
            game_id=uuid.uuid4().hex,
            queue=q.name,
            ruleset=q.resolve_ruleset(),
            board=board,
            map_name=board.id,
            seed=seed,
            time=q.time_control(),
            latency_allowance=self.config.limits.latency_allowance,
            reconnect_grace=self.config.limits.reconnect_grace,
        )
        live = _Live(spec, seats, players=list(players))
        self._games[spec.game_id] = live
        live.task = asyncio.get_running_loop().create_task(
            self._run(q, live), name=f"game {spec.game_id}"
        )

    async def _run(self, q: QueueConfig, live: _Live) -> None:
        """Play one game and record it, whatever happens (see the module docstring)."""
        spec, seats = live.spec, live.seats
        gid = spec.game_id
        try:
            await self._write(
                self.store.start_game,
                gid,
                queue=q.name,
                ruleset=spec.ruleset.id,
                map=spec.map_name,
                seed=spec.seed,
                seats=[SeatRow(i, s.name, s.account, s.kind) for i, s in enumerate(seats)],
            )
        except asyncio.CancelledError:
            self._games.pop(gid, None)
            await self._abort(live, "the server stopped before the game began")
            raise
        except Exception as exc:  # the database is down: the players must hear of it
            log.exception("cannot record the start of game %s", gid)
            self._games.pop(gid, None)
            for w in live.players:
                w.fail(f"the server cannot record games now ({type(exc).__name__}); try later")
            return
        hub = self.hub
        if hub is not None:
            hub.open(gid, self._meta(spec, seats))
        on_frame = (lambda state: hub.push(gid, state)) if hub is not None else None
        try:
            result = await self.runner(spec, seats, on_frame)
        except asyncio.CancelledError:
            await self._abort(live, "the server stopped during the game")
            raise
        except Exception as exc:
            log.exception("game %s failed", gid)
            await self._abort(live, f"server error: {type(exc).__name__}: {exc}")
            return
        finally:
            self._games.pop(gid, None)
            for w in live.players:
                w.login.done = True
        recording = self._submit(self._record, q, result)
        stopped = False
        try:
            await asyncio.shield(recording)
        except asyncio.CancelledError:  # the server stops: the write goes on to its end
            stopped = True
            await asyncio.wait([recording])
        except Exception:
            pass  # told below
        problem = recording.exception()
        if problem is not None:
            log.error("cannot record game %s", gid, exc_info=problem)
            await self._abort(live, f"cannot record the result: {type(problem).__name__}")
        else:
            if hub is not None:
                hub.close(gid, self._summary(result))
            for w in live.players:
                if not w.future.done():
                    w.future.set_result(result)
        if stopped:
            raise asyncio.CancelledError

    def _record(self, q: QueueConfig, result: GameResult) -> None:
        """Write a played game (on the writer thread: the replay is finished, read only)."""
        rows = [
            SeatRow(
                idx=i,
                name=s.name,
                account=s.account,
                kind=s.kind,
                rank=s.rank,
                result=s.result,
                verdict=s.verdict,
                detail=s.detail,
                rtt_ms=s.rtt_ms,
                think_ms=s.think_ms,
            )
            for i, s in enumerate(result.seats)
        ]
        rated = ladder.rated_seats(result.seats) if q.rated and not result.aborted else {}
        self.store.record_finish(
            result.spec.game_id,
            status=ABORTED if result.aborted else FINISHED,
            reason=result.reason,
            turns=result.turns,
            replay=result.replay.to_json(),
            seats=rows,
            rated=rated,
            rate=ladder.rater(result.seats, rated) if rated else None,
        )

    async def _abort(self, live: _Live, reason: str) -> None:
        """Record a game that did not finish as aborted, tell its players and spectators."""
        gid = live.spec.game_id
        try:
            await self._write(
                self.store.record_finish,
                gid,
                status=ABORTED,
                reason=reason,
                turns=0,
                replay=None,
                seats=None,
            )
        except KeyError:
            pass  # already recorded
        except Exception:
            log.exception("cannot record game %s as aborted", gid)
        if self.hub is not None:
            self.hub.close(gid, {"aborted": True, "reason": reason})
        for w in live.players:
            w.fail(f"the game was aborted: {reason}")

    @staticmethod
    def _meta(spec: GameSpec, seats: Sequence[Seat]) -> dict[str, Any]:
        return {
            "queue": spec.queue,
            "names": [s.name for s in seats],
            "seats": [{"name": s.name, "bot": s.kind} for s in seats],
            "map": spec.map_name,
            "ruleset": spec.ruleset.id,
            "started_at": now(),  # as the stored games have it: /api/games lists both
        }

    @staticmethod
    def _summary(result: GameResult) -> dict[str, Any]:
        return {
            "replay": result.replay,
            "reason": result.reason,
            "turns": result.turns,
            "aborted": result.aborted,
            "ranks": [s.rank for s in result.seats],
            "seats": [
                {"name": s.name, "rank": s.rank, "result": s.result, "verdict": s.verdict}
                for s in result.seats
            ],
        }
