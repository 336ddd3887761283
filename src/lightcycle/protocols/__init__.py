"""Wire protocols: what a seat is sent and how its reply is read, with no processes.

One module per protocol (`tron2010`, `aichallenge`, `sexp`, `jsonl`). Each defines a
`Codec` subclass; `get_protocol` finds one by name. Codecs only turn states into bytes and
bytes into answers, so every exchange can be tested from a script of bytes.
"""

from lightcycle.protocols.base import Codec, ProtocolError, get_protocol, list_protocols

__all__ = ["Codec", "ProtocolError", "get_protocol", "list_protocols"]
