"""The ``uid`` level: a root referee without bubblewrap still never runs a bot as root.

Why: where no ``bwrap`` works (none installed, a container that refuses its namespaces)
``auto`` used to mean ``none``, and a root referee then ran a stranger's bot as uid 0
with every capability: it read ``/etc/shadow``, other bots' files, the referee's
environment and memory, other bots' pipes through ``/proc/PID/fd``, and raised its own
cgroup limits. A root referee can still drop each bot to a user id of its own, which the
kernel's ordinary permission checks then confine. `effective` resolves a requested level
to the one a bot gets here: ``full`` where bubblewrap works, else ``uid`` for a root
referee, else ``none``.

At this level a bot (`command`):

- runs as its own user and group id from the pool (`lightcycle.sandbox.uids`), with no
  supplementary groups, no capabilities (inheritable, ambient and bounding sets empty)
  and ``PR_SET_NO_NEW_PRIVS`` (no set-user-ID program gives them back), dropped by
  ``setpriv`` *after* the root steps of the start (joining its cgroup, whose files stay
  root's: it cannot raise its limits or leave the group);
- cannot read what is root's alone (``/etc/shadow``, ``/root``), nor anything of another
  process that is not its own: ``/proc/PID/environ``, ``mem`` and ``fd`` need the same
  user id (the kernel's ptrace access check), so the referee and the other bots, each its
  own id, are out of reach;
- runs in a private copy of its folder (`lightcycle.sandbox.shared.private_folder`),
  readable by its group alone, so the original folder needs no permissions for others
  and another bot cannot read it;
- gets a clean environment (``PATH``, ``HOME=/tmp``, ``LANG``, its mark), its own
  session, a PID namespace where ``unshare`` works, and the rlimits (``RLIMIT_NPROC``
  counts its own user id only, so it bounds its processes);
- leaves nothing in the shared writable folders: after its game every process of its
  user id is killed and every file it owns in ``/tmp``, ``/var/tmp`` and ``/dev/shm`` is
  removed (`lightcycle.sandbox.shared.sweep`) before the id goes back to the pool.

What it does not give (the full sandbox does): a private view of the file system (files
readable by others anywhere on the host are readable), a network namespace, the seccomp
filter, a size-limited scratch ``/tmp``. ``docs/sandbox.md`` has the table.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lightcycle.sandbox import check
from lightcycle.sandbox.bwrap import resolve_program, rlimit_options
from lightcycle.sandbox.limits import MARK, Limits, SandboxError

LEVEL = "uid"
BASE_PATH = "/usr/local/bin:/usr/bin:/bin"


def unavailable() -> str | None:
    """Why bots cannot get the ``uid`` level here (``None``: they can)."""
    if os.geteuid() != 0:
        return (
            "the uid level needs a root referee (it drops each bot to a user id of its own); "
            "as a user, bubblewrap's user namespace is the way to confine bots"
        )
    if shutil.which("setpriv") is None:
        return "setpriv is missing: apt-get install util-linux"
    return None


def effective(level: str) -> str:
    """The level a bot asked to run at ``level`` gets on this host.

    ``auto`` is the strongest there is: ``full`` where bubblewrap works
    (`lightcycle.sandbox.check.bwrap_usable`, which ``LIGHTCYCLE_BWRAP=off`` turns off),
    else ``uid`` for a root referee, else ``none``. The others are what they say.
    """
    if level != "auto":
        return level
    if check.bwrap_usable():
        return "full"
    return LEVEL if unavailable() is None else "none"


def drop_prefix(uid: int) -> tuple[str, ...]:
    """``setpriv`` that becomes ``uid`` for good, then runs the rest of the command.

    Groups first (``--regid`` and ``--clear-groups``: ``setgroups([])`` and ``setgid``
    need the capabilities that ``setuid`` drops), every capability set emptied, no new
    privileges, and the parent-death signal set again *after* the change of user: the
    kernel clears it when the credentials change, and without it a bot whose ``unshare``
    dies would outlive its referee.
    """
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        raise SandboxError("setpriv is missing: apt-get install util-linux")
    return (
        setpriv,
        "--reuid",
        str(uid),
        "--regid",
        str(uid),
        "--clear-groups",
        "--inh-caps=-all",
        "--ambient-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--pdeathsig",
        "KILL",
        "--",
    )


def _others_can_run(path: Path) -> str | None:
    """Why a user id of its own could not run ``path`` (``None``: it can)."""
    real = Path(os.path.realpath(path))
    for folder in real.parents:
        try:
            if not os.stat(folder).st_mode & stat.S_IXOTH:
                return f"{folder} is closed to other users"
        except OSError as exc:
            return f"{folder}: {exc.strerror}"
    mode = os.stat(real).st_mode
    if not mode & stat.S_IXOTH:
        return f"{real} is not executable by other users"
    return None


def check_program(program: str, folder: Path) -> None:
    """Refuse, with the fix, a program the bot's user id could not run.

    A program outside the bot's folder (an interpreter) is run through its real path,
    so every folder above it must let other users through: a Python under ``/root``
    (pyenv's) does not. Inside the folder the private copy keeps its modes.
    """
    path = Path(program) if os.path.isabs(program) else folder / program
    if path.resolve().is_relative_to(folder):
        return
    why = _others_can_run(path)
    if why is not None:
        raise SandboxError(
            f"cannot run {program!r} at the uid level (bubblewrap is not usable here, so the "
            f"bot runs as a user id of its own): {why}; use a program installed for every "
            "user (e.g. /usr/bin/python3), or give the host bubblewrap"
        )


@dataclass
class Plan:
    """What a start at the uid level runs.

    Attributes:
        command: the whole command, start prefix excluded.
        cwd: the private copy of the bot's folder.
        env: the bot's whole environment.
        protections: what the bot gets, for `BotProcess.protections`.
    """

    command: list[str]
    cwd: Path
    env: dict[str, str]
    protections: list[str]


def into_copy(argv: list[str], folder: Path, private: Path) -> list[str]:
    """``argv`` with every absolute path inside ``folder`` moved into its copy
    ``private`` (``python3 /srv/bots/a/bot.py`` runs the copy's ``bot.py``)."""
    out = []
    for word in argv:
        path = Path(word)
        if path.is_absolute() and (path == folder or path.is_relative_to(folder)):
            word = str(private / path.relative_to(folder))
        out.append(word)
    return out


def plan(
    argv: list[str],
    folder: Path,
    private: Path,
    uid: int,
    limits: Limits,
    mark: str,
    env: Mapping[str, str],
    pidns: tuple[str, ...],
) -> Plan:
    """The command that runs ``argv`` as ``uid`` in ``private``, the copy of ``folder``
    (see the module)."""
    argv = into_copy(argv, folder, private)
    program = resolve_program(argv[0], private)
    check_program(program, private)
    protections = [f"own uid {uid}", "no capabilities", "no new privileges", "own session"]
    protections += ["clean environment", "private copy of its folder"]
    if pidns:
        protections.append("PID namespace")
    prlimit = shutil.which("prlimit")
    limiting: list[str] = []
    if prlimit is not None:
        limiting = [prlimit, *rlimit_options(limits), "--"]
        protections.append("rlimits")
    protections.append("shared folders swept")
    full_env = {"PATH": BASE_PATH, "HOME": "/tmp", "LANG": "C.UTF-8", **env}
    full_env.update({"PYTHONUNBUFFERED": "1", MARK: mark})
    command = [*pidns, *drop_prefix(uid), *limiting, program, *argv[1:]]
    return Plan(command, private, full_env, protections)
