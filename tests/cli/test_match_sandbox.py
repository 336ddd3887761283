"""``lightcycle match --sandbox``: a program that reads a file outside its folder.

Without ``--sandbox`` a match runs its programs in the strongest sandbox the host offers
(``$LIGHTCYCLE_SANDBOX`` sets another default).

The bot copies the starter bot and first tries to read a secret file the test puts
outside the bot's folder; if it can, it answers garbage, so the verdict tells whether
the read worked: ``bad_output`` without the sandbox, ``ok`` under the full one.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lightcycle.cli.main import app
from lightcycle.referee.players import SANDBOX_VARIABLE

ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "examples" / "tron2010" / "bot.py"
runner = CliRunner()

PRELUDE = """
import sys
try:
    with open({secret!r}) as f:
        f.read()
    sys.stdout.write("I read the secret\\n")
    sys.stdout.flush()
except OSError as exc:
    print("blocked:", exc, file=sys.stderr)
"""


def _bot(tmp_path: Path) -> Path:
    """A bot folder with bot.py and bot.toml, and a secret file beside the folder."""
    secret = tmp_path / "secret.txt"
    secret.write_text("the answers\n")
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.py").write_text(PRELUDE.format(secret=str(secret)) + STARTER.read_text())
    toml = folder / "bot.toml"
    toml.write_text(
        'name = "Reader"\ncommand = ["python3", "bot.py"]\nprotocol = "tron2010"\ncwd = "."\n'
    )
    for p in (tmp_path, folder):  # readable by a pool user id, as docs/sandbox.md asks
        p.chmod(0o755)
    for f in folder.iterdir():
        f.chmod(0o644)
    return toml


def _verdicts(tmp_path: Path, sandbox: str) -> dict[str, int]:
    out = tmp_path / f"out-{sandbox}"
    args = ["match", "--bot", str(_bot_once(tmp_path)), "--bot", "builtin:chaser"]
    args += ["--sandbox", sandbox, "--out", str(out), "--json", "--spares", "0"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    stats = json.loads(result.stdout)["bots"]
    return dict(next(s for s in stats if s["name"] == "Reader")["verdicts"])


def _bot_once(tmp_path: Path) -> Path:
    toml = tmp_path / "bot" / "bot.toml"
    return toml if toml.exists() else _bot(tmp_path)


def test_without_the_sandbox_the_bot_reads_the_secret(tmp_path: Path) -> None:
    assert _verdicts(tmp_path, "none").get("bad_output") == 1


def test_the_full_sandbox_keeps_the_secret(tmp_path: Path) -> None:
    from lightcycle.sandbox import SandboxError
    from lightcycle.sandbox.check import bwrap_usable, require

    if not bwrap_usable():
        pytest.skip("no bwrap runs here (lightcycle sandbox check says why)")
    try:
        require("full")
    except SandboxError as exc:
        pytest.skip(str(exc))
    assert _verdicts(tmp_path, "full") == {}


def test_an_unknown_level_is_refused_before_any_game(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["match", "--bot", "builtin:random", "--bot", "builtin:chaser"]
    result = runner.invoke(app, [*args, "--sandbox", "strong", "--out", str(out)])
    assert result.exit_code == 2
    assert "--sandbox 'strong': give none, uid, auto or full" in result.output
    assert not out.exists()


# -- the default level -----------------------------------------------------------------


def _shadow_reader(tmp_path: Path) -> Path:
    """A starter bot that answers garbage once it has read /etc/shadow, in a folder a
    pool user id can read."""
    folder = tmp_path / "hostile"
    folder.mkdir()
    bot = folder / "bot.py"
    bot.write_text(PRELUDE.format(secret="/etc/shadow") + STARTER.read_text())
    folder.chmod(0o755)
    bot.chmod(0o644)
    return bot


def _reader_verdicts(tmp_path: Path, *options: str) -> dict[str, int]:
    out = tmp_path / f"out{len(list(tmp_path.iterdir()))}"
    args = ["match", "--bot", f"cmd:python3 {_shadow_reader_once(tmp_path)}"]
    args += ["--bot", "builtin:chaser", "-p", "tron2010", "--out", str(out), "--json"]
    result = runner.invoke(app, [*args, "--spares", "0", *options])
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.stdout)["bots"][0]["verdicts"])


def _shadow_reader_once(tmp_path: Path) -> Path:
    bot = tmp_path / "hostile" / "bot.py"
    return bot if bot.exists() else _shadow_reader(tmp_path)


def test_by_default_a_bot_cannot_read_etc_shadow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No --sandbox: the strongest sandbox this host offers (auto); none reads the file."""
    from lightcycle.sandbox.check import bwrap_usable

    if not os.access("/etc/shadow", os.R_OK):
        pytest.skip("this test's user cannot read /etc/shadow even without a sandbox")
    if not bwrap_usable():
        pytest.skip("bubblewrap cannot make its namespaces here (lightcycle sandbox check)")
    monkeypatch.delenv(SANDBOX_VARIABLE, raising=False)
    assert _reader_verdicts(tmp_path) == {}
    assert _reader_verdicts(tmp_path, "--sandbox", "none") == {"bad_output": 1}
    monkeypatch.setenv(SANDBOX_VARIABLE, "none")  # a machine's own default
    assert _reader_verdicts(tmp_path) == {"bad_output": 1}
    assert _reader_verdicts(tmp_path, "--sandbox", "auto") == {}


def test_a_bad_sandbox_variable_is_refused_before_any_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SANDBOX_VARIABLE, "strong")
    out = tmp_path / "out"
    args = ["match", "--bot", "builtin:random", "--bot", "builtin:chaser", "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "LIGHTCYCLE_SANDBOX='strong': set it to none, uid, auto or full" in result.output
    assert not out.exists()


def test_an_unreadable_bot_folder_is_refused_saying_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lightcycle.sandbox.check import bwrap_usable

    if os.geteuid() != 0:
        pytest.skip("only a root referee runs bots as user ids of their own")
    if not bwrap_usable():
        pytest.skip("bubblewrap cannot make its namespaces here (lightcycle sandbox check)")
    monkeypatch.delenv(SANDBOX_VARIABLE, raising=False)
    bot = _shadow_reader(tmp_path)
    bot.parent.chmod(0o700)
    out = tmp_path / "out"
    args = ["match", "--bot", f"cmd:python3 {bot}", "--bot", "builtin:chaser", "-p", "tron2010"]
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 2
    line = " ".join(result.output.split())  # rich wraps long lines
    assert f"cannot read its folder {bot.parent}" in line
    assert f"chmod -R o+rX {bot.parent}, or run a bot you trust" in line
    assert "--sandbox none" in line
    assert not out.exists()


def test_a_c_team_plays_in_the_full_sandbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cteam: bot runs lightcycle's own host module: the sandbox binds the package and
    the team's compiled library, read-only."""
    from lightcycle.sandbox import SandboxError
    from lightcycle.sandbox.check import require

    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed: cteam: bots cannot be compiled")
    try:
        require("full")
    except SandboxError as exc:
        pytest.skip(str(exc))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    team = ROOT / "examples" / "teams" / "tron_example.c"
    args = ["match", "--ruleset", "teams", "--map", "court", "--bot", f"cteam:{team}"]
    args += ["--bot", "builtin:linebot", "--turn-limit", "30", "--sandbox", "full"]
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "out"), "--json"])
    assert result.exit_code == 0, result.output
    team_stats = json.loads(result.stdout)["bots"][0]
    assert team_stats["name"] == "tron_example.c" and team_stats["verdicts"] == {}


def test_without_bubblewrap_a_root_referee_still_confines_its_bots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``auto`` where no bubblewrap works, as root: the uid level (docs/sandbox.md). The
    reader cannot read /etc/shadow and plays on; the innocent program seat beside it
    plays its games unharmed. Bubblewrap is made unusable through the seam ``auto``
    reads, not uninstalled."""
    from lightcycle.sandbox import check

    if os.geteuid() != 0:
        pytest.skip("the uid level is a root referee's")
    if not os.access("/usr/bin/python3", os.X_OK):
        pytest.skip("needs /usr/bin/python3: a pool user id cannot run a Python under /root")
    monkeypatch.setattr(check, "bwrap_usable", lambda: False)
    monkeypatch.delenv(SANDBOX_VARIABLE, raising=False)
    reader = _shadow_reader(tmp_path)
    reader.parent.chmod(0o700)  # the uid level runs a private copy: no o+rX needed
    innocent = tmp_path / "innocent"
    innocent.mkdir(mode=0o700)
    shutil.copy(STARTER, innocent / "bot.py")

    def verdicts(*options: str) -> list[dict[str, int]]:
        out = tmp_path / f"out{len(list(tmp_path.iterdir()))}"
        args = ["match", "--bot", f"cmd:/usr/bin/python3 {reader}"]
        args += ["--bot", f"cmd:/usr/bin/python3 {innocent / 'bot.py'}", "-p", "tron2010"]
        args += ["--out", str(out), "--json", "--spares", "0", "--games", "2", *options]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        return [dict(b["verdicts"]) for b in json.loads(result.stdout)["bots"]]

    assert verdicts() == [{}, {}]
    assert verdicts("--sandbox", "uid") == [{}, {}]
    assert verdicts("--sandbox", "none") == [{"bad_output": 2}, {}]
