# verdict: timeout
import signal
import time

from _tron import play

signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
play(1)
while True:
    time.sleep(1)
