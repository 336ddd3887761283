# verdict: timeout
# protocol: sexp
import time

time.sleep(3600)
