"""The multi-player contest's match file: parameters, the map, ``no_moves``, ``moves``.

The contest server wrote one match file per game for its rankings and its match viewer::

    no_rows 3
    no_cols 6
    no_players 2
    usernames alice bob
    map
    %%%%%%
    %a..b%
    %%%%%%

    no_moves 2 1
    moves
        ew
        t

The part up to the last map row is a multi-player map (`lightcycle.formats.mpmap`) with
one more parameter, ``usernames`` (one word per player, in letter order). After the map:

``no_moves``
    how many moves each player made, one number per player.
``moves``
    then one string per player (each on its own line, or several on the ``moves`` line,
    separated by blanks): the player's moves in order, ``n``, ``e``, ``s`` or ``w``. A
    string may end with one letter saying how the player went out without moving:
    ``t`` timed out, ``i`` sent an invalid command, ``f`` failed to start (our reading of
    the contest's example, whose strings end in those letters). A player with
    ``no_moves`` 0 has no string.

Like the map format, the match format promised to grow, so unknown ``key value``
parameters are accepted where parameters stand (before ``map``, and between the map and
``moves``) and kept in order, so a file is rewritten without losing them. After the move
strings only blank lines may follow: an extra string there is a mistake, not a
parameter. This module only turns text into a `MatchText` and back; what the moves
mean is `lightcycle.replay.convert`'s business.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lightcycle.formats.errors import FormatError, show
from lightcycle.formats.gridtext import GridText, check_param, text_lines
from lightcycle.formats.mpmap import format_mpmap, parse_mpmap

HEADINGS = "nesw"
ENDINGS = {"t": "timeout", "i": "invalid command", "f": "failed to start"}
"""The letters that may end a player's string, and what they stand for."""
USERNAMES = "usernames"
_TAIL_KEYS = ("no_moves", "moves")
_NOT_TAIL = (*_TAIL_KEYS, "map", "no_rows", "no_cols", "no_players", USERNAMES)
_NUMBER = re.compile(r"[0-9]{1,9}")
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class MatchText:
    """What a match file says.

    Attributes:
        grid: the map; its ``params`` are the parameters before ``map`` other than the
            three required ones, in file order (``usernames`` among them).
        moves: one string per player, in letter order (see the module docstring).
        lines: per player, the line its string was read from (0 when it has none or the
            object was not read from text), so later checks can point at a string.
        tail: unknown ``key value`` parameters between the map and ``moves``, in file
            order (written back after ``no_moves``' line, before ``moves``).

    Raises:
        ValueError: for fields the format cannot hold (a move string with a character
            other than ``nesw`` and a final ``t``/``i``/``f``, a string per player
            missing, a tail parameter that could not be read back).
    """

    grid: GridText
    moves: tuple[str, ...]
    tail: tuple[tuple[str, str], ...] = ()
    lines: tuple[int, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        if len(self.moves) != len(self.grid.starts):
            raise ValueError(f"{len(self.moves)} move strings for {len(self.grid.starts)} players")
        for p, moves in enumerate(self.moves):
            body = moves[:-1] if moves and moves[-1] in ENDINGS else moves
            if any(ch not in HEADINGS for ch in body):
                raise ValueError(
                    f"player {p + 1}: moves {moves!r} are not n/e/s/w with an optional final "
                    "t, i or f"
                )
        for key, value in self.tail:
            check_param(key, value)
            if key in _NOT_TAIL:
                raise ValueError(f"tail parameter {key!r} is written by the format itself")

    @property
    def usernames(self) -> tuple[str, ...] | None:
        """The ``usernames`` words, or ``None`` when the file has none."""
        raw = self.grid.param(USERNAMES)
        return None if raw is None else tuple(raw.split())


def map_section(text: str) -> str:
    """The part of a match file that is a multi-player map: up to its last map row.

    `lightcycle.replay.convert` reads this part with the map reader (so its metadata
    parameters and their errors keep their line numbers); when the parameters are too
    broken to find the map's end, the whole text comes back and the map reader reports
    the problem.
    """
    lines = text_lines(text)
    rows: int | None = None
    for index, line in enumerate(lines):
        words = line.split(None, 1)
        if not words:
            continue
        if words[0] == "map":
            if rows is None:
                return text
            return "".join(row + "\n" for row in lines[: index + 1 + rows])
        if words[0] == "no_rows" and len(words) == 2 and _NUMBER.fullmatch(words[1].strip()):
            rows = int(words[1].strip())
    return text


def parse_match(text: str, source: str = "<string>") -> MatchText:
    """Read a match file.

    Raises:
        FormatError: at the first problem, with its line, column and what was expected.
    """
    head = map_section(text)
    grid = parse_mpmap(head, source)
    lines = text_lines(text)
    start = len(text_lines(head))
    players = len(grid.starts)
    _check_usernames(grid, head, source, players)

    tail: list[tuple[str, str]] = []
    counts: list[int] | None = None
    counts_line = 0
    strings: list[str] = []
    string_lines: list[int] = []
    wanted: list[int] = []  # players with at least one move, in order
    index = start
    while index < len(lines):
        line = lines[index]
        words = list(_WORD.finditer(line))
        if not words:
            index += 1
            continue
        key = words[0].group()
        if key == "no_moves":
            if counts is not None:
                raise FormatError(
                    source,
                    index + 1,
                    words[0].start() + 1,
                    f"no_moves only once (it is already on line {counts_line})",
                    "a second 'no_moves'",
                )
            counts = _read_counts(words[1:], players, source, index + 1, len(line))
            counts_line = index + 1
            index += 1
            continue
        if key == "moves":
            if counts is None:
                raise FormatError(
                    source,
                    index + 1,
                    words[0].start() + 1,
                    "a 'no_moves' line before 'moves'",
                    "'moves'",
                )
            wanted = [p for p in range(players) if counts[p] > 0]
            index = _read_strings(
                lines, index, words[1:], wanted, counts, strings, string_lines, source
            )
            break
        value = line[words[1].start() :].rstrip() if len(words) > 1 else ""
        if key in _NOT_TAIL:
            raise FormatError(
                source,
                index + 1,
                words[0].start() + 1,
                "'no_moves', 'moves' or another parameter after the map",
                f"a second {key!r}",
            )
        tail.append((key, value))
        index += 1
    else:
        what = "a 'no_moves' line after the map" if counts is None else "a 'moves' line"
        raise FormatError(source, len(lines) + 1, None, what, "end of file")
    for after in range(index, len(lines)):
        extra = lines[after]
        if extra.strip():
            k = len(extra) - len(extra.lstrip())
            raise FormatError(
                source,
                after + 1,
                k + 1,
                f"end of file after the {len(wanted)} move strings",
                show(extra.strip()),
            )
    assert counts is not None
    moves = iter(strings)
    found = iter(string_lines)
    return MatchText(
        grid,
        tuple(next(moves) if counts[p] else "" for p in range(players)),
        tuple(tail),
        tuple(next(found) if counts[p] else 0 for p in range(players)),
    )


def _check_usernames(grid: GridText, head: str, source: str, players: int) -> None:
    from lightcycle.formats.mpmap import param_position

    names = grid.param(USERNAMES)
    if names is None:
        return
    count = len(names.split())
    if count != players:
        line, column = param_position(head, USERNAMES) or (1, 1)
        raise FormatError(
            source,
            line,
            column,
            f"{players} usernames, one per player (no_players is {players})",
            f"{count} usernames",
        )


def _read_counts(
    words: list[re.Match[str]], players: int, source: str, line: int, end: int
) -> list[int]:
    counts: list[int] = []
    for w in words:
        if not _NUMBER.fullmatch(w.group()):
            raise FormatError(source, line, w.start() + 1, "a number of moves", show(w.group()))
        counts.append(int(w.group()))
    if len(counts) != players:
        column = words[players].start() + 1 if len(counts) > players else end + 1
        raise FormatError(
            source,
            line,
            column,
            f"{players} numbers after no_moves, one per player",
            f"{len(counts)} numbers",
        )
    return counts


def _read_strings(
    lines: list[str],
    index: int,
    first: list[re.Match[str]],
    wanted: list[int],
    counts: list[int],
    strings: list[str],
    string_lines: list[int],
    source: str,
) -> int:
    """Read the move strings of the ``wanted`` players, starting on the ``moves`` line.

    Returns:
        The index of the first line after the strings.
    """
    pending = [(index, w) for w in first]
    line_index = index + 1
    while len(strings) < len(wanted):
        if not pending:
            if line_index >= len(lines):
                p = wanted[len(strings)]
                raise FormatError(
                    source,
                    len(lines) + 1,
                    None,
                    f"a move string for player {p + 1} ({len(wanted)} strings after 'moves')",
                    "end of file",
                )
            pending = [(line_index, w) for w in _WORD.finditer(lines[line_index])]
            line_index += 1
            continue
        at, word = pending.pop(0)
        p = wanted[len(strings)]
        _check_string(word, p, counts[p], source, at + 1)
        strings.append(word.group())
        string_lines.append(at + 1)
        if not pending and len(strings) < len(wanted):
            continue
    if pending:
        at, word = pending[0]
        raise FormatError(
            source,
            at + 1,
            word.start() + 1,
            f"end of line after the {len(wanted)} move strings",
            show(word.group()),
        )
    return line_index


def _check_string(word: re.Match[str], player: int, count: int, source: str, line: int) -> None:
    text = word.group()
    for k, ch in enumerate(text):
        last = k == len(text) - 1
        if ch in HEADINGS or (last and ch in ENDINGS):
            continue
        expected = "a move n, e, s or w" + (" or a final t, i or f" if last else "")
        raise FormatError(source, line, word.start() + k + 1, expected, show(ch))
    if len(text) != count:
        raise FormatError(
            source,
            line,
            word.start() + 1,
            f"{count} moves for player {player + 1} (its no_moves)",
            f"{len(text)} moves",
        )


def format_match(match: MatchText) -> str:
    """Write ``match`` as a match file (``\\n`` line ends, final newline included)."""
    lines = [format_mpmap(match.grid).rstrip("\n"), ""]
    lines.append("no_moves " + " ".join(str(len(m)) for m in match.moves))
    for key, value in match.tail:
        lines.append(f"{key} {value}" if value else key)
    lines.append("moves")
    lines += ["\t" + m for m in match.moves if m]
    return "\n".join(lines) + "\n"
