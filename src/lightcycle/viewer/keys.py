"""Keys from a terminal: raw bytes decoded to names, and a thin raw-mode reader.

Terminals send arrow and Home/End keys as escape sequences that differ between
emulators (``ESC [ C`` or ``ESC O C`` for →, ``ESC [ H``, ``ESC [ 1 ~`` or ``ESC O H``
for Home). `decode_keys` turns a chunk of bytes into key names and is pure, so it is
tested without a terminal; `RawTerminal` only switches the terminal to cbreak mode
(keys arrive one by one, unechoed, while output keeps its line handling so rich can still
draw) and waits for bytes with a timeout.
"""

from __future__ import annotations

import os
import select
import sys
from types import TracebackType
from typing import Any

SEQUENCES = {
    b"\x1b[A": "up",
    b"\x1b[B": "down",
    b"\x1b[C": "right",
    b"\x1b[D": "left",
    b"\x1bOA": "up",
    b"\x1bOB": "down",
    b"\x1bOC": "right",
    b"\x1bOD": "left",
    b"\x1b[H": "home",
    b"\x1b[F": "end",
    b"\x1bOH": "home",
    b"\x1bOF": "end",
    b"\x1b[1~": "home",
    b"\x1b[4~": "end",
    b"\x1b[7~": "home",
    b"\x1b[8~": "end",
    b"\x1b[5~": "pageup",
    b"\x1b[6~": "pagedown",
}
SINGLE = {
    b" ": "space",
    b"\r": "enter",
    b"\n": "enter",
    b"\x7f": "backspace",
    b"\x08": "backspace",
    b"\x1b": "escape",
    b"\x03": "ctrl-c",
    b"\t": "tab",
}


def decode_keys(data: bytes) -> list[str]:
    """Key names in ``data``: ``up``/``down``/``left``/``right``, ``home``/``end``,
    ``space``, ``enter``, ``backspace``, ``escape``, ``ctrl-c``, or the character itself
    (``q``, ``+``, ``7``). Unknown escape sequences are dropped whole."""
    keys: list[str] = []
    i = 0
    while i < len(data):
        if data[i : i + 1] == b"\x1b" and i + 1 < len(data) and data[i + 1 : i + 2] in b"[O":
            for seq, name in SEQUENCES.items():
                if data.startswith(seq, i):
                    keys.append(name)
                    i += len(seq)
                    break
            else:  # an unknown sequence: skip to its final byte (a letter or ~)
                j = i + 2
                while j < len(data) and not (chr(data[j]).isalpha() or data[j : j + 1] == b"~"):
                    j += 1
                i = j + 1
            continue
        byte = data[i : i + 1]
        if byte in SINGLE:
            keys.append(SINGLE[byte])
            i += 1
            continue
        # one UTF-8 character (its length from the lead byte)
        lead = data[i]
        size = 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
        keys.append(data[i : i + size].decode("utf-8", errors="replace"))
        i += size
    return keys


class RawTerminal:
    """Standard input in cbreak mode for the life of a ``with`` block.

    Raises:
        OSError: on entering, when standard input is not a terminal.
    """

    def __init__(self) -> None:
        self.fd = sys.stdin.fileno()
        self._saved: list[Any] | None = None

    def __enter__(self) -> RawTerminal:
        import termios
        import tty

        self._saved = termios.tcgetattr(self.fd)
        # TCSANOW, not the default TCSAFLUSH: a key pressed while the program was still
        # starting (a second or more on a busy machine) is kept and read, not thrown away
        tty.setcbreak(self.fd, termios.TCSANOW)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        import termios

        if self._saved is not None:
            termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)

    def read(self, timeout: float | None) -> list[str]:
        """The keys pressed within ``timeout`` seconds (``None``: wait for one)."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return []
        data = os.read(self.fd, 64)
        # A lone ESC may be the start of a sequence whose rest is a moment behind.
        if data.endswith(b"\x1b") and select.select([self.fd], [], [], 0.02)[0]:
            data += os.read(self.fd, 64)
        return decode_keys(data)


def interactive() -> bool:
    """Whether both standard input and standard output are terminals."""
    return sys.stdin.isatty() and sys.stdout.isatty()
