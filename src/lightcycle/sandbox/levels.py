"""What the bots of a run at a given sandbox level actually get on this host.

`lightcycle.sandbox.check.host_report` says what bubblewrap can enforce here. A run at
``none``, or at ``auto`` where no ``bwrap`` works, does not use it: its bots get only
what a plain start gives, and a report of the host's abilities would then claim
protections (a user id of their own, the seccomp filter, rlimits per bot) that none of
its bots had. `level_report` tells, line for line, what such a bot gets, read from a real
start of a probe process at that level (so it stays true whatever the plain start
learns to give); `shortfall` is the one line a run prints when its bots get less than
the full sandbox; `seat_record` is what results, replays and the judge's logs keep of
each seat's protections.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any

from lightcycle.sandbox import check, locate, reaper, uidlevel
from lightcycle.sandbox.limits import Limits, SandboxError
from lightcycle.sandbox.prefixes import pidns_prefix
from lightcycle.sandbox.process import BotProcess

Protection = check.Protection


def uses_bwrap(level: str) -> bool:
    """Whether bots started at ``level`` run under bubblewrap here (as `BotProcess`)."""
    return level == "full" or (level == "auto" and check.bwrap_usable())


def gives_full(level: str) -> bool:
    """Whether bots started at ``level`` get every protection of the full sandbox here."""
    return uses_bwrap(level) and not check.missing_now()


def require(level: str) -> None:
    """Refuse a sandbox level no bot can get here, before any game.

    `check.require` for ``full`` (every protection) and unknown levels; ``uid`` also
    needs a root referee and ``setpriv`` (`lightcycle.sandbox.uidlevel.unavailable`).

    Raises:
        SandboxError: the level cannot be given here; the message says why and what to do.
    """
    check.require(level)
    if level == "uid":
        why = uidlevel.unavailable()
        if why is not None:
            raise SandboxError(f"sandbox uid: {why}")


def level_report(level: str) -> list[Protection]:
    """Each protection as it is applied to a bot started at ``level`` here.

    At ``full`` (refused where anything is missing: `check.require`) and at ``auto``
    where bubblewrap works, this is the host report; otherwise what a plain start gives.

    Raises:
        SandboxError: no bot can start at ``level`` here, saying why.
    """
    if uses_bwrap(level):
        return check.host_report()
    return _plain_report(level, *_probe_start(level))


def _probe_start(level: str) -> tuple[int | None, tuple[str, ...], bool]:
    """Start ``true`` at ``level`` as a bot would be; its uid, protections, isolation.

    Raises:
        SandboxError: no bot can start at ``level`` here (the same error a run gets).
    """
    folder = tempfile.mkdtemp(prefix="lightcycle-check-")
    try:
        os.chmod(folder, 0o755)  # a bot running under a pool user id reads its folder
        proc = BotProcess(["true"], cwd=folder, limits=Limits(sandbox=level))
        try:
            return proc.uid, proc.protections, proc.isolated
        finally:
            proc.close(grace=0.5)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _plain_report(
    level: str, uid: int | None, protections: tuple[str, ...], isolated: bool
) -> list[Protection]:
    found = locate.find()
    if level == "none":
        why = "not used at sandbox none (trusted bots only)"
    else:
        why = f"{found.why}; at auto bots run without it"
    get = "bubblewrap gives it (see its line)"
    user = "root" if os.geteuid() == 0 else "the referee's user"
    out = [Protection("bubblewrap", False, why)]
    user_ns = isolated and "--user" in pidns_prefix()
    out.append(
        Protection(
            "user namespaces",
            True,
            "unshare --user, only to make the PID namespace: the bot keeps the referee's "
            "user id and files",
        )
        if user_ns
        else Protection("user namespaces", False, f"not used without bubblewrap; {get}")
    )
    out.append(
        Protection("own user id", True, f"one per live bot from the pool (the probe had {uid})")
        if uid is not None
        else Protection("own user id", False, f"bots run as {user}; {get}")
    )
    out.append(Protection("network namespace", False, f"bots share the host's network; {get}"))
    out.append(
        Protection(
            "private /proc",
            False,
            "a PID namespace of its own (killed whole), but the host's /proc: the bot sees "
            f"the host's processes; {get}"
            if isolated
            else f"bots see the host's processes; {get}",
        )
    )
    swept = (
        ", and what a bot leaves there is removed after its game"
        if "shared folders swept" in protections
        else ""
    )
    out.append(
        Protection("scratch /tmp", False, f"bots write the host's /tmp and /dev/shm{swept}; {get}")
    )
    out.append(Protection("seccomp filter", False, f"loaded by bwrap --seccomp only; {get}"))
    out.append(_plain_rlimits(uid, protections))
    out.append(check.cgroups_protection())
    out.append(
        Protection("die with parent", True, "setpriv --pdeathsig KILL on the bot's first process")
        if reaper.death_prefix()
        else Protection("die with parent", False, "setpriv is missing: apt-get install util-linux")
    )
    return out


def _plain_rlimits(uid: int | None, protections: tuple[str, ...]) -> Protection:
    if "rlimits" in protections:
        nproc = "per bot (own user id)" if uid is not None else "counted for the referee's user"
        return Protection("rlimits", True, f"prlimit: core 0, data, nofile, fsize; nproc {nproc}")
    if "memory rlimit" in protections:
        return Protection(
            "rlimits",
            True,
            "core 0 and data (memory) only: processes, open files and file size are not "
            "limited without bubblewrap",
        )
    return Protection("rlimits", False, "none applied (no memory limit given)")


def shortfall(level: str) -> str | None:
    """One line saying what bots started at ``level`` lack and how to get it; ``None``
    when they get the full sandbox, or at ``none`` (asked for on purpose)."""
    if level == "none" or gives_full(level):
        return None
    lacking = check.missing(level_report(level))
    if not uses_bwrap(level):
        names = ", ".join(p.name for p in lacking if p.name != "bubblewrap")
        what = f"no usable bubblewrap ({locate.find().why}), so no {names}"
    else:
        what = "; ".join(f"{p.name}: {p.detail}" for p in lacking)
    return (
        f"warning: bots run with less than the full sandbox here: {what} (see lightcycle "
        "sandbox check; --sandbox none runs trusted bots without this warning)"
    )


def seat_record(proc: BotProcess) -> dict[str, Any]:
    """What a seat's bot process had: ``{"level", "given", "full", "protections"}``.

    ``level`` is the level asked for, ``given`` the one it got here (``full``, ``uid``
    or ``none``: ``auto`` resolved), ``full`` whether that was every protection of the
    full sandbox, ``protections`` the list `BotProcess.protections` applied.
    """
    level = proc.limits.sandbox
    given = str(getattr(proc, "level", "full" if proc.sandboxed else "none"))
    try:
        full = proc.sandboxed and gives_full(level)
    except SandboxError:
        full = False
    return {"level": level, "given": given, "full": full, "protections": list(proc.protections)}


def _general(protection: str) -> str:
    """``own uid`` for ``own uid 61003``: a bot's pool id changes from game to game."""
    return "own uid" if protection.startswith("own uid ") else protection


def merge_records(kept: dict[str, Any] | None, new: dict[str, Any] | None) -> dict[str, Any] | None:
    """What confined a bot over its games so far: the weakest of its `seat_record` s.

    ``results.json`` of match, duel, grade and tournament keeps one per bot: ``full``
    only if every game had it, and the protections every game had (a pool user id
    as ``own uid``). ``None`` (a bot played in the referee's process) adds nothing.
    """
    if new is None:
        return kept
    protections = [_general(p) for p in new.get("protections", [])]
    if kept is None:
        return {
            "level": new.get("level"),
            "given": new.get("given"),
            "full": bool(new.get("full")),
            "protections": protections,
        }
    return {
        "level": kept["level"],
        "given": kept["given"] if kept["given"] == new.get("given") else "mixed",
        "full": bool(kept["full"] and new.get("full")),
        "protections": [p for p in kept["protections"] if p in protections],
    }


def describe_record(record: dict[str, Any]) -> str:
    """One line for a log: ``the full sandbox (level auto): bubblewrap, no network, ...``.

    ``full`` may be ``None`` where it is not known (a build: its protections say).
    """
    level = record.get("level")
    given = record.get("given")
    asked = f"level {level}" + (f", given {given}" if given not in (None, level) else "")
    full = record.get("full")
    if full is None:
        where = asked
    else:
        what = "the full sandbox" if full else "less than the full sandbox"
        where = f"{what} ({asked})"
    protections = ", ".join(record.get("protections") or []) or "none"
    return f"{where}: {protections}"
