# verdict: disqualified
# detail: CPU
# options: cpu=0.5
import os
import time

from _tron import answer, free_heading, read_map

if os.fork() == 0:  # the child burns CPU; the parent looks innocent
    while True:
        pass
while True:
    rows = read_map()
    if rows is None:
        break
    time.sleep(0.2)
    answer(free_heading(rows) + "\n")
