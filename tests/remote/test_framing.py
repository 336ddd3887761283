"""Cutting a program's output into replies, per protocol."""

from __future__ import annotations

from lightcycle.remote.framing import Framer
from lightcycle.remote.wire import parse_address


def test_line_protocols_send_one_line_per_reply_whatever_the_chunks() -> None:
    f = Framer("jsonl")
    assert f.feed(b'{"move":') == []
    assert f.feed(b'"n"}\n{"move":"e"}\n{"mo') == [b'{"move":"n"}\n', b'{"move":"e"}\n']
    assert f.rest() == b'{"mo'


def test_a_line_longer_than_the_codec_allows_is_passed_on_for_the_server_to_refuse() -> None:
    f = Framer("aichallenge")
    out = f.feed(b"x" * (f.max_reply + 1))
    assert out == [b"x" * (f.max_reply + 1)]


def test_tron2010_replies_are_single_characters_with_or_without_newlines() -> None:
    f = Framer("tron2010")
    assert f.feed(b"1") == [b"1\n"]
    assert f.feed(b"\n \r\n3\n4") == [b"3\n", b"4\n"]
    assert f.feed(b"   ") == []


def test_sexp_sends_the_name_line_then_symbols() -> None:
    f = Framer("sexp")
    assert f.feed(b"My Bot\nn") == [b"My Bot\n", b"n\n"]
    assert f.feed(b"\ne\n") == [b"e\n"]
    assert f.feed(b"nor") == [b"nor"]  # no move: the server judges it


def test_addresses() -> None:
    assert parse_address("localhost:7701") == ("localhost", 7701)
    assert parse_address("[::1]:7701") == ("::1", 7701)
    for bad in ("localhost", ":7701", "host:0", "host:x"):
        try:
            parse_address(bad)
        except ValueError as exc:
            assert "HOST:PORT" in str(exc)
        else:
            raise AssertionError(bad)
