"""Replays <-> the formats the field uses: JSON Lines turns, match files, tron-engine files.

The text codecs in `lightcycle.formats` only know syntax; this module knows what the moves
mean. Every reader re-simulates what it read through the rules and refuses a file whose
moves do not lead where the file says they lead (`CorruptReplayError`), so a converted or
imported game is never shown as if it were true. Every writer refuses, with the reason, a
game its format cannot hold (a torus in a tron-engine file, a jump in a match file),
rather than writing something that would read back as another game.

Formats (see ``docs/replays.md`` for every field):

``lightcycle``  ``.json``
    the versioned replay (`lightcycle.replay.model.Replay`); holds everything.
``jsonl``  ``.jsonl``
    a header line, then one line per turn with the moves, times, verdicts and the state
    after the turn (heads, alive, deaths, scores, items); holds everything, so a replay
    read back from it is byte-identical.
``match``  ``.match``
    the multi-player contest's match file: grid boards, one cycle per player, moves and
    forfeits (as ``t``/``i``/``f``), no times. lightcycle adds ``ruleset``, ``seed`` and
    ``settings`` parameters, which other readers ignore.
``marlboro``  ``.tron``
    the Marlboro tron-engine replay: ``classic@1`` duels on walled grids only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lightcycle.core.moves import Forfeit, Move
from lightcycle.core.state import GameState
from lightcycle.core.topology import GridTopology
from lightcycle.formats.ascii2010 import format_ascii2010, parse_ascii2010
from lightcycle.formats.errors import FormatError, show
from lightcycle.formats.gridtext import GridText, text_lines
from lightcycle.formats.marlboro import MarlboroGame, format_marlboro, parse_marlboro
from lightcycle.formats.matchfile import (
    ENDINGS,
    USERNAMES,
    MatchText,
    format_match,
    map_section,
    parse_match,
)
from lightcycle.formats.mpmap import param_position, parse_mpmap
from lightcycle.formats.turnlines import FORMAT as TURNS_FORMAT
from lightcycle.formats.turnlines import VERSION as TURNS_VERSION
from lightcycle.formats.turnlines import format_turn_lines, parse_turn_lines
from lightcycle.maps.io import map_from_text, map_to_ascii2010, map_to_mpmap
from lightcycle.maps.spec import MapError, MapSpec
from lightcycle.replay.model import (
    CorruptReplayError,
    Replay,
    ReplayError,
    Token,
    decode_move,
    outcome_to_dict,
)
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.variants import get_ruleset


class UnsupportedConversion(ReplayError):
    """A game that the target format cannot hold, with the reason."""


@dataclass(frozen=True)
class ReplayFormat:
    """One format `convert` reads and writes.

    Attributes:
        name: what ``--to`` takes.
        extension: the file extension that selects it (with the dot).
        description: one line for help texts.
        read: text and source name -> a verified `Replay`.
        write: `Replay` -> text.
    """

    name: str
    extension: str
    description: str
    read: Callable[[str, str], Replay]
    write: Callable[[Replay], str]


# -- facts about a state (the JSON Lines stream carries them) ----------------------------
def state_facts(state: GameState) -> dict[str, Any]:
    """What a learner wants to know about ``state`` without re-simulating: every cycle's
    head and whether it is alive, the scores, the items lying on the board."""
    return {
        "heads": [c.head for c in state.cycles],
        "alive": [c.alive for c in state.cycles],
        "scores": list(state.scores),
        "items": [[cell, kind] for cell, kind in state.items],
    }


def deaths_on(state: GameState) -> list[dict[str, Any]]:
    """The cycles that died on ``state``'s turn, with the cause."""
    return [
        {"cycle": c.index, "cause": c.death.cause.value, "detail": c.death.detail}
        for c in state.cycles
        if c.death is not None and c.death.turn == state.turn
    ]


def board_facts(state: GameState) -> dict[str, Any]:
    """The board's shape, so cell numbers can be read without the map: grids number cells
    ``y * width + x``; graph boards number their nodes as the map's OBJ text does."""
    topo = state.board.topology
    if isinstance(topo, GridTopology):
        return {"kind": "grid", "width": topo.width, "height": topo.height, "wrap": topo.wrap}
    return {"kind": "graph", "nodes": topo.size}


# -- JSON Lines ------------------------------------------------------------------------
def to_jsonl(replay: Replay) -> str:
    """The replay as a JSON Lines turn stream (see the module docstring)."""
    states = list(replay.states())
    first = states[0]
    header: dict[str, Any] = {
        "format": TURNS_FORMAT,
        "version": TURNS_VERSION,
        "ruleset": replay.ruleset,
        "settings": replay.settings,
        "map": {"id": replay.map_id, "text": replay.map_text},
        "seed": replay.seed,
        "seats": replay.seats,
        "board": board_facts(first),
        "cycles": [{"team": c.team, "name": c.name} for c in first.cycles],
        "start": state_facts(first),
    }
    lines: list[dict[str, Any]] = []
    for t, tokens in enumerate(replay.turns, start=1):
        state = states[t]
        line: dict[str, Any] = {"turn": t, "moves": tokens}
        for key, rows in (
            ("times", replay.times),
            ("verdicts", replay.verdicts),
            ("cpu", replay.cpu),
            ("order", replay.orders),
        ):
            if rows is not None and t - 1 < len(rows):
                line[key] = rows[t - 1]
        line.update(state_facts(state))
        line["deaths"] = deaths_on(state)
        if state.outcome is not None and replay.outcome is not None:
            line["outcome"] = replay.outcome
        lines.append(line)
    return format_turn_lines(header, lines)


def _rows(turns: list[dict[str, Any]], key: str) -> list[Any] | None:
    """The ``key`` values of the leading turns that have one (``None`` if the first has
    none), the way `Replay.record` keeps its optional per-turn lists."""
    if not turns or key not in turns[0]:
        return None
    out = []
    for t in turns:
        if key not in t:
            break
        out.append(t[key])
    return out


def from_jsonl(text: str, source: str = "<string>") -> Replay:
    """Read a JSON Lines turn stream back into a verified replay.

    Besides the outcome, every turn's stated heads, alive flags, scores, items and deaths
    must be what re-simulating gives, because a learner trusts those lines directly.

    Raises:
        FormatError: for a malformed stream.
        CorruptReplayError: naming the line whose facts the moves do not produce.
    """
    header, turns = parse_turn_lines(text, source)
    line_of = _line_numbers(text)
    try:
        m = header["map"]
        ending = next((t["outcome"] for t in turns if "outcome" in t), None)
        orders = _rows(turns, "order")
        replay = Replay(
            ruleset=str(header["ruleset"]),
            settings=dict(header.get("settings") or {}),
            map_id=str(m["id"]),
            map_text=str(m["text"]),
            seed=int(header["seed"]),
            seats=[dict(s) for s in header["seats"]],
            turns=[list(t["moves"]) for t in turns],
            outcome=ending,
            times=_rows(turns, "times"),
            verdicts=_rows(turns, "verdicts"),
            cpu=_rows(turns, "cpu"),
            orders=orders,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ReplayError(f"{source}:{line_of[0]}: missing or malformed field: {exc}") from None
    states = replay.states()
    final: GameState | None = None
    for k in range(len(turns) + 1):
        where = f"{source}:{line_of[k]}"
        try:
            state = next(states)
        except ReplayError as exc:
            raise type(exc)(f"{where}: {exc}") from None
        stated = header.get("start", {}) if k == 0 else turns[k - 1]
        for key, value in state_facts(state).items():
            if key in stated and stated[key] != value:
                raise CorruptReplayError(
                    f"{where}: turn {k}: the line says {key} {stated[key]}, re-simulating "
                    f"the moves gives {value}"
                )
        if k and "deaths" in stated and stated["deaths"] != deaths_on(state):
            raise CorruptReplayError(
                f"{where}: turn {k}: the line says deaths {stated['deaths']}, re-simulating "
                f"the moves gives {deaths_on(state)}"
            )
        if state.outcome is not None and k < len(turns):
            raise CorruptReplayError(
                f"{source}:{line_of[k + 1]}: moves recorded after the game ended on turn {k}"
            )
        final = state
    assert final is not None
    where = f"{source}:{line_of[-1]}"
    if final.outcome is None and replay.outcome is not None:
        raise CorruptReplayError(
            f"{where}: the moves stop at turn {final.turn} before the game ends, but the "
            f"stream states an outcome"
        )
    if final.outcome is not None:
        got = outcome_to_dict(final)
        if replay.outcome is None:
            raise CorruptReplayError(
                f"{where}: the game ends on turn {final.turn}, but the line has no outcome"
            )
        if got != replay.outcome:
            raise CorruptReplayError(
                f"{where}: the line says the outcome is {replay.outcome.get('ranks')} "
                f"({replay.outcome.get('reason')}), re-simulating the moves gives "
                f"{got['ranks']} ({got['reason']})"
            )
    return replay


def _line_numbers(text: str) -> list[int]:
    """The 1-based line of the header and of every turn line (blank lines skipped)."""
    return [i + 1 for i, line in enumerate(text_lines(text)) if line.strip()]


# -- shared helpers for the grid formats -------------------------------------------------
def _play(
    replay: Replay,
    spec: MapSpec,
    tokens_for: Callable[[GameState, int], list[Token]],
) -> Replay:
    """Fill ``replay.turns`` by asking ``tokens_for(state, turn)`` until the game ends,
    then store the re-simulated outcome."""
    state = replay.initial_state()
    t = 0
    while state.outcome is None:
        t += 1
        tokens = tokens_for(state, t)
        moves: dict[int, Move | Forfeit] = {}
        for i, token in enumerate(tokens):
            m = decode_move(state, i, token)
            if m is not None:
                moves[i] = m
        replay.turns.append(tokens)
        state = step(state, moves)
    replay.finish(state)
    return replay


def _one_cycle_grid(replay: Replay, target: str) -> tuple[MapSpec, GameState]:
    spec = replay.map_spec()
    first = replay.initial_state()
    if not isinstance(spec.topology, GridTopology):
        raise UnsupportedConversion(
            f"the {target} format holds grid boards; this game is on a {spec.topology.describe()}"
        )
    if len(first.cycles) != len(first.teams):
        raise UnsupportedConversion(
            f"the {target} format holds one cycle per player; this game has "
            f"{len(first.cycles)} cycles for {len(first.teams)} players"
        )
    return spec, first


def _heading_letter(token: Token, turn: int, cycle: int, target: str) -> str | None:
    """``n``/``e``/``s``/``w`` for a plain move, ``None`` for a forfeit."""
    if isinstance(token, str) and token in "nesw" and len(token) == 1:
        return token
    if isinstance(token, dict) and "forfeit" in token:
        return None
    raise UnsupportedConversion(
        f"turn {turn}: cycle {cycle}'s move {token!r} cannot be written in the {target} "
        "format (it holds n/e/s/w moves and forfeits only)"
    )


def _finished(replay: Replay, target: str) -> dict[str, Any]:
    if replay.outcome is None:
        raise UnsupportedConversion(f"the {target} format holds finished games only")
    return replay.outcome


# -- the tron-engine replay --------------------------------------------------------------
MARLBORO_RULESET = "classic@1"
FORFEIT_MARK = "no valid move"


def to_marlboro(replay: Replay) -> str:
    """The replay as a Marlboro tron-engine file.

    Raises:
        UnsupportedConversion: unless the game is a finished ``classic@1`` duel with
            default settings on a walled grid (all the format can say).
    """
    if replay.ruleset != MARLBORO_RULESET:
        raise UnsupportedConversion(
            f"the tron-engine format holds {MARLBORO_RULESET} duels; this game is "
            f"{replay.ruleset} (convert to lightcycle, jsonl or match instead)"
        )
    defaults = get_ruleset(MARLBORO_RULESET).settings.to_dict()
    if replay.settings and replay.settings != defaults:
        raise UnsupportedConversion(
            "the tron-engine format has no place for settings; this game changed "
            + ", ".join(k for k in replay.settings if replay.settings[k] != defaults.get(k))
        )
    spec, _ = _one_cycle_grid(replay, "tron-engine")
    outcome = _finished(replay, "tron-engine")
    try:
        grid = parse_ascii2010(map_to_ascii2010(spec))
    except MapError as exc:
        raise UnsupportedConversion(str(exc)) from None
    pairs: list[tuple[str, str]] = []
    for t, tokens in enumerate(replay.turns, start=1):
        chars = [_heading_letter(tok, t, i, "tron-engine") for i, tok in enumerate(tokens)]
        pairs.append(((chars[0] or " ").upper(), (chars[1] or " ").upper()))
    winner = outcome.get("winner")
    result = "D" if winner is None else str(int(winner) + 1)
    names = tuple(
        _one_line(s.get("name", f"Player {i + 1}"), "|") for i, s in enumerate(replay.seats)
    )
    game = MarlboroGame(grid, (names[0], names[1]), tuple(pairs), result)
    return format_marlboro(game)


def from_marlboro(text: str, source: str = "<string>") -> Replay:
    """Read a tron-engine file into a verified ``classic@1`` replay.

    The map is named after the file: ``empty-room__felix__freebot__1.tron`` (the names the
    engine's tournaments gave) plays on ``empty-room``.

    Raises:
        FormatError: for a malformed file.
        CorruptReplayError: when the moves do not end the game with the stated result.
    """
    game = parse_marlboro(text, source)
    stem = Path(source).stem.split("__")[0] if not source.startswith("<") else "tron-engine"
    spec = map_from_text(format_ascii2010(game.grid), source=source, name=stem or "tron-engine")
    rs = get_ruleset(MARLBORO_RULESET)
    state = new_game(rs, spec, seed=0, players=2, names=list(game.names))
    replay = Replay.start(state, spec, [{"name": n, "bot": n} for n in game.names])
    result_line = len(text_lines(text))

    def tokens_for(state: GameState, t: int) -> list[Token]:
        if t > len(game.moves):
            raise CorruptReplayError(
                f"{source}:{result_line}: the moves stop after turn {len(game.moves)}, but "
                "the game is not "
                f"over (the file says the result is {game.result!r})"
            )
        return [{"forfeit": FORFEIT_MARK} if ch == " " else ch.lower() for ch in game.moves[t - 1]]

    _play(replay, spec, tokens_for)
    assert replay.outcome is not None
    played = len(replay.turns)
    if played < len(game.moves):
        raise CorruptReplayError(
            f"{source}:{result_line}: the game ends on turn {played}, but the file has "
            f"{len(game.moves)} turns of moves"
        )
    winner = replay.outcome["winner"]
    got = "D" if winner is None else str(winner + 1)
    if got != game.result:
        raise CorruptReplayError(
            f"{source}:{result_line}: the result is {game.result!r}, but re-simulating the "
            f"moves gives {got!r} ({replay.outcome['reason']} on turn {replay.outcome['turn']})"
        )
    return replay


def _one_line(name: str, forbidden: str) -> str:
    """A name with line breaks and ``forbidden`` characters replaced by ``_``."""
    return re.sub(f"[\\r\\n{re.escape(forbidden)}]", "_", name)


# -- the contest's match file ------------------------------------------------------------
DEFAULT_MATCH_RULESET = "ffa"
"""The ruleset of a match file without lightcycle's ``ruleset`` parameter: the contest's
rules are ``ffa@1`` (simultaneous moves, the last cycle standing wins)."""


def _forfeit_letter(replay: Replay, turn: int, team: int, token: Token) -> str:
    verdict = None
    if replay.verdicts is not None and turn - 1 < len(replay.verdicts):
        row = replay.verdicts[turn - 1]
        verdict = row[team] if team < len(row) else None
    reason = str(token.get("forfeit", "")) if isinstance(token, dict) else ""
    if (verdict and verdict.get("verdict") == "timeout") or reason == ENDINGS["t"]:
        return "t"
    if reason == ENDINGS["f"]:
        return "f"
    return "i"


def to_match(replay: Replay) -> str:
    """The replay as a contest match file.

    Seat names become ``usernames`` (blanks replaced by ``_``: the parameter is a list of
    words); a forfeit becomes ``t`` when the seat timed out, else ``i``. lightcycle's
    ``ruleset``, ``seed`` and ``settings`` are written as extra parameters.

    Raises:
        UnsupportedConversion: for graph boards, several cycles per player, jumps or
            items, more than 26 players, or an unfinished game.
    """
    spec, first = _one_cycle_grid(replay, "match")
    _finished(replay, "match")
    try:
        grid = parse_mpmap(map_to_mpmap(spec))
    except MapError as exc:
        raise UnsupportedConversion(str(exc)) from None
    names = [
        re.sub(r"\s+", "_", s.get("name", "").strip()) or f"player_{i + 1}"
        for i, s in enumerate(replay.seats)
    ]
    params = [*grid.params, (USERNAMES, " ".join(names))]
    params += [("ruleset", replay.ruleset), ("seed", str(replay.seed))]
    defaults = get_ruleset(replay.ruleset).settings.to_dict()
    changed = {k: v for k, v in replay.settings.items() if defaults.get(k) != v}
    if changed:
        params.append(("settings", json.dumps(changed, separators=(",", ":"))))
    strings = [""] * len(first.cycles)
    for t, tokens in enumerate(replay.turns, start=1):
        for i, token in enumerate(tokens):
            if token is None:
                continue
            letter = _heading_letter(token, t, i, "match")
            strings[i] += letter or _forfeit_letter(replay, t, first.cycles[i].team, token)
    grid = GridText(grid.width, grid.height, grid.walls, grid.starts, tuple(params))
    return format_match(MatchText(grid, tuple(strings)))


def from_match(text: str, source: str = "<string>") -> Replay:
    """Read a contest match file into a verified replay.

    Each player's string must last exactly as long as the player: a string that ends
    while its player is still alive in a game that goes on, or goes on after its player
    died, is corrupt.

    Raises:
        FormatError: for a malformed file.
        CorruptReplayError: when the strings do not fit the game the rules play.
    """
    match = parse_match(text, source)
    head = map_section(text)
    spec = map_from_text(head, source=source)
    rs_name = match.grid.param("ruleset") or DEFAULT_MATCH_RULESET
    settings: dict[str, Any] = {}
    raw = match.grid.param("settings")
    if raw is not None:
        try:
            settings = json.loads(raw)
            if not isinstance(settings, dict):
                raise ValueError("not an object")
        except ValueError:
            line, column = param_position(head, "settings") or (1, 1)
            raise FormatError(
                source,
                line,
                column,
                'settings as one JSON object ({"turn_limit": 500})',
                show(raw),
            ) from None
    seed = 0
    raw = match.grid.param("seed")
    if raw is not None:
        if not re.fullmatch(r"-?[0-9]{1,19}", raw):
            line, column = param_position(head, "seed") or (1, 1)
            raise FormatError(source, line, column, "seed as a whole number", show(raw))
        seed = int(raw)
    rs = get_ruleset(rs_name).with_settings(settings)
    players = len(match.moves)
    names = list(match.usernames or [f"Player {p + 1}" for p in range(players)])
    state = new_game(rs, spec, seed=seed, players=players, names=names)
    if len(state.cycles) != players:
        raise UnsupportedConversion(
            f"{source}: ruleset {rs.id} gives {len(state.cycles)} cycles to {players} players; "
            "a match file holds one cycle per player"
        )
    replay = Replay.start(state, spec, [{"name": n, "bot": n} for n in names])

    def where(player: int) -> str:
        line = match.lines[player] if player < len(match.lines) else 0
        return f"{source}:{line}" if line else source

    def tokens_for(state: GameState, t: int) -> list[Token]:
        tokens: list[Token] = []
        for c in state.cycles:
            moves = match.moves[c.index]
            if not c.alive:
                tokens.append(None)
                continue
            if t > len(moves):
                raise CorruptReplayError(
                    f"{where(c.index)}: player {c.index + 1}'s moves stop after turn "
                    f"{len(moves)}, "
                    "but it is still alive and the game goes on"
                )
            ch = moves[t - 1]
            tokens.append({"forfeit": ENDINGS[ch]} if ch in ENDINGS else ch)
        return tokens

    _play(replay, spec, tokens_for)
    assert replay.outcome is not None
    final_turn = int(replay.outcome["turn"])
    for p, moves in enumerate(match.moves):
        death = replay.outcome["deaths"][p]
        lasted = final_turn if death is None else int(death["turn"])
        if len(moves) != lasted:
            raise CorruptReplayError(
                f"{where(p)}: player {p + 1} has {len(moves)} moves, but re-simulating it "
                f"{'survives' if death is None else 'dies'} on turn {lasted}"
            )
    return replay


# -- the lightcycle replay ---------------------------------------------------------------
def from_lightcycle(text: str, source: str = "<string>") -> Replay:
    """Read a lightcycle JSON replay and verify it (see `Replay.verify`)."""
    replay = Replay.from_json(text, source)
    try:
        replay.verify()
    except ReplayError as exc:
        raise type(exc)(f"{source}: {exc}") from None
    return replay


def to_lightcycle(replay: Replay) -> str:
    """The replay as lightcycle's JSON."""
    return replay.to_json()


FORMATS: dict[str, ReplayFormat] = {
    f.name: f
    for f in (
        ReplayFormat(
            "lightcycle",
            ".json",
            "lightcycle's versioned JSON replay",
            from_lightcycle,
            to_lightcycle,
        ),
        ReplayFormat(
            "jsonl", ".jsonl", "JSON Lines: a header, then one line per turn", from_jsonl, to_jsonl
        ),
        ReplayFormat(
            "match", ".match", "the multi-player contest's match file", from_match, to_match
        ),
        ReplayFormat(
            "marlboro", ".tron", "the Marlboro tron-engine replay", from_marlboro, to_marlboro
        ),
    )
}
ALIASES = {"json": "lightcycle", "replay": "lightcycle", "tron": "marlboro", "ndjson": "jsonl"}


def format_named(name: str) -> ReplayFormat:
    """The format called ``name`` (or an alias such as ``tron``).

    Raises:
        ReplayError: listing the formats for an unknown name.
    """
    key = ALIASES.get(name.lower(), name.lower())
    if key not in FORMATS:
        raise ReplayError(
            f"unknown replay format {name!r}; known: "
            + ", ".join(f"{f.name} ({f.extension})" for f in FORMATS.values())
        )
    return FORMATS[key]


def format_for_path(path: str | Path) -> ReplayFormat | None:
    """The format a file name's extension selects, or ``None``."""
    suffix = Path(path).suffix.lower()
    if suffix == ".ndjson":
        suffix = ".jsonl"
    return next((f for f in FORMATS.values() if f.extension == suffix), None)


def detect_format(text: str, source: str = "") -> ReplayFormat:
    """Tell a replay's format from its name's extension, else from its first line:
    ``+OK|`` opens a tron-engine file, a JSON object naming ``lightcycle-turns`` a JSON
    Lines stream, any other ``{`` a lightcycle replay, and ``key value`` lines a match
    file."""
    by_name = format_for_path(source) if source else None
    if by_name is not None:
        return by_name
    body = text.lstrip("\ufeff").lstrip()
    if body.startswith("+OK|"):
        return FORMATS["marlboro"]
    if body.startswith("{"):
        first = body.split("\n", 1)[0]
        try:
            obj = json.loads(first)
        except json.JSONDecodeError:
            return FORMATS["lightcycle"]
        if isinstance(obj, dict) and obj.get("format") == TURNS_FORMAT:
            return FORMATS["jsonl"]
        return FORMATS["lightcycle"]
    first = body.split("\n", 1)[0].strip()
    lines = body.splitlines()[:64]
    if first.split(" ", 1)[0] in _MATCH_OPENINGS or any(x.strip() == "map" for x in lines):
        return FORMATS["match"]
    raise ReplayError(
        f"{source or 'the text'}: not a replay (its first line is {first[:40]!r}); expected "
        "lightcycle's JSON replay ({...}), a JSON Lines replay, a match file (no_rows, "
        "no_cols, no_players, usernames, map ...) or a tron-engine replay (+OK|...)"
    )


_MATCH_OPENINGS = frozenset({"no_rows", "no_cols", "no_players", "usernames", "map"})
"""The words a match file's first line starts with (its map's parameters, or ``map``)."""


def read_text(text: str, source: str = "<string>", fmt: str | None = None) -> Replay:
    """Read a replay in any format (``fmt`` by name, else detected) and verify it.

    Raises:
        FormatError: for a malformed file.
        ReplayError: for a file that cannot be read as a game, `CorruptReplayError`
            when its moves do not lead where it says.
    """
    f = format_named(fmt) if fmt else detect_format(text, source)
    return f.read(text, source)


def read_file(path: str | Path, fmt: str | None = None) -> Replay:
    """Read a replay file in any format (see `read_text`)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ReplayError(f"cannot read {p}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ReplayError(f"{p}: not UTF-8 text (byte {exc.start})") from None
    return read_text(text, str(p), fmt)


def write_text(replay: Replay, fmt: str) -> str:
    """The replay in format ``fmt``.

    Raises:
        UnsupportedConversion: when the format cannot hold this game.
    """
    return format_named(fmt).write(replay)
