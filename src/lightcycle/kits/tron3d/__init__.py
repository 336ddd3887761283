"""The 3D course's C++ kit: Player.hh, Board.hh, Action.hh, samples, Makefile, Game.

``lightcycle kit tron3d DIR`` copies ``files/`` (the headers, ``Game.cc`` and its JSON
reader, ``AINull.cc``, ``AIDemo.cc`` and the ``Makefile``) and then compiles
``AIDummy.cc``, which stays in the package, into ``DIR/AIDummy.o``: the course handed its
Dummy out as an object file for the students' machine, and so does this kit, built for
the machine it is written on. See docs/tron3d-kit.md.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from lightcycle.kits import Kit, KitError

DUMMY_SOURCE = Path(__file__).resolve().parent / "AIDummy.cc"
"""The Dummy's source: lightcycle's ``builtin:dummy`` in C++, move for move."""

CXXFLAGS = ("-std=c++17", "-O2")
"""How the kit, its Makefile and the judge compile players."""


def files_dir() -> Path:
    """The folder of the kit's files (the judge builds submissions against it)."""
    return KIT.files_dir


def compile_dummy(dest: Path) -> None:
    """Compile the Dummy into ``dest/AIDummy.o`` against the headers written there.

    Raises:
        KitError: g++ is missing or the compile failed (its message included).
    """
    compiler = shutil.which("g++")
    if compiler is None:
        raise KitError(
            f"the kit's files are in {dest}, but AIDummy.o was not made: g++ is not "
            "installed (Debian/Ubuntu: apt install g++ make); install it and run "
            f"lightcycle kit tron3d {dest} again"
        )
    out = dest / "AIDummy.o"
    argv = [compiler, *CXXFLAGS, "-c", f"-I{dest}", str(DUMMY_SOURCE), "-o", str(out)]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise KitError(f"cannot compile the Dummy into {out}: {exc}") from None
    if done.returncode != 0:
        raise KitError(
            f"cannot compile the Dummy into {out} (were Board.hh, Player.hh or Action.hh "
            f"edited? lightcycle kit tron3d {dest} --force restores them):\n"
            f"{done.stderr.strip()}"
        )


KIT = Kit(
    name="tron3d",
    title="the 3D course: C++ players (AI*.cc) on graph boards, make all, ./Game",
    next_steps=(
        "cd {dir}",
        "make all",
        "./Game Demo Dummy Dummy Dummy --board cube --seed 1 --output game.json",
        "lightcycle replay game.json",
        "cp AIDemo.cc AIWhatever.cc  (then set #define PLAYER_NAME Whatever)",
        "(the Dummy is {dir}/AIDummy.o, compiled for this machine; guide: docs/tron3d-kit.md)",
    ),
    finish=compile_dummy,
)
