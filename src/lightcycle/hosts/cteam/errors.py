"""The errors of the C team interface: each says what went wrong and what to do."""

from __future__ import annotations


class CTeamError(Exception):
    """A C team that cannot be built or played."""


class CompilerMissing(CTeamError):
    """``gcc`` is not installed (or not on ``PATH``)."""


class CompileError(CTeamError):
    """The C source does not compile; the message carries gcc's, with file:line.

    Attributes:
        source: the file given to gcc.
        output: what gcc wrote.
    """

    def __init__(self, message: str, source: str = "", output: str = "") -> None:
        super().__init__(message)
        self.source = source
        self.output = output


class LibraryError(CTeamError):
    """A team library that cannot be used (unreadable, or missing its functions)."""
