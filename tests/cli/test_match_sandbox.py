"""``lightcycle match --sandbox``: a program that reads a file outside its folder.

The bot copies the starter bot and first tries to read a secret file the test puts
outside the bot's folder; if it can, it answers garbage, so the verdict tells whether
the read worked: ``bad_output`` without the sandbox, ``ok`` under the full one.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lightcycle.cli.main import app

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
    from lightcycle.sandbox.check import require

    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed (scripts/install-sandbox installs it)")
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
    assert "--sandbox 'strong': give none, auto or full" in result.output
    assert not out.exists()
