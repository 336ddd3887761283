"""Start threads until the host refuses: at most ``count`` (default 2000), each waiting
until the program ends (small stacks, so the limit met is on tasks, not memory)."""

import threading

from _attack import blocked, report, run


def main(a: dict[str, str]) -> None:
    count = int(a.get("count", "2000"))
    threading.stack_size(64 * 1024)
    stop = threading.Event()
    started = 0
    try:
        while started < count:
            threading.Thread(target=stop.wait, daemon=True).start()
            started += 1
    except RuntimeError as exc:  # "can't start new thread"
        report("thread_bomb", False, f"EAGAIN after {started} threads: {exc}")
    except OSError as exc:
        blocked("thread_bomb", OSError(exc.errno, f"after {started} threads"))
    else:
        report("thread_bomb", True, f"{started} threads")
    stop.set()


if __name__ == "__main__":
    run(main)
