# verdict: ok
"""Asks for a key in a keyring, mounts a tmpfs in new namespaces, and calls getpid
through the i386 (int 0x80) and x32 entries, each in a child a filter may kill; then
plays."""

import kernel_surface
from _attack import args
from _tron import play

kernel_surface.main(args())
play()
