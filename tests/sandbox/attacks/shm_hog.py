"""Map shared anonymous memory (which ``RLIMIT_DATA`` does not count) and touch every
page: ``step`` MiB at a time (default 64) up to ``total`` MiB (default 1536), stopping
at the first refusal. A memory limit that counts it either refuses a mapping or kills
the program (then no line is written)."""

import mmap

from _attack import blocked, report, run

MIB = 1 << 20


def main(a: dict[str, str]) -> None:
    total, step = int(a.get("total", "1536")), int(a.get("step", "64"))
    chunk = b"\x01" * MIB
    maps: list[mmap.mmap] = []
    try:
        while len(maps) * step < total:
            m = mmap.mmap(-1, step * MIB, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
            maps.append(m)
            for _ in range(step):
                m.write(chunk)
    except OSError as exc:
        blocked("shm_hog", OSError(exc.errno, f"at {len(maps) * step} MiB"))
    else:
        report("shm_hog", True, f"{len(maps) * step} MiB mapped shared and touched")
    finally:
        for m in maps:
            m.close()


if __name__ == "__main__":
    run(main)
