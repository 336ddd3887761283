# verdict: timeout
from _tron import play

play(1)
while True:
    pass
