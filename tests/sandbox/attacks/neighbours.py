"""Reach into a neighbour: ptrace another bot, inject keystrokes into a terminal.

Arguments: ``pid=PID`` (the other bot, as the host numbers it), ``mark=TEXT`` (a word in
the other bot's command line, to find it in /proc whatever its number here), ``tty=PATH``
(a terminal of the host). TIOCSTI is also tried on a terminal the program makes itself,
as its controlling terminal, which the kernel allows and only a seccomp filter refuses.
"""

import ctypes
import fcntl
import os
import sys
import termios

from _attack import attempt, blocked, errno_name, libc, report, run

PTRACE_ATTACH, PTRACE_DETACH = 16, 17


def targets(a: dict[str, str]) -> list[int]:
    """The neighbour's pid as given, and every process /proc shows with its mark."""
    found = [int(a["pid"])] if "pid" in a else []
    mark = a.get("mark")
    own = os.path.basename(sys.argv[0]).encode()  # not a sandbox's process carrying our args
    if mark:
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) in (os.getpid(), *found):
                continue
            try:
                with open(f"/proc/{name}/cmdline", "rb") as f:
                    cmdline = f.read()
            except OSError:
                continue
            if mark.encode() in cmdline and own not in cmdline:
                found.append(int(name))
    return found


def ptrace(pids: list[int]) -> None:
    last = "ESRCH no neighbour visible"
    for pid in pids:
        if libc().ptrace(PTRACE_ATTACH, pid, None, None) == 0:
            os.waitpid(pid, 0)  # it stops: the attacker holds it
            libc().ptrace(PTRACE_DETACH, pid, None, None)
            report("ptrace_neighbour", True, f"attached to {pid} and let go")
            return
        last = f"{errno_name(ctypes.get_errno())} on {pid}"
    report("ptrace_neighbour", False, last)


def inject(fd: int) -> str:
    for ch in b"#\n":  # a comment line: harmless if a shell reads it
        fcntl.ioctl(fd, termios.TIOCSTI, bytes([ch]))
    return "pushed 2 bytes into the terminal's input"


def inject_host(path: str) -> str:
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    try:
        return inject(fd)
    finally:
        os.close(fd)


def inject_own() -> None:
    """TIOCSTI on a new terminal made the controlling one of a child's new session."""
    try:
        master, slave = os.openpty()
    except OSError as exc:
        blocked("tiocsti_own", exc)
        return
    child = os.fork()
    if child == 0:
        code = 0
        try:
            os.setsid()
            fd = os.open(os.ttyname(slave), os.O_RDWR)  # becomes the controlling terminal
            inject(fd)
        except OSError as exc:
            code = exc.errno or 1
        os._exit(code)
    _, status = os.waitpid(child, 0)
    os.close(slave)
    os.close(master)
    if os.WIFSIGNALED(status):
        report("tiocsti_own", False, f"killed by signal {os.WTERMSIG(status)}")
    elif os.WEXITSTATUS(status):
        report("tiocsti_own", False, errno_name(os.WEXITSTATUS(status)))
    else:
        report("tiocsti_own", True, "pushed 2 bytes into its own controlling terminal")


def main(a: dict[str, str]) -> None:
    libc().ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    if "pid" in a or "mark" in a:
        ptrace(targets(a))
    if "tty" in a:
        attempt("tiocsti_host", lambda: inject_host(a["tty"]))
    inject_own()


if __name__ == "__main__":
    run(main)
