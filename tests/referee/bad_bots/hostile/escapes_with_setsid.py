# verdict: ok
"""Leaves double-forked daemons and children in new sessions (each up to 60 s), then
plays: none may outlive the game."""

import os

from _tron import play
from leave_children import child

for pid in [child("daemon", 60) for _ in range(2)]:
    os.waitpid(pid, 0)
child("setsid", 60)
play()
