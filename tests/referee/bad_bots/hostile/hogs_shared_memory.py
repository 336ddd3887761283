# verdict: crashed
# detail: killed: over its memory limit \(256 MiB, shared memory counted\)
# options: memory=256
# args: total=1536 step=64
# needs: cgroups
"""Maps and touches 1.5 GiB of shared anonymous memory, 64 MiB at a time, past its
256 MiB limit (``RLIMIT_DATA`` does not count it); plays if it survives. The bot's
memory cgroup counts it and kills the bot (skipped on a host without cgroups)."""

import shm_hog
from _attack import args
from _tron import play

shm_hog.main(args())  # before its first move, whose time is generous
play()
