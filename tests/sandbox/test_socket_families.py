"""The seccomp filter refuses socket families a bot has no use for (issue 37).

``attacks/socket_families.py`` tries ``AF_VSOCK`` (which no network namespace confines),
``AF_NETLINK`` and ``AF_PACKET``, a family with junk in the argument's high 32 bits, a
``socketpair`` of a refused family, and the families bots do use. It runs:

- under the filter alone (``seccomp/loader.c``, as in ``test_seccomp.py``), and without
  it, so that each refusal is shown to be the filter's (``EAFNOSUPPORT``) and able to fail;
- as a bot in the full sandbox (``bwrap --seccomp``), and at ``sandbox="none"`` where
  the same sockets are made (the test's proof that it can fail).
"""

from __future__ import annotations

import errno
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sandbox.test_attacks import ATTACKS, Folders, folders, mode, parse, run_attack
from tests.sandbox.test_seccomp import Programs, programs

__all__ = ["folders", "mode", "programs"]  # fixtures used here

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="seccomp is Linux only"),
    pytest.mark.skipif(
        platform.machine() != "x86_64", reason="the probe uses x86_64 system-call numbers"
    ),
]

REFUSED = ["vsock", "netlink", "packet", "vsock_high_bits", "socketpair_netlink"]
ALLOWED = ["allowed_unix", "allowed_inet", "allowed_inet6"]
EAFNOSUPPORT = errno.errorcode[errno.EAFNOSUPPORT]
PY = sys.executable


@pytest.fixture(scope="module")
def loader(programs: Programs) -> tuple[Path, Path]:
    """The tests' stand-in for ``bwrap --seccomp`` and the filter (test_seccomp's build)."""
    return programs.loader, programs.bpf


def probe(loader: tuple[Path, Path], filtered: bool) -> dict[str, tuple[str, str]]:
    program, bpf = loader
    done = subprocess.run(
        [str(program), str(bpf) if filtered else "none", PY, str(ATTACKS / "socket_families.py")],
        capture_output=True,
        text=True,
        timeout=60,
        start_new_session=True,
    )
    assert done.returncode == 0, done.stderr
    result = parse(done.stderr)
    assert result.finished, done.stderr
    return result.attempts


def test_the_filter_refuses_other_families(loader: tuple[Path, Path]) -> None:
    got = probe(loader, filtered=True)
    for name in REFUSED:
        assert got[name][0] == "BLOCKED" and got[name][1].startswith(EAFNOSUPPORT), (name, got)
    for name in ALLOWED:
        assert got[name][0] == "WORKED", (name, got)


def test_without_the_filter_the_kernel_makes_them(loader: tuple[Path, Path]) -> None:
    """The refusals above are the filter's: without it the kernel answers otherwise."""
    got = probe(loader, filtered=False)
    assert got["netlink"][0] == "WORKED", got  # every Linux has NETLINK_ROUTE
    assert not got["socketpair_netlink"][1].startswith(EAFNOSUPPORT), got  # EOPNOTSUPP
    for name in ("vsock", "vsock_high_bits", "packet"):
        assert (
            got[name][0] == "WORKED"
            or not got[name][1].startswith(EAFNOSUPPORT)
            or (
                name.startswith("vsock")  # a kernel without vsock answers as the filter does
            )
        ), (name, got)
    for name in ALLOWED:
        assert got[name][0] == "WORKED", (name, got)


def test_in_the_full_sandbox(mode: str, folders: Folders) -> None:
    """The whole sandbox: the filter is loaded by bubblewrap for a bot."""
    shutil.copy(ATTACKS / "socket_families.py", folders.bot / "socket_families.py")
    result = run_attack(folders, ["socket_families.py"], mode)
    assert result.finished, result.stderr
    for name in ALLOWED:
        assert result.outcome(name) == "WORKED", (name, result.stderr)
    if mode == "full":
        for name in REFUSED:
            assert result.outcome(name) == "BLOCKED", (name, result.stderr)
            assert result.detail(name).startswith(EAFNOSUPPORT), (name, result.stderr)
        return
    assert result.outcome("netlink") == "WORKED", result.stderr
    if result.outcome("vsock") != "WORKED":
        pytest.skip(f"this host refuses AF_VSOCK itself: {result.detail('vsock')}")
    if os.geteuid() == 0:
        assert result.outcome("packet") == "WORKED", result.stderr
