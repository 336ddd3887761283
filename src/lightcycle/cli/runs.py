"""What the commands that play series (match, duel, grade) share: their output folder,
their exit status after a Ctrl-C, and their counted nouns.

Results are never written over: a run writes into a folder of its own, a default folder
is made unique even for two runs started in the same second, and a folder the user names
must be new or empty, since old replays beside a new ``results.json`` would be read as
one run.
"""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

INTERRUPTED = 130
"""Exit status after a Ctrl-C (128 + SIGINT), as shells report an interrupted program."""


class RunOptionError(ValueError):
    """An option value no run can use (``duel --games 3``), found before anything runs.

    One of the project's input errors: `lightcycle.cli.common.user_errors` prints it as
    one red line, unlike Typer's usage box.
    """


class OutputFolderError(RunOptionError):
    """An output folder that cannot be used: it holds earlier results, or is a file."""


def counted(n: int, noun: str) -> str:
    """``1 game``, ``2 games``: a count with its noun in the right number."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def check_free(out: Path, option: str = "--out") -> None:
    """Refuse ``out`` unless it is new or an empty folder.

    Raises:
        OutputFolderError: naming the folder and what to do instead.
    """
    if out.exists() and not out.is_dir():
        raise OutputFolderError(f"{option} {out} is a file; give a folder for the results")
    if out.is_dir() and any(out.iterdir()):
        raise OutputFolderError(
            f"{option} {out} is not empty and results are never written over earlier ones; "
            "choose another folder or delete this one"
        )


def claim_folder(out: Path | None, default: Path | None = None) -> tuple[Path | None, bool]:
    """The folder a run writes into, made now; and whether this call created it.

    Args:
        out: the folder the user named (new or empty, see `check_free`).
        default: without ``out``, where to write: made unique by adding ``-2``, ``-3``...
            when taken, atomically (``mkdir`` fails on a folder that exists, so two runs
            started at once never share one). ``None``: nothing is written.

    Raises:
        OutputFolderError: ``out`` holds earlier results or is a file.
    """
    if out is not None:
        check_free(out)
        try:
            out.mkdir(parents=True)
        except FileExistsError:
            check_free(out)  # made by someone else meanwhile: still usable if empty
            return out, False
        return out, True
    if default is None:
        return None, False
    default.parent.mkdir(parents=True, exist_ok=True)
    for k in itertools.count(1):
        path = default if k == 1 else default.with_name(f"{default.name}-{k}")
        try:
            path.mkdir()
        except FileExistsError:
            continue
        return path, True
    raise AssertionError("unreachable")  # pragma: no cover


def release_folder(path: Path, created: bool) -> None:
    """Undo `claim_folder` for a run that failed before its first game finished.

    A folder this run created goes; a folder that was empty before is emptied again. So
    a mistake found when a bot starts (a missing program) leaves nothing behind.
    """
    if created:
        shutil.rmtree(path, ignore_errors=True)
        return
    for child in path.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)
