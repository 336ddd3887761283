"""Building submitted code in the sandbox: a build is untrusted code too.

A judge compiles what students upload; a compiler run on a stranger's files (and a
``Makefile``, a ``build.sh``) can do whatever a bot can. `run_build` runs the build
command with every protection a bot gets (`lightcycle.sandbox.process.BotProcess`:
bubblewrap's read-only view of the system, a pool user id, no network, the seccomp
filter, a clean environment, rlimits, a cgroup, its own PID namespace, killed with
everything it started when done or when the referee dies), plus a wall-time and a
CPU-time limit and a cap on the output it keeps.

The work folder: in the sandbox, a fresh tmpfs of `BuildLimits.work_size` bytes mounted
at the build's working directory (`lightcycle.sandbox.bwrap.build`'s ``work``), so a
full folder is ``ENOSPC`` rather than a full host disk, its pages count against the
build's memory cgroup, and it vanishes with the sandbox whatever ends it (a referee
killed by SIGKILL leaves no folder behind). Besides the scratch ``/tmp`` it is the only
place the build can write. At the uid level (a root referee without bubblewrap) it is a
private copy that only the build's pool user id may write
(`lightcycle.sandbox.shared.private_folder`); without any sandbox (``level="none"``,
trusted builds) a host folder. Both are measured after the build.

Files cross the sandbox's wall as tar streams through pipes, never through a host
folder the build could reach: the source goes in on the build's stdin (so its folder
need not be readable by the pool user id, and is not visible at all), and the artifacts
the caller asks for come out on a separate descriptor that the build command itself
does not inherit. `run_build` unpacks them into ``out`` itself, refusing anything but
regular files, folders and symbolic links that stay inside ``out``.
"""

from __future__ import annotations

import io
import os
import re
import select
import shutil
import signal
import tarfile
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from lightcycle.sandbox import bwrap, check, proctree, reaper
from lightcycle.sandbox.limits import SANDBOX_LEVELS, Limits, SandboxError
from lightcycle.sandbox.process import BotProcess

ARTIFACTS_VARIABLE = "LIGHTCYCLE_BUILD_ARTIFACTS"
WORK_PREFIX = "lightcycle-build-"
"""Work folders are ``WORK_PREFIX`` + the referee's `reaper.owner_tag` + a random part,
in the host's temporary folder (`tempfile.gettempdir`)."""

WRAPPER = f"""exec 3>&2 2>&1
arts=${ARTIFACTS_VARIABLE}
unset {ARTIFACTS_VARIABLE}
tar -x -f - --no-same-owner || {{ echo 'lightcycle: cannot unpack the source'; exit 125; }}
"$@" </dev/null 3>&-
status=$?
times >&3
[ -z "$arts" ] || printf '%s\\n' "$arts" | tar -c -f - --verbatim-files-from -T - >&3 2>/dev/null
exit $status
"""
"""The shell that runs a build (``sh -c WRAPPER lightcycle-build COMMAND...``).

Its stderr becomes descriptor 3, the channel back to the referee, and everything else
writes to its stdout (the build's output). It unpacks the source tar from stdin, runs the
command without descriptor 3 and with no input, writes the shell's ``times`` (the
command's CPU time, children included) and a tar of the artifacts to descriptor 3, and
exits with the command's status."""

_TIMES = re.compile(rb"(\d+)m([\d.]+)s (\d+)m([\d.]+)s")


@dataclass(frozen=True)
class BuildLimits:
    """Limits of one build.

    Attributes:
        wall_time: seconds before the build is killed (``timed_out``).
        cpu_time: CPU seconds of the whole build, children included, before it is
            killed (``None``: no limit but the wall time).
        memory: bytes of memory (``RLIMIT_DATA``; where the host gives cgroups, all of
            it, the tmpfs work folder and ``/tmp`` included). Compilers need a lot.
        processes: processes of the build (``RLIMIT_NPROC`` under its own user id;
            the cgroup's ``pids.max``).
        open_files: ``RLIMIT_NOFILE``.
        file_size: ``RLIMIT_FSIZE``: the largest file the build can write.
        output: bytes of the build's output (stdout and stderr together) kept; the
            rest is counted and cut with a note.
        work_size: bytes of the work folder (a tmpfs in the sandbox; checked after
            the build without it); also bounds the source and the artifacts.
        scratch: bytes of the scratch ``/tmp`` (a compiler's temporary files).
    """

    wall_time: float = 60.0
    cpu_time: float | None = 60.0
    memory: int | None = 1 << 30
    processes: int | None = 64
    open_files: int | None = 256
    file_size: int | None = 64 << 20
    output: int = 64 << 10
    work_size: int = 256 << 20
    scratch: int = 256 << 20


@dataclass(frozen=True)
class BuildResult:
    """What a build did.

    Attributes:
        ok: it exited 0 within its limits and every artifact asked for was copied.
        exit_code: the command's exit status (``None`` when a signal ended it, or
            when it was killed at a limit).
        signal: the name of the signal that ended the command (``SIGSEGV``), if any.
        timed_out: killed at its wall-time limit.
        limit: the limit that stopped it (``wall time``, ``CPU time``, ``memory``,
            ``work folder size``), or ``None``.
        output: its stdout and stderr together, decoded (``errors="replace"``), cut at
            `BuildLimits.output` with a note saying how much was dropped.
        wall_seconds: from start to end.
        cpu_seconds: CPU time of the build's processes, children included.
        artifacts: the names copied to ``out``.
        protections: what applied, e.g. ``("bubblewrap", "no network", ...)``.
        problems: why it is not ``ok`` besides the exit status, one sentence each
            (a limit reached, an artifact missing or refused).
    """

    ok: bool
    exit_code: int | None
    signal: str | None
    timed_out: bool
    limit: str | None
    output: str
    wall_seconds: float
    cpu_seconds: float
    artifacts: tuple[str, ...]
    protections: tuple[str, ...]
    problems: tuple[str, ...]

    @property
    def reason(self) -> str:
        """One line saying why the build failed (``""`` when it is ``ok``)."""
        if self.ok:
            return ""
        parts = list(self.problems)
        if self.limit is None:
            if self.signal is not None:
                parts.insert(0, f"the build was killed by signal {self.signal}")
            elif self.exit_code not in (0, None):
                parts.insert(0, f"the build exited with status {self.exit_code}")
        return "; ".join(parts) or "the build failed"


def _check_artifact(name: str) -> str:
    """A caller's artifact name, normalised; refused if it could leave the work folder."""
    norm = os.path.normpath(name)
    if (
        not name
        or "\0" in name
        or "\n" in name
        or os.path.isabs(norm)
        or norm in (".", "..")
        or norm.startswith("../")
    ):
        raise SandboxError(
            f"artifact {name!r}: give a path inside the work folder, like 'bot' or 'build/bot'"
        )
    return norm


def _clean(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
    """Source files as the build sees them: regular files, folders and symbolic links,
    owned by nobody in particular."""
    if not (info.isfile() or info.isdir() or info.issym()):
        return None
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


def pack_source(source: Path) -> bytes:
    """The source folder as a tar (its special files left out)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for child in sorted(source.iterdir()):  # not "." itself: the work folder is not its own
            tar.add(child, arcname=child.name, filter=_clean)
    return buf.getvalue()


def _inside(root: Path, path: Path) -> bool:
    return path == root or root in path.parents


def extract_artifacts(data: bytes, names: Sequence[str], out: Path) -> tuple[list[str], list[str]]:
    """Unpack the artifacts ``names`` from the tar ``data`` into ``out``.

    Only members named in ``names`` (or inside a named folder) are written; regular files
    lose set-user-ID bits; special files, absolute or ``..`` paths, and symbolic links
    that lead outside ``out`` are refused. Nothing is written through a symbolic link
    that leads outside ``out``.

    Returns:
        The names copied, and one sentence per problem (missing, refused, unreadable).
    """
    out.mkdir(parents=True, exist_ok=True)
    root = Path(os.path.realpath(out))
    seen: set[str] = set()
    problems: list[str] = []
    links: list[tuple[str, Path]] = []
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
            for member in tar:
                name = os.path.normpath(member.name)
                owner = next((n for n in names if name == n or name.startswith(n + "/")), None)
                if owner is None or os.path.isabs(name) or name.split("/")[0] == "..":
                    continue
                try:
                    problem = _extract_one(tar, member, name, root, links)
                except OSError as exc:
                    problem = f"{name}: cannot be written ({exc.strerror or exc})"
                if problem is None:
                    seen.add(owner)
                else:
                    problems.append(problem)
    except tarfile.TarError:
        problems.append("the artifacts could not be read back (a damaged archive)")
    for name, dest in links:  # a chain of links may lead outside where each looked inside
        if not _inside(root, Path(os.path.realpath(dest))):
            dest.unlink()
            problems.append(f"{name}: refused (a symbolic link pointing outside)")
    problems += [f"{n}: not made by the build" for n in names if n not in seen]
    return [n for n in names if n in seen], problems


def _extract_one(
    tar: tarfile.TarFile,
    member: tarfile.TarInfo,
    name: str,
    root: Path,
    links: list[tuple[str, Path]],
) -> str | None:
    """Write one member under ``root``; the problem, or ``None`` when written."""
    dest = root / name
    if not _inside(root, Path(os.path.realpath(dest.parent))):
        return f"{name}: refused (its folder leads outside the output folder)"
    if member.isdir():
        dest.mkdir(parents=True, exist_ok=True)
        return None
    if member.issym():
        target = Path(os.path.normpath(dest.parent / member.linkname))
        if os.path.isabs(member.linkname) or not _inside(root, target):
            return f"{name}: refused (a symbolic link pointing outside)"
        dest.parent.mkdir(parents=True, exist_ok=True)
        if dest.is_symlink() or dest.is_file():
            dest.unlink()
        os.symlink(member.linkname, dest)
        links.append((name, dest))
        return None
    if not (member.isfile() or member.islnk()):
        return f"{name}: refused (a special file, not a regular one)"
    source = tar.extractfile(member)
    if source is None:
        return f"{name}: refused (a hard link to a file not copied)"
    dest.parent.mkdir(parents=True, exist_ok=True)
    if dest.is_symlink():
        dest.unlink()
    fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as f:
        shutil.copyfileobj(source, f)
        os.fchmod(f.fileno(), member.mode & 0o755)
    return None


def _folder_size(folder: Path) -> int:
    """Bytes of disk ``folder`` takes (blocks, not apparent sizes), links not followed."""
    total = 0
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_blocks * 512
            except OSError:
                continue
    return total


def remove_stale() -> list[Path]:
    """Remove the work folders of builds whose referee is gone; returns them.

    A referee removes its build's folder when the build ends; one killed during a build
    (SIGKILL) cannot. In the sandbox that folder is empty (the build wrote a tmpfs that
    vanished with it); without it, it holds the build's files. Called by
    `lightcycle.sandbox.strays.reap_strays`, after the strays are killed. Folders of live
    referees, and of referees this process cannot judge, stay.
    """
    base = Path(tempfile.gettempdir())
    removed: list[Path] = []
    try:
        names = [n for n in os.listdir(base) if n.startswith(WORK_PREFIX)]
    except OSError:
        return removed
    here = reaper.pid_namespace()
    for name in names:
        owner = reaper.owner_of(name[len(WORK_PREFIX) :])
        if owner is None or owner[2] != here:
            continue
        if proctree.start_time(owner[0]) == owner[1]:  # its referee is alive
            continue
        shutil.rmtree(base / name, ignore_errors=True)
        removed.append(base / name)
    return removed


def _resolve(command: Sequence[str], work: Path, sandboxed: bool) -> tuple[list[str], list[Path]]:
    """The command with its program found on the ``PATH``, and the folders it needs bound."""
    program = command[0]
    if os.sep not in program:
        if sandboxed:
            program = bwrap.resolve_program(program, work)
        elif shutil.which(program) is None:
            raise SandboxError(f"cannot build with {program!r}: no such program on the PATH")
    folders = bwrap.program_folders(program, work) if sandboxed else []
    return [program, *command[1:]], folders


def _split_channel(data: bytes) -> tuple[float, bytes] | None:
    """The command's CPU seconds (from ``times``) and the artifacts' tar; ``None`` when
    the channel holds something else (a message of the sandbox that failed to start)."""
    lines = data.split(b"\n", 2)
    if len(lines) == 3:
        found = _TIMES.fullmatch(lines[1].strip())
        if found is not None:
            cpu = float(found[1]) * 60 + float(found[2]) + float(found[3]) * 60 + float(found[4])
            return cpu, lines[2]
    return None


def run_build(
    command: Sequence[str],
    source: Path,
    *,
    out: Path,
    artifacts: Sequence[str] = (),
    limits: BuildLimits = BuildLimits(),
    level: str = "full",
    read_only: Sequence[Path] = (),
    env: Mapping[str, str] | None = None,
) -> BuildResult:
    """Build ``source`` with ``command`` in the sandbox; copy ``artifacts`` to ``out``.

    Args:
        command: the build command, run in the work folder, e.g.
            ``["gcc", "-O2", "-o", "bot", "bot.c"]``.
        source: the folder copied into the fresh work folder (special files left out).
        out: where the artifacts are copied (made if missing).
        artifacts: paths in the work folder to copy out (files or folders).
        limits: wall time, CPU time, memory, processes, output and sizes.
        level: ``full`` (every protection, else `SandboxError`), ``auto`` (the
            strongest this host offers), ``uid`` (a root referee's pool user id
            without bubblewrap) or ``none`` (no bubblewrap: a trusted build,
            as the referee's user, with the limits that need no sandbox).
        read_only: more host folders the build may read (a library's headers).
        env: extra environment variables (in the sandbox the environment is otherwise
            ``PATH``, ``HOME=/tmp`` and ``LANG=C.UTF-8``).

    Returns:
        What happened; `BuildResult.reason` says why it failed.

    Raises:
        SandboxError: the build cannot be run as asked (no such program, a level the
            host cannot give, a bad artifact name); the message says what to do.
    """
    if not command:
        raise SandboxError("empty build command")
    if level not in SANDBOX_LEVELS:
        raise SandboxError(f"unknown sandbox {level!r}: use one of {', '.join(SANDBOX_LEVELS)}")
    if not source.is_dir():
        raise SandboxError(f"cannot build {source}: not a folder")
    names = [_check_artifact(a) for a in artifacts]
    packed = pack_source(source)
    started = time.monotonic()
    if len(packed) > limits.work_size:
        why = (
            f"the source ({len(packed) >> 20} MiB) is larger than the work folder "
            f"({limits.work_size >> 20} MiB)"
        )
        return BuildResult(
            ok=False,
            exit_code=None,
            signal=None,
            timed_out=False,
            limit="work folder size",
            output="",
            wall_seconds=0.0,
            cpu_seconds=0.0,
            artifacts=(),
            protections=(),
            problems=(why,),
        )
    # named after this referee, so that `remove_stale` can tell when it died
    work = Path(tempfile.mkdtemp(prefix=f"{WORK_PREFIX}{reaper.owner_tag()}-"))
    try:
        os.chmod(work, 0o755)
        return _run(command, packed, work, out, names, limits, level, read_only, env, started)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _exit_or_signal(raw: int | None) -> tuple[int | None, str | None]:
    """The command's exit status, or the name of the signal that ended it.

    The build's shell exits with 128 + N for a command killed by signal N (bubblewrap
    passes that on); a negative status is a signal that ended the shell itself."""
    if raw is None:
        return None, None
    number = -raw if raw < 0 else raw - 128 if 128 < raw <= 128 + 64 else 0
    if not number:
        return raw, None
    try:
        return None, signal.Signals(number).name
    except ValueError:
        return None, f"signal {number}"


def _run(
    command: Sequence[str],
    packed: bytes,
    work: Path,
    out: Path,
    names: list[str],
    limits: BuildLimits,
    level: str,
    read_only: Sequence[Path],
    env: Mapping[str, str] | None,
    started: float,
) -> BuildResult:
    sandboxed = level == "full" or (level == "auto" and check.bwrap_usable())
    argv, folders = _resolve(command, work, sandboxed)
    bot_limits = Limits(
        memory=limits.memory,
        stderr_tail=limits.work_size + (1 << 20),  # the artifacts' tar, with its headers
        sandbox=level,
        processes=limits.processes,
        open_files=limits.open_files,
        file_size=limits.file_size,
        scratch=limits.scratch,
        work=limits.work_size,
    )
    build_env = {**(env or {}), ARTIFACTS_VARIABLE: "\n".join(f"./{n}" for n in names)}
    bot = BotProcess(
        ["/bin/sh", "-c", WRAPPER, "lightcycle-build", *argv],
        cwd=work,
        limits=bot_limits,
        env=build_env,
        read_only=[*folders, *read_only],
    )
    kept = bytearray()
    dropped = 0
    limit: str | None = None
    problems: list[str] = []

    def take(data: bytes) -> None:
        nonlocal dropped
        room = limits.output - len(kept)
        kept.extend(data[: max(room, 0)])
        dropped += max(len(data) - max(room, 0), 0)

    try:
        bot.send(packed)
        deadline = started + limits.wall_time
        next_cpu = 0.0
        while True:
            bot.flush()
            if not bot.pending and not bot.broken_pipe:
                bot.close_stdin()
            writing = [bot.stdin_fd] if bot.pending and not bot.broken_pipe else []
            if bot.stdout_eof:  # nothing more to read: do not spin on a readable EOF
                time.sleep(0.01)
            else:
                select.select([bot.stdout_fd], writing, [], 0.05)
            while chunk := bot.read():
                take(chunk)
            if bot.poll() is not None:
                break
            now = time.monotonic()
            if now >= deadline:
                limit = "wall time"
                problems.append(f"stopped at its wall-time limit ({limits.wall_time:g} s)")
                break
            if limits.cpu_time is not None and now >= next_cpu:
                next_cpu = now + 0.1
                if bot.cpu_time() > limits.cpu_time:
                    limit = "CPU time"
                    problems.append(f"stopped at its CPU-time limit ({limits.cpu_time:g} s)")
                    break
        cpu = bot.cpu_time()
        if limit is not None:
            bot.kill()
        else:
            bot.wait_stderr(2.0)
        while chunk := bot.read():
            take(chunk)
        raw = bot.proc.returncode
        memory_killed = bot.memory_killed()
        # the folder it wrote: the uid level's private copy goes when the bot is closed
        grown = 0 if bot.sandboxed else _folder_size(bot.private or work)
    finally:
        bot.close(grace=0)
    channel = bot.stderr_tail()
    split = _split_channel(channel)
    tar = b""
    if split is not None:
        cpu, tar = max(cpu, split[0]), split[1]
    elif channel.strip() and limit is None:  # the sandbox itself failed: say what it said
        take(b"\n[lightcycle: " + channel.strip()[-2000:] + b"]\n")
    exit_code, sig = _exit_or_signal(raw) if limit is None else (None, None)
    if memory_killed and limits.memory is not None:
        limit = limit or "memory"
        problems.append(
            f"a process was killed over the memory limit ({limits.memory >> 20} MiB, "
            "the work folder and /tmp counted)"
        )
    if not bot.sandboxed and limit is None and grown > limits.work_size:
        limit = "work folder size"
        problems.append(f"the work folder grew over its {limits.work_size >> 20} MiB")
    copied: list[str] = []
    if exit_code == 0 and limit is None and names:
        if bot.stderr_bytes > len(channel):
            problems.append(f"the artifacts are over {limits.work_size >> 20} MiB: not copied")
        else:
            copied, trouble = extract_artifacts(tar, names, out)
            problems += trouble
    text = kept.decode("utf-8", errors="replace")
    if dropped:
        text += (
            f"\n[lightcycle: output cut: {dropped} more bytes not shown "
            f"(the limit is {limits.output} bytes)]\n"
        )
    ok = exit_code == 0 and limit is None and not problems
    protections = [*bot.protections, f"wall time {limits.wall_time:g} s"]
    if limits.cpu_time is not None:
        protections.append(f"CPU time {limits.cpu_time:g} s")
    return BuildResult(
        ok=ok,
        exit_code=exit_code,
        signal=sig,
        timed_out=limit == "wall time",
        limit=limit,
        output=text,
        wall_seconds=time.monotonic() - started,
        cpu_seconds=cpu,
        artifacts=tuple(copied),
        protections=tuple(protections),
        problems=tuple(problems),
    )
