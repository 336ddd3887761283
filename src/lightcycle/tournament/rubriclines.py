"""Where a key of a rubric file is written: the line a `RubricError` points at.

``tomllib`` keeps no positions, so the parser (`lightcycle.tournament.rubricparse`) asks
`KeyLines` for the line of a key it refuses, found by a forgiving textual search of the
rubric's TOML (the right table, the n-th ``[[series]]``, the n-th row of a series).
"""

from __future__ import annotations

import re


class KeyLines:
    """Finds where a key is written, since ``tomllib`` keeps no positions.

    The search is textual and forgiving: it narrows to the right table (the n-th
    ``[[series]]``, the n-th row of a series) and returns the first line that assigns the
    key there. When it cannot tell, it returns the best enclosing line, or 0.
    """

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.series = [i for i, ln in enumerate(self.lines) if _header(ln) == "[[series]]"]
        first_header = next((i for i, ln in enumerate(self.lines) if _header(ln)), None)
        self.top_end = first_header if first_header is not None else len(self.lines)

    def _find(self, key: str, start: int, end: int) -> int:
        pattern = re.compile(rf'(^|[{{,\s])("?){re.escape(key)}\2\s*=')
        for i in range(start, min(end, len(self.lines))):
            if pattern.search(_strip_comment(self.lines[i])):
                return i + 1
        return 0

    def _table(self, name: str) -> tuple[int, int] | None:
        for i, ln in enumerate(self.lines):
            if _header(ln) == f"[{name}]":
                return i, self._next_header(i + 1)
        return None

    def _next_header(self, start: int) -> int:
        for i in range(start, len(self.lines)):
            if _header(self.lines[i]):
                return i
        return len(self.lines)

    def top(self, key: str) -> int:
        """The line of a top-level key (or of its ``[key]`` table header)."""
        found = self._find(key, 0, self.top_end)
        if found:
            return found
        table = self._table(key)
        return table[0] + 1 if table is not None else 0

    def in_table(self, table: str, key: str) -> int:
        """The line of ``key`` in the top-level table ``[table]``."""
        span = self._table(table)
        if span is None:
            return self.top(table)
        return self._find(key, span[0], span[1]) or span[0] + 1

    def series_span(self, k: int) -> tuple[int, int] | None:
        """The lines of the k-th ``[[series]]`` (header included, up to the next one)."""
        if k >= len(self.series):
            return None
        start = self.series[k]
        end = self.series[k + 1] if k + 1 < len(self.series) else len(self.lines)
        for i in range(start + 1, end):
            h = _header(self.lines[i])
            if h and not h.startswith(("[series.", "[[series.")):
                return start, i
        return start, end

    def series_header(self, k: int) -> int:
        """The line of the k-th ``[[series]]`` header (0 if not found)."""
        return self.series[k] + 1 if k < len(self.series) else 0

    def series_key(self, k: int, key: str) -> int:
        """The line of ``key`` in the k-th series, or of its header."""
        span = self.series_span(k)
        if span is None:
            return 0
        if key == "time":
            for i in range(span[0], span[1]):
                if _header(self.lines[i]) == "[series.time]":
                    return i + 1
        return self._find(key, span[0] + 1, span[1]) or span[0] + 1

    def series_time_key(self, k: int, key: str) -> int:
        """The line of a time key of the k-th series (in ``[series.time]`` or inline)."""
        span = self.series_span(k)
        if span is None:
            return 0
        return self._find(key, span[0] + 1, span[1]) or self.series_key(k, "time")

    def row(self, k: int, j: int, key: str | None = None) -> int:
        """The line of row ``j`` of series ``k`` (of ``key`` in it, when found)."""
        span = self.series_span(k)
        if span is None:
            return 0
        starts: list[int] = []
        in_rows = False
        for i in range(span[0] + 1, span[1]):
            line = _strip_comment(self.lines[i])
            if _header(line) == "[[series.rows]]":
                starts.append(i)
                continue
            if re.match(r"\s*rows\s*=", line):
                in_rows = True
                line = line.split("=", 1)[1]
            elif _header(line) or re.match(r"\s*[A-Za-z_\"]+\s*=", line):
                in_rows = False
            if in_rows:
                starts.extend([i] * line.count("{"))
        if j >= len(starts):
            return self.series_key(k, "rows")
        if key is None:
            return starts[j] + 1
        end = starts[j + 1] if j + 1 < len(starts) else span[1]
        if end == starts[j]:
            return starts[j] + 1  # several inline rows on one line: that line
        return self._find(key, starts[j], end) or starts[j] + 1


def _strip_comment(line: str) -> str:
    """The line without a trailing ``# comment`` (a ``#`` inside quotes is kept)."""
    quote: str | None = None
    for i, ch in enumerate(line):
        if quote is not None:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            return line[:i]
    return line


def _header(line: str) -> str:
    """The table header on ``line`` (``[[series]]``, ``[time]``), spaces removed, or ``""``."""
    s = _strip_comment(line).strip()
    if s.startswith("[") and s.endswith("]") and "=" not in s:
        return s.replace(" ", "")
    return ""
