"""Games watched while they are played: states in from any thread, viewer frames out.

A game in progress is fed to `LiveHub` one `GameState` at a time (``push``), from the
server's asyncio loop or from a local referee's thread. Spectators ``subscribe`` from an
asyncio loop and get JSON frames the HTML viewer (`lightcycle.viewer.static`) appends as
they come, so a live game is shown by the very page that shows replays:

``{"type": "start", "data": D}``
    the game so far as viewer data (`lightcycle.viewer.data`, with ``"live": true``); a
    spectator who comes late gets everything up to now in this one frame.
``{"type": "turn", "turn": N, "heads", "marks", "items", "rows", "open", "close"}``
    one more turn: the per-turn lists of the viewer data, and the ``[cell, cycle]`` pairs
    that entered (``open``) and left (``close``) a trail on it.
``{"type": "end", "result": TEXT, "summary": {...}, "data": D?}``
    the result; ``data`` is the finished game's full viewer data (moves, times and
    verdicts that a state alone does not tell) when the replay came with it.

``push`` never waits for a spectator: each one has a bounded queue, and one that lets it
fill (a stalled browser, a slow link) is dropped (its iterator raises `Dropped`); the game
and the other spectators go on. Frames are encoded once (`Frame.text`), however many
spectators a game has.

Frames are made only for someone to see them: a game nobody watches costs a list append
per turn (its states are kept), and the frames of the turns so far are made when the first
spectator comes (a late spectator still gets the whole game); the end frame, with the
finished game's full viewer data, is made only if a spectator is there to get it (or the
game is kept). A server hosting hundreds of unwatched games spends nothing on viewers.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable
from typing import Any

from lightcycle.core.state import GameState
from lightcycle.core.topology import GridTopology
from lightcycle.render import palette
from lightcycle.replay.model import Replay, Token
from lightcycle.viewer.data import (
    DATA_VERSION,
    TrailTracker,
    board_data,
    cycles_of,
    heads_of,
    items_of,
    marks_of,
    viewer_data,
)
from lightcycle.viewer.facts import outcome_text, result_text, rows_at

QUEUE = 256
"""Frames a spectator may fall behind by before it is dropped (about 25 s at 10 turns/s)."""

SPECTATORS = 200
"""Spectators one game takes (the server passes its ``spectators_per_game``)."""


class Dropped(Exception):
    """A spectator fell too far behind and was dropped; the game goes on without it."""


class TooMany(Exception):
    """The game already has as many spectators as it takes."""


class Frame(dict[str, Any]):
    """A frame for spectators; ``text`` is its JSON, made once for all of them."""

    __slots__ = ("_text",)
    _text: str

    @property
    def text(self) -> str:
        """The frame as compact JSON."""
        try:
            return self._text
        except AttributeError:
            self._text = json.dumps(self, ensure_ascii=False, separators=(",", ":"))
            return self._text


def move_token(state: GameState, before: int, after: int) -> Token:
    """The move that took a head from ``before`` to ``after``, as a replay writes it (``n``,
    ``N`` for a jump, a node number on graphs), or ``None`` when it cannot be told."""
    if before == after:
        return None
    topo = state.board.topology
    if not isinstance(topo, GridTopology):
        return after
    h = topo.heading_to(before, after)
    if h is not None:
        return h.letter
    for k in range(4):
        if topo.jump(before, k) == after:
            return "nesw"[k].upper()
    return None


class _Subscriber:
    """One spectator: its loop, its queue, and whether it was dropped."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        limit: int,
        forget: Callable[[_Subscriber], None],
        on_drop: asyncio.Event | None = None,
    ) -> None:
        self.loop = loop
        self.limit = limit
        self.forget = forget
        self.on_drop = on_drop
        self.frames: deque[Frame] = deque()
        self.wake = asyncio.Event()
        self.dropped = False

    def offer(self, frame: Frame) -> None:
        """Queue ``frame`` (run on the subscriber's loop); a full queue drops it."""
        if self.dropped:
            return
        if len(self.frames) >= self.limit and frame.get("type") != "end":
            self.dropped = True
            self.frames.clear()
            self.forget(self)
            if self.on_drop is not None:
                self.on_drop.set()
        else:
            self.frames.append(frame)
        self.wake.set()


class _LiveGame:
    """What a live game has shown so far, kept to bring late spectators up to date."""

    def __init__(self, game_id: str, meta: dict[str, Any]) -> None:
        self.id = game_id
        self.meta = meta
        self.tracker = TrailTracker()
        self.states: list[GameState] = []
        self.heads: list[list[int]] = []
        self.marks: list[list[int]] = []
        self.items: list[list[list[Any]]] = []
        self.any_items = False
        self.rows: list[list[dict[str, Any]]] = []
        self.first: dict[str, Any] | None = None  # what never changes: board, seats
        self.shown = 0  # states made into frames so far (`catch_up`)
        self.end: Frame | None = None
        self.summary: dict[str, Any] | None = None  # `LiveHub.close`'s, until `ending`
        self.subscribers: set[_Subscriber] = set()

    def seats(self, state: GameState) -> list[dict[str, Any]]:
        """Per seat, name and bot: from the meta when it says, else the state's teams."""
        given = self.meta.get("seats")
        if isinstance(given, list) and len(given) == len(state.teams):
            return [{"name": str(s.get("name", "")), "bot": str(s.get("bot", ""))} for s in given]
        names = self.meta.get("names")
        bots = self.meta.get("bots") or []
        out = []
        for t in state.teams:
            name = names[t.index] if isinstance(names, list) and t.index < len(names) else t.name
            bot = bots[t.index] if t.index < len(bots) else ""
            out.append({"name": str(name), "bot": str(bot)})
        return out

    def add(self, state: GameState) -> Frame:
        """Take the next state and return the frame that tells spectators about it."""
        self.states.append(state)
        frame = self.catch_up()
        assert frame is not None
        return frame

    def catch_up(self) -> Frame | None:
        """Make the frames of the states not yet shown; return the last one (``None``: none
        was pending). Their lists are kept: a late spectator's start frame is made of them."""
        frame = None
        while self.shown < len(self.states):
            frame = self._make(self.shown)
            self.shown += 1
        return frame

    def _make(self, turn: int) -> Frame:
        """The frame of state ``turn`` (every earlier state already made)."""
        state = self.states[turn]
        opened, closed = self.tracker.step(state)
        tokens: list[Token] = []
        if turn > 0:
            prev = self.states[turn - 1]
            tokens = [
                move_token(state, p.head, c.head) if p.alive else None
                for p, c in zip(prev.cycles, state.cycles, strict=False)
            ]
        if self.first is None:
            self.first = {
                "board": board_data(state),
                "cycles": cycles_of(state),
                "seats": self.seats(state),
            }
        rows = [r.to_dict() for r in rows_at(state, tokens, None, None, self.first["seats"])]
        items = items_of(state)
        self.any_items = self.any_items or bool(items)
        self.heads.append(heads_of(state))
        self.marks.append(marks_of(state))
        self.items.append(items)
        self.rows.append(rows)
        if turn == 0:
            return self._snapshot(0)
        return Frame(
            type="turn",
            turn=turn,
            heads=self.heads[-1],
            marks=self.marks[-1],
            items=items if self.any_items else None,
            rows=rows,
            open=opened,
            close=closed,
        )

    def snapshot(self) -> Frame:
        """The start frame: the whole game so far as viewer data."""
        self.catch_up()
        return self._snapshot(self.shown - 1)

    def _snapshot(self, last: int) -> Frame:
        assert self.first is not None
        meta = self.meta
        ruleset = str(meta.get("ruleset", self.states[0].ruleset.id))
        map_id = str(meta.get("map", ""))
        parts = (str(meta.get("title", "")), map_id, ruleset, str(meta.get("queue", "")))
        title = " · ".join(x for x in parts if x)
        data = {
            "version": DATA_VERSION,
            "live": True,
            "title": f"{title} · live" if title else "live game",
            "ruleset": ruleset,
            "map": map_id,
            "seed": self.states[0].seed,
            "palette": palette.as_dict(),
            "board": self.first["board"],
            "seats": self.first["seats"],
            "cycles": self.first["cycles"],
            "last": last,
            "heads": list(self.heads),
            "marks": list(self.marks),
            "trails": [list(t) for t in self.tracker.intervals],
            "items": list(self.items) if self.any_items else None,
            "rows": list(self.rows),
            "result": "",
            "replay": None,
        }
        return Frame(type="start", game=self.id, meta=_jsonable(meta), data=data)

    def ending(self) -> Frame | None:
        """The end frame once the game is closed, made the first time it is asked for."""
        if self.end is None and self.summary is not None:
            self.end = self.finish(self.summary)
            self.summary = None
        return self.end

    def finish(self, summary: dict[str, Any]) -> Frame:
        """The end frame for ``summary`` (see `LiveHub.close`)."""
        self.catch_up()
        summary = dict(summary)
        replay = _as_replay(summary.pop("replay", None))
        data = None
        if replay is not None and len(replay.turns) + 1 == len(self.states):
            data = viewer_data(replay, self.states)
        text = summary.get("result")
        if not isinstance(text, str) or not text or text in ("win", "loss", "draw"):
            if replay is not None and replay.outcome is not None:
                text = result_text(replay)
            elif self.states and self.states[-1].outcome is not None:
                o = self.states[-1].outcome
                names = [s["name"] for s in (self.first or {}).get("seats", [])]
                record = {"ranks": list(o.ranks), "winner": o.winner, "reason": o.reason}
                text = outcome_text({**record, "turn": o.turn}, names)
            else:
                text = "aborted" if summary.get("aborted") else "the game ended unfinished"
        frame = Frame(type="end", game=self.id, result=text, summary=_jsonable(summary))
        if data is not None:
            frame["data"] = data
        return frame


def _as_replay(value: Any) -> Replay | None:
    """A replay given as a `Replay`, its JSON text or its JSON data; ``None`` otherwise."""
    if isinstance(value, Replay):
        return value
    try:
        if isinstance(value, str):
            return Replay.from_json(value, "live game")
        if isinstance(value, dict):
            return Replay.from_json(json.dumps(value), "live game")
    except ValueError:
        return None
    return None


def _jsonable(value: dict[str, Any]) -> dict[str, Any]:
    """``value`` as plain JSON data (anything else as its text), so no meta can break a
    spectator's frame."""
    result: dict[str, Any] = json.loads(json.dumps(value, default=str))
    return result


class LiveHub:
    """The live games and their spectators (see the module docstring).

    Every method but `subscribe` may be called from any thread; `subscribe` is iterated on
    the spectator's asyncio loop.

    Args:
        queue: frames a spectator may fall behind by before it is dropped.
        spectators: spectators one game takes.
        keep: finished games kept for spectators who come after the end (a local
            ``--browser`` game; the server keeps none: its finished games are in its
            database).
    """

    def __init__(self, queue: int = QUEUE, spectators: int = SPECTATORS, keep: int = 0) -> None:
        self.queue = queue
        self.spectators = spectators
        self.keep = keep
        self._lock = threading.Lock()
        self._live: dict[str, _LiveGame] = {}
        self._done: OrderedDict[str, _LiveGame] = OrderedDict()

    # -- the game's side ---------------------------------------------------------------
    def open(self, game_id: str, meta: dict[str, Any]) -> None:
        """Announce a game: ``meta`` says what the lists show (``queue``, ``names`` or
        ``seats``, ``bots``, ``map``, ``ruleset``; any JSON data)."""
        with self._lock:
            self._live[game_id] = _LiveGame(game_id, dict(meta))

    def push(self, game_id: str, state: GameState) -> None:
        """The game's next state (turn 0 first). Never blocks; unknown games are ignored."""
        with self._lock:
            game = self._live.get(game_id)
            if game is None:
                return
            if game.subscribers:
                self._send(game, game.add(state))
            else:  # nobody watches: frames are made if someone comes (`_LiveGame.catch_up`)
                game.states.append(state)

    def close(self, game_id: str, summary: dict[str, Any]) -> None:
        """End a game: spectators get the result, then their iterators end.

        ``summary`` is JSON data passed on to spectators, with two keys read here:
        ``result`` (the result in words; default: from the replay or the last state) and
        ``replay`` (a `Replay` or its JSON: the viewer then shows its moves, times and
        verdicts too). ``aborted: true`` says a game stopped before its end.

        The end frame (with the whole game's viewer data) is made here only if someone
        watches; a kept game makes it when it is first asked for.
        """
        with self._lock:
            game = self._live.pop(game_id, None)
            if game is None:
                return
            game.summary = dict(summary)
            if game.subscribers:
                end = game.ending()
                assert end is not None
                self._send(game, end)
            game.subscribers.clear()
            if self.keep > 0:
                self._done[game_id] = game
                while len(self._done) > self.keep:
                    self._done.popitem(last=False)

    def _send(self, game: _LiveGame, frame: Frame) -> None:
        for sub in list(game.subscribers):
            try:
                sub.loop.call_soon_threadsafe(sub.offer, frame)
            except RuntimeError:  # its loop has closed: the spectator is gone
                game.subscribers.discard(sub)

    # -- what the pages ask --------------------------------------------------------------
    def games(self) -> list[dict[str, Any]]:
        """The live games, oldest first: ``id``, ``turn`` (turns played), ``spectators``
        and the meta given to `open`."""
        with self._lock:
            return [self._describe(g) for g in self._live.values()]

    def finished(self) -> list[dict[str, Any]]:
        """The finished games kept (``keep``), newest first, with ``result``."""
        with self._lock:
            return [self._describe(g) for g in reversed(self._done.values())]

    def status(self, game_id: str) -> str | None:
        """``live``, ``finished`` (kept), or ``None`` for a game the hub does not know."""
        with self._lock:
            if game_id in self._live:
                return "live"
            return "finished" if game_id in self._done else None

    def spectators_of(self, game_id: str) -> int:
        """How many spectators a live game has now."""
        with self._lock:
            game = self._live.get(game_id)
            return len(game.subscribers) if game is not None else 0

    @staticmethod
    def _describe(g: _LiveGame) -> dict[str, Any]:
        out = {**_jsonable(g.meta), "id": g.id, "turn": max(0, len(g.states) - 1)}
        out["spectators"] = len(g.subscribers)
        end = g.ending()
        if end is not None:
            out["result"] = end["result"]
        return out

    # -- the spectator's side --------------------------------------------------------------
    async def subscribe(
        self, game_id: str, dropped: asyncio.Event | None = None
    ) -> AsyncIterator[Frame]:
        """The frames of a game: the game so far, then each new turn, then the end.

        ``dropped`` is set the moment this spectator is dropped, so a sender stuck
        writing to a stalled socket can be stopped at once.

        Raises:
            KeyError: no such game (live, or finished and kept).
            TooMany: the game has as many spectators as it takes.
            Dropped: this spectator fell ``queue`` frames behind.
        """
        with self._lock:
            found = self._live.get(game_id) or self._done.get(game_id)
            if found is None:
                raise KeyError(game_id)
            game = found

        def forget(s: _Subscriber) -> None:
            with self._lock:
                game.subscribers.discard(s)

        sub = _Subscriber(asyncio.get_running_loop(), self.queue, forget, dropped)
        with self._lock:
            end = game.ending()
            if end is None and len(game.subscribers) >= self.spectators:
                raise TooMany(f"game {game_id} has {self.spectators} spectators already")
            if game.states:
                sub.frames.append(game.snapshot())
            if end is not None:
                sub.frames.append(end)
            else:
                game.subscribers.add(sub)
        try:
            while True:
                if sub.dropped:
                    raise Dropped(f"fell {self.queue} frames behind game {game_id}")
                while sub.frames and not sub.dropped:
                    frame = sub.frames.popleft()
                    yield frame
                    if frame["type"] == "end":
                        return
                if not sub.frames and not sub.dropped:
                    sub.wake.clear()
                    await sub.wake.wait()
        finally:
            forget(sub)
