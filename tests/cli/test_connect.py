"""``lightcycle connect`` against a stand-in server (tests/remote/standin.py): a game and
its result line, one line and a documented exit status for each failure, Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lightcycle.cli.main import app
from tests.remote.standin import StandIn

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()
TRON2010 = f"cmd:{sys.executable} {ROOT / 'examples/tron2010/bot.py'}"


def _connect(port: int, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(
        app, ["connect", f"127.0.0.1:{port}", "--sandbox", "none", *args], catch_exceptions=False
    )
    return result.exit_code, result.stdout, result.stderr


def test_a_program_plays_and_the_result_line_is_printed() -> None:
    with StandIn() as server:
        code, out, err = _connect(
            server.port, "--queue", "duel", "--bot", TRON2010, "--protocol", "tron2010"
        )
    assert code == 0, err
    assert server.problems == []
    assert out == f"{server.results[0]} (ok), game g1, http://127.0.0.1:9/games/g1\n"
    assert "connected to 127.0.0.1" in err and "as tron2010-bot-py in queue duel" in err


def test_games_plays_several_games_with_name_and_secret() -> None:
    with StandIn(opponent="builtin:random") as server:
        code, out, err = _connect(
            server.port,
            "--queue", "duel", "--bot", "builtin:chaser", "--games", "2",
            "--name", "alice", "--secret", "s3cret",
        )  # fmt: skip
    assert code == 0, err
    assert len(out.splitlines()) == 2 and len(server.results) == 2
    assert [h["name"] for h in server.hellos] == ["alice", "alice"]
    assert server.hellos[0]["secret"] == "s3cret"


def test_the_secret_may_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LIGHTCYCLE_SECRET", "from-env")
    with StandIn(refuse="wrong secret") as server:
        code, _, err = _connect(server.port, "--queue", "duel", "--bot", "builtin:chaser")
    assert server.hellos[0]["secret"] == "from-env"
    assert code == 4
    assert err.strip() == f"error: 127.0.0.1:{server.port} refused: wrong secret"


def test_an_unknown_queue_exits_4_with_one_line() -> None:
    with StandIn() as server:
        code, _, err = _connect(server.port, "--queue", "nosuch", "--bot", "builtin:chaser")
    assert code == 4
    assert err.strip() == f"error: 127.0.0.1:{server.port} refused: unknown queue 'nosuch'"


def test_no_server_exits_3_with_one_line() -> None:
    with StandIn() as server:
        port = server.port
    code, _, err = _connect(port, "--bot", "builtin:chaser")
    assert code == 3
    assert err.strip() == (
        f"error: cannot connect to 127.0.0.1:{port}: connection refused; "
        "is lightcycle serve running?"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bot", "cmd:./no-such-bot", "--protocol", "tron2010"], "cannot start './no-such-bot'"),
        (["--bot", "cmd:./bot"], "needs a protocol"),
        (["--bot", "builtin:nosuch"], "unknown bot"),
        (["--bot", "builtin:chaser", "--protocol", "sexp"], "drop --protocol sexp"),
        (["--bot", "builtin:chaser", "--name", " edge spaces"], "--name ' edge spaces'"),
        (["--bot", "builtin:chaser", "--name", "tab\there"], "--name 'tab\\there'"),
        (["--bot", "builtin:chaser", "--name", "builtin:medium"], "names the built-in bots"),
        (["--bot", "builtin:chaser", "--challenge", "a", "--accept", "b"], "not both"),
    ],
)
def test_a_bot_or_option_that_cannot_work_exits_2_before_connecting(
    args: list[str], message: str
) -> None:
    with StandIn() as server:
        code, _, err = _connect(server.port, *args)
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1
    assert server.hellos == []


def test_a_bad_address_exits_2() -> None:
    result = runner.invoke(app, ["connect", "nohost", "--bot", "builtin:chaser"])
    assert result.exit_code == 2
    assert "HOST:PORT" in result.stderr


def test_ctrl_c_leaves_the_game_and_kills_the_bot(tmp_path: Path) -> None:
    bot = tmp_path / "bot.py"
    pidfile = tmp_path / "pid"
    bot.write_text(f"import time\nopen({str(pidfile)!r}, 'w').write('started')\ntime.sleep(600)\n")
    with StandIn(play=False) as server:
        proc = subprocess.Popen(
            [sys.executable, "-m", "lightcycle", "connect", f"127.0.0.1:{server.port}",
             "--queue", "duel", "--bot", f"cmd:{sys.executable} {bot}", "--protocol", "jsonl",
             "--sandbox", "none"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 30
            while not (server.hellos and pidfile.exists() and pidfile.read_text()):
                assert proc.poll() is None, proc.communicate()
                assert time.monotonic() < deadline, "the client never said hello"
                time.sleep(0.05)
            os.killpg(proc.pid, signal.SIGINT)
            _, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        assert server.left.wait(5), "the server never saw the client leave"
    assert proc.returncode == 130
    assert "interrupted: left the game" in err and "Traceback" not in err
    assert _running(str(bot)) == []


def _running(script: str) -> list[int]:
    """Processes whose command line names ``script`` (the bot may run in its own PID
    namespace, where the pid it sees is not the host's)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if script.encode() in cmdline:
                found.append(int(entry.name))
    return found
