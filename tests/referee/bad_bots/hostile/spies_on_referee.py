# verdict: ok
# args: referee={referee} mark={mark} secret={secret} uid={uid}
"""Looks for the referee in /proc, reads its command line and environment, opens its
memory, looks for the referee's variables in its own environment and checks its user id
and capabilities; then plays."""

import see_host
from _attack import args
from _tron import play

see_host.main(args())
play()
