"""The server's async game loop: remote seats on real sockets, built-in bots on threads.

Each test plays a small, fast game (arena-10, 0.15 s moves) and checks what the referee
would say of the same behaviour: the verdict, the forfeit, the replay.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

from lightcycle.referee.clock import TimeControl
from lightcycle.replay.model import Replay
from lightcycle.server.game import GameResult, run_game
from lightcycle.server.seats import BuiltinSeat, RemoteSeat
from tests.server.clients import MOVE, Pair, jsonl_bot, readline, scheme_client, spec


def play(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 30))


async def _remote_vs_builtin(
    client: Any, protocol: str = "sexp", framed: bool = False, **kw: Any
) -> tuple[GameResult, Any]:
    async with Pair() as pair:
        sr, sw, cr, cw = await pair.connect()
        seat = RemoteSeat("client", None, protocol=protocol, framed=framed, hello_pending=False)
        seat.attach(sr, sw)
        frames: list[int] = []
        game = asyncio.ensure_future(
            run_game(
                spec(**kw),
                [seat, BuiltinSeat("builtin:floodfill")],
                lambda s: frames.append(s.turn),
            )
        )
        said = await client(cr, cw)
        result = await game
        assert frames[0] == 0 and frames[-1] == result.turns  # a frame a turn, and the start
        return result, said


def test_scheme_client_plays_a_builtin_to_the_end() -> None:
    result, word = play(_remote_vs_builtin(lambda r, w: scheme_client(r, w, name=None)))
    me = result.seats[0]
    assert word == me.result and me.verdict == "ok" and me.kind == "remote"
    assert result.seats[1].kind == "builtin" and result.seats[1].name == "FloodFill"
    assert me.think_ms is not None and me.think_ms < 150
    assert me.rtt_ms is not None and me.rtt_ms >= 0  # Linux TCP_INFO
    # the replay is the referee's: it re-simulates to its stored outcome
    again = Replay.from_json(result.replay.to_json())
    assert again.verify().outcome is not None
    assert again.seats[0] == {"name": "client", "bot": "remote:sexp"}


def test_jsonl_raw_bot_gets_start_turns_and_end() -> None:
    seen: list[dict[str, Any]] = []
    result, last = play(
        _remote_vs_builtin(lambda r, w: jsonl_bot(r, w, seen=seen), protocol="jsonl")
    )
    assert [m["type"] for m in seen[:2]] == ["start", "turn"]
    assert seen[1]["turn"] == 1 and last["type"] == "end"
    assert last["result"] == result.seats[0].result


def test_framed_bot_gets_numbered_data_then_end() -> None:
    seen: list[dict[str, Any]] = []
    result, last = play(
        _remote_vs_builtin(
            lambda r, w: jsonl_bot(r, w, framed=True, seen=seen), protocol="jsonl", framed=True
        )
    )
    turns = [m["turn"] for m in seen if m["type"] == "data"]
    assert turns == sorted(set(turns)) and turns[:2] == [0, 1]
    assert last["type"] == "end" and last["game"] == result.spec.game_id
    assert last["verdict"] == "ok" and last["result"] == result.seats[0].result
    assert last["ranks"] == [s.rank for s in result.seats]


async def _silent(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> list[bytes]:
    out = [await readline(r) for _ in range(4)]  # size, walls, two positions; no answer
    out.append(await readline(r))
    return out


def test_silent_client_times_out_and_loses() -> None:
    result, said = play(_remote_vs_builtin(_silent))
    me = result.seats[0]
    assert me.verdict == "timeout" and me.result == "loss"
    assert "no complete reply within 0.200 s" in me.detail  # 0.15 s + 0.05 s allowance
    assert said[-1] == b"loss\n"
    assert result.replay.verdicts and result.replay.verdicts[0][0]["verdict"] == "timeout"


async def _garbage(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> bytes:
    for _ in range(4):
        await readline(r)
    w.write(b"\x00\xff\xfegarbage\n")
    return await readline(r)


def test_binary_garbage_is_bad_output_and_cut_off() -> None:
    result, said = play(_remote_vs_builtin(_garbage))
    assert result.seats[0].verdict == "bad_output"
    assert "one of the symbols n e s w" in result.seats[0].detail
    assert said.startswith(b'(error "bad output')


def test_illegal_move_in_jsonl_forfeits_the_cycle() -> None:
    async def client(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> list[bytes]:
        start = json.loads(await readline(r))
        assert start["type"] == "start"
        await readline(r)
        w.write(b'{"moves": {"7": "n"}}\n')  # a cycle that is not ours
        return [await readline(r) for _ in range(1)]

    result, _ = play(_remote_vs_builtin(client, protocol="jsonl"))
    me = result.seats[0]
    assert me.verdict == "illegal_move" and "not a live cycle" in me.detail
    assert me.result == "loss"


def test_disconnect_past_grace_is_disconnected() -> None:
    async def client(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        for _ in range(4):
            await readline(r)
        w.close()

    result, _ = play(_remote_vs_builtin(client, grace=0.3))
    assert result.seats[0].verdict == "disconnected"
    assert "not back within 0.3 s" in result.seats[0].detail


def test_reconnect_within_grace_keeps_the_seat() -> None:
    async def main() -> tuple[GameResult, list[dict[str, Any]]]:
        async with Pair() as pair:
            sr, sw, cr, cw = await pair.connect()
            seat = RemoteSeat("client", None, protocol="jsonl", framed=True)
            seat.attach(sr, sw)
            game = asyncio.ensure_future(
                run_game(spec(grace=2.0), [seat, BuiltinSeat("builtin:floodfill")])
            )
            first = [json.loads(await readline(cr)) for _ in range(2)]  # start, turn 1
            cw.close()  # drop mid-turn, without answering
            await asyncio.sleep(0.4)  # longer than the move time: the game waits
            sr2, sw2, cr2, cw2 = await pair.connect()
            seat.attach(sr2, sw2)
            seen: list[dict[str, Any]] = []
            await jsonl_bot(cr2, cw2, framed=True, seen=seen, start=json.loads(first[0]["data"]))
            assert seen[0]["turn"] == first[1]["turn"] == 1  # the same turn, sent again
            assert seen[0]["data"] == first[1]["data"]
            return await game, seen

    result, _seen = play(main())
    assert result.seats[0].verdict == "ok", result.seats[0]
    assert result.turns > 1


def test_two_builtins_play_and_on_frame_errors_are_ignored() -> None:
    def boom(state: Any) -> None:
        raise RuntimeError("spectator bug")

    result = play(
        run_game(spec(), [BuiltinSeat("builtin:chaser"), BuiltinSeat("builtin:floodfill")], boom)
    )
    assert result.turns > 0 and all(s.verdict == "ok" for s in result.seats)
    assert sorted(s.result for s in result.seats) in (["loss", "win"], ["draw", "draw"])


class _ClockReader:
    """A bot that goes straight on and keeps the `View.clock` of every move."""

    def __init__(self) -> None:
        from lightcycle.bots.registry import make_bot

        self.inner = make_bot("builtin:floodfill")
        self.clocks: list[Any] = []
        self.display_name = "ClockReader"

    def start(self, view: Any) -> None:
        pass

    def move(self, view: Any) -> Any:
        self.clocks.append(view.clock)
        return self.inner.move(view)


def test_a_builtin_bot_sees_its_whole_clock() -> None:
    seat = BuiltinSeat("builtin:floodfill")
    reader = _ClockReader()
    seat.instance = reader  # type: ignore[assignment]
    control = TimeControl(move=MOVE, first_move=MOVE, cpu=5.0)
    game = dataclasses.replace(spec(), time=control)
    result = play(run_game(game, [seat, BuiltinSeat("builtin:chaser")]))
    assert result.turns > 2 and len(reader.clocks) >= 3
    first, second, last = reader.clocks[0], reader.clocks[1], reader.clocks[-1]
    assert first.moves == 0 and second.moves == 1 and last.moves == len(reader.clocks) - 1
    assert second.move == MOVE and second.cpu == 5.0
    assert first.cpu_left == 5.0 and last.cpu_left is not None and 0 < last.cpu_left < 5.0
