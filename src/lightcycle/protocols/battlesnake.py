"""``battlesnake``: the request and response bodies of Battlesnake's HTTP API.

A Battlesnake is a web server: the game engine POSTs the whole game to ``/start`` once,
to ``/move`` every turn (the snake answers ``{"move": "up"}``, optionally with a
``"shout"``) and to ``/end`` once it is over; ``GET /`` tells its looks. This codec maps
a lightcycle game onto that API so that a snake written for Battlesnake plays unchanged;
`lightcycle.referee.http_bot` carries the bodies over HTTP. It is no ``--protocol`` of
bot programs: there is no stdin here, only the bodies.

The mapping (docs/battlesnake.md has the table):

- **Constrictor.** A cycle's trail is a constrictor snake's body: every snake grows
  every turn, its body is its whole trail, head first, ending in its start cell twice
  (Battlesnake's constrictor keeps the tail doubled; three stacked segments at turn 0),
  health is always 100, and there is never any food. ``ruleset.name`` is
  ``constrictor``, or ``wrapped_constrictor`` on a torus (Battlesnake's wrapped boards:
  a move off one edge enters at the opposite one, exactly a torus).
- **Coordinates.** Battlesnake's ``y`` grows *upwards* from ``(0, 0)`` at the bottom
  left; lightcycle's rows grow downwards from the top left. ``up`` is north (towards
  row 0), ``down`` south, ``left`` west, ``right`` east.
- **Walls.** Battlesnake has no walls, only the board's edge. A ring of wall all round
  the map (most maps have one) is cut off, so the snake's board edge is exactly the
  wall: a snake that avoids the edge avoids it. Walls inside are ``hazards``, with
  ``hazardDamagePerTurn`` 100, which under Battlesnake's own rules kills at once: only
  a snake that reads hazards avoids them.
- **The dead.** A cycle that died leaves its trail standing, so its snake stays in
  ``board.snakes`` with health 0: a snake that avoids other snakes' bodies avoids it.
- **Time.** ``game.timeout`` is the milliseconds this request may take (the move time;
  the first move's on turn 0); ``latency`` is the snake's last measured round trip in
  milliseconds (the transport sets it; ``"0"`` for snakes not served over HTTP).

The codec is strict about what comes back: a body that is not one JSON object whose
``move`` is ``up``, ``down``, ``left`` or ``right`` raises `ProtocolError` with the bytes.
"""

from __future__ import annotations

import json
from typing import Any

from lightcycle.core.bitset import iter_cells
from lightcycle.core.state import Cycle, GameState
from lightcycle.core.topology import GridTopology, Heading
from lightcycle.protocols.base import (
    Answers,
    Codec,
    Params,
    ProtocolError,
    UnsupportedGame,
    check_plain_rules,
)

MOVES = {
    "up": Heading.N.letter,
    "down": Heading.S.letter,
    "left": Heading.W.letter,
    "right": Heading.E.letter,
}
"""Battlesnake's moves and the headings they are (``up`` is north, towards row 0)."""

DEFAULT_TIMEOUT_MS = 500
"""Battlesnake's own default move time, sent when the referee gives no limit."""

DEFAULT_LOOKS = {"color": "#888888", "head": "default", "tail": "default"}
"""The customizations of a snake whose server did not tell its own."""

SHOUT_LIMIT = 256
"""Battlesnake cuts shouts to this many characters."""

SETTINGS: dict[str, Any] = {
    "foodSpawnChance": 0,
    "minimumFood": 0,
    "hazardDamagePerTurn": 100,
    "hazardMap": "",
    "hazardMapAuthor": "",
    "royale": {"shrinkEveryNTurns": 0},
    "squad": {
        "allowBodyCollisions": False,
        "sharedElimination": False,
        "sharedHealth": False,
        "sharedLength": False,
    },
}
"""``ruleset.settings``: no food ever; a hazard (a wall) takes all 100 health at once."""

_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def walled_rings(walls: int, width: int, height: int) -> int:
    """How many rings of wall surround a ``width`` x ``height`` grid (cut off for the
    snake), keeping at least one cell of floor inside."""
    k = 0
    while width - 2 * (k + 1) >= 1 and height - 2 * (k + 1) >= 1:
        x0, x1, y0, y1 = k, width - 1 - k, k, height - 1 - k
        ring = [y0 * width + x for x in range(x0, x1 + 1)]
        ring += [y1 * width + x for x in range(x0, x1 + 1)]
        ring += [y * width + x for y in range(y0, y1 + 1) for x in (x0, x1)]
        if not all((walls >> c) & 1 for c in ring):
            break
        k += 1
    return k


class Battlesnake(Codec):
    """One snake's side of Battlesnake's API in one game (see the module docstring).

    `start`, `turn` and `end` return the JSON bodies of ``POST /start``, ``/move`` and
    ``/end``; `read_move` reads the body of a ``/move`` response. The transport sets
    the attributes below before each request.

    Attributes:
        game_id: ``game.id`` (default: made from the game's seed).
        timeout_ms: ``game.timeout`` of the next request.
        latency_ms: this snake's last measured round trip, sent as its ``latency``.
        looks: this snake's ``customizations`` (``color``, ``head``, ``tail``), from its
            ``GET /``.
        shout: this snake's last shout, echoed back as Battlesnake does.
    """

    name = "battlesnake"
    summary = "Battlesnake's HTTP API: JSON bodies of POST /start, /move, /end"
    multi_game = True
    max_reply = 65536

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self.game_id = ""
        self.timeout_ms = DEFAULT_TIMEOUT_MS
        self.latency_ms = 0
        self.looks: dict[str, str] = dict(DEFAULT_LOOKS)
        self.shout = ""
        self._paths: dict[int, list[int]] = {}
        self._points: list[dict[str, int]] = []
        self._game: dict[str, Any] = {}
        self._size = (0, 0)
        self._hazards: list[dict[str, int]] = []

    @classmethod
    def check(cls, state: GameState) -> None:
        """One snake per player on a grid under the classic rules (classic, torus, ffa)."""
        check_plain_rules(state, "battlesnake")
        if not isinstance(state.board.topology, GridTopology):
            raise UnsupportedGame("a Battlesnake plays on grids only, not on graph boards")
        if len(state.cycles) != len(state.teams):
            raise UnsupportedGame("a Battlesnake steers one cycle; this game gives a seat more")

    # -- the game's frame -----------------------------------------------------------------
    def _setup(self, state: GameState) -> None:
        """Fix the frame (rings cut off, coordinates) and start every snake's path."""
        self.check(state)
        topo = state.board.topology
        assert isinstance(topo, GridTopology)
        w, h = topo.width, topo.height
        k = 0 if topo.wrap else walled_rings(state.board.walls, w, h)
        top = h - 1 - k
        self._points = [{"x": c % w - k, "y": top - c // w} for c in range(w * h)]
        self._size = (w - 2 * k, h - 2 * k)
        inside = [
            c for c in iter_cells(state.board.walls) if k <= c % w < w - k and k <= c // w < h - k
        ]
        self._hazards = [self._points[c] for c in inside]
        rs = state.ruleset
        self._game = {
            "name": "wrapped_constrictor" if topo.wrap else "constrictor",
            "version": rs.id,
        }
        self._paths = {c.index: [c.head] for c in state.cycles}

    def _follow(self, state: GameState) -> None:
        """Extend each snake's path by its new head (one step a turn)."""
        if not self._points:
            self._setup(state)
        for c in state.cycles:
            path = self._paths.setdefault(c.index, [c.head])
            if c.head != path[-1] and c.head not in path:
                path.append(c.head)

    def _snake(self, state: GameState, c: Cycle) -> dict[str, Any]:
        path = self._paths[c.index]
        pts = self._points
        seen = set(path)
        extra = [cell for cell in iter_cells(c.trail) if cell not in seen]
        cells = path[::-1] + extra + [path[0]]
        cells += [path[0]] * (3 - len(cells))
        body = [pts[cell] for cell in cells]
        mine = c.team == self.seat
        return {
            "id": f"seat-{c.team + 1}",
            "name": state.teams[c.team].name,
            "health": 100 if c.alive else 0,
            "body": body,
            "latency": str(self.latency_ms) if mine else "0",
            "head": body[0],
            "length": len(body),
            "shout": self.shout if mine else "",
            "squad": "",
            "customizations": self.looks if mine else DEFAULT_LOOKS,
        }

    def _body(self, state: GameState) -> bytes:
        self._follow(state)
        snakes = [self._snake(state, c) for c in state.cycles]
        width, height = self._size
        message = {
            "game": {
                "id": self.game_id or f"lightcycle-{state.seed}",
                "ruleset": {**self._game, "settings": SETTINGS},
                "map": "lightcycle",
                "timeout": self.timeout_ms,
                "source": "lightcycle",
            },
            "turn": state.turn,
            "board": {
                "height": height,
                "width": width,
                "food": [],
                "hazards": self._hazards,
                "snakes": snakes,
            },
            "you": next(
                s for c, s in zip(state.cycles, snakes, strict=True) if c.team == self.seat
            ),
        }
        return _dumps(message).encode()

    # -- messages to the snake --------------------------------------------------------------
    def start(self, state: GameState, params: Params) -> bytes:
        self._setup(state)
        self.shout = ""
        if params.move_time is not None:
            self.timeout_ms = round(params.move_time * 1000)
        return self._body(state)

    def turn(self, state: GameState) -> bytes:
        return self._body(state)

    def end(self, state: GameState) -> bytes:
        return self._body(state)

    # -- the snake's reply -----------------------------------------------------------------
    def read_move(self, buf: bytearray, state: GameState) -> Answers | None:
        """Read a whole ``/move`` response body (the transport hands it over complete)."""
        data = bytes(buf)
        del buf[:]
        expected = 'a JSON object such as {"move": "up"}'
        if len(data) > self.max_reply:
            raise ProtocolError(self.name, f"a body of at most {self.max_reply} bytes", data)
        try:
            reply = json.loads(data)
        except ValueError as exc:  # UnicodeDecodeError is one too
            raise ProtocolError(self.name, f"{expected} ({exc})", data) from None
        except RecursionError:
            raise ProtocolError(self.name, "a JSON object nested less deeply", data) from None
        if not isinstance(reply, dict):
            raise ProtocolError(self.name, expected, data)
        move = reply.get("move")
        heading = MOVES.get(move) if isinstance(move, str) else None
        if heading is None:
            raise ProtocolError(self.name, '"move" as one of "up", "down", "left", "right"', data)
        shout = reply.get("shout")
        self.shout = shout[:SHOUT_LIMIT] if isinstance(shout, str) else ""
        return {self.cycle(state): heading}
