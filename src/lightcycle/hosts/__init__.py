"""Hosts: processes that run bots written against a native interface and speak a protocol.

A host lets a course keep its own programming interface (C functions called with
structures, say) while the referee sees an ordinary bot program on a wire protocol. The
bot's code runs in the host's process, never in the referee's.

- `lightcycle.hosts.cteam`: the team course's C interface (``tron.h``), over ``jsonl``.
"""
