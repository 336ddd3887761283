# verdict: ok
# args: mark={neighbour_mark}
"""Looks for the other bot in /proc and attaches to it with ptrace; pushes keystrokes
into a terminal with TIOCSTI; then plays."""

import neighbours
from _attack import args
from _tron import play

neighbours.main(args())
play()
