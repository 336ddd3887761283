# verdict: crashed
# detail: signal SIGSEGV
import ctypes

from _tron import play

play(1)
ctypes.string_at(0)
