"""The page an exported board sits on: a title, a legend, the turn and the result.

A PNG, SVG or GIF of a game is pasted into a chat or a course page, away from the replay,
so the picture itself has to say what it shows: which map, ruleset and seed (enough to
play the game again), which colour is which bot and how each is doing, which turn it is,
and who won. `caption` works out those words from a state; `layout` places them around a
board of a given size, from text widths measured by the caller (Pillow knows its font,
SVG guesses with `estimate_width`), so every image format draws the same page.

A GIF's frames must all be the same size, so `layout` takes every frame's caption and
reserves for each seat the room of its longest note: the legend never moves while the
notes change from "alive" to "out, turn 36".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lightcycle.core.state import GameState
from lightcycle.render import palette

TEXT = "#e5e7eb"
"""The colour of the title, names and result: light grey on the dark background."""
MUTED = "#9ca3af"
"""The colour of secondary words: the turn and each seat's note."""
MIN_WIDTH = 560
"""The narrowest page: a small board is centred on it, so the legend still fits in a row
or two."""
MARGIN = 16

Measure = Callable[[str, int], float]
"""``measure(text, size)``: how many pixels ``text`` takes at font ``size``."""


@dataclass(frozen=True)
class Seat:
    """One legend entry.

    Attributes:
        name: the seat's (team's) name.
        colour: its cycles' head colour.
        note: how it is doing: ``alive``, ``7/10 alive``, ``out, turn 36``, ``wins``...
        out: whether all its cycles are dead (the legend crosses its swatch out).
    """

    name: str
    colour: str
    note: str
    out: bool


@dataclass(frozen=True)
class Caption:
    """The words around one board.

    Attributes:
        title: ``map · ruleset · seed``.
        turn: ``turn 40 of 80``.
        seats: the legend, one entry per team.
        result: who won and why, once the game is over; ``""`` before.
    """

    title: str
    turn: str
    seats: tuple[Seat, ...]
    result: str


def caption(state: GameState, map_name: str = "", last_turn: int | None = None) -> Caption:
    """The words for ``state``: ``map_name`` (the state does not know its map's name) and
    the game's last turn (``turn 40 of 80``) are the caller's."""
    title = " · ".join(p for p in (map_name, state.ruleset.id, f"seed {state.seed}") if p)
    turn = f"turn {state.turn}" + (f" of {last_turn}" if last_turn is not None else "")
    scored = any(state.scores)
    outcome = state.outcome
    seats = []
    for team in state.teams:
        mine = [c for c in state.cycles if c.team == team.index]
        alive = sum(c.alive for c in mine)
        out = alive == 0 and bool(mine)
        parts = []
        if outcome is not None and outcome.winner == team.index:
            parts.append("wins")
        elif outcome is not None and outcome.winner is None and outcome.ranks[team.index] == 1:
            parts.append("draw")
        if out:
            died = max((c.death.turn for c in mine if c.death is not None), default=0)
            parts.append(f"out, turn {died}")
        elif len(mine) > 1:
            parts.append(f"{alive}/{len(mine)} alive")
        elif not parts:
            parts.append("alive")
        if scored and team.index < len(state.scores):
            parts.append(f"{state.scores[team.index]} pts")
        note = ", ".join(parts)
        seats.append(Seat(team.name, palette.head(team.index), note, out))
    return Caption(title, turn, tuple(seats), _result(state))


def _result(state: GameState) -> str:
    o = state.outcome
    if o is None:
        return ""
    names = [t.name for t in state.teams]
    if o.winner is not None:
        return f"{names[o.winner]} wins ({o.reason}, turn {o.turn})"
    firsts = [names[i] for i, r in enumerate(o.ranks) if r == 1]
    if len(firsts) == len(names):
        return f"Draw ({o.reason}, turn {o.turn})"
    return f"Draw between {', '.join(firsts)} ({o.reason}, turn {o.turn})"


@dataclass(frozen=True)
class Label:
    """A line of text.

    Attributes:
        x: where it starts (``anchor`` ``start``) or ends (``end``).
        y: its baseline.
        text: the words.
        size: the font size in pixels.
        colour: ``#rrggbb``.
        anchor: ``start`` or ``end``.
        tail: words that follow ``text`` after a space, in `MUTED` (a seat's note): drawn
            as one line, so a font wider than measured pushes them on rather than
            overlapping them.
    """

    x: float
    y: float
    text: str
    size: int
    colour: str
    anchor: str = "start"
    tail: str = ""


@dataclass(frozen=True)
class Swatch:
    """A legend square of a seat's colour, crossed out when the seat is out."""

    x: float
    y: float
    size: float
    colour: str
    out: bool


@dataclass(frozen=True)
class Page:
    """Where everything goes on an image.

    Attributes:
        width, height: the image in pixels.
        board_x, board_y: the top left corner of the board.
        title_size, text_size: font sizes of the title line and of the rest.
    """

    width: int
    height: int
    board_x: int
    board_y: int
    title_size: int
    text_size: int
    _title: tuple[float, float]
    _turn: tuple[float, float]
    _seats: tuple[tuple[float, float], ...]
    _result: tuple[float, float] | None

    def draw(self, cap: Caption) -> tuple[list[Label], list[Swatch]]:
        """The labels and swatches of ``cap`` on this page (one of the captions it was laid
        out for)."""
        t, s = self.title_size, self.text_size
        labels = [
            Label(*self._title, cap.title, t, TEXT),
            Label(*self._turn, cap.turn, t, MUTED, "end"),
        ]
        swatches = []
        for seat, (x, y) in zip(cap.seats, self._seats, strict=False):
            swatches.append(Swatch(x, y - s * 0.8, s * 0.9, seat.colour, seat.out))
            labels.append(Label(x + s * 1.4, y, seat.name, s, seat.colour, tail=seat.note))
        if self._result is not None and cap.result:
            labels.append(Label(*self._result, cap.result, s, TEXT))
        return labels, swatches


def layout(captions: Sequence[Caption], board_w: int, board_h: int, measure: Measure) -> Page:
    """Lay out a page for a ``board_w`` x ``board_h`` board and any of ``captions``.

    The title runs along the top with the turn at its right (on a line of its own when
    both do not fit), the legend flows below it in as many rows as it needs, then comes
    the board, then the result line if any caption has a result.
    """
    width = max(MIN_WIDTH, board_w + 2 * MARGIN)
    title_size = max(14, min(22, round(width / 32)))
    size = max(12, round(title_size * 0.75))
    inner = width - 2 * MARGIN
    y = MARGIN + title_size * 0.8
    title_w = max(measure(c.title, title_size) for c in captions)
    turn_w = max(measure(c.turn, title_size) for c in captions)
    title_at = (float(MARGIN), y)
    if title_w + turn_w + title_size > inner:
        y += title_size * 1.3
    turn_at = (float(width - MARGIN), y)
    y += title_size * 0.5 + size * 1.2
    seats: list[tuple[float, float]] = []
    x = float(MARGIN)
    gap = size * 1.6
    count = max(len(c.seats) for c in captions)
    for i in range(count):
        name_w = max(measure(c.seats[i].name, size) for c in captions if i < len(c.seats))
        note_w = max(measure(c.seats[i].note, size) for c in captions if i < len(c.seats))
        entry = size * 1.4 + name_w + measure(" ", size) + note_w
        if x > MARGIN and x + entry > width - MARGIN:
            x = float(MARGIN)
            y += size * 1.5
        seats.append((x, y))
        x += entry + gap
    y += size * 0.7
    board_y = round(y)
    y = board_y + board_h
    result_at = None
    if any(c.result for c in captions):
        result_at = (float(MARGIN), y + size * 1.4)
        y += size * 1.4
    height = round(y + MARGIN)
    return Page(
        width=width,
        height=height,
        board_x=(width - board_w) // 2,
        board_y=board_y,
        title_size=title_size,
        text_size=size,
        _title=title_at,
        _turn=turn_at,
        _seats=tuple(seats),
        _result=result_at,
    )


_NARROW = set("fijlrt.,:;'|!()[] ")
_WIDE = set("mwMW@%")


def estimate_width(text: str, size: int) -> float:
    """About how wide ``text`` is in a sans-serif font of ``size`` pixels, erring wide:
    an SVG's text is drawn by the viewer's font, unknown when the page is laid out."""
    units = 0.0
    for ch in text:
        if ch in _NARROW:
            units += 0.36
        elif ch in _WIDE:
            units += 0.95
        elif ch.isupper() or ch.isdigit():
            units += 0.72
        else:
            units += 0.62
    return units * size
