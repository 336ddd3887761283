"""Reading a configuration file's TOML tables with errors that name the line.

The tournament, the game server and the judge each read a TOML file of their own, and
each error must say where and what was expected in one line (``FILE, line N: [table]
key = value: expected ...``). TOML parsers keep no positions, so `line_for` finds a key's
line again in the text, and `toml_error` turns a syntax error into such a line.
`TomlReader` holds the file's text so any check can name
the line of the key it refuses; each configuration subclasses it with its own error type.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar


def _top_end(text: str) -> int:
    """The last line of the top level (before the first ``[table]``): where a missing
    top-level key belongs, so an error about it can still name a line."""
    header = re.compile(r"^\s*\[")
    last = 1
    for number, line in enumerate(text.splitlines(), start=1):
        if header.match(line):
            break
        if line.strip() and not line.lstrip().startswith("#"):
            last = number
    return last


def line_for(text: str, key: str, table: str | None = None) -> int:
    """The line an error about ``key`` points at: where it is set, else its table's
    header, else the end of the top level (where a missing key would go)."""
    line = _line_of(text, key, table)
    return line if line is not None else _top_end(text)


def _line_of(text: str, key: str, table: str | None = None) -> int | None:
    """The line (1-based) where ``key`` is set, in ``[table]`` or at the top level.

    TOML parsers do not keep positions, so errors about a value find its line again by
    reading the file as lines: good enough to send the reader to the right place.
    """
    current: str | None = None
    pattern = re.compile(rf"^\s*(\"{re.escape(key)}\"|{re.escape(key)})\s*=")
    header = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
    for number, line in enumerate(text.splitlines(), start=1):
        m = header.match(line)
        if m is not None:
            current = m.group(1)
            continue
        if current == table and pattern.match(line):
            return number
    if table is not None:
        for number, line in enumerate(text.splitlines(), start=1):
            m = header.match(line)
            if m is not None and m.group(1) == table:
                return number
    return None


_TOML_POSITION = re.compile(
    r"^(?P<what>.*?) \((?:at line (?P<line>\d+), column (?P<col>\d+)|at end of document)\)$"
)
_TOML_HINTS = {
    "Invalid value": (
        'expected a value: a "string", a number, true or false, a [list] or an { inline = table }'
    ),
    "Illegal character '\\n'": "expected the closing quote of the string on the same line",
    "Unclosed array": "expected ']' to close the list (and a ',' between its items)",
    "Unclosed inline table": "expected '}' to close the { inline table } on the same line",
    "Unterminated string": "expected the closing quote of the string on the same line",
    "Invalid statement": "expected key = value or a [table] header, e.g. rounds = 2",
    "Cannot overwrite": "expected each key once: this one is set twice",
    "Cannot declare": "expected each [table] once: this one is declared twice",
}
"""What to say after tomllib's messages that do not say what was expected."""


def _last_line(text: str) -> tuple[int, int]:
    """The last line with something on it and the column after its end (1-based).

    tomllib reports an error found at the very end of the document (an unclosed list, a
    key with no value on the last line) without a position: that is where it is.
    """
    lines = text.splitlines() or [""]
    number = len(lines)
    while number > 1 and not lines[number - 1].strip():
        number -= 1
    return number, len(lines[number - 1].rstrip()) + 1


def toml_error(path: Path, text: str, exc: tomllib.TOMLDecodeError) -> str:
    """A TOML syntax error as ``FILE, line N, column C: not valid TOML: ...; expected ...``.

    Every config error names the file and the line; tomllib puts the position in its
    message, except for errors at the end of the document, whose line is computed here.
    """
    message = str(exc)
    m = _TOML_POSITION.match(message)
    if m is None:  # a message this code does not know: keep it whole
        return f"{path}, line {_last_line(text)[0]}: not valid TOML: {message}"
    what = m.group("what")
    if m.group("line") is not None:
        line, col = int(m.group("line")), int(m.group("col"))
        place = ""
    else:
        line, col = _last_line(text)
        place = " at the end of the file"
    hint = next((h for k, h in _TOML_HINTS.items() if what.startswith(k)), None)
    detail = f"{what}{place}" + (f"; {hint}" if hint else "")
    return f"{path}, line {line}, column {col}: not valid TOML: {detail}"


class TomlReader:
    """The parsed file's text at hand, so that every error names its line.

    Attributes:
        error_type: the exception the errors are (a ``ValueError`` subclass whose message
            is one line); subclasses set their own.
    """

    error_type: ClassVar[type[ValueError]] = ValueError

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text

    def error(self, key: str, message: str, table: str | None = None) -> ValueError:
        """An error at the line of ``key`` (in ``table``)."""
        return self.error_type(f"{self.path}, line {line_for(self.text, key, table)}: {message}")

    def expect(self, table: str, key: str, got: Any, wanted: str) -> ValueError:
        """``[table] key = VALUE: expected WANTED`` (the value shortened to 60 characters)."""
        shown = json.dumps(got) if isinstance(got, str | int | float | bool | list) else "a table"
        if len(shown) > 60:
            shown = shown[:57] + "..."
        return self.error(key, f"[{table}] {key} = {shown}: expected {wanted}", table)

    def unknown(self, table: str | None, data: Mapping[str, Any], allowed: list[str]) -> None:
        """Refuse the first key of ``data`` that is not ``allowed``, listing those that are."""
        bad = sorted(set(data) - set(allowed))
        if bad:
            where = f" in [{table}]" if table else ""
            raise self.error(
                bad[0],
                f"unknown key {bad[0]!r}{where}; allowed: {', '.join(sorted(allowed))}",
                table,
            )

    def table(self, data: Mapping[str, Any], key: str, parent: str | None = None) -> dict[str, Any]:
        """The table ``key`` of ``data`` (empty when absent); anything else is refused."""
        value = data.get(key, {})
        if not isinstance(value, dict):
            name = f"{parent}.{key}" if parent else key
            raise self.error(key, f"{name} must be a table, e.g. [{name}]", parent)
        return value
