"""Two ways to write a bot in Python.

1. A class: subclass `Bot`, give it a ``name``, optionally ``start(game)``, and ``move(view)``::

       class Hugger(Bot):
           name = "Hugger"
           def move(self, view):
               return view.safe_headings()[0] if view.safe_headings() else "n"

2. A function in the style of the Scheme course's ``define-tron-brain``: it gets the view
   and its previous state and returns the move and the new state; the first state comes
   from ``init(game)``::

       @brain("Random Move Bot", init=lambda game: 0)
       def random_move(view, turns):
           return random.choice(view.safe_headings() or ["n"]), turns + 1

A move is a heading (``"n"``, ``Heading.E``, ``3`` ...) on a grid, a node on a graph board,
or a `lightcycle.core.moves.Move`. A bot that raises, returns nothing or returns a move
the rules reject forfeits that turn's cycle; the reason is recorded and the game goes on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from lightcycle.rules.observe import View

MoveAnswer = Any
"""What ``move`` may return: a heading, a node, a `Move`, or ``("jump", heading)``."""


class BotError(ValueError):
    """A bot that cannot be found or built, with what to do instead."""


class Bot:
    """Base class of in-process bots.

    Attributes:
        name: shown in results and replays.
    """

    name: ClassVar[str] = "Bot"

    reproducible: bool = False
    """Whether this bot's moves depend only on the game (position, seed, its settings),
    never on a clock: a bot that thinks until a deadline plays differently on a busy
    machine, one whose every search stops at a fixed budget of work does not. The
    referee times every bot but forfeits no reproducible bot of lightcycle's own for
    time (see `plays_reproducibly`): the time limit is there to stop a bot buying
    strength with time, which such a bot cannot, and a forfeit would only let the
    machine's load decide its games."""

    def start(self, game: View) -> None:
        """Called once before the first move with the turn-0 view (size, walls, starts)."""

    def move(self, view: View) -> MoveAnswer:
        """Return this turn's move for ``view.me``."""
        raise NotImplementedError(f"{type(self).__name__} must define move(view)")

    def end(self, view: View) -> None:
        """Called once after the game's last turn with the final view (its state's
        ``outcome`` says who won); what it does cannot change the game. The default does
        nothing; an HTTP bot sends its server ``POST /end`` here."""

    def report(self) -> dict[str, Any]:
        """Figures about the game just played, for match tables (``{"depth": 9.5}``).

        Searching bots report their mean search depth here so ``lightcycle duel`` can show
        it; the default reports nothing. A figure may also be a short list of numbers
        (one per move: ``{"move_ms": [12.5, 40.1]}``): lists go to the replay's
        ``reports``, numbers to the tables too.
        """
        return {}

    @property
    def display_name(self) -> str:
        """The name shown in results (instances may override ``name``)."""
        return str(getattr(self, "name", type(self).__name__))


def plays_reproducibly(bot: Bot) -> bool:
    """Whether the referee may exempt ``bot`` from time forfeits (it is still timed).

    Only lightcycle's own bots are taken at their word (`Bot.reproducible`): the referee
    cannot check that a bot reads no clock, and a grade or a tournament must hold a
    student's bot to the time limit whatever it declares.
    """
    own = type(bot).__module__.partition(".")[0] == "lightcycle"
    return own and bool(getattr(bot, "reproducible", False))


BrainFn = Callable[[View, Any], tuple[MoveAnswer, Any]]


def brain(name: str, init: Callable[[View], Any] | None = None) -> Callable[[BrainFn], type[Bot]]:
    """Make a bot class from a function ``(view, state) -> (move, new_state)``.

    Args:
        name: the bot's name.
        init: computes the first state from the turn-0 view (size, walls, starts);
            without it the first state is ``None``.

    Returns:
        A decorator turning the function into a `Bot` subclass; each instance keeps its own
        state, so one class can play both seats.
    """

    def wrap(fn: BrainFn) -> type[Bot]:
        def start(self: Any, game: View) -> None:
            self._state = init(game) if init is not None else None

        def move(self: Any, view: View) -> MoveAnswer:
            if not hasattr(self, "_state"):
                self._state = init(view) if init is not None else None
            result = fn(view, self._state)
            if not (isinstance(result, tuple) and len(result) == 2):
                raise BotError(f"brain {name!r} must return (move, new_state), got {result!r}")
            answer, self._state = result
            return answer

        cls = type(
            fn.__name__,
            (Bot,),
            {
                "name": name,
                "start": start,
                "move": move,
                "__doc__": fn.__doc__,
                "__module__": fn.__module__,
            },
        )
        return cls

    return wrap
