"""A PID namespace of its own for a test that kills referees and looks at their strays.

Every referee's start ends the strays of referees that are gone (`reap_strays`, and the
first cgroup detection of a process, `lightcycle.sandbox.cgroups.detect`), whoever
started them: a test that kills a referee and then looks at what outlived it would see
another test's referee (another xdist worker, another pytest run on the machine) end it
first. Such a test runs its body here instead: in a fresh PID namespace with its own
``/proc``, as that namespace's first process. Marks and cgroups name their referee's PID
namespace, and every reaper leaves alone the strays of a namespace that is not its own
(`lightcycle.sandbox.reaper`), so nothing outside touches the test's strays, and the
test's own reaper touches nothing outside. When the body ends, however it ends, the
kernel kills whatever is left in the namespace.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

NO_LAB = "a PID namespace with its own /proc (unshare --pid --mount-proc) is not available here"

_RUN = """
import importlib, os, sys
try:
    getattr(importlib.import_module(sys.argv[1]), sys.argv[2])(*sys.argv[3:])
finally:
    while True:  # the namespace's first process reaps its orphans
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                break
        except ChildProcessError:
            break
"""


@cache
def lab_prefix() -> tuple[str, ...]:
    """The command prefix that runs a program as the first process of a new PID
    namespace with its own ``/proc`` (``()``: none here)."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return ()
    base = ("--pid", "--fork", "--kill-child", "--mount-proc")
    candidates = [(unshare, *base)] if os.geteuid() == 0 else []
    candidates.append((unshare, "--user", "--map-root-user", *base))
    for prefix in candidates:
        try:
            done = subprocess.run([*prefix, "true"], capture_output=True, timeout=10, check=False)
        except (OSError, subprocess.SubprocessError):
            continue
        if done.returncode == 0:
            return prefix
    return ()


def run_in_lab(body: Callable[..., None], *args: str, timeout: float = 120.0) -> None:
    """Run ``body(*args)`` (a module-level function of a test module) in a PID namespace
    of its own; fail with its output if it raises. Skips where there is no such
    namespace."""
    prefix = lab_prefix()
    if not prefix:
        pytest.skip(NO_LAB)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path])}
    argv = [*prefix, sys.executable, "-c", _RUN, body.__module__, body.__name__, *args]
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT, check=False
    )
    if done.returncode != 0:
        pytest.fail(
            f"{body.__name__}{args!r}, in a PID namespace of its own, exited with status "
            f"{done.returncode}:\n{done.stdout}{done.stderr}",
            pytrace=False,
        )
