"""The shell commands the documents show, read from their fenced code blocks.

A reader copies a command from the README or docs/ and expects it to work, so the doc
test runs every one of them. This module finds them: pure text handling, no I/O beyond
reading the documents, so its rules can be tested on small samples.

The rules, which decide what counts as a command:

- Only fenced blocks (```` ``` ````) are read; a block's info string says what it holds.
  ``bash``, ``sh``, ``shell`` and ``console`` blocks hold commands: every line that is not
  blank and not a ``#`` comment is one. A bare block (no info string) holds anything
  (transcripts, error messages, maps, protocol dialogues): there a line is a command only
  when its first word is a program the documents tell readers to run (``lightcycle``,
  ``python``, ``cc``, ...) or a path to one (``./bot``, ``/tmp/playout``). Blocks of any
  other language (``python``, ``toml``, ...) hold no commands.
- A line ending in ``\\`` continues on the next one; the pieces are joined with a space.
- A block with ``$ `` prompts is a transcript: only the prompted lines are commands, the
  rest is their output.
- A trailing ``# comment`` (a ``#`` after a blank, outside quotes) is no part of the
  command.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SHELL_INFO = frozenset({"bash", "sh", "shell", "console"})
"""Info strings of blocks whose every line is a command."""

PROGRAMS = frozenset({"lightcycle", "python", "python3", "pip", "cc", "gcc", "bash", "ray"})
"""First words that make a line of a bare block a command."""

DOCUMENT_GLOBS = ("README.md", "docs/*.md", "bench/README.md", "examples/**/*.md")
"""The documents a reader follows, relative to the repository root."""

_FENCE = re.compile(r"^\s*```(?P<info>[^`]*)$")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S*$")
_PATH = re.compile(r"^\.?/[A-Za-z0-9_]")


@dataclass(frozen=True)
class Command:
    """One documented command: where it starts and its text as a shell would get it."""

    document: str
    """The document's path relative to the repository root, with ``/`` separators."""
    line: int
    """The 1-based line the command starts on."""
    text: str
    """The command, continuations joined, comment and prompt removed, blanks collapsed."""

    @property
    def where(self) -> str:
        """``document:line``, as test ids and messages name it."""
        return f"{self.document}:{self.line}"


@dataclass(frozen=True)
class Block:
    """A fenced block's commands, which run in order: later ones may use earlier output."""

    document: str
    line: int
    """The 1-based line of the opening fence."""
    commands: tuple[Command, ...]

    @property
    def where(self) -> str:
        """``document:line`` of the opening fence."""
        return f"{self.document}:{self.line}"


def strip_comment(line: str) -> str:
    """The line without a trailing shell comment (``#`` after a blank, outside quotes)."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


def normalise(text: str) -> str:
    """A command's canonical text: blanks collapsed, so alignment never matters."""
    return " ".join(text.split())


def _logical_lines(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Join ``\\`` continuations; each result keeps the line number it started on."""
    joined: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for number, raw in lines:
        text = raw.rstrip()
        if pending is not None:
            number, text = pending[0], pending[1] + " " + text.strip()
        if text.endswith("\\"):
            pending = (number, text[:-1].rstrip())
            continue
        pending = None
        joined.append((number, text))
    if pending is not None:
        joined.append(pending)
    return joined


def _is_program(text: str) -> bool:
    """Whether a bare block's line starts with a program a reader runs."""
    words = text.split()
    while words and _ASSIGNMENT.match(words[0]):
        words = words[1:]  # VAR=value prefixes
    if not words:
        return False
    first = words[0]
    return first in PROGRAMS or first.startswith("scripts/") or bool(_PATH.match(first))


def _block_commands(document: str, info: str, lines: list[tuple[int, str]]) -> list[Command]:
    logical = _logical_lines(lines)
    transcript = any(text.lstrip().startswith("$ ") for _, text in logical)
    commands = []
    for number, raw in logical:
        text = raw.strip()
        if transcript:
            if not text.startswith("$ "):
                continue
            text = text[2:]
        text = strip_comment(text).strip()
        if not text or text.startswith("#"):
            continue
        if info not in SHELL_INFO and not _is_program(text):
            continue
        commands.append(Command(document, number, normalise(text)))
    return commands


def blocks_in(document: str, markdown: str) -> list[Block]:
    """The fenced blocks of one document that hold at least one command."""
    blocks: list[Block] = []
    inside: tuple[int, str] | None = None
    body: list[tuple[int, str]] = []
    for number, line in enumerate(markdown.splitlines(), start=1):
        fence = _FENCE.match(line)
        if inside is None:
            if fence:
                inside, body = (number, fence["info"].strip().lower()), []
            continue
        if fence and not fence["info"].strip():
            start, info = inside
            inside = None
            if info == "" or info in SHELL_INFO:
                commands = _block_commands(document, info, body)
                if commands:
                    blocks.append(Block(document, start, tuple(commands)))
            continue
        body.append((number, line))
    return blocks


def documents(root: Path) -> list[Path]:
    """The documents under ``root`` that the doc test reads, in a stable order."""
    found = {path for pattern in DOCUMENT_GLOBS for path in root.glob(pattern)}
    return sorted(found)


def documented_blocks(root: Path) -> list[Block]:
    """Every block with commands in every document under ``root``."""
    blocks: list[Block] = []
    for path in documents(root):
        name = path.relative_to(root).as_posix()
        blocks.extend(blocks_in(name, path.read_text(encoding="utf-8")))
    return blocks
