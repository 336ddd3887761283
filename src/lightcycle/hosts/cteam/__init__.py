"""The C interface of the team course: ``tron.h``, compiling a team, and its host process.

A student writes ``getName``, ``init(struct InitData *)`` and ``move(struct MoveData *)``
in C against ``tron.h`` (shipped in this package; `header_path`). `compile_team` builds
the file into a shared library, cached by content; `team_bot_command` gives the command
of the host process that plays it over ``jsonl``:
``python -m lightcycle.hosts.cteam LIBRARY.so`` (see `lightcycle.hosts.cteam.host`).
The library runs in that host process, never in the referee.

See ``docs/cteam.md``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from lightcycle.hosts.cteam.errors import CompileError, CompilerMissing, CTeamError, LibraryError
from lightcycle.hosts.cteam.symbols import TeamFunctions, find_team_functions

__all__ = [
    "CFLAGS",
    "COMPILER",
    "CTeamError",
    "CompileError",
    "CompilerMissing",
    "LibraryError",
    "TeamFunctions",
    "cache_dir",
    "compile_team",
    "header_path",
    "team_bot_command",
]

COMPILER = "gcc"
"""The compiler the course uses."""

CFLAGS = ("-shared", "-fPIC", "-O2", "-std=c11")
"""The flags a team is compiled with (plus ``-I`` the header's folder and ``-lm``)."""

COMPILE_TIMEOUT = 120.0
"""Seconds gcc may take for one file."""


def header_path() -> Path:
    """The ``tron.h`` this version of lightcycle ships."""
    return Path(__file__).resolve().with_name("tron.h")


def cache_dir() -> Path:
    """Where compiled teams are kept: ``$XDG_CACHE_HOME/lightcycle/cteam`` (or ~/.cache)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    return root / "lightcycle" / "cteam"


def _gcc() -> str:
    gcc = shutil.which(COMPILER)
    if gcc is None:
        raise CompilerMissing(
            f"{COMPILER} is not installed (or not on PATH): install it to build C teams, "
            f"e.g. `sudo apt install gcc` (Debian, Ubuntu) or `sudo dnf install gcc` (Fedora)"
        )
    return gcc


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            argv,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=COMPILE_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise CompileError(f"{argv[0]} took more than {COMPILE_TIMEOUT:.0f} s") from None
    except OSError as exc:
        raise CompilerMissing(f"cannot run {argv[0]}: {exc.strerror}") from None


def _cache_key(gcc: str, source: Path, flags: list[str]) -> str:
    """A hash of what decides the library: the compiler, the flags, the preprocessed source.

    Preprocessing (``gcc -E``) takes in ``tron.h`` and every other header the source
    includes, so editing any of them makes a new library, while moving the file does not.
    """
    version = _run([gcc, "--version"])
    pre = _run([gcc, "-E", "-P", *flags, str(source)])
    if pre.returncode != 0:
        raise CompileError(
            f"{COMPILER} could not compile {source}:\n{pre.stderr.strip()}",
            str(source),
            pre.stderr,
        )
    h = hashlib.sha256()
    for part in (version.stdout, "\0".join(flags), pre.stdout):
        h.update(part.encode("utf-8", "replace"))
        h.update(b"\0\0")
    return h.hexdigest()[:32]


def compile_team(source: Path, out_dir: Path | None = None) -> Path:
    """Compile a team's C file into a shared library, or reuse the one already built.

    Runs ``gcc -shared -fPIC -O2 -std=c11 -I<tron.h's folder> SOURCE -o LIB.so -lm`` into
    ``out_dir`` (default `cache_dir`), naming the library by a hash of the compiler, the
    flags and the preprocessed source (``tron.h`` and the other headers included), so an
    unchanged team is not compiled again. gcc's warnings go to stderr. Then checks that
    the library defines the team functions.

    Args:
        source: the C file.
        out_dir: the folder for libraries (tests pass a temporary one).

    Returns:
        The path of the library.

    Raises:
        CompilerMissing: gcc is not installed.
        CompileError: gcc refused the file; the message holds gcc's (``file:line: error``).
        LibraryError: the library lacks ``getName``/``init``/``move`` (or a prefixed set).
        CTeamError: the source file does not exist.
    """
    if not source.is_file():
        raise CTeamError(f"C source {source} not found")
    gcc = _gcc()
    flags = [*CFLAGS, f"-I{header_path().parent}"]
    out = out_dir if out_dir is not None else cache_dir()
    lib = out / f"{_cache_key(gcc, source, flags)}.so"
    if not lib.is_file():
        out.mkdir(parents=True, exist_ok=True)
        tmp = lib.with_name(f"{lib.stem}.{os.getpid()}.tmp")
        try:
            done = _run([gcc, *flags, str(source), "-o", str(tmp), "-lm"])
            if done.returncode != 0:
                raise CompileError(
                    f"{COMPILER} could not compile {source}:\n{done.stderr.strip()}",
                    str(source),
                    done.stderr,
                )
            if done.stderr.strip():
                sys.stderr.write(done.stderr)
            os.replace(tmp, lib)
        finally:
            tmp.unlink(missing_ok=True)
    find_team_functions(lib, label=str(source))
    return lib


def team_bot_command(source: Path, out_dir: Path | None = None) -> tuple[str, ...]:
    """The argv of the host process that plays the team in ``source`` (compiled first).

    Raises:
        CTeamError: as `compile_team`.
    """
    lib = compile_team(source, out_dir)
    return (sys.executable, "-m", "lightcycle.hosts.cteam", str(lib))
