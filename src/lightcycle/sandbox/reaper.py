"""Bots die with their referee, whatever kills it; strays of a dead referee are ended.

Three layers, each covering what the one before cannot:

- **a clean shutdown**: the command line turns SIGTERM and SIGHUP into the Ctrl-C path,
  which kills and reaps every bot (`lightcycle.cli.runs.terminations_as_interrupts`);
- **a parent-death signal**: every bot is started through `death_prefix` (util-linux
  ``setpriv --pdeathsig KILL``), so the kernel sends SIGKILL to the bot's first process
  when the referee thread that started it ends, a SIGKILL of the referee included (a
  referee killed before the signal is set is caught by `start_prefix`'s check). In a
  PID namespace that process is ``unshare`` (or bubblewrap, with ``--die-with-parent``),
  whose child is the namespace's init: its death takes every process of the namespace
  with it (that child asks for its own signal after its fork; a referee killed in
  between is caught by `lightcycle.sandbox.lifeline`'s check). Without a namespace the
  bot's own children have no such signal (it is cleared on ``fork``), hence
- **the reaper**: each bot's environment carries a mark that names its referee (pid,
  start time and PID namespace, `new_mark`); `strays` finds every marked process whose
  referee is gone, and its descendants, and `lightcycle.sandbox.strays.reap_strays`,
  called when a match, duel, grading or tournament starts, kills them; each referee's
  undertaker (`lightcycle.sandbox.undertaker`) kills its own the moment it dies. A
  referee that is alive, this one or another, keeps its bots; so does one this process
  cannot judge (a referee in another PID namespace, whose pids mean something else
  here, or an older referee whose mark names nobody).

A parent-death signal belongs to the *thread* that started the process, so a thread
that starts bots (a spare pool's starter) must live as long as they do.
"""

from __future__ import annotations

import os
import shutil
import uuid
from functools import cache

from lightcycle.sandbox import proctree
from lightcycle.sandbox.limits import MARK

_OWNER: dict[int, str] = {}  # pid -> "PID-STARTTIME-NAMESPACE" of this process, per fork


@cache
def death_prefix() -> tuple[str, ...]:
    """The command prefix that makes a program get SIGKILL when its starter dies, or ``()``.

    ``setpriv`` sets the signal and ``exec``s the rest of the command, which keeps it
    (it is kept across ``execve``, cleared only by a set-user-ID program or a ``fork``).
    A prefix rather than a ``prctl`` between ``fork`` and ``exec``, so starts keep
    using ``vfork`` (see `lightcycle.sandbox.prefixes.limit_prefix`).
    """
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return ()
    return (setpriv, "--pdeathsig", "KILL")


def pid_namespace() -> int:
    """This process's PID namespace (the inode of ``/proc/self/ns/pid``; 0 if unknown)."""
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


def owner_tag() -> str:
    """``PID-STARTTIME-NAMESPACE``: this process, named for good (pids are reused)."""
    me = os.getpid()
    tag = _OWNER.get(me)
    if tag is None:
        tag = f"{me}-{proctree.start_time(me) or 0}-{pid_namespace()}"
        _OWNER[me] = tag
    return tag


def new_mark() -> str:
    """A fresh mark for one bot: its referee's `owner_tag`, then a unique part."""
    return f"{owner_tag()}-{uuid.uuid4().hex}"


def tag_of(mark: str) -> str:
    """The referee's `owner_tag` a mark begins with (also a name made the same way,
    ``TAG-UNIQUE``: a bot's cgroup, a referee's lifeline folder)."""
    return mark.rsplit("-", 1)[0]


def owner_of(mark: str) -> tuple[int, int, int] | None:
    """The referee's (pid, start time, PID namespace) a mark names, or ``None`` for a
    mark without them (written by an older referee)."""
    parts = mark.split("-")
    if len(parts) != 4 or not all(p.isdigit() for p in parts[:3]):
        return None
    return int(parts[0]), int(parts[1]), int(parts[2])


def bots_of(referee: int) -> list[int]:
    """Running processes whose mark names referee ``referee`` (a pid of this PID
    namespace): for checks that a referee that died left nothing behind."""
    ns = pid_namespace()
    found = []
    for pid, mark in _marks(MARK).items():
        owner = owner_of(mark)
        if owner is not None and owner[0] == referee and owner[2] == ns:
            found.append(pid)
    return sorted(found)


def _marks(variable: str) -> dict[int, str]:
    """Every process whose environment holds ``variable``, with its value."""
    key = variable.encode() + b"="
    found: dict[int, str] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                env = f.read()
        except OSError:  # gone, or another user's
            continue
        for item in env.split(b"\0"):
            if item.startswith(key):
                found[int(name)] = item[len(key) :].decode("ascii", "replace")
                break
    return found


def strays(referee: str | None = None) -> list[int]:
    """Processes of bots whose referee is gone: marked ones and their descendants.

    Args:
        referee: only those of this referee (its `owner_tag`), known to be gone (its
            lifeline's lock is free: it may still be a zombie its parent has not
            reaped), for its undertaker (`lightcycle.sandbox.undertaker`); ``None``:
            those of every referee that is gone.
    """
    ns = pid_namespace()
    alive: dict[tuple[int, int, int], bool] = {}
    roots: set[int] = set()
    for pid, mark in _marks(MARK).items():
        if referee is not None and tag_of(mark) != referee:
            continue
        owner = owner_of(mark)
        if owner is None or owner[2] != ns:  # cannot tell: left alone
            continue
        if referee is not None:
            roots.add(pid)
            continue
        if owner not in alive:
            alive[owner] = proctree.start_time(owner[0]) == owner[1]
        if not alive[owner]:
            roots.add(pid)
    if not roots:
        return []
    children: dict[int, list[int]] = {}
    for p in proctree.processes():
        children.setdefault(p.ppid, []).append(p.pid)
    found: set[int] = set()
    stack = list(roots)
    while stack:
        pid = stack.pop()
        if pid in found or pid == os.getpid():
            continue
        found.add(pid)
        stack.extend(children.get(pid, ()))
    return sorted(found)


def start_prefix(held: bool = False, join: str = "") -> tuple[str, ...]:
    """What every bot command starts with: `death_prefix`, then a shell that checks its
    parent, joins the bot's cgroup and, for a spare waiting for its game, holds it (it
    runs nothing until released, see `lightcycle.sandbox.proctree.hold_prefix`).

    The parent-death signal is set only once ``setpriv`` runs, a millisecond or so after
    the ``fork``: a referee killed in between would leave the new process an orphan that
    nothing kills. So the shell, started after the signal is set, checks that its parent
    is still the referee (``$PPID`` is read when the shell starts) and ends at once if it
    is not; from then on the signal covers it.

    Args:
        held: hold the program until one line arrives on its stdin.
        join: shell commands that move the shell into the bot's cgroup
            (`lightcycle.sandbox.cgroups.BotGroup.join_script`): they run before
            anything of the bot, and a failure ends the shell (exit status 125, a line
            on stderr) rather than run the bot without its limits.
    """
    death = death_prefix()
    hold = "read -r _ || exit 0; " if held else ""
    enter = (
        f"{{ {join}; }} 2>/dev/null || {{ echo 'lightcycle: cannot join the bot cgroup' >&2; "
        "exit 125; }; "
        if join
        else ""
    )
    name = "lightcycle-held" if held else "lightcycle-bot"
    if not death:
        if not join:
            return proctree.hold_prefix() if held else ()
        return ("/bin/sh", "-c", f'{enter}{hold}exec "$@"', name)
    script = f'[ "$PPID" = {os.getpid()} ] || exit 0; {enter}{hold}exec "$@"'
    return (*death, "/bin/sh", "-c", script, name)
