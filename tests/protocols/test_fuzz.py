"""Fuzzing the readers: any bytes give an answer, "not yet", or a `ProtocolError`.

A bot can write anything. Whatever it writes, ``read_move`` (and ``read_hello`` /
``read_ready``) must return ``None`` or a dict (``False``/``True``, a name), or raise
`ProtocolError`; any other exception would crash the referee instead of recording a
``bad_output`` verdict. The bytes are fed in one piece and in arbitrary pieces.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lightcycle.core.state import Board, GameState
from lightcycle.core.topology import GraphTopology
from lightcycle.maps.registry import get_map
from lightcycle.maps.spec import MapSpec
from lightcycle.protocols.base import Codec, Params, ProtocolError, list_protocols
from lightcycle.protocols.jsonl import JsonLines
from lightcycle.rules.engine import new_game, step
from lightcycle.rules.ruleset import Ruleset
from lightcycle.rules.variants import CLASSIC
from tests.conftest import random_moves

CODECS = {c.name: c for c in list_protocols()}
GRAPH_RULES = Ruleset(name="graph-test", version=1, stages=CLASSIC.stages, board="any")
GRAPH = MapSpec(
    name="square",
    board=Board(GraphTopology(4, [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)])),
    starts=((0,), (2,)),
)


def _midgame(ruleset: str | Ruleset, spec: MapSpec, turns: int = 3) -> GameState:
    state = new_game(ruleset, spec, seed=5)
    rng = random.Random(5)
    for _ in range(turns):
        nxt = step(state, random_moves(state, rng))
        if nxt.outcome is not None:
            break
        state = nxt
    return state


STATES = {
    "tron2010": [_midgame("classic", get_map("arena-10"))],
    "aichallenge": [_midgame("ffa", get_map("ffa4"))],
    "sexp": [_midgame("torus", get_map("torus-20"))],
    "jsonl": [
        _midgame("classic", get_map("arena-10")),
        _midgame("ffa", get_map("ffa4")),
        _midgame(GRAPH_RULES, GRAPH, turns=1),
    ],
}

# bytes that look like replies more often than uniform random bytes do
_PIECES = [
    b"1", b"2", b"3", b"4", b"n", b"e", b"s", b"w", b"N", b"go", b"\n", b"\r\n", b" ", b"\t",
    b"(", b")", b"'", b'"', b"{", b"}", b"[", b"]", b":", b",", b"move", b"moves", b"heading",
    b"to", b"jump", b"use_item", b"true", b"null", b"0", b"-1", b"1e999", b"\xff", b"\x00",
]  # fmt: skip
noise = st.lists(st.one_of(st.binary(max_size=12), st.sampled_from(_PIECES)), max_size=40).map(
    b"".join
)


def _json_values() -> st.SearchStrategy[object]:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=True),
        st.sampled_from(["n", "e", "s", "w", "N", "north", "1", "", "jump", "x"]),
        st.text(max_size=5),
    )
    keys = st.sampled_from(["move", "moves", "heading", "to", "jump", "use_item", "0", "1", "-3"])
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.dictionaries(st.one_of(keys, st.text(max_size=3)), inner, max_size=4),
        ),
        max_leaves=12,
    )


def _check_answer(result: object) -> None:
    if result is not None:
        assert isinstance(result, dict)
        assert all(isinstance(k, int) for k in result)


def _feed(codec: Codec, state: GameState, data: bytes, cuts: list[int]) -> None:
    buf = bytearray()
    pos = 0
    for cut in [*sorted(c % (len(data) + 1) for c in cuts), len(data)]:
        buf += data[pos:cut]
        pos = max(pos, cut)
        try:
            while True:
                before = bytes(buf)
                result = codec.read_move(buf, state)
                _check_answer(result)
                if result is None or bytes(buf) == before:
                    break
        except ProtocolError as err:
            assert err.protocol == codec.name
            assert isinstance(err.received, bytes) and len(err.received) <= 200
            return


@pytest.mark.parametrize("name", list(CODECS))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=noise, cuts=st.lists(st.integers(0, 500), max_size=4))
def test_read_move_never_crashes(name: str, data: bytes, cuts: list[int]) -> None:
    for state in STATES[name]:
        for seat in range(len(state.teams)):
            codec = CODECS[name](seat)
            codec.start(state, Params())
            _feed(codec, state, data, cuts)


@settings(max_examples=400, deadline=None)
@given(value=_json_values(), ending=st.sampled_from([b"\n", b"\r\n", b" \n"]))
def test_jsonl_read_move_never_crashes_on_json(value: object, ending: bytes) -> None:
    line = json.dumps(value).encode() + ending
    wrapped = json.dumps({"move": value}).encode() + ending
    for state in STATES["jsonl"]:
        codec = JsonLines(0)
        codec.start(state, Params())
        for data in (line, wrapped):
            _feed(codec, state, data, [])


@pytest.mark.parametrize("name", list(CODECS))
@settings(max_examples=200, deadline=None)
@given(data=noise)
def test_read_hello_and_ready_never_crash(name: str, data: bytes) -> None:
    codec = CODECS[name](0)
    for reader in (codec.read_hello, codec.read_ready):
        buf = bytearray(data)
        try:
            result = reader(buf)
        except ProtocolError as err:
            assert err.protocol == codec.name
            continue
        assert result is None or isinstance(result, bool | str)


@pytest.mark.parametrize("name", list(CODECS))
@given(data=noise)
@settings(max_examples=100, deadline=None)
def test_stray_drops_only_leading_blanks(name: str, data: bytes) -> None:
    buf = bytearray(data)
    rest = CODECS[name](0).stray(buf)
    assert bytes(buf) == data.lstrip(b" \t\r\n")
    assert rest == bytes(buf[:200])


@pytest.mark.parametrize("opener", [b"[", b'{"a":'])
def test_jsonl_deeply_nested_json_is_a_protocol_error(opener: bytes) -> None:
    state = STATES["jsonl"][0]
    codec = JsonLines(0)
    codec.start(state, Params())
    with pytest.raises(ProtocolError):
        line = opener * (60_000 // len(opener))  # within max_reply (65536)
        codec.read_move(bytearray(line + b"\n"), state)
