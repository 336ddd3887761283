# verdict: ok
# args: count=2000
"""Starts up to 2000 threads (stopping at the first refusal); then plays."""

import thread_bomb
from _attack import args
from _tron import play

thread_bomb.main(args())
play()
