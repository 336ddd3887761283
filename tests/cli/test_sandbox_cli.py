"""``lightcycle sandbox check``: the host report as a table, and ``--require``."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from lightcycle.cli.main import app
from lightcycle.sandbox import SandboxError, check

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


def test_require_full_when_something_is_missing_exits_2_naming_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_which = shutil.which
    monkeypatch.setattr(
        check.shutil, "which", lambda name: None if name == "bwrap" else real_which(name)
    )
    result = runner.invoke(app, ["sandbox", "check", "--require", "full"], env={"COLUMNS": "300"})
    assert result.exit_code == 2
    assert "bubblewrap" in result.output and "off" in result.output  # the table comes first
    assert (
        "error: the full sandbox is not available here (bubblewrap: not installed: run "
        "scripts/install-sandbox" in result.output
    )
    assert "Traceback" not in result.output


def test_require_auto_always_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(check.shutil, "which", lambda name: None)
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
