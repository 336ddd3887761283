"""The built-in bots and the two ways of writing a bot."""

from __future__ import annotations

import pytest

from lightcycle.bots.api import Bot, brain
from lightcycle.bots.builtin import BUILTIN
from lightcycle.bots.registry import BotError, make_bot
from lightcycle.core.moves import DeathCause
from lightcycle.referee.local import play
from tests.conftest import grid_map

ARENA = grid_map(
    ["############"] + ["#1.........#"] + ["#..........#"] * 8 + ["#.........2#", "############"]
)


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_builtin_bots_never_crash_while_a_safe_move_exists(name: str) -> None:
    for seed in range(6):
        r = play(ARENA, [name, "wallhugger"], seed=seed)
        me = r.final.cycles[0]
        assert me.death is None or me.death.cause is not DeathCause.FORFEIT


def test_random_never_hits_a_wall_with_a_safe_move() -> None:
    spec = grid_map(["#####", "#1..#", "###.#", "#2..#", "#####"])
    r = play(spec, ["random", "random"], seed=3)
    c0 = r.final.cycles[0]
    # cycle 0 has a corridor to fill; it only dies once boxed in
    assert c0.death is not None and c0.death.turn >= 2


def test_bots_are_deterministic_per_seed() -> None:
    a = play(ARENA, ["random", "random"], seed=9).replay.to_json()
    b = play(ARENA, ["random", "random"], seed=9).replay.to_json()
    c = play(ARENA, ["random", "random"], seed=10).replay.to_json()
    assert a == b and a != c


def test_wallhugger_beats_random_clearly() -> None:
    wins = losses = 0
    for s in range(20):
        for seat in (0, 1):
            bots = ["wallhugger", "random"] if seat == 0 else ["random", "wallhugger"]
            w = play(ARENA, bots, seed=s).winner
            wins += w == seat
            losses += w == 1 - seat
    assert wins >= 15 and wins >= 3 * losses, (wins, losses)


def test_brain_function_style_keeps_state() -> None:
    calls = []

    @brain("Counter", init=lambda game: 100)
    def counter(view, n):
        calls.append(n)
        return (view.safe_headings() or ["n"])[0], n + 1

    r = play(ARENA, [counter, "wallhugger"], seed=1)
    assert calls[:3] == [100, 101, 102]
    assert r.names[0] == "Counter"


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (None, "answered nothing"),
        ("up", "not a heading"),
        (7, "not a heading"),
    ],
)
def test_bad_answers_forfeit_with_the_reason(answer, reason) -> None:
    class Bad(Bot):
        name = "Bad"

        def move(self, view):
            return answer

    r = play(ARENA, [Bad, "random"], seed=0)
    d = r.final.cycles[0].death
    assert d is not None and d.cause is DeathCause.FORFEIT and reason in d.detail
    assert r.winner == 1


def test_a_raising_bot_forfeits_and_the_game_goes_on() -> None:
    class Boom(Bot):
        name = "Boom"

        def move(self, view):
            if view.turn == 3:
                raise ZeroDivisionError("oops")
            return (view.safe_headings() or ["n"])[0]

    r = play(ARENA, [Boom, "random"], seed=0)
    d = r.final.cycles[0].death
    assert d is not None and d.turn == 4 and "ZeroDivisionError: oops" in d.detail


def test_a_raising_start_forfeits_the_first_move() -> None:
    class BadStart(Bot):
        name = "BadStart"

        def start(self, game):
            raise RuntimeError("no")

        def move(self, view):
            return "e"

    r = play(ARENA, [BadStart, "random"], seed=0)
    d = r.final.cycles[0].death
    assert d is not None and d.turn == 1 and "start() raised RuntimeError" in d.detail


def test_unknown_bot_names_close_matches() -> None:
    with pytest.raises(BotError, match="Did you mean chaser"):
        make_bot("chaserr")


def test_python_file_bots(tmp_path) -> None:
    f = tmp_path / "mybot.py"
    f.write_text(
        "from lightcycle.bots import Bot\n"
        "class Mine(Bot):\n"
        "    name = 'Mine'\n"
        "    def move(self, view):\n"
        "        return (view.safe_headings() or ['n'])[0]\n"
    )
    bot = make_bot(f"py:{f}")
    assert bot.display_name == "Mine"
    assert make_bot(f"py:{f}:Mine").display_name == "Mine"
    with pytest.raises(BotError, match="no Bot class"):
        make_bot(f"py:{f}:Other")
    with pytest.raises(BotError, match="not found"):
        make_bot(f"py:{tmp_path}/none.py")
