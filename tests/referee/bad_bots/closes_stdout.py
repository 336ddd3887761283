# verdict: timeout
# (the output is closed but the process lives on: it can never answer in time)
import os
import time

from _tron import play

play(1)
os.close(1)
time.sleep(3600)
