"""The built-in bots and the two ways of writing a bot."""

from __future__ import annotations

import itertools

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
        states = []
        r = play(ARENA, [name, "random"], seed=seed, on_turn=states.append)
        me = r.final.cycles[0]
        if me.death is None:
            continue
        assert me.death.cause not in (DeathCause.FORFEIT,), me.death
        if me.death.cause in (DeathCause.WALL, DeathCause.TRAIL):
            before = states[me.death.turn - 1]
            head = before.cycles[0].head
            nbrs = before.board.topology.neighbours[head]
            free = [d for d in nbrs if d >= 0 and not (before.occupied >> d) & 1]
            assert not free, (name, seed, me.death, free)


CORRIDORS = grid_map(["#" * 32, "#1.....#" + "#" * 24, "#" * 32, "#2" + "." * 29 + "#", "#" * 32])


def test_random_follows_a_corridor_to_its_end() -> None:
    for seed in range(10):
        c0 = play(CORRIDORS, ["random", "wallhugger"], seed=seed).final.cycles[0]
        assert c0.death is not None
        # five free cells ahead, nothing else: it takes them all, then has no move left
        assert (c0.death.turn, c0.death.cause) == (6, DeathCause.WALL), c0.death


def _walk(bots: list[str], spec, turns: int):
    """The states of ``turns`` turns of ``bots`` on ``spec`` (seed 0)."""
    from lightcycle.referee.local import collect_moves
    from lightcycle.rules.engine import new_game, step

    players = [make_bot(b) for b in bots]
    state = new_game("classic", spec, seed=0, players=len(players))
    states = [state]
    for _ in range(turns):
        if state.outcome is not None:
            break
        state = step(state, collect_moves(state, players))
        states.append(state)
    return states


BIG = grid_map(
    ["#" * 16]
    + ["#1" + "." * 13 + "#"]
    + ["#" + "." * 14 + "#"] * 12
    + ["#" + "." * 13 + "2#", "#" * 16]
)


def test_wallhugger_runs_along_the_walls() -> None:
    # two wall huggers run round the border towards each other and meet on turn 13
    states = _walk(["wallhugger", "wallhugger"], BIG, 12)
    topo = BIG.topology
    for s in states[1:]:
        x, y = topo.xy(s.cycles[0].head)
        # round the border: every cell it enters touches the outer wall
        assert x in (1, 14) or y in (1, 14), (x, y)
    assert states[-1].outcome is None


def test_wallhugger_skips_a_dead_end() -> None:
    # the cell east of the start touches the most walls but leads nowhere
    spec = grid_map(["######", "#1.###", "#.####", "#....#", "#...2#", "######"])
    states = _walk(["wallhugger", "random"], spec, 2)
    assert spec.topology.xy(states[1].cycles[0].head) == (1, 2)
    assert states[2].cycles[0].alive


def test_chaser_closes_in_as_the_crow_flies() -> None:
    states = _walk(["chaser", "wallhugger"], BIG, 6)
    topo = BIG.topology

    def gap(s):
        (x0, y0), (x1, y1) = topo.xy(s.cycles[0].head), topo.xy(s.cycles[1].head)
        return abs(x0 - x1) + abs(y0 - y1)

    first, after = gap(states[0]), gap(states[-1])
    # the wall hugger runs along the border, the chaser gains a step on it every turn
    assert after <= first - 6, (first, after)


@pytest.mark.parametrize(
    ("bot", "opponent_row"),
    [
        # east is as close to the opponent as south, and closes the larger gap, but
        # leads into a pocket of four cells: the chaser goes south
        ("chaser", "#.........2#"),
        # east ends farther from the opponent but leads into a pocket of four cells,
        # under half the room south: the runaway goes south
        ("runaway", "#2.........#"),
    ],
)
def test_bot_does_not_go_into_a_small_pocket(bot: str, opponent_row: str) -> None:
    spec = grid_map(
        [
            "############",
            "#1....######",
            "#.##########",
            "#..........#",
            opponent_row,
            "############",
        ]
    )
    states = _walk([bot, "wallhugger"], spec, 1)
    assert spec.topology.xy(states[1].cycles[0].head) == (1, 2)


LANE = grid_map(
    ["#" * 17]
    + ["#" + "." * 15 + "#"] * 3
    + ["#....1...2......#"]
    + ["#" + "." * 15 + "#"] * 3
    + ["#" * 17]
)


def test_runaway_keeps_its_distance_from_the_chaser() -> None:
    states = _walk(["chaser", "runaway"], LANE, 3)
    topo = LANE.topology

    def gap(s):
        (x0, y0), (x1, y1) = topo.xy(s.cycles[0].head), topo.xy(s.cycles[1].head)
        return abs(x0 - x1) + abs(y0 - y1)

    # the chaser closes a step every turn, the runaway opens one
    assert [gap(s) for s in states] == [4, 4, 4, 4]


def test_runaway_leads_the_chaser_astray() -> None:
    # once it has seen the chaser come straight at it, it plays the chase out and dodges
    # past it into the open part of the board, leaving the chaser the corner
    for seed in range(3):
        assert play(LANE, ["chaser", "runaway"], seed=seed).winner == 1
        assert play(LANE, ["runaway", "chaser"], seed=seed).winner == 0


def test_the_lower_rungs_beat_the_rung_below() -> None:
    """A quick check of the order on part of the duel pool (bench/strength.py measures the
    margins over hundreds of games)."""
    from lightcycle.maps.random_maps import symmetric_map
    from lightcycle.maps.registry import get_map

    maps = [get_map(m) for m in ("chambers", "pillars", "keyhole", "ring", "arena-15")]
    maps += [symmetric_map(s) for s in (1, 2, 3, 4, 5)]
    ladder = ["random", "wallhugger", "chaser", "runaway"]
    for lo, hi in itertools.pairwise(ladder):
        score = 0.0
        for i, spec in enumerate(maps):
            for seat in (0, 1):
                bots = [hi, lo] if seat == 0 else [lo, hi]
                w = play(spec, bots, seed=i).winner
                score += 1.0 if w == seat else 0.5 if w is None else 0.0
        assert score > len(maps), (hi, lo, score)


def test_the_ladder_holds_beyond_neighbours() -> None:
    """Each rung also beats the rungs two and three below it (a quick check on part of the
    pool; bench/strength.py measures the margins)."""
    from lightcycle.maps.random_maps import symmetric_map
    from lightcycle.maps.registry import get_map

    maps = [get_map(m) for m in ("chambers", "pillars", "keyhole", "ring", "arena-15")]
    maps += [symmetric_map(s) for s in (1, 2, 3, 4, 5)]
    pairs = [
        ("chaser", "random"),
        ("runaway", "wallhugger"),
        ("runaway", "random"),
        ("floodfill", "chaser"),
        ("floodfill", "wallhugger"),
    ]
    for hi, lo in pairs:
        score = 0.0
        for i, spec in enumerate(maps):
            for seat in (0, 1):
                bots = [hi, lo] if seat == 0 else [lo, hi]
                w = play(spec, bots, seed=i).winner
                score += 1.0 if w == seat else 0.5 if w is None else 0.0
        assert score > len(maps), (hi, lo, score)


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

    r = play(ARENA, [Bad, "wallhugger"], seed=0)
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

    r = play(ARENA, [Boom, "wallhugger"], seed=0)
    d = r.final.cycles[0].death
    assert d is not None and d.turn == 4 and "ZeroDivisionError: oops" in d.detail


def test_a_raising_start_forfeits_the_first_move() -> None:
    class BadStart(Bot):
        name = "BadStart"

        def start(self, game):
            raise RuntimeError("no")

        def move(self, view):
            return "e"

    r = play(ARENA, [BadStart, "wallhugger"], seed=0)
    d = r.final.cycles[0].death
    assert d is not None and d.turn == 1 and "start() raised RuntimeError" in d.detail


def test_unknown_bot_names_close_matches() -> None:
    with pytest.raises(BotError, match="Did you mean chaser"):
        make_bot("chaserr")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("builtin:strong:nodes=abc", "nodes must be int, got 'abc'"),
        ("builtin:strong:nodes=-5", "nodes must be above 0, got -5"),
        ("builtin:medium:depth=0", "depth must be above 0, got 0"),
        ("builtin:strong:move_time=fast", "move_time must be float, got 'fast'"),
        (
            "builtin:strong:nodez=10",
            "Strong has no setting 'nodez' (did you mean nodes?); its settings: nodes, depth",
        ),
        ("builtin:strong:contempt=-5", "contempt must be 0 or more, got -5"),
    ],
)
def test_bad_settings_are_refused_before_a_game(spec: str, message: str) -> None:
    """A text or non-positive node budget would make the search run without end."""
    with pytest.raises(BotError) as err:
        make_bot(spec)
    assert message in str(err.value)


def test_good_settings_are_taken() -> None:
    bot = make_bot("builtin:strong:nodes=2000,depth=3,move_time=1")
    assert (bot.node_limit, bot.depth_limit, bot.move_time) == (2000, 3, 1)  # type: ignore[attr-defined]


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
