"""Fill the disk: write up to ``total`` MiB (default 300) into a file in the bot's own
folder (``where=cwd``) or in /tmp (``where=tmp``), 1 MiB at a time, stopping at the
first refusal, and leave the file behind. ``tag`` names the file."""

import os

from _attack import blocked, report, run

MIB = 1 << 20


def main(a: dict[str, str]) -> None:
    where, total, tag = a.get("where", "cwd"), int(a.get("total", "300")), a.get("tag", "x")
    name = f"lightcycle-attack-fill-{tag}.bin"
    path = name if where == "cwd" else os.path.join("/tmp", name)
    written = 0
    chunk = b"\0" * MIB
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            while written < total:
                if os.write(fd, chunk) < MIB:
                    raise OSError(28, "short write")
                written += 1
        finally:
            os.close(fd)
    except OSError as exc:
        blocked(f"disk_fill_{where}", OSError(exc.errno, f"after {written} MiB"))
    else:
        report(f"disk_fill_{where}", True, f"{written} MiB left in {path}")


if __name__ == "__main__":
    run(main)
