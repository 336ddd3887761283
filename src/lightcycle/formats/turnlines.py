"""JSON Lines turn streams: a header object on the first line, then one object per turn.

Training pipelines read games line by line (``for line in file: json.loads(line)``),
shuffle turns between games and never want to hold a whole replay in memory, so the
stream repeats on every line what a learner needs about that turn. This module knows
only the envelope: every line is one JSON object, the first says
``"format": "lightcycle-turns"`` with a supported ``"version"``, and turn line ``k``
(``k`` from 1) says ``"turn": k``. The fields inside, and what they must agree with, are
`lightcycle.replay.convert`'s business (see ``docs/replays.md``).
"""

from __future__ import annotations

import json
from typing import Any

from lightcycle.formats.errors import FormatError, json_error, show
from lightcycle.formats.gridtext import text_lines

FORMAT = "lightcycle-turns"
VERSION = 1


def parse_turn_lines(
    text: str, source: str = "<string>"
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Read a turn stream into its header and its turn objects (turn 1 first).

    Blank lines are skipped (a stream cut and pasted often ends in one), but the turns
    must be numbered 1, 2, ... in order, so a lost or repeated line is caught.

    Raises:
        FormatError: naming the line (and column, for JSON syntax) and what was expected.
    """
    header: dict[str, Any] | None = None
    turns: list[dict[str, Any]] = []
    for index, line in enumerate(text_lines(text)):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise json_error(source, exc, line=index + 1) from None
        if not isinstance(obj, dict):
            raise FormatError(source, index + 1, 1, "a JSON object", show(line.strip()))
        if header is None:
            _check_header(obj, source, index + 1)
            header = obj
            continue
        expected = len(turns) + 1
        if obj.get("turn") != expected:
            raise FormatError(
                source,
                index + 1,
                None,
                f'turn {expected} ("turn": {expected})',
                f"turn {obj.get('turn')!r}",
            )
        turns.append(obj)
    if header is None:
        raise FormatError(
            source, 1, None, f'a header line {{"format": "{FORMAT}", ...}}', "end of file"
        )
    return header, turns


def _check_header(obj: dict[str, Any], source: str, line: int) -> None:
    if obj.get("format") != FORMAT:
        raise FormatError(
            source,
            line,
            None,
            f'a header line {{"format": "{FORMAT}", "version": {VERSION}, ...}}',
            f"format {obj.get('format')!r}",
        )
    if obj.get("version") != VERSION:
        raise FormatError(
            source,
            line,
            None,
            f"version {VERSION} (this lightcycle reads version {VERSION}; upgrade it for newer)",
            f"version {obj.get('version')!r}",
        )


def format_turn_lines(header: dict[str, Any], turns: list[dict[str, Any]]) -> str:
    """Write a header and turn objects as a stream, one compact JSON object per line.

    Raises:
        ValueError: when the header does not name the format or the turns are not
            numbered 1, 2, ... (what `parse_turn_lines` would refuse).
    """
    if header.get("format") != FORMAT or header.get("version") != VERSION:
        raise ValueError(f'the header must start with "format": "{FORMAT}", "version": {VERSION}')
    for k, turn in enumerate(turns, start=1):
        if turn.get("turn") != k:
            raise ValueError(f"turn object {k} has turn {turn.get('turn')!r}")
    lines = [json.dumps(header, ensure_ascii=False, separators=(",", ":"))]
    lines += [json.dumps(t, ensure_ascii=False, separators=(",", ":")) for t in turns]
    return "\n".join(lines) + "\n"
