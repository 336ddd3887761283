# verdict: crashed
# detail: out of memory: its memory limit is 200 MiB\); stderr tail: .*MemoryError
# options: memory=200
from _tron import play

play(1)
hog = []
while True:
    hog.append(bytearray(256 << 20))  # more than the 200 MiB limit: fails at once
