# verdict: timeout
# detail: no complete reply
import time

from _tron import play

play(2)
time.sleep(3600)
