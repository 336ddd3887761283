# verdict: crashed
# detail: SIGKILL|memory|Memory
# options: memory=256
# args: total=1536 step=64
# xfail: shared memory is not counted against --memory without a memory cgroup (issue 26)
"""Maps and touches 1.5 GiB of shared anonymous memory, 64 MiB at a time, past its
256 MiB limit (``RLIMIT_DATA`` does not count it); plays if it survives. A memory
limit that counts it kills the bot."""

import shm_hog
from _attack import args
from _tron import play

shm_hog.main(args())  # before its first move, whose time is generous
play()
