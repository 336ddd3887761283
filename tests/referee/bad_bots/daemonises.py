# verdict: ok
import os
import time

from _tron import play

if os.fork() == 0:  # the classic double fork: the grandchild leaves the session
    os.setsid()
    if os.fork() == 0:
        for fd in (0, 1, 2):
            os.close(fd)
        time.sleep(3600)
    os._exit(0)
os.wait()
play()
