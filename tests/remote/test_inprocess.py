"""`lightcycle.remote.inprocess`: the in-process bot loads neither referee nor sandbox.

The judge's Python host starts once per game inside the game's CPU budget (the 3D
course's 2 s for a whole game), so what it imports is measured here in a fresh
interpreter, as the sandbox starts it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lightcycle.bots.api import Bot, MoveAnswer
from lightcycle.bots.registry import make_bot
from lightcycle.maps.registry import get_map
from lightcycle.protocols.base import Params
from lightcycle.protocols.jsonl import JsonLines
from lightcycle.rules.engine import new_game
from lightcycle.rules.observe import ClockView, View
from lightcycle.rules.variants import get_ruleset

BOT = Path(__file__).resolve().parents[1] / "judge" / "service" / "bots" / "tron3d_bot.py"

HEAVY = ("lightcycle.referee", "lightcycle.sandbox", "lightcycle.remote.client")


def _modules_after(code: str) -> set[str]:
    shown = "import sys; print('\\n'.join(sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\n{shown}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return set(done.stdout.split())


def test_the_python_host_imports_no_referee_or_sandbox() -> None:
    loaded = _modules_after(
        "from lightcycle.judge.service import pyhost\n"
        "from lightcycle.remote.inprocess import InProcessBot\n"
        f"InProcessBot('py:{BOT}')"
    )
    assert "lightcycle.remote.decode" in loaded
    assert not {m for m in loaded if m.startswith(HEAVY)}


def test_the_package_names_load_on_first_use() -> None:
    assert not {m for m in _modules_after("import lightcycle.remote") if m.startswith(HEAVY)}
    loaded = _modules_after("from lightcycle.remote import RemoteClient, parse_address")
    assert "lightcycle.remote.client" in loaded
    import lightcycle.remote as remote
    from lightcycle.remote.local import InProcessBot as Relayed

    assert remote.play_remote.__name__ == "play_remote" and "RemoteError" in dir(remote)
    from lightcycle.remote.inprocess import InProcessBot

    assert Relayed is InProcessBot


class _ClockKeeper(Bot):
    """A flood-fill bot keeping each move's `View.clock`."""

    def __init__(self) -> None:
        self.inner = make_bot("builtin:floodfill")
        self.clocks: list[ClockView | None] = []

    def move(self, view: View) -> MoveAnswer:
        self.clocks.append(view.clock)
        return self.inner.move(view)


def test_a_relayed_bot_keeps_its_own_clock_from_the_start_message() -> None:
    """The server's clock is far away: the relay charges the bot's own time to the
    controls the start message gave, so a bank or a CPU budget can be planned."""
    from lightcycle.remote.inprocess import InProcessBot

    state = new_game(get_ruleset("classic"), get_map("arena-15"), seed=1)
    codec = JsonLines(0)
    control = {"move": 0.1, "first_move": 1.0, "bank": 2.0, "average": None, "cpu": 3.0}
    params = Params(first_move_time=1.0, move_time=0.1, time=control)
    keeper = _ClockKeeper()
    relay = InProcessBot(keeper)
    relay.start_game()
    assert relay.deliver(codec.start(state, params).decode()) == []
    for _ in range(3):
        (reply,) = relay.deliver(codec.turn(state).decode())
        assert "move" in json.loads(reply)
    first, second, third = keeper.clocks
    assert first is not None and second is not None and third is not None
    assert (first.moves, second.moves, third.moves) == (0, 1, 2)
    assert first.first_move == 1.0 and first.move == 0.1 and first.bank_left == 2.0
    assert first.cpu == 3.0 and first.cpu_left == 3.0
    assert third.cpu_left is not None and third.cpu_left <= 3.0
    assert third.mean >= 0.0 and third.average is None
