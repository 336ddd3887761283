"""``jsonl``: lightcycle's own protocol, one JSON object per line, for every ruleset.

Referee to bot (every message has ``"type"``):

- ``start``: ``protocol`` (``"lightcycle-jsonl"``), ``version`` (1), ``ruleset``,
  ``settings``, ``seat``, ``players``, ``names``, ``board`` (a grid: ``kind``, ``width``,
  ``height``, ``wrap``, ``walls`` as ``[x, y]``; a graph: ``kind``, ``nodes``, ``edges``,
  ``walls`` as node numbers, ``positions``, and ``bonus``, the bonus cells, on boards
  that have some), ``cycles``, ``items``, ``time``
  (every time control in seconds, ``null`` when not limited) and ``params``.
- ``turn``: ``turn`` (the number of the turn being played, from 1), ``cycles`` (each:
  ``id``, ``team``, ``name``, ``head`` as ``[x, y]`` or a node, ``alive``, ``death``,
  ``jumps_left``, ``item``, ``ghost``, ``turbo``, ``moving``), ``items``, ``scores``,
  ``cpu`` (per team, CPU microseconds used so far as the referee measured them), and,
  after turns the seat was not asked (``tron3d``'s odd rounds), ``entered``: every
  ``[cycle id, cell]`` a trail gained since the seat's previous request.
- ``out``: the seat has no cycle left; the game goes on without it.
- ``end``: ``result`` (``win``, ``loss`` or ``draw``), ``ranks``, ``reason``, ``turn``.
  A bot may then receive another ``start`` (the process plays the next game) or reach
  the end of its input.

Bot to referee, one line per turn: ``{"move": M}`` for a seat with one cycle, or
``{"moves": {"ID": M, ...}}`` keyed by cycle id or name (``"A"``); the key order is the
order the seat's cycles move in under ``teams`` and ``tron3d``. A cycle whose
``moving`` is false needs no move. A move ``M`` is a heading ``"n"``/``"e"``/``"s"``/``"w"``
on grids, a node number on graphs, or an object ``{"heading": "n"}`` /
``{"to": NODE}`` with optional ``"jump": true`` and ``"use_item": true``.

The JSON Schema of every message is in ``docs/protocols/jsonl.schema.json``.
"""

from __future__ import annotations

import json
from typing import Any

from lightcycle.core.bitset import iter_cells
from lightcycle.core.moves import Move
from lightcycle.core.state import Cycle, GameState
from lightcycle.core.topology import GraphTopology, GridTopology, Heading
from lightcycle.protocols.base import Answers, Codec, Params, ProtocolError
from lightcycle.rules.legal import moves_this_turn, read_answer

PROTOCOL = "lightcycle-jsonl"
VERSION = 1
_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


class JsonLines(Codec):
    """One seat of a game in lightcycle's JSON Lines protocol (see the module docstring)."""

    name = "jsonl"
    summary = "lightcycle's own: one JSON object per line, every ruleset"
    multi_game = True
    max_reply = 65536

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self._w = 0
        self._out = False
        self._state: GameState | None = None

    def _head(self, cell: int) -> Any:
        w = self._w
        return [cell % w, cell // w] if w else cell

    def _cycle(self, c: Cycle) -> dict[str, Any]:
        return {
            "id": c.index,
            "team": c.team,
            "name": c.name,
            "head": self._head(c.head),
            "alive": c.alive,
            "death": None if c.death is None else str(c.death.cause),
            "jumps_left": c.jumps_left,
            "item": c.item,
            "ghost": c.ghost,
            "turbo": c.turbo,
            "moving": moves_this_turn(self._state, c.index) if self._state else False,
        }

    def start(self, state: GameState, params: Params) -> bytes:
        self._out = False
        self._state = state
        topo = state.board.topology
        walls = list(iter_cells(state.board.walls))
        board: dict[str, Any]
        if isinstance(topo, GridTopology):
            self._w = topo.width
            board = {
                "kind": "grid",
                "width": topo.width,
                "height": topo.height,
                "wrap": topo.wrap,
                "walls": [[c % topo.width, c // topo.width] for c in walls],
            }
        else:
            self._w = 0
            assert isinstance(topo, GraphTopology)
            board = {
                "kind": "graph",
                "nodes": topo.size,
                "edges": [[a, b] for a in range(topo.size) for b in topo.neighbours[a] if a < b],
                "walls": walls,
                "positions": [list(p) for p in topo.positions] if topo.positions else None,
            }
            if state.board.bonus:  # only boards with bonus cells: older transcripts hold
                board["bonus"] = sorted(state.board.bonus)
        rs = state.ruleset
        message = {
            "type": "start",
            "protocol": PROTOCOL,
            "version": VERSION,
            "ruleset": rs.id,
            "settings": getattr(getattr(rs, "settings", None), "to_dict", dict)(),
            "seat": self.seat,
            "players": len(state.teams),
            "names": list(params.names) or [t.name for t in state.teams],
            "board": board,
            "cycles": [self._cycle(c) for c in state.cycles],
            "items": [[self._head(cell), kind] for cell, kind in state.items],
            "time": {
                "first_move": params.first_move_time,
                "move": params.move_time,
                **{k: v for k, v in params.time.items() if k not in ("first_move", "move")},
            },
            "params": dict(params.extra),
        }
        return _dumps(message).encode() + b"\n"

    def turn(self, state: GameState) -> bytes:
        before, self._state = self._state, state
        message: dict[str, Any] = {
            "type": "turn",
            "turn": state.turn + 1,
            "cycles": [self._cycle(c) for c in state.cycles],
            "items": [[self._head(cell), kind] for cell, kind in state.items],
            "scores": list(state.scores),
            "cpu": list(state.cpu) or [0] * len(state.teams),
        }
        if (
            before is not None
            and state.turn > before.turn + 1
            and len(before.cycles) == len(state.cycles)
        ):
            # turns this seat was not asked (tron3d's odd rounds): heads alone cannot say
            # where a cycle went between, so say which cells each trail gained
            message["entered"] = [
                [c.index, self._head(cell)]
                for c, old in zip(state.cycles, before.cycles, strict=True)
                for cell in iter_cells(c.trail & ~old.trail)
            ]
        return _dumps(message).encode() + b"\n"

    def eliminated(self, state: GameState) -> bytes:
        if self._out:
            return b""
        self._out = True
        return _dumps({"type": "out", "turn": state.turn}).encode() + b"\n"

    def end(self, state: GameState) -> bytes:
        outcome = state.outcome
        message = {
            "type": "end",
            "result": self.result_word(state),
            "ranks": list(outcome.ranks) if outcome else [],
            "reason": outcome.reason if outcome else "",
            "turn": state.turn,
        }
        return _dumps(message).encode() + b"\n"

    def read_move(self, buf: bytearray, state: GameState) -> Answers | None:
        line = self.take_line(buf, "a JSON object")
        if line is None:
            return None
        try:
            data = json.loads(line)
        except ValueError as exc:
            raise ProtocolError(self.name, f"one JSON object per line ({exc})", line) from None
        except RecursionError:
            raise ProtocolError(self.name, "a JSON object nested less deeply", line) from None
        if not isinstance(data, dict):
            raise ProtocolError(self.name, 'a JSON object such as {"move": "n"}', line)
        mine = [c.index for c in state.cycles if c.team == self.seat and c.alive]
        if "moves" in data:
            raw = data["moves"]
            if not isinstance(raw, dict):
                raise ProtocolError(self.name, '"moves" as an object {"ID": move}', line)
            answers: Answers = {}
            names = {c.name: c.index for c in state.cycles if c.team == self.seat and c.name}
            for key, value in raw.items():
                cycle = names.get(key)
                if cycle is None:
                    try:
                        cycle = int(key)
                    except ValueError:
                        raise ProtocolError(
                            self.name, 'cycle ids or names of this seat as keys of "moves"', line
                        ) from None
                answers[cycle] = self._answer(state, cycle, value, line)
            return answers
        if "move" in data:
            if len(mine) != 1:
                raise ProtocolError(
                    self.name, f'"moves" with one entry per cycle (this seat has {len(mine)})', line
                )
            return {mine[0]: self._answer(state, mine[0], data["move"], line)}
        raise ProtocolError(self.name, 'an object with "move" or "moves"', line)

    def _answer(self, state: GameState, cycle: int, value: Any, line: bytes) -> object:
        grid = isinstance(state.board.topology, GridTopology)
        if isinstance(value, dict):
            key = "heading" if grid else "to"
            target = self._target(value.get(key), grid, line, f'a move object with "{key}"')
            jump = value.get("jump", False)
            use_item = value.get("use_item", False)
            if not isinstance(jump, bool) or not isinstance(use_item, bool):
                raise ProtocolError(self.name, '"jump" and "use_item" as true or false', line)
            if not use_item:
                return ("jump", target) if jump else target
            if not (0 <= cycle < len(state.cycles)):
                return target  # the referee reports the unknown cycle
            try:
                m = read_answer(state, cycle, ("jump", target) if jump else target)
            except ValueError:
                return target
            return Move(cycle, m.to, jump=m.jump, use_item=True)
        return self._target(
            value, grid, line, "a heading n, e, s or w" if grid else "a node number"
        )

    def _target(self, value: Any, grid: bool, line: bytes, expected: str) -> object:
        """A heading string on grids, a node number on graphs; anything else is refused."""
        if grid:
            if isinstance(value, str):
                try:
                    Heading.parse(value)
                except ValueError:
                    raise ProtocolError(self.name, expected, line) from None
                return value
        elif isinstance(value, int) and not isinstance(value, bool):
            return value
        raise ProtocolError(self.name, expected, line)
