"""Terminal bytes become key names the same way whatever the emulator sends."""

from __future__ import annotations

import sys

import pytest

from lightcycle.viewer.keys import RawTerminal, decode_keys


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


def test_a_key_pressed_before_the_terminal_is_raw_is_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a key typed while the program starts (seconds on a busy machine) used to be thrown
    # away when cbreak mode flushed the input: the player pressed and nothing happened
    import io
    import os

    master, slave = os.openpty()
    try:
        os.write(master, b"\x1b[C")  # typed while the terminal is still line-buffered

        class Stdin(io.StringIO):
            def fileno(self) -> int:
                return slave

        monkeypatch.setattr(sys, "stdin", Stdin())
        with RawTerminal() as keys:
            assert keys.read(2.0) == ["right"]
    finally:
        os.close(master)
        os.close(slave)
