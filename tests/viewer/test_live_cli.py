"""``lightcycle play --browser`` and ``match --browser``: the real commands serve the live
view on 127.0.0.1; a websocket client watches the game the command plays."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the live view needs FastAPI: pip install 'lightcycle[web]'")
pytest.importorskip("websockets", reason="the live view needs websockets: pip install websockets")

from websockets.sync.client import connect


def start(args: list[str], cwd: Path) -> tuple[subprocess.Popen[str], str]:
    """Run ``lightcycle ARGS`` and return it with the live view's address it printed."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "120"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "lightcycle", *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("live view: "):
            return proc, line.split(": ", 1)[1].strip()
    proc.wait(10)
    raise AssertionError(f"no live view address printed (exit {proc.returncode})")


def watch(url: str, game: str) -> list[dict[str, Any]]:
    ws_url = url.replace("http://", "ws://") + f"ws/games/{game}"
    frames = []
    with connect(ws_url, open_timeout=10) as ws:
        while True:
            frame = json.loads(ws.recv(timeout=20))
            frames.append(frame)
            if frame["type"] == "end":
                return frames


def finish(proc: subprocess.Popen[str]) -> str:
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    return out


def test_play_browser_serves_the_game_live(tmp_path: Path) -> None:
    proc, url = start(
        [
            *("play", "--map", "ring", "--bots", "chaser,runaway", "--seed", "3"),
            *("--speed", "40", "--browser", "--no-open", "--replay", str(tmp_path / "g.json")),
        ],
        tmp_path,
    )
    try:
        assert url.startswith("http://127.0.0.1:")
        frames = watch(url, "game")
    finally:
        out = finish(proc)
    assert frames[0]["type"] == "start"
    assert {f["type"] for f in frames[1:-1]} == {"turn"}
    end = frames[-1]
    assert "has won" in end["result"] or "draw" in end["result"]
    assert end["data"]["last"] == frames[-2]["turn"]  # the replay's data, as long as the game
    assert (tmp_path / "g.json").is_file() and "replay:" in out


def test_match_browser_serves_each_game(tmp_path: Path) -> None:
    proc, url = start(
        [
            *("match", "--bot", "builtin:chaser", "--bot", "builtin:runaway", "--games", "2"),
            *("--turn-limit", "30", "--browser", "--no-open", "--out", str(tmp_path / "m")),
        ],
        tmp_path,
    )
    try:
        first = watch(url, "game-001")
        second = watch(url, "game-002")
    finally:
        finish(proc)
    for frames in (first, second):
        assert frames[0]["type"] == "start" and frames[-1]["type"] == "end"
        assert "data" in frames[-1]
    assert (tmp_path / "m" / "game-002.json").is_file()


def test_a_human_seat_and_browser_is_a_clear_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "lightcycle", "play", "--bots", "human,chaser", "--browser"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode != 0
    assert "leave out --browser" in done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
