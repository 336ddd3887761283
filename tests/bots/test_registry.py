"""``py:FILE.py[:NAME]``: a Bot class the file defines, or a Bot instance it makes.

An instance is how a trained policy becomes a seat (``bot = PolicyBot(policy)``); the
file is imported afresh for every bot asked for, so every game gets a fresh instance.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lightcycle.bots.api import BotError
from lightcycle.bots.registry import make_bot

HEADER = "from lightcycle.bots import Bot\nfrom lightcycle.bots.builtin import WallHugger\n"
CLASS = "class Mine(Bot):\n    name = 'Mine'\n    def move(self, view):\n        return 'n'\n"


def bot_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "bots.py"
    path.write_text(HEADER + body, encoding="utf-8")
    return path


def test_an_instance_the_file_makes_is_a_bot(tmp_path: Path) -> None:
    path = bot_file(tmp_path, "hugger = WallHugger()\nhugger.name = 'Hugs'\n")
    first, second = make_bot(f"py:{path}:hugger"), make_bot(f"py:{path}")
    assert first.display_name == second.display_name == "Hugs"
    assert first is not second  # a fresh import, a fresh instance


def test_a_class_the_file_defines_comes_before_its_instances(tmp_path: Path) -> None:
    path = bot_file(tmp_path, CLASS + "spare = WallHugger()\n")
    assert make_bot(f"py:{path}").display_name == "Mine"
    assert make_bot(f"py:{path}:spare").display_name == "WallHugger"


def test_an_ambiguous_or_missing_name_lists_what_the_file_has(tmp_path: Path) -> None:
    path = bot_file(tmp_path, "a = WallHugger()\nb = WallHugger()\n")
    with pytest.raises(BotError, match=r"no Bot class and 2 Bot instances \(a, b\)"):
        make_bot(f"py:{path}")
    with pytest.raises(BotError, match=r"no Bot class 'c' and no Bot instance .*found: a, b"):
        make_bot(f"py:{path}:c")
    empty = bot_file(tmp_path, "x = 1\n")
    with pytest.raises(BotError, match=r"no Bot class and 0 Bot instances \(none\)"):
        make_bot(f"py:{empty}")
