"""The lobby: logins, FIFO queues, fill bots, challenges, replacement, shutdown.

Clients are stand-in seats (in-process bots under a player's name) that play through the
real `run_game` and the real store; only the shutdown and replacement cases use a runner
that holds the game open, to look at a game in flight.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import threading
import time
from collections.abc import Callable, Coroutine, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from lightcycle.core.state import GameState
from lightcycle.server import accounts
from lightcycle.server.config import QueueConfig, ServerConfig
from lightcycle.server.game import GameResult, GameSpec, run_game
from lightcycle.server.lobby import Lobby, Refused
from lightcycle.server.seats import BuiltinSeat, Seat
from lightcycle.server.store import ServerStore
from lightcycle.viewer.live import LiveHub

DUEL = QueueConfig(
    "duel", maps=("torus-20",), move_time=0.5, fill_after=None, fill_bot="builtin:random"
)
FILLED = replace(DUEL, name="filled", fill_after=0.05)
MEMBERS = replace(DUEL, name="members", anonymous=False)
FOUR = QueueConfig(
    "four",
    ruleset="ffa@1",
    maps=("arena-15",),
    players=4,
    move_time=0.5,
    fill_after=0.05,
    fill_bot="builtin:random",
    rated=False,
)


def _config(**kw: object) -> ServerConfig:
    queues = MappingProxyType({q.name: q for q in (DUEL, FILLED, MEMBERS, FOUR)})
    return replace(ServerConfig(), scheme_queue="duel", queues=queues, **kw)  # type: ignore[arg-type]


def seat(name: str, account: str | None = None, bot: str = "builtin:random") -> BuiltinSeat:
    """A stand-in client: an in-process bot under a player's name."""
    s = BuiltinSeat(bot=bot, name=name, account=account)
    if account is None:
        s.kind = "remote"  # rated like an anonymous client: not at all
    return s


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ServerStore]:
    s = ServerStore(f"sqlite:///{tmp_path / 'server.db'}")
    yield s
    s.close()


def aio(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async test on a fresh event loop (the project has no asyncio plugin)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(asyncio.wait_for(test(*args, **kwargs), 60))

    return run


async def _lobby(store: ServerStore, **kw: object) -> Lobby:
    config = kw.pop("config", None) or _config()
    lobby = Lobby(config, store, **kw)  # type: ignore[arg-type]
    await lobby.start()
    return lobby


async def _until(check: Callable[[], bool], timeout: float = 5.0) -> None:
    for _ in range(int(timeout / 0.01)):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("timed out")


@aio
async def test_two_players_in_a_queue_play_one_recorded_rated_game(store: ServerStore) -> None:
    hub = LiveHub()
    lobby = await _lobby(store, hub=hub, seed=1)
    alice = await lobby.login("alice", "pw-a", "duel", "127.0.0.1")
    bob = await lobby.login("bob", "pw-b", "duel", "127.0.0.1")
    first = asyncio.create_task(lobby.play(alice, seat("alice", "alice"), "duel"))
    await _until(lambda: lobby.waiting()["duel"] == ["alice"])
    second = asyncio.create_task(lobby.play(bob, seat("bob", "bob"), "duel"))
    a, b = await asyncio.wait_for(asyncio.gather(first, second), 30)
    assert a is b and not a.aborted
    assert sorted(s.name for s in a.seats) == ["alice", "bob"]
    game = store.game(a.spec.game_id)
    assert game is not None and game.status == "finished" and game.replay
    assert game.queue == "duel" and game.map == "torus-20@1" and game.seed == a.spec.seed
    assert {s.name: s.result for s in game.seats} == {s.name: s.result for s in a.seats}
    assert all(s.rating_after is not None for s in game.seats)
    ladder = store.ladder("duel")
    assert sorted(r.name for r in ladder) == ["alice", "bob"]
    assert sum(r.rating for r in ladder) == pytest.approx(4000.0)  # Elo is zero-sum
    assert lobby.waiting()["duel"] == [] and hub.games() == []
    await lobby.close()


@aio
async def test_a_lone_seat_gets_a_fill_bot_after_fill_after(store: ServerStore) -> None:
    lobby = await _lobby(store, seed=2)
    alice = await lobby.login("alice", "pw", "filled", "127.0.0.1")
    result = await asyncio.wait_for(lobby.play(alice, seat("alice", "alice"), "filled"), 30)
    assert sorted(s.name for s in result.seats) == ["alice", "builtin:random"]
    assert {s.kind for s in result.seats} == {"builtin"}
    assert {r.name for r in store.ladder("filled")} == {"alice", "builtin:random"}
    # an anonymous player is not rated; the bot is, against nobody: no change
    guest = await lobby.login("guest", None, "filled", "127.0.0.1")
    await asyncio.wait_for(lobby.play(guest, seat("guest"), "filled"), 30)
    assert {r.name for r in store.ladder("filled")} == {"alice", "builtin:random"}
    assert [r.games for r in store.ladder("filled")] == [1, 1]
    await lobby.close()


@aio
async def test_fill_takes_the_others_waiting_first(store: ServerStore) -> None:
    lobby = await _lobby(store, seed=3)
    logins = [await lobby.login(n, None, "four", "10.0.0.1") for n in ("p1", "p2")]
    tasks = [asyncio.create_task(lobby.play(lg, seat(lg.name), "four")) for lg in logins]
    results = await asyncio.wait_for(asyncio.gather(*tasks), 30)
    assert results[0] is results[1]
    names = sorted(s.name for s in results[0].seats)
    assert names == ["builtin:random", "builtin:random#2", "p1", "p2"]
    await lobby.close()


@aio
async def test_a_challenge_waits_for_its_player_only(store: ServerStore) -> None:
    lobby = await _lobby(store, seed=4)
    a = await lobby.login("ann", None, "duel", "x")
    b = await lobby.login("ben", None, "duel", "x")
    c = await lobby.login("cy", None, "duel", "x")
    challenge = asyncio.create_task(lobby.play(a, seat("ann"), "duel", challenge="ben"))
    await _until(lambda: lobby.challenges() == [("ann", "ben", "duel")])
    other = asyncio.create_task(lobby.play(c, seat("cy"), "duel"))
    await _until(lambda: lobby.waiting()["duel"] == ["ann", "cy"])
    assert not challenge.done() and not other.done()  # cy is not paired with ann
    accepted = asyncio.create_task(lobby.play(b, seat("ben"), "duel", accept="ANN"))
    got = await asyncio.wait_for(challenge, 30)
    assert sorted(s.name for s in got.seats) == ["ann", "ben"]
    assert (await accepted) is got
    assert lobby.waiting()["duel"] == ["cy"] and lobby.challenges() == []
    other.cancel()
    with pytest.raises(asyncio.CancelledError):
        await other
    assert lobby.waiting()["duel"] == []  # a client that went away leaves the queue
    await lobby.close()


@aio
async def test_challenges_declined_expired_or_never_made(store: ServerStore) -> None:
    lobby = await _lobby(store, challenge_timeout=0.1)
    a = await lobby.login("ann", None, "duel", "x")
    b = await lobby.login("ben", None, "duel", "x")
    with pytest.raises(Refused, match=r"did not accept the challenge within 0\.1 s"):
        await asyncio.wait_for(lobby.play(a, seat("ann"), "duel", challenge="ben"), 5)
    with pytest.raises(Refused, match="no challenge from ann to ben in queue duel"):
        await lobby.play(b, seat("ben"), "duel", accept="ann")
    # ben accepts someone else: ann's challenge is declined
    waiting = asyncio.create_task(lobby.play(a, seat("ann"), "duel", challenge="ben"))
    await _until(lambda: bool(lobby.challenges()))
    with pytest.raises(Refused, match="no challenge from cy"):
        await lobby.play(b, seat("ben"), "duel", accept="cy")
    with pytest.raises(Refused, match="ben declined the challenge"):
        await waiting
    # ben leaves: declined too
    waiting = asyncio.create_task(lobby.play(a, seat("ann"), "duel", challenge="ben"))
    await _until(lambda: bool(lobby.challenges()))
    lobby.logout(b)
    with pytest.raises(Refused, match="ben declined the challenge"):
        await waiting
    with pytest.raises(Refused, match="cannot challenge yourself"):
        await lobby.play(a, seat("ann"), "duel", challenge="Ann")
    with pytest.raises(Refused, match="not both"):
        await lobby.play(a, seat("ann"), "duel", challenge="x", accept="y")
    await lobby.close()


@aio
async def test_login_rules(store: ServerStore) -> None:
    lobby = await _lobby(store)
    with pytest.raises(Refused, match="bad name"):
        await lobby.login("no\tcontrols", None, "duel", "x")
    spaced = await lobby.login("Scheme Test Client", None, "duel", "x")  # the course's
    assert spaced.name == "Scheme Test Client"
    lobby.logout(spaced)
    with pytest.raises(Refused, match="unknown queue 'nope'; queues here: duel, filled"):
        await lobby.login("ann", None, "nope", "x")
    with pytest.raises(Refused, match="queue members takes accounts only"):
        await lobby.login("ann", None, "members", "x")
    first = await lobby.login("Carol", "secret", "members", "x")  # claims the name
    assert (first.name, first.account) == ("Carol", "Carol")
    lobby.logout(first)
    with pytest.raises(Refused, match="wrong secret for Carol"):
        await lobby.login("carol", "guess", "duel", "x")
    with pytest.raises(Refused, match="Carol is a registered account"):
        await lobby.login("carol", None, "duel", "x")
    again = await lobby.login("CAROL", "secret", "duel", "x")
    assert again.name == "Carol"  # the name as registered
    guest = await lobby.login("dave", None, "duel", "x")
    with pytest.raises(Refused, match="the name dave is in use"):
        await lobby.login("Dave", None, "duel", "y")
    lobby.logout(guest)
    assert (await lobby.login("dave", None, "duel", "y")).name == "dave"
    stored = store.account("carol")
    assert stored is not None and "secret" not in stored.secret_hash
    await lobby.close()


@aio
async def test_a_login_hashes_its_secret_off_the_event_loop(
    store: ServerStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """scrypt takes about 75 ms of CPU a hash: on the event loop every game would stall
    for it at each login. A hash made slow here shows the loop ticking on meanwhile."""
    real_hash, real_verify = accounts.hash_secret, accounts.verify_secret

    def slow_hash(secret: str) -> str:
        time.sleep(0.4)
        return real_hash(secret)

    def slow_verify(secret: str, stored: str) -> bool:
        time.sleep(0.4)
        return real_verify(secret, stored)

    monkeypatch.setattr(accounts, "hash_secret", slow_hash)
    monkeypatch.setattr(accounts, "verify_secret", slow_verify)
    lobby = await _lobby(store)
    ticks: list[float] = []

    async def tick() -> None:
        while True:
            ticks.append(time.perf_counter())
            await asyncio.sleep(0.01)

    ticker = asyncio.create_task(tick())
    try:
        first = await lobby.login("Erin", "secret", "members", "x")  # hashes
        lobby.logout(first)
        again = await lobby.login("erin", "secret", "members", "x")  # verifies
        with pytest.raises(Refused, match="wrong secret for Erin"):
            await lobby.login("erin", "guess", "members", "y")
    finally:
        ticker.cancel()
    assert again.account == "Erin"
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    assert len(ticks) > 50 and max(gaps) < 0.2, max(gaps)
    await lobby.close()


class _Held:
    """A runner that starts the real game but holds it until released."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.frames = 0

    async def __call__(
        self,
        spec: GameSpec,
        seats: Sequence[Seat],
        on_frame: Callable[[GameState], None] | None,
    ) -> GameResult:
        self.started.set()
        await self.release.wait()
        return await run_game(spec, seats, on_frame)


@aio
async def test_a_second_login_replaces_the_first_and_takes_its_seat(store: ServerStore) -> None:
    held = _Held()
    lobby = await _lobby(store, runner=held)
    kicked: list[str] = []
    first = await lobby.login("erin", "pw", "duel", "1.1.1.1")
    first.kick = kicked.append
    other = await lobby.login("frank", None, "duel", "x")
    mine = seat("erin", "erin")
    playing = asyncio.create_task(lobby.play(first, mine, "duel"))
    opponent = asyncio.create_task(lobby.play(other, seat("frank"), "duel"))
    await asyncio.wait_for(held.started.wait(), 5)
    assert lobby.seat_of("ERIN") is mine and lobby.seat_of("frank") is None
    second = await lobby.login("erin", "pw", "duel", "2.2.2.2")
    assert kicked == ["replaced by a new login of erin"]
    assert lobby.seat_of("erin") is mine  # the new connection takes this seat
    lobby.logout(first)  # the kicked connection closing does not log the new one out
    with pytest.raises(Refused, match="frank is already in a game"):
        await lobby.play(other, seat("frank"), "duel")
    held.release.set()
    result = await asyncio.wait_for(playing, 30)
    assert (await opponent) is result and lobby.seat_of("erin") is None
    assert second.name == "erin" and lobby.waiting()["duel"] == []
    await lobby.close()


@aio
async def test_refuse_mode_keeps_the_first_login(store: ServerStore) -> None:
    lobby = await _lobby(store, config=_config(second_login="refuse"))
    await lobby.login("gus", "pw", "duel", "x")
    with pytest.raises(Refused, match="gus is already logged in; this server refuses"):
        await lobby.login("gus", "pw", "duel", "y")
    await lobby.close()


@aio
async def test_close_records_games_in_flight_as_aborted(store: ServerStore) -> None:
    hub = LiveHub()
    held = _Held()  # never released: the game is in flight when the server stops
    lobby = await _lobby(store, hub=hub, runner=held)
    kicked: list[str] = []
    a = await lobby.login("hal", "pw", "duel", "x")
    a.kick = kicked.append
    b = await lobby.login("ivy", None, "duel", "x")
    c = await lobby.login("jo", None, "duel", "x")
    tasks = [
        asyncio.create_task(lobby.play(a, seat("hal", "hal"), "duel")),
        asyncio.create_task(lobby.play(b, seat("ivy"), "duel")),
    ]
    await asyncio.wait_for(held.started.wait(), 5)
    assert len(hub.games()) == 1  # shown to spectators
    (spec,) = lobby.live_games()
    running = store.game(spec.game_id)
    assert running is not None and running.status == "running"
    waiter = asyncio.create_task(lobby.play(c, seat("jo"), "duel"))
    await _until(lambda: lobby.waiting()["duel"] == ["jo"])
    await asyncio.wait_for(lobby.close(), 10)
    for task in (*tasks, waiter):
        with pytest.raises(Refused):
            await task
    game = store.game(spec.game_id)
    assert game is not None and game.status == "aborted"
    assert game.reason == "the server stopped during the game"
    assert [s.name for s in game.seats] == [s.name for s in running.seats]
    assert store.ladder("duel") == [] and kicked == ["the server is shutting down"]
    assert hub.games() == [] and lobby.live_games() == []
    with pytest.raises(Refused, match="shutting down"):
        await lobby.login("kim", None, "duel", "x")


class _SlowStore(ServerStore):
    """The real store whose writes take as long as a slow disk's commit, noting where and
    in what order they ran."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.writes: list[tuple[str, str, str]] = []  # (what, game, thread)

    def start_game(self, game_id: str, **kw: Any) -> None:
        time.sleep(0.2)
        self.writes.append(("start", game_id, threading.current_thread().name))
        super().start_game(game_id, **kw)

    def record_finish(self, game_id: str, **kw: Any) -> None:
        time.sleep(0.2)
        self.writes.append(("finish", game_id, threading.current_thread().name))
        super().record_finish(game_id, **kw)


@aio
async def test_game_writes_run_in_order_on_one_thread_and_never_stall_the_loop(
    tmp_path: Path,
) -> None:
    slow = _SlowStore(f"sqlite:///{tmp_path / 'slow.db'}")
    lobby = await _lobby(slow, seed=2)
    ticks: list[float] = []

    async def ticker() -> None:
        while True:
            ticks.append(time.monotonic())
            await asyncio.sleep(0.01)

    tick = asyncio.create_task(ticker())
    plays = []
    for n in range(4):
        login = await lobby.login(f"p{n}", None, "duel", "x")
        plays.append(asyncio.create_task(lobby.play(login, seat(f"p{n}"), "duel")))
    results = await asyncio.wait_for(asyncio.gather(*plays), 30)
    tick.cancel()
    await lobby.close()
    games = {r.spec.game_id for r in results}
    assert len(games) == 2
    for gid in games:  # each game written twice, start before finish
        assert [w for w, g, _ in slow.writes if g == gid] == ["start", "finish"]
        row = slow.game(gid)
        assert row is not None and row.status == "finished"
    assert {t for _, _, t in slow.writes} != {threading.main_thread().name}
    assert len({t for _, _, t in slow.writes}) == 1  # one writer: the order holds
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    assert max(gaps) < 0.19  # 0.2 s writes, yet the loop ticked on
    assert not [t for t in threading.enumerate() if t.name.startswith("lightcycle-db")]
    slow.close()


def test_a_live_game_says_when_it_started_as_a_stored_game_does() -> None:
    """``/api/games`` lists live games (the hub's meta) beside stored ones: both say
    ``started_at`` in the store's ISO form, not epoch seconds in one and text in the other."""
    import re
    from types import SimpleNamespace

    from lightcycle.server.lobby import Lobby

    spec = SimpleNamespace(
        queue="torus", map_name="torus-20", ruleset=SimpleNamespace(id="torus@1")
    )
    seats = [
        SimpleNamespace(name="alice", kind="remote"),
        SimpleNamespace(name="bob", kind="remote"),
    ]
    meta = Lobby._meta(spec, seats)  # type: ignore[arg-type]
    assert "started" not in meta
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", meta["started_at"])
