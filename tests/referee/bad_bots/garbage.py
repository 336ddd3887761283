# verdict: bad_output
# detail: received b'hello
from _tron import answer, play, read_map

play(2)
read_map()
answer("hello world\n")
read_map()
