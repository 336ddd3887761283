"""Wire protocols: what a seat is sent and how its reply is read, with no processes.

One module per protocol (`tron2010`, `aichallenge`, `sexp`, `jsonl`). Each defines a
`Codec` subclass; `get_protocol` finds one by name. Codecs only turn states into bytes and
bytes into answers, so every exchange can be tested from a script of bytes.

The codecs import `base` for what they share, so `base` cannot import them to build its
registry: they are registered here, where the package is imported, which Python does
before any of its modules (whoever imports ``lightcycle.protocols.base`` finds the
registry full).
"""

from lightcycle.protocols.aichallenge import AIChallenge
from lightcycle.protocols.base import (
    Codec,
    ProtocolError,
    get_protocol,
    list_protocols,
    register_protocols,
)
from lightcycle.protocols.jsonl import JsonLines
from lightcycle.protocols.sexp import Sexp
from lightcycle.protocols.tron2010 import Tron2010

register_protocols(Tron2010, AIChallenge, Sexp, JsonLines)  # list_protocols' order: the docs'

__all__ = ["Codec", "ProtocolError", "get_protocol", "list_protocols"]
