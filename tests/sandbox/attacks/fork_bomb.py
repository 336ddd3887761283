"""Fork until the host refuses: at most ``count`` children (default 2000), each of which
sleeps ``hold`` seconds (default 10) and exits, so even unconfined the bomb ends."""

import os
import time

from _attack import blocked, report, run


def main(a: dict[str, str]) -> None:
    count, hold = int(a.get("count", "2000")), float(a.get("hold", "10"))
    children: list[int] = []
    try:
        while len(children) < count:
            pid = os.fork()
            if pid == 0:
                time.sleep(hold)
                os._exit(0)
            children.append(pid)
    except OSError as exc:
        blocked("fork_bomb", OSError(exc.errno, f"after {len(children)} forks"))
    else:
        report("fork_bomb", True, f"{len(children)} forks")


if __name__ == "__main__":
    run(main)
