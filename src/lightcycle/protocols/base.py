"""What every wire protocol shares: the `Codec` interface, `ProtocolError`, the registry.

A codec belongs to one seat of one game. It turns the game state into the bytes that seat
is sent and reads the seat's replies out of a byte buffer, strictly: a reply that is not
exactly what the protocol allows raises `ProtocolError` with the bytes received, and the
referee turns that into a ``bad_output`` verdict. Codecs never touch a process, a clock or
a socket, so a whole exchange can be tested as a script of bytes.

Codecs are incremental where it pays: the 2010 protocol re-sends the whole map every turn,
so its codec keeps the encoded map and rewrites only the cells that changed.

The registry (`get_protocol`, `list_protocols`) is filled by the package
(`register_protocols`, called from ``lightcycle/protocols/__init__.py``): the codecs
import this module, and this module imports none of them.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import ClassVar

from lightcycle.core.state import GameState
from lightcycle.rules.ruleset import PLAIN_STAGES

Answers = dict[int, object]
"""A seat's reply: per cycle index, an answer `lightcycle.rules.legal.read_answer` reads."""


class ProtocolError(ValueError):
    """A reply that breaks the protocol.

    Attributes:
        protocol: the protocol's name.
        expected: what the protocol allows at this point.
        received: the offending bytes (at most 200 of them).
    """

    def __init__(self, protocol: str, expected: str, received: bytes) -> None:
        self.protocol = protocol
        self.expected = expected
        self.received = bytes(received[:200])
        super().__init__(f"{protocol}: expected {expected}, received {self.received!r}")


class UnsupportedGame(ValueError):
    """A game a protocol cannot carry (a torus in the 2010 protocol, three players...)."""


def check_plain_rules(state: GameState, protocol: str) -> None:
    """Raise `UnsupportedGame` unless the game's ruleset uses only `PLAIN_STAGES`."""
    stages = getattr(state.ruleset, "stages", ())
    extra = [s for s in stages if s not in PLAIN_STAGES]
    if extra:
        raise UnsupportedGame(
            f"the {protocol} protocol cannot express the rules of {state.ruleset.id} "
            f"({', '.join(extra)}); use --protocol jsonl"
        )


@dataclass(frozen=True)
class Params:
    """What a protocol tells a bot about the match besides the board.

    Attributes:
        first_move_time: seconds allowed for the first move (or set-up), if limited.
        move_time: seconds allowed per move, if limited.
        names: seat names in seat order.
        extra: further ``key value`` parameters to announce (protocols with a parameter
            list send them; bots must ignore those they do not know).
        time: every time control in force, for protocols that can carry them all.
    """

    first_move_time: float | None = None
    move_time: float | None = None
    names: tuple[str, ...] = ()
    extra: tuple[tuple[str, str], ...] = ()
    time: dict[str, float | None] = field(default_factory=dict)


class Codec:
    """One seat's side of a wire protocol. Subclasses implement one protocol each.

    Attributes:
        name: the protocol's name (``tron2010``, ``aichallenge``, ``sexp``, ``jsonl``).
        multi_game: whether one bot process may play several games in a row.
        reusable: whether a process may play several games in a row when the bot's
            author says the bot keeps no state between turns (``reuse``): the protocol
            sends the whole game every turn but has no message that starts a game, so
            only a stateless bot can tell nothing from the change.
        hello: whether the bot speaks first (the Scheme protocol: its name).
        wants_ready: whether the bot must acknowledge `start` before the first turn.
        max_reply: the most bytes a reply may take before it is refused.
    """

    name: ClassVar[str] = "?"
    multi_game: ClassVar[bool] = False
    reusable: ClassVar[bool] = False
    hello: ClassVar[bool] = False
    wants_ready: ClassVar[bool] = False
    max_reply: ClassVar[int] = 4096
    summary: ClassVar[str] = ""

    def __init__(self, seat: int) -> None:
        self.seat = seat

    @classmethod
    def check(cls, state: GameState) -> None:
        """Raise `UnsupportedGame` if this protocol cannot carry the game of ``state``."""

    # -- messages to the bot -----------------------------------------------------------
    def start(self, state: GameState, params: Params) -> bytes:
        """The bytes sent once before the first turn of a game."""
        return b""

    def turn(self, state: GameState) -> bytes:
        """The request for this seat's move in ``state``."""
        raise NotImplementedError

    def eliminated(self, state: GameState) -> bytes:
        """Sent once when the seat is out but the game goes on (multi-player games)."""
        return b""

    def end(self, state: GameState) -> bytes:
        """Sent once when the game is over (``state.outcome`` is set)."""
        return b""

    # -- replies from the bot ----------------------------------------------------------
    def read_hello(self, buf: bytearray) -> str | None:
        """Consume the bot's greeting (its name); ``None`` while incomplete."""
        return ""

    def read_ready(self, buf: bytearray) -> bool:
        """Consume the bot's acknowledgement of `start`; ``False`` while incomplete."""
        return True

    def read_move(self, buf: bytearray, state: GameState) -> Answers | None:
        """Consume one move reply; ``None`` while the reply is incomplete.

        Raises:
            ProtocolError: the bytes can never become a valid reply.
        """
        raise NotImplementedError

    def stray(self, buf: bytearray) -> bytes:
        """Drop blank bytes at the front of ``buf``; return what else is there.

        The referee calls this before each request: anything left means the bot wrote
        ahead of being asked, which no protocol allows.
        """
        i = 0
        n = len(buf)
        while i < n and buf[i] in b" \t\r\n":
            i += 1
        if i:
            del buf[:i]
        return bytes(buf[:200])

    # -- helpers -----------------------------------------------------------------------
    def take_line(self, buf: bytearray, what: str) -> bytes | None:
        """Pop one line (without its end) from ``buf``; ``None`` if no full line yet."""
        i = buf.find(b"\n", 0, self.max_reply + 1)
        if i < 0:
            if len(buf) > self.max_reply:
                raise ProtocolError(
                    self.name, f"{what} on a line of at most {self.max_reply} bytes", bytes(buf)
                )
            return None
        line = bytes(buf[:i])
        del buf[: i + 1]
        return line.rstrip(b"\r")

    def cycle(self, state: GameState) -> int:
        """The index of this seat's first cycle (protocols with one cycle per seat)."""
        for c in state.cycles:
            if c.team == self.seat:
                return c.index
        raise UnsupportedGame(f"seat {self.seat} has no cycle")

    def result_word(self, state: GameState) -> str:
        """``win``, ``loss`` or ``draw`` for this seat once the game is over."""
        outcome = state.outcome
        if outcome is None:
            return "draw"
        if outcome.winner == self.seat:
            return "win"
        if outcome.ranks[self.seat] == 1:
            return "draw"
        return "loss"


_PROTOCOLS: dict[str, type[Codec]] = {}
"""Every protocol by name, in the order `register_protocols` was given them."""


def register_protocols(*codecs: type[Codec]) -> None:
    """Add protocols to the registry `get_protocol` and `list_protocols` read.

    The codecs import this module (for `Codec`), so this module cannot import them:
    instead the package, `lightcycle.protocols`, imports the four codecs and registers
    them, in the order the documentation gives them. Python runs a package's
    ``__init__`` before any of its modules, this one included, so the registry is full
    wherever a protocol can be asked for by name.
    """
    for codec in codecs:
        _PROTOCOLS[codec.name] = codec


def list_protocols() -> list[type[Codec]]:
    """Every protocol, in the order the documentation gives them."""
    return list(_PROTOCOLS.values())


def get_protocol(name: str) -> type[Codec]:
    """Find a protocol by name.

    Raises:
        ValueError: naming the known protocols.
    """
    key = name.strip().lower()
    if key in _PROTOCOLS:
        return _PROTOCOLS[key]
    close = difflib.get_close_matches(key, _PROTOCOLS, n=1)
    hint = f" Did you mean {close[0]}?" if close else ""
    raise ValueError(f"unknown protocol {name!r}.{hint} Known: {', '.join(_PROTOCOLS)}")
