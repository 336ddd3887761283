"""sweep.py NAME=NUMBER...: call each system call with every argument -1; print its errno.

Every argument -1 makes each call on the deny list fail harmlessly even where nothing
refuses it (a bad pointer, a bad flag, a bad magic number), so the sweep shows what
answers: ``EPERM`` from the filter, anything else from the kernel. Run it without a
controlling terminal (``vhangup`` would otherwise hang that terminal up as root).
Prints ``NAME ok`` or ``NAME errno=N``, one line per call.
"""

from __future__ import annotations

import ctypes
import sys


def main(args: list[str]) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    minus_one = [ctypes.c_long(-1)] * 6
    for arg in args:
        name, number = arg.split("=")
        ctypes.set_errno(0)
        rc = libc.syscall(ctypes.c_long(int(number)), *minus_one)
        print(f"{name} errno={ctypes.get_errno()}" if rc == -1 else f"{name} ok", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
