"""The bubblewrap command line that runs one bot in the full sandbox.

The bot sees a new root file system that bubblewrap builds from read-only binds: the
system folders (``/usr``, ``/etc``, the ``/bin``-style links of a merged ``/usr``), its
program's install folder when that lies elsewhere (a pyenv or virtual-environment
Python), its own folder (its working directory), and a fresh size-limited tmpfs at
``/tmp`` (also ``$HOME``), the only place it can write. Nothing else of the host exists
there: not ``/root``, ``/home``, other bots' folders, the referee's output folder or the
repository. It gets new PID, network, IPC, UTS and cgroup namespaces, a fresh ``/proc``
and ``/dev``, a clean environment, a new session (no terminal to inject into) and the
seccomp filter, and dies with its referee.

When the referee is root, bubblewrap runs as root (so it can bind folders that only root
can reach, like a pyenv Python under ``/root``) and ``setpriv`` then drops the bot to its
own user id from the pool, with no capabilities and no supplementary groups. Otherwise
bubblewrap makes an unprivileged user namespace and the bot runs as the referee's user.
Limits are set last by ``prlimit``, inside the namespaces, just before the program runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from lightcycle.sandbox import lifeline as lifeline_module
from lightcycle.sandbox import locate
from lightcycle.sandbox.limits import Limits, SandboxError

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32", "/etc")
"""Host folders every bot sees read-only (those that exist). ``/etc`` whole: programs
find their libraries, locales and alternatives through it; its secrets (``/etc/shadow``)
are readable by root only, and the bot is never root."""

BASE_PATH = "/usr/local/bin:/usr/bin:/bin"


def bwrap_path() -> str | None:
    """The ``bwrap`` program: the system's where it works, else the packaged one
    (`lightcycle.sandbox.locate`)."""
    return locate.bwrap_path()


def inner_tool(name: str) -> str | None:
    """The real path of a program of the ``PATH`` that runs inside the sandbox.

    Its folder on the ``PATH`` may not be there (a folder of links, ``~/bin``): only
    the system folders are bound, so the link is followed to the program itself.
    """
    found = shutil.which(name)
    return None if found is None else os.path.realpath(found)


@cache
def setpriv_path() -> str | None:
    """util-linux ``setpriv``, which drops a root-started bot to its pool user id."""
    return inner_tool("setpriv")


def _is_system(path: Path) -> bool:
    return any(path == Path(d) or Path(d) in path.parents for d in SYSTEM_DIRS)


def install_prefix(program: Path) -> Path:
    """The folder a program was installed into: ``PREFIX`` of ``PREFIX/bin/NAME``.

    A Python interpreter needs its whole prefix (``lib/python3.X``, a virtual
    environment's ``pyvenv.cfg``), not only its ``bin`` folder.
    """
    parent = program.parent
    return parent.parent if parent.name == "bin" else parent


def _pyenv_which(name: str, shim: Path, cwd: Path) -> Path | None:
    """The interpreter a pyenv shim would run for ``name`` in ``cwd`` (``pyenv which``)."""
    pyenv = shutil.which("pyenv") or str(shim.parent.parent / "bin" / "pyenv")
    try:
        done = subprocess.run(
            [pyenv, "which", name], cwd=cwd, capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    out = done.stdout.strip()
    return Path(out) if done.returncode == 0 and out else None


@cache
def _resolve_on_path(name: str, cwd: str, path_variable: str) -> str | None:
    found = shutil.which(name, path=path_variable)
    if found is None:
        return None
    where = Path(found)
    if where.parent.name == "shims":  # a pyenv (or similar) shim: a shell script calling it
        real = _pyenv_which(name, where, Path(cwd))
        if real is not None:
            return str(real)
    return str(where)


def resolve_program(argv0: str, cwd: Path) -> str:
    """The program to run inside the sandbox for ``argv0``.

    A name looked up on the ``PATH`` becomes its absolute path, seen through pyenv's
    shims: the bot's ``PATH`` holds the system folders only, and a shim is a shell
    script that needs pyenv's whole installation. A path is kept as it is.
    """
    if os.sep in argv0:
        return argv0
    found = _resolve_on_path(argv0, str(cwd), os.environ.get("PATH", os.defpath))
    if found is None:
        raise SandboxError(f"cannot start {argv0!r}: no such program on the PATH")
    return found


def _interpreter(program: Path) -> Path | None:
    """The ``#!`` interpreter of a script, if it names an absolute path."""
    try:
        with program.open("rb") as f:
            head = f.readline(256)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split()
    return Path(os.fsdecode(words[0])) if words and words[0].startswith(b"/") else None


def program_folders(program: str, cwd: Path) -> list[Path]:
    """Folders outside the system ones that ``program`` needs (read-only binds).

    Its install prefix, that of the file its symbolic links lead to, and the same for a
    script's ``#!`` interpreter; none inside ``cwd`` (bound anyway).
    """
    path = Path(program) if os.path.isabs(program) else cwd / program
    seen: list[Path] = []
    todo = [path]
    interpreter = _interpreter(path)
    if interpreter is not None:
        todo.append(interpreter)
    for p in todo:
        for candidate in (p, Path(os.path.realpath(p))):
            if _is_system(candidate):
                continue
            prefix = install_prefix(candidate)
            if prefix == cwd or cwd in prefix.parents or prefix == Path("/"):
                continue
            if prefix not in seen:
                seen.append(prefix)
    return seen


@dataclass
class Plan:
    """What a sandboxed start needs: the command, and the file descriptors to pass."""

    command: list[str]
    pass_fds: tuple[int, ...] = ()
    protections: list[str] = field(default_factory=list)
    path_dirs: list[str] = field(default_factory=list)


def _binds(folders: Sequence[Path]) -> list[str]:
    """``--dir`` for every missing ancestor (mode 0755: bubblewrap would make them
    0700, closed to the bot's user), then the read-only bind itself."""
    out: list[str] = []
    made: set[Path] = set()
    for folder in folders:
        for ancestor in reversed(folder.parents):
            if ancestor == Path("/") or ancestor in made or _is_system(ancestor):
                continue
            made.add(ancestor)
            out += ["--perms", "0755", "--dir", str(ancestor)]
        made.add(folder)
        out += ["--ro-bind", str(folder), str(folder)]
    return out


def _system_binds() -> list[str]:
    out: list[str] = []
    for d in SYSTEM_DIRS:
        if os.path.islink(d):  # merged /usr: /bin -> usr/bin
            out += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            out += ["--ro-bind", d, d]
    return out


def build(
    argv: Sequence[str],
    cwd: Path,
    *,
    env: Mapping[str, str],
    uid: int | None,
    network: bool,
    scratch: int,
    rlimits: Sequence[str],
    seccomp_fd: int | None,
    read_only: Sequence[Path] = (),
    info_fd: int | None = None,
    work: int | None = None,
    lifeline: Path | None = None,
) -> Plan:
    """The ``bwrap`` command that runs ``argv`` in ``cwd`` (see the module docstring).

    Args:
        argv: the bot's command; ``argv[0]`` already resolved (`resolve_program`).
        cwd: the bot's folder, absolute: bound read-only, its working directory.
        env: its whole environment (``--clearenv`` drops the referee's).
        uid: the pool user id to drop to (the referee is root), or ``None``.
        network: keep the host's network namespace.
        scratch: bytes of the ``/tmp`` tmpfs.
        rlimits: ``prlimit`` options, e.g. ``--nproc=64:64``.
        seccomp_fd: a readable descriptor holding the compiled filter, or ``None``.
        read_only: more folders to bind read-only at the same path.
        info_fd: a writable descriptor where bubblewrap writes ``{"child-pid": N}``,
            the host pid of the namespace's first process (`BotProcess` reaps it: a
            subreaper referee inherits it when bubblewrap dies first).
        work: bytes of a fresh, writable tmpfs mounted at ``cwd`` instead of the
            read-only bind of the host folder: a build's work folder
            (`lightcycle.sandbox.build`), gone with the sandbox whatever ends it, and
            full at its size (``ENOSPC``) rather than filling the host's disk.
        lifeline: the referee's lifeline (`lightcycle.sandbox.lifeline`), bound
            read-only and checked inside before the command runs: a bot whose referee
            died while bubblewrap set the sandbox up ends there.
    """
    bwrap = bwrap_path()
    if bwrap is None:
        raise SandboxError(f"bubblewrap: {locate.find().why}")
    cmd = [bwrap]
    protections = ["bubblewrap"]
    if uid is None:
        cmd.append("--unshare-user")
    cmd += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not network:
        cmd.append("--unshare-net")
        protections.append("no network")
    cmd += ["--die-with-parent", "--new-session", "--clearenv"]
    protections += ["private /proc", "clean environment", "die with parent", "new session"]
    folders = program_folders(argv[0], cwd)
    folders += [Path(p) for p in read_only if Path(p) not in folders]
    path_dirs = [str(f / "bin") for f in folders if (f / "bin").is_dir()]
    full_env = {"PATH": ":".join([*path_dirs, BASE_PATH]), "HOME": "/tmp", "LANG": "C.UTF-8"}
    full_env.update(env)
    for key, value in full_env.items():
        cmd += ["--setenv", key, value]
    cmd += _system_binds()
    cmd += ["--proc", "/proc", "--dev", "/dev"]
    cmd += ["--perms", "1777", "--size", str(scratch), "--tmpfs", "/tmp"]
    protections.append(f"scratch /tmp {scratch >> 20} MiB")
    if work is None:
        cmd += _binds([*folders, cwd])
        protections.append("read-only system and bot folder")
    else:
        cmd += _binds(folders)
        cmd += ["--perms", "0777", "--size", str(work), "--tmpfs", str(cwd)]
        protections += ["read-only system", f"work folder {work >> 20} MiB (tmpfs)"]
    check: tuple[str, ...] = ()
    if lifeline is not None:
        check = lifeline_module.check_prefix(lifeline_module.INSIDE)
    if check:
        cmd += ["--perms", "0755", "--dir", "/run", "--ro-bind", str(lifeline)]
        cmd.append(lifeline_module.INSIDE)
    cmd += ["--remount-ro", "/", "--chdir", str(cwd)]
    fds: tuple[int, ...] = ()
    if seccomp_fd is not None:
        cmd += ["--seccomp", str(seccomp_fd)]
        fds = (seccomp_fd,)
        protections.append("seccomp")
    if info_fd is not None:
        cmd += ["--info-fd", str(info_fd)]
        fds = (*fds, info_fd)
    cmd.append("--")
    cmd += check
    if uid is not None:
        setpriv = setpriv_path()
        if setpriv is None:
            raise SandboxError(
                "setpriv is not installed: install util-linux (apt-get install util-linux)"
            )
        cmd += [setpriv, "--reuid", str(uid), "--regid", str(uid), "--clear-groups"]
        cmd += ["--inh-caps=-all", "--bounding-set=-all", "--"]
        protections.append(f"own uid {uid}")
    prlimit = inner_tool("prlimit")
    if prlimit is not None and rlimits:
        cmd += [prlimit, *rlimits, "--"]
        protections.append("rlimits")
    cmd += list(argv)
    return Plan(cmd, fds, protections, path_dirs)


def check_others_can_read(folder: Path, argv0: str) -> None:
    """Refuse a bot folder its pool user id could not read, rather than a crash on turn 1.

    A root referee's bot runs as a user id of its own, which reads its folder and program
    through the permissions for others.
    """
    fix = f"chmod -R o+rX {folder}"
    if folder.stat().st_mode & 0o005 != 0o005:
        raise SandboxError(
            f"the sandboxed bot cannot read its folder {folder} (it runs as a user id of its "
            f"own): {fix}"
        )
    if os.sep in argv0:
        path = folder / argv0
        if path.is_file() and path.stat().st_mode & 0o004 == 0:
            raise SandboxError(
                f"the sandboxed bot cannot read its program {path} (it runs as a user id of "
                f"its own): {fix}"
            )


def rlimit_options(limits: Limits) -> list[str]:
    """``prlimit`` options for a sandboxed bot: no core files, and every limit set."""
    out = ["--core=0:0"]
    for option, value in (
        ("--data", limits.memory),
        ("--nproc", limits.processes),
        ("--nofile", limits.open_files),
        ("--fsize", limits.file_size),
    ):
        if value is not None:
            out.append(f"{option}={value}:{value}")
    return out


def seccomp_fd() -> tuple[int | None, str | None]:
    """A memfd holding the compiled seccomp filter, or ``None`` and the reason why not."""
    try:
        from lightcycle.sandbox import seccomp
    except ImportError:
        return None, "the seccomp module (lightcycle.sandbox.seccomp) is missing"
    why: str | None = seccomp.seccomp_unavailable()
    if why is not None:
        return None, why
    program: bytes = filter_bytes()
    fd = os.memfd_create("lightcycle-seccomp")  # close-on-exec: only bwrap gets it
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd, None


@cache
def filter_bytes() -> bytes:
    from lightcycle.sandbox import seccomp

    program: bytes = seccomp.filter_bpf()
    return program
