# verdict: ok
import sys

from _tron import answer, free_heading, read_map

chunk = "x" * (1 << 20) + "\n"
while True:
    rows = read_map()
    if rows is None:
        break
    for _ in range(20):  # 20 MiB of stderr per turn
        sys.stderr.write(chunk)
    answer(free_heading(rows) + "\n")
