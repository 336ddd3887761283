"""Reach kernel interfaces a bot has no use for: keyrings, mounts in a new user and mount
namespace, and the i386 (``int 0x80``) and x32 system-call entries through machine code
mapped executable (no compiler needed: the same as ``other_abis.c``, from Python).

Harmless unconfined: the key goes into a new anonymous session keyring that dies with
the program, and the tmpfs is mounted in a private namespace of its own.
"""

import ctypes
import mmap
import os
import platform

from _attack import attempt, errno_name, libc, report, run, syscall

KEYCTL, ADD_KEY = 250, 248  # x86_64 numbers
KEYCTL_JOIN_SESSION_KEYRING, KEY_SPEC_SESSION_KEYRING = 1, -3
CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
MS_REC, MS_PRIVATE = 0x4000, 0x40000


def keyring() -> str:
    syscall(KEYCTL, KEYCTL_JOIN_SESSION_KEYRING, None)
    serial = syscall(ADD_KEY, b"user", b"lightcycle-attack", b"x", 1, KEY_SPEC_SESSION_KEYRING)
    return f"added key {serial}"


def mount_in_namespace() -> str:
    """In a child (unshare changes the caller for good): new namespaces, then a mount."""
    pid = os.fork()
    if pid == 0:
        c = libc()
        steps = (
            lambda: c.unshare(CLONE_NEWUSER | CLONE_NEWNS),
            lambda: c.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None),  # no propagation
            lambda: c.mount(b"lightcycle", b"/tmp", b"tmpfs", 0, b"size=1m"),
        )
        for step in steps:
            if step() != 0:
                os._exit(ctypes.get_errno() or 1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        raise OSError(0, f"killed by signal {os.WTERMSIG(status)}")
    if os.WEXITSTATUS(status):
        raise OSError(os.WEXITSTATUS(status), "refused")
    return "mounted a tmpfs in a new user and mount namespace"


# mov eax, NR; <entry>; ret -- the getpid system call through each entry
CODE = {
    "int80": bytes([0xB8, 20, 0, 0, 0, 0xCD, 0x80, 0xC3]),  # i386 getpid is 20
    "x32": bytes([0xB8, 39, 0, 0, 0x40, 0x0F, 0x05, 0xC3]),  # x32 bit | getpid (39)
}


def other_abi(name: str) -> None:
    """Run the code in a child, which a filter may kill; compare with the real pid."""
    pid = os.fork()
    if pid == 0:
        buf = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        buf.write(CODE[name])
        address = ctypes.addressof(ctypes.c_char.from_buffer(buf))
        result = ctypes.CFUNCTYPE(ctypes.c_long)(address)()
        os._exit(0 if result == os.getpid() else 100 + min(-result, 100) if result < 0 else 99)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        report(name, False, f"killed by signal {os.WTERMSIG(status)}")
    elif os.WEXITSTATUS(status) == 0:
        report(name, True, "getpid answered through this entry")
    elif os.WEXITSTATUS(status) > 100:
        report(name, False, errno_name(os.WEXITSTATUS(status) - 100))
    else:
        report(name, False, f"exit code {os.WEXITSTATUS(status)}")


def main(a: dict[str, str]) -> None:
    attempt("keyring", keyring)
    attempt("mount_namespace", mount_in_namespace)
    if platform.machine() == "x86_64":
        other_abi("int80")
        other_abi("x32")


if __name__ == "__main__":
    run(main)
