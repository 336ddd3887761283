"""The contest file of each course, shipped inside the package.

``pip install 'lightcycle[web]'`` installs no examples folder, so the judge carries one
ready contest file per course here (package data: the wheel takes every file of the
package) and ``lightcycle judge init COURSE FILE`` writes one out for the instructor to
edit. The files are read with `importlib.resources`, which works the same in an editable
install, a wheel and a zip.

Example: text = contest_text("tron3d")
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

COURSES: dict[str, str] = {
    "tron3d": "the 3D course: 4 cycles on 3D shapes, 2 s of CPU a game",
    "teams": "the team course: C functions (cteam), 5 s then 0.1 s a move",
    "classic": "the 2010 duel on walled maps (tron2010), 1 s a move",
    "torus": "the Scheme course: a duel on a torus (sexp, Guile), 1 s a move",
    "ffa": "the multi-player contest, 4 a game (aichallenge), 0.5 s a move",
}
"""Each course's name and its one-line description, in the order they are listed."""


class ContestTemplateError(Exception):
    """A course that does not exist, or a file that cannot be written (one line)."""


def contest_text(course: str) -> str:
    """The contest file of ``course`` (a key of `COURSES`), as shipped.

    Raises:
        ContestTemplateError: an unknown course (the message lists the known ones).
    """
    if course not in COURSES:
        raise ContestTemplateError(
            f"no course {course!r}; choose one of {', '.join(COURSES)} "
            "(lightcycle judge init --list)"
        )
    return resources.files(__name__).joinpath(f"{course}.toml").read_text(encoding="utf-8")


def write_contest(course: str, path: Path) -> None:
    """Write the contest file of ``course`` to ``path``, never over an existing file.

    Relative paths inside it (the database, the key file) are read from the folder of
    ``path`` when the judge loads it, so the judge's files land beside the written file.

    Raises:
        ContestTemplateError: an unknown course, an existing ``path``, or a folder that
            cannot be written.
    """
    text = contest_text(course)
    if path.is_dir():
        raise ContestTemplateError(f"{path} is a folder: give the contest file to write")
    try:
        with path.open("x", encoding="utf-8") as out:  # "x": refuse to overwrite
            out.write(text)
    except FileExistsError:
        raise ContestTemplateError(
            f"{path} exists: give another file name, or remove it first"
        ) from None
    except OSError as exc:
        raise ContestTemplateError(f"cannot write {path}: {exc.strerror}") from None
