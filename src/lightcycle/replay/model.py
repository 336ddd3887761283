"""`Replay`: the ruleset, map, seed, seats and every move of a game, as versioned JSON.

A replay stores inputs, not results: re-simulating its moves through the rules must give
back its stored outcome, so a replay that was edited or written by a buggy tool is caught
(`CorruptReplayError`) instead of being shown as if it were true.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lightcycle.core.moves import Forfeit, Move, Outcome
from lightcycle.core.state import GameState
from lightcycle.core.topology import GridTopology
from lightcycle.formats.errors import FormatError, json_error
from lightcycle.maps.io import map_from_text, map_to_text
from lightcycle.maps.spec import MapError, MapSpec
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.ruleset import RulesError, Ruleset
from lightcycle.rules.variants import get_ruleset

FORMAT = "lightcycle-replay"
VERSION = 1

NOTEBOOK_VIEW = "lightcycle.viewer.notebook"
"""The module whose ``replay_html(replay)`` a notebook shows a replay with
(`Replay._repr_html_`). It is looked up by name when first asked for, as the judge looks
up its match hooks: the viewer reads replays, so this layer may not import it, and a
notebook should not have to import it first for a replay to show itself."""

Token = str | int | dict[str, Any] | None
"""One cycle's move in a replay: a heading letter (upper case for a jump) on grids, a node
on graphs, ``{"move": token, "use_item": true}`` for a move that uses the held item,
``{"forfeit": reason}``, or ``None`` for a cycle already dead or not moving that turn."""


class ReplayError(ValueError):
    """A replay file that cannot be read, naming where and what was expected."""


class CorruptReplayError(ReplayError):
    """A replay whose moves do not re-simulate to its stored outcome."""


def unique_names(names: Sequence[str]) -> list[str]:
    """Number repeated seat names (``Random``, ``Random 2``) so a replay's and a result's
    seats stay distinguishable: the referee, the server, tournaments and the RL
    environments all name their seats this way."""
    out: list[str] = []
    for n in names:
        k, cand = 1, n
        while cand in out:
            k += 1
            cand = f"{n} {k}"
        out.append(cand)
    return out


def encode_move(state: GameState, m: Move | Forfeit | None) -> Token:
    """The replay token for one cycle's move in ``state``."""
    if m is None:
        return None
    if isinstance(m, Forfeit):
        return {"forfeit": m.reason}
    if m.use_item:
        return {"move": encode_move(state, m._replace(use_item=False)), "use_item": True}
    topo = state.board.topology
    if not isinstance(topo, GridTopology):
        return m.to
    base = state.cycles[m.cycle].head * 4
    table = topo.jump_table if m.jump else topo.step_table
    try:
        letter = "nesw"[table.index(m.to, base, base + 4) - base]
    except ValueError:
        raise ReplayError(
            f"move of cycle {m.cycle} to {m.to} cannot be written as a heading"
        ) from None
    return letter.upper() if m.jump else letter


def decode_move(state: GameState, cycle: int, token: Token) -> Move | Forfeit | None:
    """The move a replay token stands for in ``state``.

    Raises:
        ReplayError: for a token that is none of the accepted forms.
    """
    if token is None:
        return None
    if isinstance(token, dict):
        if "move" in token:
            inner = decode_move(state, cycle, token["move"])
            if not isinstance(inner, Move):
                raise ReplayError(f"cycle {cycle}: {token!r} holds no move")
            return inner._replace(use_item=bool(token.get("use_item")))
        return Forfeit(cycle, str(token.get("forfeit", "forfeit")))
    topo = state.board.topology
    if isinstance(token, str) and isinstance(topo, GridTopology) and token in "neswNESW":
        h = "nesw".index(token.lower())
        head = state.cycles[cycle].head
        if token.isupper():
            return Move(cycle, topo.jump_table[head * 4 + h], jump=True)
        return Move(cycle, topo.step_table[head * 4 + h])
    if isinstance(token, int) and not isinstance(token, bool) and 0 <= token < topo.size:
        return Move(cycle, token)
    raise ReplayError(
        f"cycle {cycle}: expected a move (n/e/s/w, N/E/S/W for a jump, a node of this board "
        f'or {{"forfeit": reason}}), found {json.dumps(token)}'
    )


def outcome_to_dict(state: GameState) -> dict[str, Any]:
    """The outcome of a finished game with every cycle's death, as JSON-ready data."""
    o = state.outcome
    assert o is not None
    return {
        "ranks": list(o.ranks),
        "winner": o.winner,
        "reason": o.reason,
        "turn": o.turn,
        "scores": list(state.scores),
        "deaths": [
            None
            if c.death is None
            else {"turn": c.death.turn, "cause": c.death.cause.value, "detail": c.death.detail}
            for c in state.cycles
        ],
    }


@dataclass
class Replay:
    """A recorded game.

    Attributes:
        ruleset: ``name@version``.
        settings: the ruleset settings in force.
        map_id: ``name@version`` of the map.
        map_text: the map in the multi-player map format, so replays of any map re-run.
        seed: the game seed.
        seats: per team, ``{"name": ..., "bot": ...}``.
        turns: per turn, one token per cycle (see `Token`).
        outcome: the stored outcome (see `outcome_to_dict`), ``None`` if unfinished.
        times: optional per turn per team move times in seconds (``None``: not asked).
        verdicts: optional per turn per team ``{"verdict", "detail"}`` when a seat's move
            was not ``ok`` (``None`` otherwise).
        cpu: optional per turn per team CPU microseconds the referee measured and handed
            to the rules (rulesets where CPU time decides collisions).
        orders: optional per turn the cycle indices in the order the teams listed their
            moves, where that differs from index order (``None`` otherwise); the
            sequential rulesets follow it.
        reports: optional per team what its in-process bot reported at the end
            (`Bot.report`: figures such as ``depth``, and per-move lists such as
            ``move_ms`` and ``move_plies``); ``{}`` for a bot that reported nothing.
        sandbox: optional per team what confined its bot program: ``{"level", "full",
            "protections"}`` (the level asked for, whether that was the full sandbox here,
            the protections applied), ``None`` for a seat played in the referee's own
            process (built-in, ``py:`` and HTTP bots). Older replays have none.
    """

    ruleset: str
    settings: dict[str, Any]
    map_id: str
    map_text: str
    seed: int
    seats: list[dict[str, str]]
    turns: list[list[Token]] = field(default_factory=list)
    outcome: dict[str, Any] | None = None
    times: list[list[float | None]] | None = None
    verdicts: list[list[dict[str, str] | None]] | None = None
    cpu: list[list[int]] | None = None
    orders: list[list[int] | None] | None = None
    reports: list[dict[str, Any]] | None = None
    sandbox: list[dict[str, Any] | None] | None = None

    # -- building ----------------------------------------------------------------------
    @classmethod
    def start(cls, state: GameState, spec: MapSpec, seats: Sequence[dict[str, str]]) -> Replay:
        """A replay with no turns yet, for the game that ``state`` begins."""
        rs = state.ruleset
        assert isinstance(rs, Ruleset)
        return cls(
            ruleset=rs.id,
            settings=rs.settings.to_dict(),
            map_id=spec.id,
            map_text=map_to_text(spec),
            seed=state.seed,
            seats=[dict(s) for s in seats],
        )

    def record(
        self,
        state: GameState,
        moves: dict[int, Move | Forfeit],
        times: Sequence[float | None] | None = None,
        verdicts: Sequence[dict[str, str] | None] | None = None,
        cpu: Sequence[int] | None = None,
    ) -> None:
        """Append the moves played from ``state``, with the seats' move times, verdicts and
        the CPU time handed to the rules."""
        n = len(self.turns)
        self.turns.append(
            [encode_move(state, moves.get(c.index)) if c.alive else None for c in state.cycles]
        )
        listed = [i for i in moves if 0 <= i < len(state.cycles)]
        if listed != sorted(listed):
            if self.orders is None:
                self.orders = [None] * n
            self.orders.append(listed)
        elif self.orders is not None:
            self.orders.append(None)
        if cpu is not None:
            if self.cpu is None:
                self.cpu = [[0] * len(cpu) for _ in range(n)]
            self.cpu.append([int(c) for c in cpu])
        if times is not None:
            if self.times is None:
                self.times = [[None] * len(times) for _ in range(len(self.turns) - 1)]
            self.times.append([None if t is None else round(t, 6) for t in times])
        if verdicts is not None:
            if self.verdicts is None:
                self.verdicts = [[None] * len(verdicts) for _ in range(len(self.turns) - 1)]
            self.verdicts.append(list(verdicts))

    def finish(self, final: GameState) -> None:
        """Store the outcome of the finished game."""
        self.outcome = outcome_to_dict(final)

    # -- re-simulating -----------------------------------------------------------------
    def map_spec(self) -> MapSpec:
        """The map this replay was played on.

        Raises:
            ReplayError: for map text that is not a playable map, naming the line of
                the map text and what was expected there.
        """
        try:
            return map_from_text(self.map_text, source=f"map {self.map_id}")
        except FormatError as exc:
            raise ReplayError(
                f'field "map": the map {self.map_id} inside is not a valid map: line '
                f"{exc.line}: expected {exc.expected}, found {exc.found}"
            ) from None
        except MapError as exc:
            raise ReplayError(
                f'field "map": the map {self.map_id} inside cannot be played: {exc}'
            ) from None

    def initial_state(self) -> GameState:
        """Turn 0 of the game.

        Raises:
            ReplayError: for an unknown ruleset, settings it does not take, a map that
                cannot be read or seats it cannot play, saying which field is wrong.
        """
        try:
            base = get_ruleset(self.ruleset)
        except RulesError as exc:
            raise ReplayError(f'field "ruleset": {exc}') from None
        try:
            rs = base.with_settings(self.settings)
        except (RulesError, TypeError, ValueError) as exc:
            raise ReplayError(
                f'field "settings": {_settings_problem(base, self.settings, exc)}'
            ) from None
        spec = self.map_spec()
        try:
            return new_game(
                rs,
                spec,
                seed=self.seed,
                players=len(self.seats),
                names=[s.get("name", f"Player {i + 1}") for i, s in enumerate(self.seats)],
            )
        except (RulesError, MapError) as exc:
            n = len(self.seats)
            raise ReplayError(
                f'expected "seats" to fit {rs.id} on {self.map_id}, found {n} '
                f"player{'' if n == 1 else 's'}: {exc}"
            ) from None

    def states(self) -> Iterator[GameState]:
        """Every state of the game, turn 0 first, by re-simulating the moves.

        Raises:
            ReplayError: when a turn has a malformed move or moves after the game ended.
        """
        state = self.initial_state()
        yield state
        for t, tokens in enumerate(self.turns, start=1):
            if state.outcome is not None:
                raise CorruptReplayError(f"turn {t}: moves recorded after the game ended")
            if len(tokens) != len(state.cycles):
                raise ReplayError(
                    f"turn {t}: {len(tokens)} moves recorded for {len(state.cycles)} cycles"
                )
            order = self.orders[t - 1] if self.orders and t - 1 < len(self.orders) else None
            if order is not None and sorted(order) != sorted(set(order)):
                raise ReplayError(f"turn {t}: the move order {order} repeats a cycle")
            moves: dict[int, Move | Forfeit] = {}
            for i in [*(order or ()), *range(len(tokens))]:
                if i in moves or not 0 <= i < len(tokens):
                    continue
                try:
                    m = decode_move(state, i, tokens[i])
                except ReplayError as exc:
                    raise ReplayError(f"turn {t}: {exc}") from None
                if m is not None:
                    moves[i] = m
            cpu = self.cpu[t - 1] if self.cpu and t - 1 < len(self.cpu) else None
            state = step(state, moves, cpu)
            yield state

    def verify(self) -> GameState:
        """Re-simulate and check the stored outcome; return the final state.

        Raises:
            CorruptReplayError: when the moves do not lead to the stored outcome.
        """
        final = None
        for state in self.states():
            final = state
        assert final is not None
        if self.outcome is None:
            return final
        if final.outcome is None:
            raise CorruptReplayError(
                f"the moves stop at turn {final.turn} before the game ends, but the replay "
                f"stores an outcome on turn {self.outcome.get('turn')}"
            )
        got = outcome_to_dict(final)
        if got != self.outcome:
            diff = [k for k in got if got[k] != self.outcome.get(k)]
            raise CorruptReplayError(
                f"re-simulating gives a different outcome ({', '.join(diff)} differ): "
                f"stored {self.outcome.get('ranks')} on turn {self.outcome.get('turn')}, "
                f"re-simulated {got['ranks']} on turn {got['turn']}"
            )
        return final

    # -- JSON --------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data, keys in a fixed order so equal replays are equal bytes."""
        data: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "ruleset": self.ruleset,
            "settings": self.settings,
            "map": {"id": self.map_id, "text": self.map_text},
            "seed": self.seed,
            "seats": self.seats,
            "turns": self.turns,
            "outcome": self.outcome,
        }
        if self.times is not None:
            data["times"] = self.times
        if self.verdicts is not None:
            data["verdicts"] = self.verdicts
        if self.cpu is not None:
            data["cpu"] = self.cpu
        if self.orders is not None:
            data["orders"] = self.orders
        if self.reports is not None:
            data["reports"] = self.reports
        if self.sandbox is not None:
            data["sandbox"] = self.sandbox
        return data

    def to_json(self) -> str:
        """The replay as JSON text: one line per turn so diffs and greps stay readable."""
        data = self.to_dict()
        rows = {
            k: data.pop(k) for k in ("turns", "times", "verdicts", "cpu", "orders") if k in data
        }
        text = json.dumps(data, indent=1, ensure_ascii=False)[:-2]
        for key, items in rows.items():
            body = ",\n".join("  " + json.dumps(t, ensure_ascii=False) for t in items)
            text += f',\n "{key}": [\n' + body + ("\n ]" if items else " ]")
        return text + "\n}\n"

    def save(self, path: str | Path) -> None:
        """Write the replay atomically (a temporary file renamed into place)."""
        p = Path(path)
        tmp = p.with_name(p.name + ".tmp")
        tmp.write_text(self.to_json(), encoding="utf-8")
        tmp.replace(p)

    @classmethod
    def from_json(cls, text: str, source: str = "<string>") -> Replay:
        """Read a replay.

        Raises:
            ReplayError: naming the source, line and what was expected.
        """
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ReplayError(str(json_error(source, exc))) from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ReplayError(f'{source}: expected a JSON object with "format": "{FORMAT}"')
        if data.get("version") != VERSION:
            raise ReplayError(
                f"{source}: replay version {data.get('version')!r} is not supported "
                f"(this lightcycle reads version {VERSION}); upgrade lightcycle"
            )
        return cls.from_dict(data, source)

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "<string>") -> Replay:
        """A replay from decoded JSON (``format`` and ``version`` already checked).

        Raises:
            ReplayError: naming the source, the field and what it should hold.
        """

        def field(
            key: str, kind: type | tuple[type, ...], expected: str, default: Any = ...
        ) -> Any:
            if key not in data or (data[key] is None and default is not ...):
                if default is ...:
                    raise ReplayError(
                        f'{source}: expected a "{key}" field ({expected}), found none'
                    )
                return default
            value = data[key]
            if not isinstance(value, kind) or isinstance(value, bool):
                raise ReplayError(
                    f'{source}: expected "{key}" to be {expected}, found {_shown(value)}'
                )
            return value

        ruleset = field("ruleset", str, 'a ruleset id such as "classic@1"')
        settings = field("settings", dict, "an object of ruleset settings", {})
        m = field("map", dict, '{"id": "name@version", "text": the map}')
        if not isinstance(m.get("id"), str) or not isinstance(m.get("text"), str):
            raise ReplayError(
                f'{source}: expected "map" to hold "id" and "text" strings, found the keys '
                f"{', '.join(map(str, m)) or 'none'}"
            )
        seed = field("seed", int, "a whole number")
        seats = field("seats", list, 'a list of {"name", "bot"} objects, one per player')
        if not all(isinstance(s, dict) for s in seats):
            raise ReplayError(
                f'{source}: expected every entry of "seats" to be a {{"name", "bot"}} object'
            )
        turns = field("turns", list, "a list with one list of moves per turn")
        bad = next((t for t, row in enumerate(turns, start=1) if not isinstance(row, list)), None)
        if bad is not None:
            raise ReplayError(
                f'{source}: expected turn {bad} in "turns" to be a list of moves, one per cycle, '
                f"found {_shown(turns[bad - 1])}"
            )
        extras = {
            key: field(key, list, "a list with one entry per turn, or null", None)
            for key in ("times", "verdicts", "cpu", "orders")
        }
        extras["reports"] = field("reports", list, "a list with one object per seat, or null", None)
        extras["sandbox"] = field(
            "sandbox", list, "a list with one object (or null) per seat, or null", None
        )
        if extras["sandbox"] is not None and not all(
            s is None or isinstance(s, dict) for s in extras["sandbox"]
        ):
            raise ReplayError(
                f'{source}: expected every entry of "sandbox" to be a {{"level", "given", "full", '
                '"protections"}} object or null'
            )
        return cls(
            ruleset=ruleset,
            settings=dict(settings),
            map_id=m["id"],
            map_text=m["text"],
            seed=seed,
            seats=[dict(s) for s in seats],
            turns=[list(t) for t in turns],
            outcome=field("outcome", dict, "the stored outcome object, or null", None),
            **extras,
        )

    def _repr_html_(self) -> str | None:
        """A notebook's view: the HTML viewer inline, self-contained (`NOTEBOOK_VIEW`);
        ``None`` (the plain text) where the viewer is not installed."""
        if importlib.util.find_spec(NOTEBOOK_VIEW) is None:
            return None
        html: str = importlib.import_module(NOTEBOOK_VIEW).replay_html(self)
        return html

    @classmethod
    def load(cls, path: str | Path) -> Replay:
        """Read a replay file (see `from_json`)."""
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as exc:
            raise ReplayError(f"cannot read {p}: {exc.strerror}") from None
        return cls.from_json(text, source=str(p))


def _shown(value: Any) -> str:
    """A JSON value as it would appear in the file, cut when long."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def _settings_problem(rs: Ruleset, settings: dict[str, Any], exc: Exception) -> str:
    """Which of ``settings`` ``rs`` refuses and what it expected, for a message."""
    for key, value in settings.items():
        try:
            rs.with_settings({key: value})
        except (RulesError, TypeError, ValueError) as one:
            if isinstance(one, RulesError):
                return str(one)
            default = getattr(rs.settings, key, None)
            return (
                f"{key} {json.dumps(value)} does not fit {rs.id} (expected a value like "
                f"its default, {json.dumps(default)})"
            )
    return str(exc)


def outcome_of(data: dict[str, Any]) -> Outcome:
    """Rebuild an `Outcome` from stored replay data."""
    return Outcome(ranks=tuple(data["ranks"]), reason=str(data["reason"]), turn=int(data["turn"]))
