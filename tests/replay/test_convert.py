"""Conversions between replay formats keep every move; corrupt files are refused.

Every ruleset plays a short game; each format either holds it (and reading it back gives
the same moves and outcome) or refuses it with `UnsupportedConversion`; which formats
hold which rulesets is stated here, so a writer that starts refusing (or accepting)
games it should not fails a test.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lightcycle
from lightcycle.formats.errors import FormatError
from lightcycle.maps.registry import get_map
from lightcycle.maps.spec import MapError
from lightcycle.referee.clock import TimeControl
from lightcycle.referee.game import play_game
from lightcycle.referee.players import make_player, parse_bot_spec
from lightcycle.replay.convert import (
    FORMATS,
    UnsupportedConversion,
    detect_format,
    format_named,
    from_jsonl,
    read_file,
    read_text,
    to_jsonl,
    write_text,
)
from lightcycle.replay.model import CorruptReplayError, Replay, ReplayError, Token
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.ruleset import RulesError
from lightcycle.rules.variants import get_ruleset, list_rulesets
from lightcycle.sandbox import Limits
from tests.conftest import map_for, random_moves
from tests.vector_files import mutate, read_vector

VECTORS = Path(__file__).with_name("vectors")

HOLDS = {
    "classic": {"lightcycle", "jsonl", "match", "marlboro"},
    "torus": {"lightcycle", "jsonl", "match"},
    "ffa": {"lightcycle", "jsonl", "match"},
    "teams": {"lightcycle", "jsonl"},
    "tron3d": {"lightcycle", "jsonl"},
}


def random_replay(ruleset_name: str, seed: int = 1) -> Replay:
    """A game of random safe moves under ``ruleset_name`` on a small map (default
    settings, so every format that knows the ruleset can hold it)."""
    rs = get_ruleset(ruleset_name)
    spec = map_for(rs)
    players = 4 if rs.name == "ffa" else 2
    state = new_game(rs, spec, seed=seed, players=players)
    replay = Replay.start(
        state, spec, [{"name": f"P {i}", "bot": "random"} for i in range(players)]
    )
    rng = random.Random(seed)
    while state.outcome is None:
        moves = random_moves(state, rng)
        replay.record(state, moves)
        state = step(state, moves)
    replay.finish(state)
    return replay


def same_moves(a: list[list[Token]], b: list[list[Token]]) -> bool:
    """Equal move tokens, a forfeit matching a forfeit whatever its stated reason."""

    def norm(t: Token) -> Token:
        return "forfeit" if isinstance(t, dict) and "forfeit" in t else t

    return [[norm(t) for t in row] for row in a] == [[norm(t) for t in row] for row in b]


def test_every_ruleset_is_covered() -> None:
    assert {r.name for r in list_rulesets()} == set(HOLDS)


@pytest.mark.parametrize("ruleset", sorted(HOLDS))
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_conversions_keep_every_move_or_refuse(ruleset: str, fmt: str) -> None:
    replay = random_replay(ruleset)
    assert replay.outcome is not None
    if fmt not in HOLDS[ruleset]:
        with pytest.raises(UnsupportedConversion):
            write_text(replay, fmt)
        return
    text = write_text(replay, fmt)
    back = read_text(text, "game" + FORMATS[fmt].extension)
    assert same_moves(back.turns, replay.turns)
    assert back.outcome is not None
    assert back.outcome["ranks"] == replay.outcome["ranks"]
    assert back.outcome["turn"] == replay.outcome["turn"]
    assert back.ruleset == replay.ruleset or fmt == "marlboro"
    assert write_text(back, fmt) == text  # a second pass changes nothing


@pytest.mark.parametrize("ruleset", sorted(HOLDS))
def test_json_lines_are_lossless(ruleset: str) -> None:
    replay = random_replay(ruleset, seed=4)
    assert from_jsonl(to_jsonl(replay)).to_json() == replay.to_json()


def test_json_lines_carry_times_verdicts_and_state(tmp_path: Path) -> None:
    players = [
        make_player(parse_bot_spec(s), Limits(), tmp_path)
        for s in ("builtin:chaser", "builtin:runaway")
    ]
    record = play_game(
        players, get_map("arena-10"), get_ruleset("classic"), seed=3, controls=TimeControl(move=5.0)
    )
    replay = record.replay
    assert replay.times is not None and replay.verdicts is not None
    text = to_jsonl(replay)
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[0]["board"] == {"kind": "grid", "width": 10, "height": 10, "wrap": False}
    assert lines[0]["start"]["alive"] == [True, True]
    assert [line["turn"] for line in lines[1:]] == list(range(1, len(replay.turns) + 1))
    assert all(len(line["times"]) == 2 for line in lines[1:])
    assert "outcome" in lines[-1] and all("outcome" not in line for line in lines[1:-1])
    died = [d["cycle"] for line in lines[1:] for d in line["deaths"]]
    assert sorted(died) == [i for i, d in enumerate(replay.outcome["deaths"]) if d]  # type: ignore[index]
    assert from_jsonl(text).to_json() == replay.to_json()


def test_a_timeout_becomes_t_in_a_match_file() -> None:
    replay = random_replay("ffa", seed=2)
    last = len(replay.turns) - 1
    alive = [i for i, t in enumerate(replay.turns[last]) if t is not None]
    seat = alive[0]
    # The seat timed out on the last turn instead of moving: re-record the game so.
    spec = replay.map_spec()
    state = replay.initial_state()
    fixed = Replay.start(state, spec, replay.seats)
    for t, tokens in enumerate(replay.turns):
        from lightcycle.replay.model import decode_move

        moves = {i: decode_move(state, i, tok) for i, tok in enumerate(tokens) if tok is not None}
        verdicts: list[dict[str, str] | None] = [None] * len(tokens)
        if t == last:
            from lightcycle.core.moves import Forfeit

            moves[seat] = Forfeit(seat, "took 2.000 s")
            verdicts[seat] = {"verdict": "timeout", "detail": "took 2.000 s"}
        clean = {i: m for i, m in moves.items() if m is not None}
        fixed.record(state, clean, verdicts=verdicts)
        state = step(state, clean)
    fixed.finish(state)
    text = write_text(fixed, "match")
    strings = re.findall(r"^\t(\w+)$", text, flags=re.M)
    assert strings[seat].endswith("t")
    assert read_text(text, "g.match").outcome["deaths"][seat]["detail"] == "timeout"  # type: ignore[index]


def test_unfinished_games_cannot_be_written_where_a_result_is_required() -> None:
    replay = random_replay("classic")
    replay.turns = replay.turns[:2]
    replay.outcome = None
    for fmt in ("match", "marlboro"):
        with pytest.raises(UnsupportedConversion, match="finished games"):
            write_text(replay, fmt)
    assert from_jsonl(to_jsonl(replay)).turns == replay.turns


def test_marlboro_refuses_other_settings_and_tori() -> None:
    r = lightcycle.play("ring", ["chaser", "runaway"], seed=2, settings={"turn_limit": 500}).replay
    with pytest.raises(UnsupportedConversion, match="turn_limit"):
        write_text(r, "marlboro")
    with pytest.raises(UnsupportedConversion, match="torus@1"):
        write_text(random_replay("torus"), "marlboro")


def test_formats_are_detected_from_names_and_content() -> None:
    replay = random_replay("classic")
    for name, fmt in FORMATS.items():
        text = write_text(replay, name)
        assert detect_format(text, "game" + fmt.extension) is fmt
        assert detect_format(text) is fmt  # no name: the content decides
    assert format_named("tron") is FORMATS["marlboro"]
    with pytest.raises(ReplayError, match="known: lightcycle"):
        format_named("pgn")


def test_a_file_that_is_no_replay_is_called_so(tmp_path: Path) -> None:
    """A shell script is not a malformed match file: the error says what it is not and
    what a replay looks like, and a broken match file still gets the match parser's."""
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    with pytest.raises(
        ReplayError, match=r"run.sh: not a replay \(its first line is '#!/bin/sh'\)"
    ):
        read_file(script)
    broken = tmp_path / "broken.txt"
    broken.write_text("no_rows 3\nno_cols 6\n")
    with pytest.raises(FormatError, match="expected a 'map' line"):
        read_file(broken)


def test_read_file_names_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(ReplayError, match="cannot read"):
        read_file(tmp_path / "missing.json")
    bad = tmp_path / "bad.tron"
    bad.write_bytes(b"+OK|\xff")
    with pytest.raises(ReplayError, match="not UTF-8"):
        read_file(bad)


@pytest.mark.parametrize("path", sorted(VECTORS.glob("*.txt")), ids=lambda p: p.stem)
def test_replay_vectors(path: Path) -> None:
    fields, text = read_vector(path)
    if "error" in fields:
        with pytest.raises(CorruptReplayError) as info:
            read_text(text, fields["source"])
        assert re.match(fields["error"], str(info.value)), str(info.value)
        return
    replay = read_text(text, fields["source"])
    assert replay.outcome is not None
    assert replay.outcome["ranks"] == [int(r) for r in fields["ranks"].split()]
    assert len(replay.turns) == int(fields["turns"])
    assert replay.map_id == fields["map"]
    fmt = detect_format(text, fields["source"])
    again = fmt.write(replay)
    if fields["exact"] == "yes":  # files lightcycle wrote come back byte for byte
        assert again == text
    assert same_moves(read_text(again, fields["source"]).turns, replay.turns)


def test_there_are_vectors_for_every_reader() -> None:
    names = [p.stem for p in VECTORS.glob("*.txt")]
    for suffix in ("tron", "match", "jsonl", "json"):
        assert any(n.endswith("_" + suffix) and n.startswith("corrupt") for n in names), suffix


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["duel_tron", "triad_match", "duel_jsonl"]), st.data())
def test_mutated_files_are_read_or_refused_cleanly(name: str, data: st.DataObject) -> None:
    """Whatever the damage, reading ends in a game or in an error the CLI shows as one
    line (never another exception)."""
    fields, text = read_vector(VECTORS / f"{name}.txt")
    text = mutate(text, data, '|\n\t NESWnesw12#%.ab{}[],:0t"')
    try:
        replay = read_text(text, fields["source"])
    except (FormatError, ReplayError, RulesError, MapError):
        return
    assert replay.outcome is not None or replay.turns == []
