"""Open files until refused: raise the soft ``RLIMIT_NOFILE`` to the hard one, then open
/dev/null up to ``count`` times (default 5000)."""

import contextlib
import os
import resource

from _attack import blocked, report, run


def main(a: dict[str, str]) -> None:
    count = int(a.get("count", "5000"))
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(OSError, ValueError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    fds: list[int] = []
    try:
        while len(fds) < count:
            fds.append(os.open("/dev/null", os.O_RDONLY))
    except OSError as exc:
        blocked("fd_hog", OSError(exc.errno, f"after {len(fds)} files (hard limit {hard})"))
    else:
        report("fd_hog", True, f"{len(fds)} files open")
    finally:
        for fd in fds:
            os.close(fd)


if __name__ == "__main__":
    run(main)
