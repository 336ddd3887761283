"""Cutting a bot program's output into replies, one ``data`` message each.

The server's side of a remote seat reads each reply with the protocol's own codec, as the
referee reads a local bot's stdout; the client sends one reply per ``data`` message, so a
reply never arrives cut in two and a server may judge each message on its own. Where a
reply ends is the protocol's business:

- ``jsonl`` and ``aichallenge`` (and any protocol not named here): one line;
- ``tron2010``: one character ``1``-``4``, blanks skipped (bots of that era write ``1``
  with or without a newline; waiting for a newline would hang them);
- ``sexp``: the bot's name on the first line, then one symbol ``n``/``e``/``s``/``w``.

Bytes that can never become a reply (a line longer than the codec's ``max_reply``, a word
that is no move) are passed on as they are, for the server to judge with the same
verdict a local match would give.
"""

from __future__ import annotations

from lightcycle.protocols import get_protocol

_BLANK = b" \t\r\n"
_SEXP_DELIM = b" \t\r\n()'\""
_SEXP_MOVES = (b"n", b"e", b"s", b"w")


class Framer:
    """Cuts one bot's stdout into replies for its protocol (see the module docstring).

    Args:
        protocol: the protocol's name.
    """

    def __init__(self, protocol: str) -> None:
        codec = get_protocol(protocol)
        self.name = codec.name
        self.max_reply = codec.max_reply
        self._hello = codec.hello  # the first reply is a line (the bot's name)
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        """Add output; return the replies it completes, in order."""
        self._buf += data
        out: list[bytes] = []
        while True:
            reply = self._next()
            if reply is None:
                return out
            out.append(reply)

    def rest(self) -> bytes:
        """What is buffered and no reply yet (written before the bot's output ended)."""
        out, self._buf = bytes(self._buf), bytearray()
        return out

    def _next(self) -> bytes | None:
        if self._hello:
            line = self._line()
            if line is not None:
                self._hello = False
            return line
        if self.name == "tron2010":
            return self._char()
        if self.name == "sexp":
            return self._symbol()
        return self._line()

    def _line(self) -> bytes | None:
        buf = self._buf
        i = buf.find(b"\n")
        if i < 0:
            if len(buf) > self.max_reply:  # never a reply: let the server refuse it
                return self._take(len(buf))
            return None
        return self._take(i + 1)

    def _char(self) -> bytes | None:
        buf = self._buf
        i = 0
        while i < len(buf) and buf[i] in _BLANK:
            i += 1
        if i == len(buf):
            if i > self.max_reply:
                del buf[:i]
            return None
        del buf[:i]
        return self._take(1) + b"\n"

    def _symbol(self) -> bytes | None:
        buf = self._buf
        i = 0
        while i < len(buf) and buf[i] in _BLANK:
            i += 1
        del buf[:i]
        j = 0
        while j < len(buf) and buf[j] not in _SEXP_DELIM:
            j += 1
        token = bytes(buf[:j])
        if token in _SEXP_MOVES:
            return self._take(j) + b"\n"
        if (
            j == len(buf)
            and len(buf) <= self.max_reply
            and any(m.startswith(token) for m in _SEXP_MOVES)
        ):
            return None  # maybe more to come
        if not buf:
            return None
        return self._take(max(j, 1))  # garbage: the server judges it

    def _take(self, n: int) -> bytes:
        out = bytes(self._buf[:n])
        del self._buf[:n]
        return out
