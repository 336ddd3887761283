"""What a bot at the uid level reads and leaves: its private folder, the shared folders.

Why: at the uid level (`lightcycle.sandbox.uidlevel`) there is no mount namespace. A bot
reads its folder through the host's permissions, so a folder open to its user id would
be open to every other bot's; and it can write in the host's world-writable folders
(``/tmp``, ``/var/tmp``, ``/dev/shm``), where files would outlive its game, fill memory
(``/dev/shm`` is a tmpfs) or pass notes to a later game.

- `private_folder` copies the bot's folder into a fresh folder of the temporary folder,
  owned by root, group the bot's id, readable by that group alone (mode 0750, files
  0640 or 0750): the bot reads it and cannot change it, other bots cannot enter it, and
  the original folder may stay closed to everybody but root. Special files are not
  copied; symbolic links are copied as links. A build's work folder is made
  ``writable``: its folders are open to the group for writing too (0770), so the build
  writes there (its files are its user id's) and nowhere else of the referee's.
- `sweep` runs after the game, once every process of the bot's user id is gone
  (`kill_uid`): every file or folder that id owns in `SHARED` is removed, also inside
  world-writable folders there. The id is the pool's, used by this one bot at a time
  (`lightcycle.sandbox.uids`), so everything it owns there is the bot's.
- `remove_stale` removes the private folders of referees that died (SIGKILL) before
  removing their own; `lightcycle.sandbox.strays.reap_strays` calls it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
import tempfile
import time
from pathlib import Path

from lightcycle.sandbox import proctree, reaper
from lightcycle.sandbox.limits import SandboxError

SHARED = ("/tmp", "/var/tmp", "/dev/shm")
"""World-writable folders a bot at the uid level can leave files in."""

PREFIX = "lightcycle-folder-"
COPY_LIMIT = 512 << 20
"""Bytes of a bot folder the uid level copies; a bigger one is refused (its copy would
cost every start)."""

_DEPTH = 8  # how deep `sweep` follows world-writable folders inside the shared ones


def private_folder(folder: Path, gid: int, mark: str, writable: bool = False) -> Path:
    """A private copy of ``folder`` for the bot of group ``gid`` (see the module);
    ``writable``: its folders are group-writable (a build's work folder).

    Raises:
        SandboxError: the folder is bigger than `COPY_LIMIT`, or cannot be read.
    """
    top = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{mark}-"))  # 0700, root's, unguessable
    try:
        total = 0
        mode = 0o770 if writable else 0o750
        for here, dirs, files in os.walk(folder):
            rel = Path(here).relative_to(folder)
            target = top / rel
            if rel != Path("."):
                target.mkdir()
                _own(target, gid, mode)
            for name in [*dirs]:
                if os.path.islink(os.path.join(here, name)):
                    dirs.remove(name)
                    files.append(name)
            for name in files:
                src, dst = Path(here, name), target / name
                info = src.lstat()
                if stat.S_ISLNK(info.st_mode):
                    os.symlink(os.readlink(src), dst)
                    os.lchown(dst, 0, gid)
                elif stat.S_ISREG(info.st_mode):
                    total += info.st_size
                    if total > COPY_LIMIT:
                        raise SandboxError(
                            f"the bot folder {folder} holds more than {COPY_LIMIT >> 20} MiB: "
                            "too big to copy for each start at the uid level (bubblewrap, "
                            "which binds it instead, is not usable here); give the bot a "
                            "folder of its own files only"
                        )
                    shutil.copyfile(src, dst, follow_symlinks=False)
                    _own(dst, gid, 0o750 if info.st_mode & 0o111 else 0o640)
        _own(top, gid, mode)  # last: the bot can enter only once it is whole
    except OSError as exc:
        remove_private(top)
        raise SandboxError(f"cannot copy the bot folder {folder}: {exc}") from exc
    except BaseException:
        remove_private(top)
        raise
    return top


def _own(path: Path, gid: int, mode: int) -> None:
    os.chown(path, 0, gid)
    os.chmod(path, mode)


def remove_private(path: Path | None) -> None:
    """Remove a private folder (never fails)."""
    if path is not None:
        shutil.rmtree(path, ignore_errors=True)


def processes_of(uid: int) -> list[int]:
    """Pids of every process whose real or effective user id is ``uid``."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status", "rb") as f:
                for line in f:
                    if line.startswith(b"Uid:"):
                        ids = {int(x) for x in line.split()[1:3]}
                        if uid in ids:
                            found.append(int(name))
                        break
        except (OSError, ValueError):
            continue
    return found


def kill_uid(uid: int, timeout: float = 1.0) -> list[int]:
    """SIGKILL every process of ``uid`` until none is left (or ``timeout``); their pids.

    A bot can leave its session, its process group and its mark; it cannot leave its
    user id. Whoever is their parent reaps them (this referee, as their subreaper, in
    `lightcycle.sandbox.process.BotProcess.kill`).
    """
    end = time.monotonic() + timeout
    seen: set[int] = set()
    while True:
        left = processes_of(uid)
        if not left or time.monotonic() > end:
            return sorted(seen)
        seen.update(left)
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in left:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)
        time.sleep(0.005)


def sweep(uid: int, roots: tuple[str, ...] = SHARED) -> list[str]:
    """Remove every file and folder ``uid`` owns in ``roots``; the paths removed.

    Looks into world-writable folders that are not the bot's (the only other places its
    id can create entries), up to a few levels deep; never follows a symbolic link.
    """
    removed: list[str] = []
    for root in roots:
        _sweep(root, uid, removed, 0)
    return removed


def _sweep(folder: str, uid: int, removed: list[str], depth: int) -> None:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        is_dir = stat.S_ISDIR(info.st_mode)
        if info.st_uid == uid:
            if is_dir:
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
            removed.append(entry.path)
        elif is_dir and info.st_mode & stat.S_IWOTH and depth < _DEPTH:
            _sweep(entry.path, uid, removed, depth + 1)


def remove_stale() -> list[Path]:
    """Remove the private folders whose referee is gone; the folders removed."""
    removed = []
    base = Path(tempfile.gettempdir())
    with contextlib.suppress(OSError):
        for path in base.glob(f"{PREFIX}*"):
            mark = path.name[len(PREFIX) :].rsplit("-", 1)[0]
            owner = reaper.owner_of(mark)
            if owner is None or owner[2] != reaper.pid_namespace():
                continue
            if proctree.start_time(owner[0]) != owner[1] and path.lstat().st_uid == 0:
                remove_private(path)
                removed.append(path)
    return removed
