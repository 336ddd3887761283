"""The client against a stand-in server that speaks the documented wire (standin.py):
whole games for a relayed program and an in-process bot, resume, refusals, no server."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from lightcycle.remote import Hello, Lost, NoServer, Refused, RemoteClient, play_remote
from lightcycle.remote.local import InProcessBot, ProgramBot, make_local_bot
from lightcycle.sandbox import Limits
from tests.remote.standin import StandIn

ROOT = Path(__file__).resolve().parents[2]
TRON2010 = f"cmd:{sys.executable} {ROOT / 'examples/tron2010/bot.py'}"
JSONL = f"cmd:{sys.executable} {ROOT / 'examples/jsonl/bot.py'}"
SEXP = f"cmd:{sys.executable} {ROOT / 'examples/sexp/bot.py'}"
LIMITS = Limits(sandbox="none")
FAST = (0.05, 0.1, 0.2, 0.4)  # resume pauses: quick tests


def _client(server: StandIn, bot: str, protocol: str | None = None, **hello: str) -> RemoteClient:
    local = make_local_bot(bot, protocol, LIMITS)
    greeting = Hello(name="tester", queue=server.queue_name, protocol=local.protocol, **hello)
    return RemoteClient("127.0.0.1", server.port, local, greeting, pauses=FAST, note=lambda s: None)


def test_a_tron2010_program_plays_a_whole_game_relayed() -> None:
    with StandIn() as server:
        client = _client(server, TRON2010, "tron2010")
        try:
            end = client.play_game()
        finally:
            client.local.close()
    assert server.problems == []
    assert end.result == server.results[0]
    assert end.game == "g1" and end.url == "http://127.0.0.1:9/games/g1"
    assert end.line().startswith(f"{end.result} (ok), game g1")
    assert server.hellos[0]["framed"] is True and server.hellos[0]["protocol"] == "tron2010"
    assert isinstance(client.local, ProgramBot) and client.local.process is None  # ended


def test_a_sexp_program_says_its_name_first_through_the_relay() -> None:
    with StandIn(ruleset="torus", map_name="torus-20") as server:
        client = _client(server, SEXP, "sexp")
        try:
            end = client.play_game()
        finally:
            client.local.close()
    assert server.problems == []
    assert end.result == server.results[0]


@pytest.mark.parametrize("ruleset,map_name", [("torus", "torus-20"), ("classic", "arena-10")])
def test_a_builtin_bot_plays_over_jsonl(ruleset: str, map_name: str) -> None:
    with StandIn(ruleset=ruleset, map_name=map_name, opponent="builtin:random") as server:
        client = _client(server, "builtin:floodfill")
        end = client.play_game()
    assert server.problems == []
    assert isinstance(client.local, InProcessBot)
    assert server.hellos[0]["protocol"] == "jsonl"
    assert end.result == server.results[0]


def test_a_jsonl_program_keeps_its_process_for_the_next_game() -> None:
    with StandIn(opponent="builtin:random") as server:
        client = _client(server, JSONL, "jsonl")
        try:
            client.play_game()
            assert isinstance(client.local, ProgramBot)
            first = client.local.process
            assert first is not None and first.poll() is None  # jsonl: kept alive
            client.play_game()
            assert client.local.process is first
        finally:
            client.local.close()
    assert server.problems == []
    assert len(server.results) == 2


@pytest.mark.parametrize("bot,protocol", [(TRON2010, "tron2010"), ("builtin:chaser", None)])
def test_a_dropped_connection_is_resumed_and_the_turn_not_relayed_twice(
    bot: str, protocol: str | None
) -> None:
    with StandIn(drop_after=3) as server:
        client = _client(server, bot, protocol)
        try:
            end = client.play_game()
        finally:
            client.local.close()
    # a turn relayed twice would make the bot answer twice: the stand-in would see a
    # reply written ahead of the next turn
    assert server.problems == []
    assert [h.get("resume") for h in server.hellos] == [None, "tok-1"]
    assert end.result == server.results[0]


def test_a_refused_hello_is_one_line() -> None:
    with StandIn(refuse="wrong secret for alice") as server:
        client = _client(server, "builtin:chaser", secret="nope")
        with pytest.raises(Refused) as info:
            client.play_game()
    assert str(info.value) == f"127.0.0.1:{server.port} refused: wrong secret for alice"
    assert info.value.exit_code == 4
    assert server.hellos[0]["secret"] == "nope"


def test_an_unknown_queue_is_refused() -> None:
    with StandIn() as server:
        local = make_local_bot("builtin:chaser", None, LIMITS)
        client = RemoteClient("127.0.0.1", server.port, local, Hello("t", "nosuch", "jsonl"))
        with pytest.raises(Refused, match="unknown queue 'nosuch'"):
            client.play_game()


def test_no_server_says_so() -> None:
    with StandIn() as server:
        port = server.port  # closed once the stand-in is gone
    with pytest.raises(NoServer) as info:
        play_remote("127.0.0.1", port, "builtin:chaser")
    assert str(info.value) == (
        f"cannot connect to 127.0.0.1:{port}: connection refused; is lightcycle serve running?"
    )


def test_a_refused_resume_loses_the_connection() -> None:
    with StandIn(drop_after=2, refuse_resume="no game to resume", wait=1.0) as server:
        client = _client(server, "builtin:chaser")
        with pytest.raises(Lost, match=r"resuming failed: .*refused: no game to resume") as info:
            client.play_game()
    assert info.value.exit_code == 5


def test_a_server_that_never_comes_back_loses_the_connection() -> None:
    with StandIn(drop_after=2, close_after_drop=True, wait=1.0) as server:
        client = _client(server, "builtin:chaser")
        with pytest.raises(Lost, match=r"could not resume it in 0\.75 s"):
            client.play_game()


@pytest.mark.parametrize(
    ("ruleset", "map_name", "bot", "opponent"),
    [
        ("teams", "court-small", "builtin:lookbot", "builtin:randombot"),  # ten cycles, jumps
        ("tron3d", "donut", "builtin:dummy", "builtin:dummy"),  # a graph, two cycles, items
    ],
)
def test_an_inprocess_bot_plays_team_and_3d_games(
    ruleset: str, map_name: str, bot: str, opponent: str
) -> None:
    """The decoder rebuilds every ruleset's state, so ``lightcycle connect --bot
    builtin:...`` plays the team and 3D queues too, its moves in the jsonl each takes."""
    with StandIn(ruleset=ruleset, map_name=map_name, opponent=opponent) as server:
        client = _client(server, bot)
        end = client.play_game()
    assert server.problems == []
    assert end.result == server.results[0]
    (final,) = server.finals
    assert final.turn > 10 and final.outcome is not None
    deaths = [c.death for c in final.cycles_of(0) if c.death is not None]
    assert all(d.cause != "forfeit" for d in deaths), deaths  # every move was understood


def test_play_remote_prints_and_returns_the_result(capsys: pytest.CaptureFixture[str]) -> None:
    with StandIn(queue_name="torus", ruleset="torus", map_name="torus-20") as server:
        result = play_remote("127.0.0.1", server.port, "builtin:floodfill", name="py")
    assert result in ("win", "loss", "draw")
    assert result == server.results[0]
    assert capsys.readouterr().out == result + "\n"
