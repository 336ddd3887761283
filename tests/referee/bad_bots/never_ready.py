# verdict: timeout
# protocol: aichallenge
import sys
import time

for line in sys.stdin:
    if line.strip() == "ready":
        break
time.sleep(3600)
