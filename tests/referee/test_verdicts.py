"""Verdicts: judging a seat's answers into moves and forfeits, what forfeits cost, and
the verdicts the referee reaches while it waits for a reply."""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

import pytest

from lightcycle.core.moves import Forfeit, Move
from lightcycle.core.state import Board, GameState
from lightcycle.core.topology import GridTopology, Heading
from lightcycle.maps.registry import get_map
from lightcycle.maps.spec import MapSpec
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.game import play_game
from lightcycle.referee.players import BotSpec, make_player
from lightcycle.referee.verdicts import OK, Verdict, effect, forfeit_team, judge_answers
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.ruleset import DEFAULT_VERDICT_EFFECTS, VERDICTS, Ruleset
from lightcycle.rules.variants import get_ruleset
from lightcycle.sandbox import Limits

CLASSIC = get_ruleset("classic")
ARENA = get_map("arena-10")
TOPO = ARENA.board.topology
cell = TOPO.cell  # type: ignore[attr-defined]

# arena-10 has one start per player; two cycles per seat need a map with pairs of starts
PAIRS = MapSpec(
    name="arena-10-pairs",
    board=Board(TOPO, ARENA.board.walls),
    starts=((cell(2, 2), cell(2, 7)), (cell(7, 2), cell(7, 7))),
)
TWO_CYCLES = CLASSIC.with_settings(cycles_per_team=2)
JUMPS = dataclasses.replace(
    CLASSIC.with_settings(jumps=1),
    name="classic-jumps",
    stages=("movement.jump", *CLASSIC.stages[1:]),
)


def two_cycle_game(verdicts: dict[str, str] | None = None) -> GameState:
    """Seat 0 steers cycles 0 (2,2) and 1 (2,7); seat 1 steers 2 (7,2) and 3 (7,7)."""
    rs = TWO_CYCLES
    if verdicts is not None:
        rs = dataclasses.replace(rs, verdicts={**DEFAULT_VERDICT_EFFECTS, **verdicts})
    state = new_game(rs, PAIRS, seed=1, players=2)
    assert [(c.index, c.team) for c in state.cycles] == [(0, 0), (1, 0), (2, 1), (3, 1)]
    return state


def one_cycle_game(ruleset: Ruleset = CLASSIC) -> GameState:
    """Cycle 0 of seat 0 at (2, 7), cycle 1 of seat 1 at (7, 2)."""
    state = new_game(ruleset, ARENA, seed=1, players=2)
    assert [TOPO.xy(c.head) for c in state.cycles] == [(2, 7), (7, 2)]
    return state


def test_ok_moves() -> None:
    state = two_cycle_game()
    moves, verdict = judge_answers(state, 0, {0: "n", 1: "s"})
    assert verdict == OK and verdict.ok and str(verdict) == "ok"
    assert moves == {0: Move(0, cell(2, 1)), 1: Move(1, cell(2, 8))}
    moves, verdict = judge_answers(state, 1, {2: "e", 3: 4})  # 2010 numbers: 4 is west
    assert verdict == OK
    assert moves == {2: Move(2, cell(8, 2)), 3: Move(3, cell(6, 7))}


def test_a_move_object_passes_through() -> None:
    state = one_cycle_game()
    move = Move(0, cell(3, 7))
    moves, verdict = judge_answers(state, 0, {0: move})
    assert verdict == OK and moves == {0: move}


def test_a_move_into_a_wall_is_legal_and_deadly_not_illegal() -> None:
    state = one_cycle_game()
    moves, verdict = judge_answers(state, 0, {0: "s"})  # (2, 8) then (2, 9) is the wall
    assert verdict == OK
    after = step(state, {**moves, 1: Move(1, cell(7, 3))})
    moves, verdict = judge_answers(after, 0, {0: "s"})
    assert verdict == OK and moves == {0: Move(0, cell(2, 9))}


def test_missing_cycle_forfeits_that_cycle_only() -> None:
    state = two_cycle_game()
    moves, verdict = judge_answers(state, 0, {0: "n"})
    assert verdict.kind == "illegal_move" and not verdict.ok
    assert verdict.detail == "no move for cycle 1"
    assert moves == {0: Move(0, cell(2, 1)), 1: Forfeit(1, "illegal_move: no move for cycle 1")}
    after = step(state, {**moves, 2: Move(2, cell(7, 1)), 3: Move(3, cell(7, 8))})
    assert [c.alive for c in after.cycles] == [True, False, True, True]


def test_missing_cycle_forfeits_the_whole_seat_when_the_ruleset_says_team() -> None:
    state = two_cycle_game({"illegal_move": "team"})
    assert effect(state, "illegal_move") == "team"
    moves, verdict = judge_answers(state, 0, {0: "n"})
    assert verdict == Verdict("illegal_move", "no move for cycle 1")
    reason = "illegal_move: no move for cycle 1"
    assert moves == {0: Forfeit(0, reason), 1: Forfeit(1, reason)}


def test_no_answer_at_all_forfeits_every_cycle() -> None:
    state = two_cycle_game()
    moves, verdict = judge_answers(state, 0, {})
    assert verdict.detail == "no move for cycle 0; no move for cycle 1"
    assert set(moves) == {0, 1}
    assert all(isinstance(m, Forfeit) for m in moves.values())


@pytest.mark.parametrize("rule", ["cycle", "team"])
def test_answer_for_an_opponents_cycle_is_illegal(rule: str) -> None:
    state = two_cycle_game({"illegal_move": rule})
    moves, verdict = judge_answers(state, 0, {0: "n", 1: "s", 2: "w"})
    assert verdict.kind == "illegal_move"
    assert verdict.detail == "answered for cycle 2, which is not a live cycle of this seat"
    assert 2 not in moves and 3 not in moves, "a seat must never steer an opponent's cycle"
    if rule == "team":
        assert moves == {0: Forfeit(0, str(verdict)), 1: Forfeit(1, str(verdict))}
    else:  # no cycle of the seat was wrong: its own moves stand
        assert moves == {0: Move(0, cell(2, 1)), 1: Move(1, cell(2, 8))}


def test_answer_for_a_dead_cycle_of_the_seat_is_illegal() -> None:
    state = two_cycle_game()
    state = step(
        state,
        {0: Move(0, cell(2, 1)), 1: Forfeit(1, "x"), 2: Move(2, cell(7, 1)), 3: Forfeit(3, "x")},
    )
    assert [c.alive for c in state.cycles] == [True, False, True, False]
    moves, verdict = judge_answers(state, 0, {0: "e"})
    assert verdict == OK and moves == {0: Move(0, cell(3, 1))}
    moves, verdict = judge_answers(state, 0, {0: "e", 1: "e"})
    assert verdict.detail == "answered for cycle 1, which is not a live cycle of this seat"


def test_unparseable_answer_is_illegal_with_the_reason() -> None:
    state = two_cycle_game()
    moves, verdict = judge_answers(state, 0, {0: "x", 1: "n"})
    assert verdict.kind == "illegal_move"
    assert verdict.detail.startswith("cycle 0: not a heading: 'x'")
    assert "n/e/s/w" in verdict.detail
    assert moves == {0: Forfeit(0, str(verdict)), 1: Move(1, cell(2, 6))}


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (None, "answered nothing"),
        (0, "not a heading"),
        (5, "not a heading"),
        ("up", "not a heading"),
        (Move(1, 0), "answered a move for cycle 1, expected cycle 0"),
    ],
)
def test_more_unreadable_answers(answer: object, reason: str) -> None:
    moves, verdict = judge_answers(one_cycle_game(), 0, {0: answer})
    assert verdict.kind == "illegal_move" and reason in verdict.detail
    assert moves == {0: Forfeit(0, str(verdict))}


def test_a_move_to_a_cell_that_is_no_neighbour_is_illegal() -> None:
    state = one_cycle_game()
    moves, verdict = judge_answers(state, 0, {0: Move(0, cell(5, 5))})
    assert verdict.kind == "illegal_move" and "is not a legal move" in verdict.detail
    assert moves == {0: Forfeit(0, str(verdict))}


def test_jump_is_illegal_when_the_ruleset_has_no_jumps() -> None:
    for state in (
        one_cycle_game(CLASSIC),  # no movement.jump stage, no jumps
        one_cycle_game(CLASSIC.with_settings(jumps=1)),  # jumps but no movement.jump stage
        one_cycle_game(dataclasses.replace(JUMPS, settings=CLASSIC.settings)),  # 0 jumps
    ):
        moves, verdict = judge_answers(state, 0, {0: ("jump", "e")})
        assert verdict.kind == "illegal_move", state.ruleset
        assert "is not a legal move" in verdict.detail
        assert moves == {0: Forfeit(0, str(verdict))}


def test_jump_is_legal_with_jumps_and_the_jump_stage() -> None:
    state = one_cycle_game(JUMPS)
    assert state.cycles[0].jumps_left == 1
    moves, verdict = judge_answers(state, 0, {0: ("jump", "e")})
    assert verdict == OK
    assert moves == {0: Move(0, cell(4, 7), jump=True)}
    after = step(state, {**moves, 1: Move(1, cell(6, 2))})
    assert after.cycles[0].head == cell(4, 7) and after.cycles[0].jumps_left == 0
    # the one jump is spent: a second is illegal, a step still fine
    _, verdict = judge_answers(after, 0, {0: ("jump", "e")})
    assert verdict.kind == "illegal_move"
    assert judge_answers(after, 0, {0: "e"})[1] == OK


def test_forfeit_team_covers_every_live_cycle_of_the_seat_only() -> None:
    state = two_cycle_game()
    verdict = Verdict("timeout", "no answer in 1.0 s")
    assert forfeit_team(state, 1, verdict) == {
        2: Forfeit(2, "timeout: no answer in 1.0 s"),
        3: Forfeit(3, "timeout: no answer in 1.0 s"),
    }
    state = step(
        state,
        {
            0: Move(0, cell(2, 1)),
            1: Move(1, cell(2, 8)),
            2: Forfeit(2, "x"),
            3: Move(3, cell(7, 8)),
        },
    )
    assert [c.alive for c in state.cycles] == [True, True, False, True]
    assert forfeit_team(state, 1, verdict) == {3: Forfeit(3, "timeout: no answer in 1.0 s")}
    assert set(forfeit_team(state, 0, verdict)) == {0, 1}


def test_forfeit_team_of_a_dead_seat_is_empty() -> None:
    state = one_cycle_game()
    state = step(state, {0: Move(0, cell(2, 6)), 1: Forfeit(1, "gone")})
    assert forfeit_team(state, 1, Verdict("crashed")) == {}


def test_effect_follows_the_ruleset_table() -> None:
    state = one_cycle_game()
    for kind, rule in DEFAULT_VERDICT_EFFECTS.items():
        assert effect(state, kind) == rule
    assert effect(state, "no-such-verdict") == "team"
    custom = dataclasses.replace(CLASSIC, verdicts={"timeout": "cycle"})
    state = one_cycle_game(custom)
    assert effect(state, "timeout") == "cycle"
    assert effect(state, "illegal_move") == "team"  # not in the table: the whole seat


def test_effect_defaults_for_a_ruleset_that_is_no_ruleset() -> None:
    class Ref:
        id = "other@1"

    state = one_cycle_game()._replace(ruleset=Ref())
    assert effect(state, "illegal_move") == DEFAULT_VERDICT_EFFECTS["illegal_move"]
    assert effect(state, "crashed") == "team"


def test_every_non_ok_verdict_has_an_effect() -> None:
    assert VERDICTS[0] == "ok"
    assert set(VERDICTS[1:]) == set(DEFAULT_VERDICT_EFFECTS)


def test_verdict_to_dict_and_str() -> None:
    v = Verdict("crashed", "killed by signal SIGSEGV")
    assert v.to_dict() == {"verdict": "crashed", "detail": "killed by signal SIGSEGV"}
    assert str(v) == "crashed: killed by signal SIGSEGV"
    assert not v.ok
    assert Verdict("timeout").to_dict() == {"verdict": "timeout", "detail": ""}
    assert str(Verdict("timeout")) == "timeout"
    assert OK.to_dict() == {"verdict": "ok", "detail": ""} and OK.ok


OPEN = MapSpec(
    name="open-6",
    board=Board(GridTopology(6, 6), 0),
    starts=((GridTopology(6, 6).cell(0, 0),), (GridTopology(6, 6).cell(5, 5),)),
)


@pytest.mark.parametrize("spec", [ARENA, OPEN], ids=["walled", "open"])
def test_one_heading_answers_judge_as_the_general_path_does(spec: MapSpec) -> None:
    # Heading and 1-4 answers of a one-cycle seat take a short path; its moves must be
    # those of the general path (reached here by the letter forms), off-board steps too
    state = new_game(CLASSIC, spec, seed=2, players=2)
    table = state.board.topology.step_table  # type: ignore[attr-defined]
    checked = 0
    while state.outcome is None and checked < 400:
        for seat in (0, 1):
            for h in Heading:
                general = judge_answers(state, seat, {seat: h.letter})
                assert judge_answers(state, seat, {seat: h}) == general
                assert judge_answers(state, seat, {seat: h.number}) == general
                checked += 1
        state = step(
            state,
            {
                c.index: Move(c.index, max(table[c.head * 4 : c.head * 4 + 4]))
                for c in state.cycles
                if c.alive
            },
        )
    assert checked >= 8


def test_a_bool_is_no_2010_number() -> None:
    _moves, verdict = judge_answers(one_cycle_game(), 0, {0: True})
    assert verdict.kind == "illegal_move" and "not a heading" in verdict.detail


# -- verdicts reached while the referee waits -------------------------------------------

SILENT_CPU_BURNER = """
import os, sys, time
sys.path.insert(0, {bad!r})
from _tron import read_map

if os.fork() == 0:  # the child burns CPU; the parent never answers
    while True:
        pass
read_map()
time.sleep(60)
"""


def test_cpu_burnt_in_a_child_while_never_answering_disqualifies(tmp_path: Path) -> None:
    """Under a CPU budget the thinking seat's process tree is watched, not only read
    after its reply: a bot whose child spends the budget is disqualified before its
    move's time is up, rather than timed out."""
    path = tmp_path / "burner.py"
    path.write_text(SILENT_CPU_BURNER.format(bad=str(Path(__file__).parent / "bad_bots")))
    burner = BotSpec(
        text=str(path), kind="program", command=(sys.executable, str(path)), protocol="tron2010"
    )
    players = [
        make_player(burner, Limits(), None),
        make_player(BotSpec(text="builtin:runaway", kind="inproc"), Limits(), None),
    ]
    control = TimeControl(move=1.0, first_move=3.0, cpu=0.3)
    t0 = time.perf_counter()
    try:
        record = play_game(players, get_map("arena-15"), CLASSIC, seed=3, controls=control)
    finally:
        for p in players:
            p.shutdown()
    verdict = record.seats[0].verdict
    assert verdict.kind == "disqualified", verdict
    assert "CPU" in verdict.detail and "budget is 0.3 s" in verdict.detail
    assert 0.3 <= record.seats[0].cpu < 1.0
    assert time.perf_counter() - t0 < 3.0, "it was left to run to its move's deadline"
