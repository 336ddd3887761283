# verdict: crashed
# detail: exit code 0
from _tron import play

play(3)
