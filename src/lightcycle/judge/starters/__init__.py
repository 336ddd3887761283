"""A starting point for every course's contest in every language it accepts.

A student who opens a contest's page should not start from an empty file: each course
gets one short, commented bot per language, which the judge accepts as it is (it
builds, survives its self-play game and wins its qualifying games against the contest's
reference bot; ``tests/judge/service/test_starters.py`` submits every one). The files
live here, in the package, one folder per course (``classic/bot.c``, ``tron3d/bot.py``
...), because the judge's website serves them (``/starters/LANGUAGE``) from an installed
package, which has no ``examples/`` folder; two courses' starters are their kits' own
examples (the Scheme course's ``flood-fill-bot.scm``, the 3D course's ``AIDemo.cc``),
served from the kit's files rather than copied.

Starters belong to a ruleset, not to a contest file, so an instructor's own contest file
with the ``classic@1`` ruleset gets the classic course's starters. A starter that speaks
a protocol is offered only where the contest's ``[validation] protocol`` is that one
(a ``tron2010`` bot would fail a ``classic@1`` contest played over ``jsonl``).

Example: [s.filename for s in starters_for("tron3d@1", ["python", "c", "cpp"], "jsonl")]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources

__all__ = ["STARTERS", "Starter", "ruleset_name", "starters_for"]


@dataclass(frozen=True)
class Starter:
    """One starting file.

    Attributes:
        language: the contest language it is submitted as (``python``, ``cpp``...).
        filename: the name to save it under (and to upload it as).
        about: one line for the contest's page: what it is and how it plays.
        protocol: the protocol it speaks, or ``None`` where the judge runs it through a
            host that speaks one for it (a Python ``Bot`` class, the team course's C
            functions, a Scheme brain, a 3D kit player).
        package: the package whose data holds the file.
        path: the file's path inside that package.
    """

    language: str
    filename: str
    about: str
    protocol: str | None
    package: str = __name__
    path: str = ""

    def text(self) -> str:
        """The file's text (`importlib.resources`: an editable install, a wheel, a zip)."""
        return resources.files(self.package).joinpath(self.path).read_text(encoding="utf-8")

    def exists(self) -> bool:
        """Whether the file is shipped (a kit's example is another package's data)."""
        try:
            return resources.files(self.package).joinpath(self.path).is_file()
        except ModuleNotFoundError:
            return False


def _own(course: str, language: str, filename: str, about: str, protocol: str | None) -> Starter:
    return Starter(language, filename, about, protocol, __name__, f"{course}/{filename}")


STARTERS: dict[str, tuple[Starter, ...]] = {
    "classic": (
        _own("classic", "python", "bot.py", "the tron2010 protocol; flood fill", "tron2010"),
        _own("classic", "c", "bot.c", "the tron2010 protocol; flood fill", "tron2010"),
        _own("classic", "cpp", "bot.cpp", "the tron2010 protocol; flood fill", "tron2010"),
    ),
    "ffa": (
        _own("ffa", "python", "bot.py", "the aichallenge protocol; land race", "aichallenge"),
        _own("ffa", "c", "bot.c", "the aichallenge protocol; land race", "aichallenge"),
        _own("ffa", "cpp", "bot.cpp", "the aichallenge protocol; land race", "aichallenge"),
    ),
    "teams": (
        _own("teams", "c", "bot.c", "the course's C functions (tron.h); flood fill", None),
        _own("teams", "python", "bot.py", "a Python Bot class; flood fill", None),
    ),
    "torus": (
        Starter(
            "scheme",
            "flood-fill-bot.scm",
            "a brain of the course's library (define-tron-brain): the most cells reached "
            "first; from the Scheme kit",
            None,
            "lightcycle.kits.scheme",
            "files/flood-fill-bot.scm",
        ),
        _own("torus", "python", "bot.py", "the sexp protocol; land race", "sexp"),
    ),
    "tron3d": (
        _own("tron3d", "python", "bot.py", "a Python Bot class; land race, items", None),
        _own("tron3d", "c", "bot.c", "the jsonl protocol on graph boards; land race", "jsonl"),
        Starter(
            "cpp",
            "AIDemo.cc",
            "the course's demo player (Player, Board, Action), from the 3D kit",
            None,
            "lightcycle.kits.tron3d",
            "files/AIDemo.cc",
        ),
        _own("tron3d", "cpp", "bot.cpp", "a whole program: jsonl on graph boards", "jsonl"),
    ),
}
"""Each ruleset's starters (by its name: ``classic`` for ``classic@1``), in the order a
contest's page lists them; a language's first one is its ``/starters/LANGUAGE``."""


def ruleset_name(ruleset: str) -> str:
    """The name of a contest's ruleset, whatever the file calls it (``classic@1``,
    ``classic``, an alias such as ``duel``): the key of `STARTERS`."""
    from lightcycle.rules.variants import get_ruleset

    try:
        return get_ruleset(ruleset).name
    except (KeyError, ValueError):
        return ruleset.split("@")[0]


def starters_for(ruleset: str, languages: Iterable[str], protocol: str) -> list[Starter]:
    """The starters a contest offers: those of its ruleset, in its allowed languages (in
    the order the contest lists them), speaking its protocol or needing none, and shipped.

    Args:
        ruleset: the contest's ruleset (``tron3d@1``; an alias works too).
        languages: the contest's allowed languages.
        protocol: the contest's ``[validation] protocol``.
    """
    mine = STARTERS.get(ruleset_name(ruleset), ())
    return [
        s
        for language in languages
        for s in mine
        if s.language == language and s.protocol in (None, protocol) and s.exists()
    ]
