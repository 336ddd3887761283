# verdict: ok
# args: count=2000 hold=60
"""Forks up to 2000 sleeping children (stopping at the first refusal); then plays with
them still there."""

import fork_bomb
from _attack import args
from _tron import play

fork_bomb.main(args())
play()
