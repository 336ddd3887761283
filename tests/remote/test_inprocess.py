"""`lightcycle.remote.inprocess`: the in-process bot loads neither referee nor sandbox.

The judge's Python host starts once per game inside the game's CPU budget (the 3D
course's 2 s for a whole game), so what it imports is measured here in a fresh
interpreter, as the sandbox starts it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
