"""Terminal bytes become key names the same way whatever the emulator sends."""

from __future__ import annotations

import pytest

from lightcycle.viewer.keys import decode_keys


@pytest.mark.parametrize(
    ("data", "keys"),
    [
        (b"\x1b[A\x1b[B\x1b[C\x1b[D", ["up", "down", "right", "left"]),
        (b"\x1bOA\x1bOC", ["up", "right"]),
        (b"\x1b[H\x1b[F\x1b[1~\x1b[4~\x1bOH", ["home", "end", "home", "end", "home"]),
        (b" q+-g12\r", ["space", "q", "+", "-", "g", "1", "2", "enter"]),
        (b"\x7f\x1b", ["backspace", "escape"]),
        (b"\x1b[15~x", ["x"]),  # F5: an unknown sequence is dropped whole
        ("é".encode(), ["é"]),
        (b"\x03", ["ctrl-c"]),
    ],
)
def test_decode(data: bytes, keys: list[str]) -> None:
    assert decode_keys(data) == keys
