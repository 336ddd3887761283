"""What a bot that runs as a user id of its own (the uid level: a root referee without
bubblewrap) must not do: read root's files, another bot's folder, the referee's
environment, memory or descriptors, another bot's pipes through /proc; hold capabilities
or become root again; raise or leave its cgroup. It also leaves files in the shared
writable folders, which the referee must remove after its game.

Arguments: ``shadow=PATH`` (a root-only file), ``neighbour=PATH`` and ``original=PATH``
(a file in another bot's folder as that bot sees it, and in its original folder),
``referee=PID`` and ``needle=TEXT`` (a process standing for the referee and a word of its
environment), ``pipes=PID`` (another bot's program), ``tag=TEXT`` (names the files it
leaves: ``lightcycle-left-TAG-RANDOM``). Unconfined (run by root) every attempt works and
changes nothing that outlives the test: cgroup limits are written to the bot's own group,
removed after it.
"""

import os

from _attack import attempt, report, run


def read(path: str, needle: str = "") -> str:
    with open(path, "rb") as f:
        data = f.read()
    if needle and needle.encode() not in data:
        raise LookupError(f"{path} has no {needle}")
    return f"read {len(data)} bytes of {path}"


def open_fd(pid: str, fd: int) -> str:
    os.close(os.open(f"/proc/{pid}/fd/{fd}", os.O_RDONLY | os.O_NONBLOCK))
    return f"opened /proc/{pid}/fd/{fd}"


def mem(pid: str) -> str:
    os.close(os.open(f"/proc/{pid}/mem", os.O_RDONLY))
    return f"opened /proc/{pid}/mem"


def status(key: str) -> str:
    with open("/proc/self/status") as f:
        return next(line.split(":", 1)[1].strip() for line in f if line.startswith(key + ":"))


def capabilities() -> str:
    eff = status("CapEff")
    if int(eff, 16) == 0:
        raise PermissionError(1, "CapEff 0")
    return f"CapEff {eff}"


def new_privileges() -> str:
    if status("NoNewPrivs") == "1":
        raise PermissionError(1, "NoNewPrivs 1")
    return "NoNewPrivs 0"


def groups() -> str:
    if not os.getgroups():
        raise PermissionError(1, "no supplementary groups")
    return f"groups {os.getgroups()}"


def become_root() -> str:
    os.setuid(0)
    return "setuid(0) worked"


def own_cgroups() -> dict[str, str]:
    """The bot's cgroup folders, by controller (``""`` for v2)."""
    out = {}
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for c in controllers.split(",") if controllers else [""]:
                if c in ("memory", "pids", ""):
                    base = f"/sys/fs/cgroup/{c}" if c else "/sys/fs/cgroup"
                    out[c] = base + path
    return out


def raise_limit(folder: str, names: tuple[str, ...], value: str) -> str:
    """Write ``value`` to each of ``names`` the group has, in order (v1's memory and
    swap limit first: the memory limit may not exceed it)."""
    done = []
    for name in names:
        path = os.path.join(folder, name)
        if os.path.exists(path):
            with open(path, "w") as f:
                f.write(value)
            done.append(name)
    if not done:
        raise FileNotFoundError(2, f"no {names} in {folder}")
    return f"wrote {value} to {', '.join(done)} in {folder}"


def leave_group(folder: str) -> str:
    parent = os.path.dirname(os.path.dirname(folder))  # the referee's group
    with open(os.path.join(parent, "cgroup.procs"), "w") as f:
        f.write(str(os.getpid()))
    return f"moved into {parent}"


def plant(path: str) -> str:
    with open(path, "w") as f:
        f.write("left by a bot\n")
    return f"wrote {path}"


def main(a: dict[str, str]) -> None:
    attempt("read_shadow", lambda: read(a.get("shadow", "/etc/shadow")))
    if "neighbour" in a:
        attempt("read_neighbour", lambda: read(a["neighbour"]))
    if "original" in a:
        attempt("read_neighbour_original", lambda: read(a["original"]))
    if "referee" in a:
        pid = a["referee"]
        attempt("referee_environ", lambda: read(f"/proc/{pid}/environ", a.get("needle", "")))
        attempt("referee_mem", lambda: mem(pid))
        attempt("referee_fd", lambda: open_fd(pid, 0))
    if "pipes" in a:
        attempt("neighbour_stdin", lambda: open_fd(a["pipes"], 0))
        attempt("neighbour_stdout", lambda: open_fd(a["pipes"], 1))
    attempt("capabilities", capabilities)
    attempt("new_privileges", new_privileges)
    attempt("groups", groups)
    if "cgroups" in a:
        groups_of = own_cgroups()
        memory = groups_of.get("memory") or groups_of.get("")
        pids = groups_of.get("pids") or groups_of.get("")
        if memory and pids:
            v1 = "memory" in groups_of
            names = ("memory.memsw.limit_in_bytes", "memory.limit_in_bytes", "memory.max")
            attempt("cgroup_memory", lambda: raise_limit(memory, names, "-1" if v1 else "max"))
            attempt("cgroup_pids", lambda: raise_limit(pids, ("pids.max",), "max"))
        else:
            report("cgroup_memory", False, f"ENOENT no cgroup found: {groups_of}")
    tag = a.get("tag", "x")
    unique = os.urandom(6).hex()
    for where in ("/dev/shm", "/tmp", "/var/tmp"):
        name = where.strip("/").replace("/", "_")
        # a part of its own: the next game's spare runs this while the last one's files
        # are still there (and a pid is the same in each game's PID namespace)
        planted = f"{where}/lightcycle-left-{tag}-{unique}"
        attempt(f"leave_{name}", lambda path=planted: plant(path))
    if "cgroups" in a and memory:
        attempt("cgroup_leave", lambda: leave_group(memory))
    attempt("become_root", become_root)  # last: it changes everything after it


if __name__ == "__main__":
    run(main)
