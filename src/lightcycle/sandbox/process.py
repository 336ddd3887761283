"""`BotProcess`: one bot program, started once, fed without blocking, killed completely.

With ``Limits(sandbox="full")`` (or ``"auto"`` where the host has bubblewrap) the program
runs in the bubblewrap sandbox of `lightcycle.sandbox.bwrap`: its own user id, a read-only
view of the system and of its folder, a size-limited scratch ``/tmp``, no network, a
private ``/proc``, a clean environment, the seccomp filter and limits on processes, open
files and file size; see ``docs/sandbox.md``. With ``sandbox="uid"`` (or ``"auto"`` where a
root referee has no bubblewrap) it runs as a pool user id of its own, without
capabilities, in a private copy of its folder (`lightcycle.sandbox.uidlevel`). With
``sandbox="none"`` (the default) it runs as the referee's user with the guarantees below
only.

Guarantees, whatever the program does:

- it runs in its own session and process group, with ``RLIMIT_DATA`` as its memory limit
  (``RLIMIT_AS`` would stop Java and Node from starting) and no core files;
- where the host gives cgroups (`lightcycle.sandbox.cgroups`), at every sandbox level, it
  runs in a cgroup of its own whose memory limit counts shared memory and tmpfs files
  too and whose pids limit bounds its processes; a bot the kernel kills over that limit
  is reported as such (`BotProcess.status_text`);
- where unprivileged PID namespaces work (``unshare`` from util-linux), it runs as the
  first process of its own PID namespace, so killing it kills every process it started,
  daemons included, and the kernel reaps them all;
- otherwise every process it starts inherits a mark in its environment, and `kill` looks
  for marked processes as well as signalling the process group;
- its stderr is drained by a thread into a bounded tail, so a flood can neither block the
  bot nor grow the referee's memory; the tail is written to the bot's log file;
- writes to its stdin never block the caller: what the pipe cannot take waits in a buffer.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from lightcycle.sandbox import bwrap, cgroups, check, lifeline, proctree, reaper, shared, uidlevel
from lightcycle.sandbox.innerpid import InnerPid
from lightcycle.sandbox.limits import MARK, SANDBOX_LEVELS, Limits, SandboxError, describe_status
from lightcycle.sandbox.prefixes import (
    become_subreaper,
    limit_in_child,
    limit_prefix,
    pidns_prefix,
)
from lightcycle.sandbox.spawn import (
    MAINS,
    SPAWN_LOCK,
    SPAWNER,
    check_executable,
    children,
    reap,
    reap_orphans,
    reap_sandbox_orphans,
)
from lightcycle.sandbox.stderr import StderrTail
from lightcycle.sandbox.uids import POOL

__all__ = [  # also importable from here, as before the split
    "MARK",
    "SANDBOX_LEVELS",
    "BotProcess",
    "Limits",
    "SandboxError",
    "become_subreaper",
    "describe_status",
    "limit_prefix",
    "pidns_prefix",
    "reap_sandbox_orphans",
]


class BotProcess:
    """A running bot program (see the module docstring).

    Args:
        argv: the command, already split.
        cwd: its working directory; in the sandbox, also the one folder of the host it
            can read besides the system's (``None``: the current directory).
        log_path: where its stderr tail is written when it is closed (``None``: kept in
            memory only).
        limits: memory, stderr, isolation and sandbox limits.
        env: extra environment variables.
        read_only: more folders the sandboxed bot may read (bound read-only at the same
            path), e.g. a library it loads; ignored with ``sandbox="none"``.

    Attributes:
        protections: what was applied, e.g. ``("bubblewrap", "no network", ...)``.
        uid: the pool user id the bot runs as (``None``: the referee's).
        sandboxed: whether it runs under bubblewrap.
        level: what it got here: ``full`` (bubblewrap), ``uid`` or ``none``.
        private: at the uid level, the private copy of its folder it runs in.

    Raises:
        SandboxError: the program could not be started, or the sandbox it asks for is
            not available here; the message says why.
    """

    def __init__(
        self,
        argv: Sequence[str],
        cwd: str | os.PathLike[str] | None = None,
        log_path: str | os.PathLike[str] | None = None,
        limits: Limits | None = None,
        env: Mapping[str, str] | None = None,
        read_only: Sequence[str | os.PathLike[str]] = (),
    ) -> None:
        if not argv:
            raise SandboxError("empty bot command")
        limits = limits if limits is not None else Limits()
        if limits.sandbox not in SANDBOX_LEVELS:
            raise SandboxError(
                f"unknown sandbox {limits.sandbox!r}: use one of {', '.join(SANDBOX_LEVELS)}"
            )
        check_executable(argv[0], cwd)
        self.argv = list(argv)
        self.limits = limits
        self.log_path = Path(log_path) if log_path is not None else None
        self.mark = reaper.new_mark()  # names this referee: see strays.reap_strays
        self.uid: int | None = None
        self._inner = InnerPid()  # bubblewrap's inner process (lightcycle.sandbox.innerpid)
        self._uid_released = False
        self.cgroup: cgroups.BotGroup | None = None
        self.sandboxed = False
        self.private: Path | None = None  # the uid level's copy of the bot's folder
        self.protections: tuple[str, ...] = ()
        self.level = "none"  # what the bot gets here: none, uid or full
        if limits.sandbox != "none":
            if limits.sandbox == "full":
                check.require("full")
            self.level = uidlevel.effective(limits.sandbox)
            why = uidlevel.unavailable() if self.level == "uid" else None
            if why is not None:
                raise SandboxError(why)
            self.sandboxed = self.level == "full"
        self.cgroup = cgroups.group_for(self.mark, limits.memory, limits.processes)
        try:
            if self.sandboxed:
                self._start_sandboxed(cwd, env or {}, read_only)
            elif self.level == "uid":
                self._start_uid(cwd, env or {})
            else:
                self._start_plain(cwd, env or {})
        except BaseException:
            self._remove_cgroup()
            raise
        self._after_start()

    def _cgroup_protections(self) -> list[str]:
        if self.cgroup is None:
            return []
        out = []
        if self.limits.memory is not None:
            out.append("cgroup memory (shared memory counted)")
        if self.limits.processes is not None:
            out.append("cgroup pids")
        return out

    def _start_prefix(self) -> tuple[str, ...]:
        """`reaper.start_prefix`, joining the bot's cgroup first where it has one.

        Also makes sure this referee has its lifeline and undertaker
        (`lightcycle.sandbox.lifeline.path`) before its first bot starts.
        """
        lifeline.path()
        join = self.cgroup.join_script() if self.cgroup is not None else ""
        return reaper.start_prefix(self.limits.held, join)

    def _remove_cgroup(self) -> None:
        """Remove the bot's cgroup (its processes are gone); never waits long."""
        if self.cgroup is not None:
            self.cgroup.remove()

    def memory_killed(self) -> bool:
        """Whether the kernel killed a process of the bot over its cgroup memory limit."""
        return self.cgroup is not None and self.cgroup.oom_kills() > 0

    def _spawn(
        self,
        command: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        pass_fds: tuple[int, ...] = (),
    ) -> subprocess.Popen[bytes]:
        """Start ``command`` after `_start_prefix` on the spawner thread (`SPAWNER`: a
        parent-death signal follows the thread that started the process)."""

        def start() -> subprocess.Popen[bytes]:
            with SPAWN_LOCK:
                proc = subprocess.Popen(
                    [*self._start_prefix(), *command],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    cwd=cwd,
                    env=env,
                    start_new_session=True,
                    pass_fds=pass_fds,
                    bufsize=0,
                )
                MAINS.add(proc.pid)
            return proc

        return SPAWNER.run(start)

    def _pidns(self) -> tuple[str, ...]:
        """The PID namespace prefix the limits ask for (``()``: none); sets `isolated`.

        ``unshare --fork`` forks once more, and its child asks for its parent-death
        signal only after the fork: the prefix ends with the lifeline's check
        (`lightcycle.sandbox.lifeline`), so a bot whose referee died in between ends
        before its program runs.
        """
        prefix: tuple[str, ...] = ()
        if self.limits.isolate != "none":
            prefix = pidns_prefix()
            if not prefix and self.limits.isolate == "pidns":
                raise SandboxError("PID namespaces are not available here (isolate='pidns')")
        self.isolated = bool(prefix)
        if prefix:
            file = lifeline.path()
            if file is not None:
                prefix = (*prefix, *lifeline.check_prefix(str(file)))
        return prefix

    def _start_uid(self, cwd: str | os.PathLike[str] | None, env: Mapping[str, str]) -> None:
        """Start as a pool user id in a private copy of its folder
        (`lightcycle.sandbox.uidlevel`), on the spawner thread."""
        folder = Path(os.path.abspath(cwd if cwd is not None else os.getcwd()))
        prefix = self._pidns()
        become_subreaper()  # adopts what the bot leaves, as for `_start_plain`
        self.uid = POOL.acquire()
        try:
            writable = self.limits.work is not None  # a build's work folder
            self.private = shared.private_folder(folder, self.uid, self.mark, writable)
            plan = uidlevel.plan(
                self.argv, folder, self.private, self.uid, self.limits, self.mark, env, prefix
            )
            self.protections = (*plan.protections, *self._cgroup_protections())

            self.proc = self._spawn(plan.command, plan.cwd, plan.env)
        except OSError as exc:
            self._release_uid()
            raise SandboxError(f"cannot start {' '.join(self.argv)!r}: {exc.strerror}") from exc
        except BaseException:
            self._release_uid()
            raise

    def _start_plain(self, cwd: str | os.PathLike[str] | None, env: Mapping[str, str]) -> None:
        """Start as the referee's user: own session, a PID namespace where possible."""
        limits = self.limits
        prefix = self._pidns()
        # also with a PID namespace: when its unshare is killed, the namespace's init
        # becomes an orphan; adopted here, `kill` reaps it at once instead of waiting
        # for the host's init (which in a container may never reap it)
        become_subreaper()
        full_env = dict(os.environ)
        full_env.update(env)
        full_env[MARK] = self.mark
        full_env.setdefault("PYTHONUNBUFFERED", "1")
        limiting = limit_prefix(limits.memory)
        protections = ["own session"]
        if self.isolated:
            protections.append("PID namespace")
        if limits.memory is not None:
            protections.append("memory rlimit")
        self.protections = (*protections, *self._cgroup_protections())
        try:
            with SPAWN_LOCK:
                self.proc = subprocess.Popen(
                    [*self._start_prefix(), *prefix, *limiting, *self.argv],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    cwd=cwd,
                    env=full_env,
                    start_new_session=True,
                    preexec_fn=None if limiting else lambda: limit_in_child(limits.memory),
                    bufsize=0,
                )
                MAINS.add(self.proc.pid)
        except OSError as exc:
            raise SandboxError(
                f"cannot start {' '.join(self.argv)!r}: {exc.strerror or exc}"
            ) from exc

    def _start_sandboxed(
        self,
        cwd: str | os.PathLike[str] | None,
        env: Mapping[str, str],
        read_only: Sequence[str | os.PathLike[str]],
    ) -> None:
        """Start under bubblewrap (`lightcycle.sandbox.bwrap`), on the spawner thread."""
        limits = self.limits
        folder = Path(os.path.abspath(cwd if cwd is not None else os.getcwd()))
        if folder in (Path("/"), Path("/tmp")):
            raise SandboxError(
                f"cannot sandbox a bot whose folder is {folder}: give it a folder of its own"
            )
        program = bwrap.resolve_program(self.argv[0], folder)
        if os.geteuid() == 0 and limits.work is None:  # else the folder is not bound
            bwrap.check_others_can_read(folder, self.argv[0])
        seccomp_fd, _ = bwrap.seccomp_fd()
        if seccomp_fd is None and limits.sandbox == "full":
            raise SandboxError("the seccomp filter is unavailable (see lightcycle sandbox check)")
        self.isolated = True
        info_read, info_write = os.pipe()  # bubblewrap writes its inner pid here
        self._inner.fd = info_read
        try:
            if os.geteuid() == 0:
                self.uid = POOL.acquire()
            bot_env = {**env, "PYTHONUNBUFFERED": "1", MARK: self.mark}
            plan = bwrap.build(
                [program, *self.argv[1:]],
                folder,
                env=bot_env,
                uid=self.uid,
                network=limits.network,
                scratch=limits.scratch,
                rlimits=bwrap.rlimit_options(limits),
                seccomp_fd=seccomp_fd,
                read_only=[Path(p) for p in read_only],
                info_fd=info_write,
                work=limits.work,
                lifeline=lifeline.path(),
            )
            self.protections = (*plan.protections, *self._cgroup_protections())

            self.proc = self._spawn(plan.command, folder, {}, plan.pass_fds)
        except OSError as exc:
            self._release_uid()
            self._inner.close()
            raise SandboxError(
                f"cannot start {' '.join(self.argv)!r}: {exc.strerror or exc}"
            ) from exc
        except BaseException:
            self._release_uid()
            self._inner.close()
            raise
        finally:
            os.close(info_write)
            if seccomp_fd is not None:
                os.close(seccomp_fd)

    def _release_uid(self) -> None:
        """Give the pool id back once (the bot's processes are gone, or never started).

        At the uid level, first kill whatever still runs as that id and remove what it
        left in the shared folders and its private folder (`lightcycle.sandbox.shared`):
        the next bot given the id must find nothing of this one.
        """
        if self.uid is not None and not self._uid_released:
            self._uid_released = True
            if self.level == "uid":
                shared.kill_uid(self.uid)
                shared.sweep(self.uid)
                shared.remove_private(self.private)
            POOL.release(self.uid)

    def _after_start(self) -> None:
        self.started = time.perf_counter()
        self.pid = self.proc.pid
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        self.stdin_fd = self.proc.stdin.fileno()
        self.stdout_fd = self.proc.stdout.fileno()
        os.set_blocking(self.stdin_fd, False)
        os.set_blocking(self.stdout_fd, False)
        self.pending = bytearray()
        self.broken_pipe = False
        self.stdout_eof = False
        self._cpu_seen = 0.0
        self._closed = False
        self._stderr = StderrTail(
            self.proc.stderr.fileno(), self.limits.stderr_tail, f"stderr-{self.pid}"
        )

    # -- stderr ------------------------------------------------------------------------
    @property
    def stderr_bytes(self) -> int:
        """How many bytes the bot has written to stderr so far (kept or not)."""
        return self._stderr.bytes

    def wait_stderr(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until stderr reaches its end (all read).

        After the bot exits, its last lines may still be in the pipe; a caller quoting
        them waits here first. Returns whether the end was reached (a leftover child
        holding stderr open keeps it from ending).
        """
        return self._stderr.wait(timeout)

    def stderr_tail(self, limit: int | None = None) -> bytes:
        """The last bytes the bot wrote to stderr (all kept ones, or the last ``limit``)."""
        return self._stderr.tail(limit)

    # -- stdin / stdout ----------------------------------------------------------------
    def send(self, data: bytes) -> None:
        """Write ``data`` to the bot's stdin without blocking (the rest waits in a buffer)."""
        if self.broken_pipe or not data:
            return
        if self.pending:
            self.pending += data
            self.flush()
            return
        try:
            n = os.write(self.stdin_fd, data)
        except BlockingIOError:
            n = 0
        except OSError:
            self.broken_pipe = True
            return
        if n < len(data):
            self.pending += data[n:]

    def flush(self) -> None:
        """Write what the pipe can take of the buffered input."""
        while self.pending and not self.broken_pipe:
            try:
                n = os.write(self.stdin_fd, self.pending)
            except BlockingIOError:
                return
            except OSError:
                self.broken_pipe = True
                return
            del self.pending[:n]

    def read(self) -> bytes:
        """What the bot wrote to stdout since the last read (``b""`` if nothing, or at EOF)."""
        if self.stdout_eof:
            return b""
        try:
            data = os.read(self.stdout_fd, 65536)
        except BlockingIOError:
            return b""
        except OSError as exc:
            if exc.errno != errno.EAGAIN:
                self.stdout_eof = True
            return b""
        if not data:
            self.stdout_eof = True
        return data

    def close_stdin(self) -> None:
        """Send end of input (bots of every protocol exit on it)."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        self.broken_pipe = True

    # -- status ------------------------------------------------------------------------
    def _status(self, code: int | None) -> int | None:
        """Bubblewrap reports a program killed by signal N as exit code 128 + N (as a
        shell does): read it back as the signal, so verdicts name it."""
        if self.sandboxed and code is not None and 128 < code <= 128 + 64:
            return 128 - code
        return code

    def poll(self) -> int | None:
        """The exit status if the bot's main process has ended (negative: a signal)."""
        return self._status(self.proc.poll())

    def wait_exit(self, timeout: float) -> int | None:
        """Wait up to ``timeout`` seconds for the main process to end."""
        try:
            return self._status(self.proc.wait(timeout))
        except subprocess.TimeoutExpired:
            return None

    def status_text(self) -> str:
        """How the process ended, e.g. ``killed by signal SIGSEGV``, or ``killed: over
        its memory limit (256 MiB, shared memory counted)`` when the kernel killed it in
        its cgroup (a crash that is not the bot's bug, said so)."""
        status = self.poll()
        text = describe_status(status)
        if status is None or not self.memory_killed():
            return text
        limit = self.limits.memory or 0
        over = f"over its memory limit ({limit >> 20} MiB, shared memory counted)"
        if status == -signal.SIGKILL:
            return f"killed: {over}"
        if self.isolated and not self.sandboxed:  # the status is unshare's, not the bot's
            return f"killed: {over}; {text}"
        return f"{text}; a process of it was killed {over}"

    def cpu_time(self) -> float:
        """CPU seconds used so far by the bot's whole process tree (children included).

        Reads ``/proc``; counts live processes and the children they reaped. Never
        decreases from one call to the next.
        """
        total = sum(p.precise_cpu() for p in proctree.tree(self.pid, self.pid))
        if total > self._cpu_seen:
            self._cpu_seen = total
        return self._cpu_seen

    def alive_processes(self) -> list[int]:
        """PIDs of the bot's processes still present (zombies included)."""
        found = {p.pid for p in proctree.tree(self.pid, self.pid)}
        found.update(proctree.marked(MARK, self.mark))
        return sorted(found)

    # -- ending ------------------------------------------------------------------------
    def kill(self, timeout: float = 2.0) -> None:
        """Kill every process of the bot and wait until they are gone (and reaped).

        Signals the process group, then every process found in the bot's session, its
        tree or carrying its mark, until none is left or ``timeout`` seconds pass. In the
        sandbox, the PID namespace's first process is killed first: the kernel then kills
        every process of the namespace at once.
        """
        inits: set[int] = set()
        if self.sandboxed:
            self._inner.get()
            inits = children(self.pid)
            for pid in inits:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.killpg(self.pid, signal.SIGKILL)
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):
                self.proc.kill()
        self.wait_exit(timeout)
        MAINS.discard(self.pid)
        end = time.monotonic() + timeout
        seen: set[int] = set()
        while True:
            left = set(self.alive_processes()) - {self.pid}
            if not left or time.monotonic() > end:
                break
            seen |= left
            for pid in left:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            for pid in left:
                reap(pid, timeout=0.0)
            time.sleep(0.005)
        for pid in seen:
            reap(pid, timeout=0.0)
        for pid in inits:  # handed to this process if it is a subreaper, else to PID 1
            reap(pid, timeout=max(0.0, end - time.monotonic()))
        if not self.isolated:
            reap_orphans()
        elif self.sandboxed:
            self._inner.reap(max(0.0, end - time.monotonic()))
            reap_sandbox_orphans()
        self._remove_cgroup()

    def close(self, grace: float = 0.2) -> int | None:
        """End the bot: close its input, give it ``grace`` seconds, then kill what is left.

        Writes the stderr tail to the log file. Safe to call twice.

        Returns:
            The main process's exit status (negative: the signal that killed it).
        """
        if self._closed:
            return self._status(self.proc.returncode)
        self._closed = True
        self.close_stdin()
        status = self.wait_exit(grace) if grace > 0 else self.poll()
        if status is None or not self.isolated:
            self.kill()  # also the children and daemons of a bot that exited by itself
        # else: the first process of a PID namespace has exited, and the kernel does not
        # report that before every other process of the namespace is killed and reaped
        elif self.sandboxed:
            self._inner.reap(1.0)
            reap_sandbox_orphans()
        if status is None:
            status = self._status(self.proc.returncode)
        MAINS.discard(self.pid)
        self._release_uid()
        self._remove_cgroup()
        self._inner.close()
        self._stderr.wait(1.0)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self.write_log()
        return status

    def write_log(self) -> None:
        """Write the kept stderr tail to the log file (atomically)."""
        if self.log_path is not None:
            self._stderr.write_log(self.log_path, self.argv)

    def __enter__(self) -> BotProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(grace=0)
