# verdict: ok
import os
import time

from _tron import play

for _ in range(3):  # children that would sleep for an hour
    if os.fork() == 0:
        time.sleep(3600)
        os._exit(0)
play()
