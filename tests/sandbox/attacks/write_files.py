"""Write where a bot must not: the match's output folder, its own program folder, the
host's /dev/shm; and leave a note in /tmp for a later game to find.

Arguments: ``out=DIR`` (the referee's ``--out`` folder), ``tag=TEXT`` (names the files,
so the test can look for exactly them). Each file written holds a few bytes only.
"""

import contextlib
import os

from _attack import attempt, report, run


def plant(path: str) -> str:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        os.write(fd, b"planted by a bot\n")
    finally:
        os.close(fd)
    return f"wrote {path}"


def main(a: dict[str, str]) -> None:
    tag = a.get("tag", "x")
    if "out" in a:
        attempt("write_out", lambda: plant(os.path.join(a["out"], f"planted-{tag}.txt")))
    attempt("write_own_folder", lambda: plant(f"planted-{tag}.txt"))
    attempt("write_dev_shm", lambda: plant(f"/dev/shm/lightcycle-attack-{tag}"))
    note = f"/tmp/lightcycle-attack-note-{tag}"
    if os.path.exists(note):  # left by an earlier run: scratch space outlived its game
        report("scratch_leak", True, f"found {note} from an earlier run")
    else:
        with contextlib.suppress(OSError):  # its own scratch: allowed
            plant(note)
        report("scratch_leak", False, "ENOENT no note from an earlier run")


if __name__ == "__main__":
    run(main)
