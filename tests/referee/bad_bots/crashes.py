# verdict: crashed
# detail: exit code 1.*ZeroDivisionError
from _tron import play

play(2)
print(1 / 0)
