# verdict: bad_output
import sys

from _tron import play, read_map

play(1)
read_map()
chunk = b" " * (1 << 20)
while True:  # a gigabyte and more of blanks, never an answer
    sys.stdout.buffer.write(chunk)
