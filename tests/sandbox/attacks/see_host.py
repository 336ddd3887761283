"""Look at the host from inside: its processes in /proc, the referee's command line,
environment and memory, the inherited environment, the user id and capabilities.

Arguments: ``referee=PID`` (a process standing for the referee, as the host numbers
it), ``mark=TEXT`` (a word in that process's command line), ``secret=NAME`` (a variable
set in the referee's environment), ``uid=N`` (the referee's user id).
"""

import os
import sys

from _attack import attempt, report, run


def scan(mark: str) -> str:
    """Find the referee among every process /proc shows, by the mark on its command line
    (not this program's own, nor a sandbox's that carries this program's arguments)."""
    own = os.path.basename(sys.argv[0]).encode()
    pids = [p for p in os.listdir("/proc") if p.isdigit()]
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        if mark.encode() in cmdline and own not in cmdline:
            return f"saw {len(pids)} processes, the referee as {pid}"
    raise ProcessLookupError(3, f"saw {len(pids)} processes, none with the mark")


def read_proc(pid: str, what: str, needle: str) -> str:
    with open(f"/proc/{pid}/{what}", "rb") as f:
        data = f.read()
    if needle.encode() not in data:
        raise ProcessLookupError(3, f"{what} of {pid} is another process's")
    return f"{what} of {pid}: {len(data)} bytes with {needle}"


def open_mem(pid: str, mark: str) -> str:
    read_proc(pid, "cmdline", mark)  # the right process, not one of the same number
    fd = os.open(f"/proc/{pid}/mem", os.O_RDONLY)
    try:
        with open(f"/proc/{pid}/maps") as f:
            start = int(f.readline().split("-")[0], 16)
        data = os.pread(fd, 16, start)
    finally:
        os.close(fd)
    return f"opened /proc/{pid}/mem, read {len(data)} bytes at {start:#x}"


def capabilities() -> str:
    with open("/proc/self/status") as f:
        eff = next(line.split()[1] for line in f if line.startswith("CapEff:"))
    if int(eff, 16) == 0:
        raise PermissionError(1, "no effective capabilities")
    return f"CapEff {eff}"


def main(a: dict[str, str]) -> None:
    mark, pid = a.get("mark", "lightcycle-referee-mark"), a.get("referee", "1")
    attempt("proc_scan", lambda: scan(mark))
    attempt("proc_cmdline", lambda: read_proc(pid, "cmdline", mark))
    if "secret" in a:
        name = a["secret"]
        attempt("proc_environ", lambda: read_proc(pid, "environ", name))
        found = name in os.environ
        report("inherited_env", found, f"{len(os.environ)} variables, {name} {found}")
    attempt("proc_mem", lambda: open_mem(pid, mark))
    if "uid" in a:
        uid = os.getuid()
        report("same_uid", uid == int(a["uid"]), f"uid {uid} euid {os.geteuid()}")
    attempt("capabilities", capabilities)


if __name__ == "__main__":
    run(main)
