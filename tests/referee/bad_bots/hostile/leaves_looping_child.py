# verdict: ok
"""Leaves a child that burns CPU for up to 60 s, and plays beside it."""

from _tron import play
from leave_children import child

child("loop", 60)
play()
