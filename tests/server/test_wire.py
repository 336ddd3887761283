"""The server's own lines: hellos parsed strictly, replies and frames written exactly."""

from __future__ import annotations

import json

import pytest

from lightcycle.server.wire import (
    Hello,
    WireError,
    data_message,
    end_message,
    error_line,
    parse_data,
    parse_hello,
    parse_scheme_hello,
    scheme_error_line,
    welcome_line,
)


def test_scheme_hello_is_the_trimmed_line_or_a_name_tab_secret() -> None:
    assert parse_scheme_hello(b"alice") == ("alice", None)
    # the course's parse-name: the whole line, trimmed; spaces inside are the name's
    assert parse_scheme_hello(b"  Scheme Test Client \r") == ("Scheme Test Client", None)
    assert parse_scheme_hello(b"  alice  s3cret ") == ("alice  s3cret", None)
    assert parse_scheme_hello(b" Random Move Bot\t s3 cret ") == ("Random Move Bot", "s3 cret")
    # a TAB at either end is whitespace the course trims: no secret
    assert parse_scheme_hello(b"\talice\t ") == ("alice", None)
    assert parse_scheme_hello(b" \t s3cret") == ("s3cret", None)
    assert parse_scheme_hello(b"al\x01ice") == ("al\x01ice", None)  # the lobby refuses it
    for bad, says in [
        (b"", "send your name"),
        (b" \t\t ", "send your name"),
        (b"x" * 65, "longer than 64"),
        (b"x\t" + b"s" * 257, "secret is longer than 256"),
        (b"\xff\xfe", "UTF-8"),
    ]:
        with pytest.raises(WireError, match=says):
            parse_scheme_hello(bad)


def test_json_hello_defaults_and_every_field() -> None:
    assert parse_hello(b'{"type":"hello","name":"n","queue":"q"}') == Hello("n", "q")
    full = {
        "type": "hello", "name": "n", "queue": "q", "secret": "s", "protocol": "sexp",
        "framed": True, "challenge": "c", "accept": None, "resume": "t",
    }  # fmt: skip
    got = parse_hello(json.dumps(full).encode())
    assert got == Hello("n", "q", "s", "sexp", True, "c", None, "t")


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (b"[1]", "must be a JSON object"),
        (b"{", "JSON object such as"),
        (b'{"type":"hello","name":"n"}', "lacks 'queue'"),
        (b'{"type":"hi","name":"n","queue":"q"}', "'type' must be the string \"hello\""),
        (b'{"type":"hello","name":"n","queue":"q","x":1}', "unknown field 'x'"),
        (b'{"type":"hello","name":"n","queue":"q","framed":1}', "'framed' must be true or false"),
        (b'{"type":"hello","name":true,"queue":"q"}', "'name' must be a player name"),
        (b'{"type":"hello","name":"","queue":"q"}', "'name' must be a player name"),
        (b'{"type":"hello","name":"n","queue":"q","secret":"' + b"s" * 300 + b'"}', "'secret'"),
    ],
)
def test_json_hello_refusals_name_the_field(line: bytes, says: str) -> None:
    with pytest.raises(WireError, match=says.replace("(", r"\(")):
        parse_hello(line)


def test_server_lines_are_exact() -> None:
    assert welcome_line("n", "q", "T", 0.2, 1.0) == (
        b'{"type":"welcome","name":"n","queue":"q","token":"T","latency_allowance":0.2,'
        b'"move_time":1.0}\n'
    )
    assert welcome_line("n", "q", "T", 0.2, None, "http://127.0.0.1:8000") == (
        b'{"type":"welcome","name":"n","queue":"q","token":"T","latency_allowance":0.2,'
        b'"move_time":null,"web":"http://127.0.0.1:8000"}\n'
    )
    assert error_line('no "x"') == b'{"type":"error","error":"no \\"x\\""}\n'
    assert scheme_error_line('say "hi" \\') == b'(error "say \\"hi\\" \\\\")\n'
    assert data_message(3, b"(1 . 2)\n") == b'{"type":"data","turn":3,"data":"(1 . 2)\\n"}\n'
    assert end_message("win", "ok", "", "g", [1, 2]) == (
        b'{"type":"end","result":"win","verdict":"ok","detail":"","game":"g","ranks":[1,2]}\n'
    )


def test_framed_client_lines() -> None:
    assert parse_data(b'{"type":"data","data":"n\\n"}') == b"n\n"
    assert parse_data(b'{"type":"data","turn":4,"data":"n\\n"}') == b"n\n"
    for bad in (b"n", b'{"type":"data"}', b'{"type":"data","data":1}', b'{"data":"n","x":1}'):
        with pytest.raises(WireError, match="framed lines must be"):
            parse_data(bad)
