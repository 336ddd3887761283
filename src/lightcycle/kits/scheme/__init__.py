"""The Scheme course's library: ``tron.scm``, its example brain and its seat runner.

``files/tron.scm`` is the course's Tron API (``define-tron-brain``, ``play-tron``,
``play-remote-tron``, the board utilities) for GNU Guile 3 and Chez Scheme 9.5;
``files/random-move-bot.scm`` is the document's example brain, ``files/flood-fill-bot.scm``
a stronger one (the judge's torus starter); ``files/seat.scm`` plays
a brain file as a referee's seat, speaking the course's protocol (``sexp``) on stdin and
stdout. `seat_command` is the command that runs it (``scheme:FILE.scm`` bot specs, the
judge's torus contest); it picks Guile, or Chez where Guile is missing or
``LIGHTCYCLE_SCHEME=chez`` asks for it. Standard library only (the kits' import-linter
contract), so the referee and the judge both use it. See docs/scheme.md.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from lightcycle.kits import Kit, KitError

__all__ = [
    "ENV",
    "IMPLEMENTATIONS",
    "KIT",
    "SchemeMissing",
    "defines_brain",
    "find_scheme",
    "library_dir",
    "seat_command",
    "split_brain_spec",
]

KIT = Kit(
    name="scheme",
    title="the Scheme course: define-tron-brain, play-tron, play-remote-tron (Guile 3, Chez)",
    next_steps=(
        "cd {dir}",
        "guile -l tron.scm -l random-move-bot.scm   # or: scheme tron.scm random-move-bot.scm",
        "then, at the prompt: (play-tron '(37 . 10) (make-outer-walls '(37 . 10)) "
        "'(1 . 1) '(35 . 8) random-move-bot random-move-bot)",
        "lightcycle play --map torus-20 --bots scheme:random-move-bot.scm,chaser",
        "flood-fill-bot.scm is a stronger brain to start from (it qualifies in the judge)",
        "docs/scheme.md has the rest: your own brain, lightcycle serve, the judge",
    ),
)

ENV = "LIGHTCYCLE_SCHEME"
"""The environment variable that picks the Scheme a seat runs on: ``guile`` or ``chez``."""

IMPLEMENTATIONS: dict[str, tuple[str, ...]] = {
    "guile": ("guile",),
    "chez": ("chezscheme", "chez", "scheme"),
}
"""The programs each Scheme may be installed as, in the order they are looked for
(Debian's Chez is ``scheme``, also ``chezscheme``)."""

INSTALL_HINT = (
    "install GNU Guile 3 (Debian, Ubuntu: sudo apt-get install guile-3.0; or "
    "scripts/install-guile) or Chez Scheme (sudo apt-get install chezscheme; or "
    "scripts/install-chez)"
)

_BRAIN = re.compile(r"\(\s*define-tron-brain\b")


class SchemeMissing(KitError):
    """No Scheme to run a brain on (the message says how to install one)."""


def library_dir() -> Path:
    """The folder of ``tron.scm`` and ``seat.scm`` this version ships (a seat's sandbox
    reads it)."""
    return KIT.files_dir


def find_scheme(choice: str | None = None, required: bool = True) -> tuple[str, str]:
    """The Scheme a seat runs on, as ``(implementation, program)`` (the program's name,
    found on the ``PATH``).

    Args:
        choice: ``guile`` or ``chez``; ``None``: ``$LIGHTCYCLE_SCHEME``, else Guile where
            it is installed, else Chez.
        required: ``False``: with none installed, say Guile all the same (a judge's
            build then fails saying that ``guile`` is missing, as a build does for any
            missing compiler).

    Raises:
        SchemeMissing: the one asked for, or both, are not installed; or an unknown choice.
    """
    wanted = (choice or os.environ.get(ENV, "")).strip().lower()
    if wanted and wanted not in IMPLEMENTATIONS:
        raise SchemeMissing(f"{ENV}={wanted!r}: expected guile or chez")
    for name in [wanted] if wanted else list(IMPLEMENTATIONS):
        for program in IMPLEMENTATIONS[name]:
            if shutil.which(program) is not None:
                return name, program
    if not required:
        return (wanted or "guile"), IMPLEMENTATIONS[wanted or "guile"][0]
    what = "Chez Scheme" if wanted == "chez" else "GNU Guile" if wanted == "guile" else None
    if what is not None:
        raise SchemeMissing(f"{what} is not installed (asked for by {ENV}): {INSTALL_HINT}")
    raise SchemeMissing(f"no Scheme to run the brain on: {INSTALL_HINT}")


def split_brain_spec(text: str) -> tuple[Path, str | None]:
    """``FILE.scm`` or ``FILE.scm:PROC`` (a ``scheme:`` spec without its prefix) as the
    file and the brain's name (``None``: the last brain the file defines)."""
    head, sep, proc = text.rpartition(":")
    if sep and head.endswith(".scm") and proc and ("/" not in proc):
        return Path(head), proc
    return Path(text), None


def defines_brain(source: str) -> bool:
    """Whether a Scheme file uses ``define-tron-brain`` (a brain, not a whole program
    speaking the protocol itself)."""
    return _BRAIN.search(source) is not None


def seat_command(
    brain: Path | str,
    proc: str | None = None,
    choice: str | None = None,
    library: Path | str | None = None,
    check: bool = False,
    required: bool = True,
) -> tuple[str, ...]:
    """The argv of a seat playing the brain file ``brain`` over ``sexp``.

    Args:
        brain: the student's file (made absolute where it is a path on this machine;
            ``{source}`` and other bare names are kept for the judge's commands).
        proc: the brain to play (``None``: the last one the file defines).
        choice: ``guile`` or ``chez`` (``None``: `find_scheme`'s choice).
        library: the folder of ``seat.scm`` and ``tron.scm`` as the command names it
            (``None``: `library_dir`; ``"."``: copied beside the brain, as the judge's
            build does).
        check: only load the file and say which brain it would play (a build's check).
        required: see `find_scheme`.

    Raises:
        SchemeMissing: no Scheme to run it on (where ``required``).
    """
    name, program = find_scheme(choice, required)
    if library is None:
        seat, tron = str(library_dir() / "seat.scm"), str(library_dir() / "tron.scm")
    elif str(library) == ".":
        seat, tron = "seat.scm", "tron.scm"
    else:
        seat, tron = str(Path(library) / "seat.scm"), str(Path(library) / "tron.scm")
    target = str(Path(brain).resolve()) if Path(brain).exists() else str(brain)
    head = (program, "--no-auto-compile") if name == "guile" else (program, "--script")
    tail = (*((proc,) if proc else ()), *(("--check",) if check else ()))
    return (*head, seat, tron, target, *tail)
