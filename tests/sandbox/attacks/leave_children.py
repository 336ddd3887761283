"""Leave processes behind: children that sleep, one that loops, a double-forked daemon
that leaves the session, and a child in a new session and process group.

``kind`` is ``sleep``, ``loop``, ``daemon`` or ``setsid``; every child ends by itself
after ``hold`` seconds (default 20), so even unconfined nothing stays for good. The
program says ``ATTACK children_<kind> READY <pids>`` (its own numbering) and then sleeps
``hold`` seconds whatever its input does (an end of input does not end it), or exits at
once with ``exit=1``.
"""

import os
import time

from _attack import run, say


def busy(hold: float) -> None:
    end = time.monotonic() + hold
    while time.monotonic() < end:
        pass


def child(kind: str, hold: float) -> int:
    """Fork one child of ``kind``; return its pid (the daemon's middle process's)."""
    pid = os.fork()
    if pid:
        return pid
    try:
        if kind == "loop":
            busy(hold)
        elif kind == "setsid":
            os.setsid()
            time.sleep(hold)
        elif kind == "daemon":
            os.setsid()
            if os.fork() == 0:
                for fd in (0, 1, 2):
                    os.close(fd)
                time.sleep(hold)
        else:
            time.sleep(hold)
    finally:
        os._exit(0)


def main(a: dict[str, str]) -> None:
    kind, hold = a.get("kind", "sleep"), float(a.get("hold", "20"))
    pids = [child(kind, hold) for _ in range(1 if kind == "loop" else 3)]
    if kind == "daemon":
        for pid in pids:
            os.waitpid(pid, 0)  # the middle processes exit; the daemons are orphans
    say(f"ATTACK children_{kind} READY {' '.join(map(str, pids))}")
    if a.get("exit") != "1":
        time.sleep(hold)


if __name__ == "__main__":
    run(main)
