"""Create sockets of families a bot has no use for: ``AF_VSOCK`` (not confined by a
network namespace), ``AF_NETLINK``, ``AF_PACKET``; the same family with junk in the high
32 bits of the argument (the kernel reads an ``int``); ``socketpair`` of a refused family;
and the families a bot does use (``AF_UNIX``, ``AF_INET``, ``AF_INET6``), which must work.

Harmless unconfined: each socket is closed at once, nothing is bound or sent. The detail
of a refusal names the errno: ``EAFNOSUPPORT`` from the seccomp filter.
"""

import socket

from _attack import attempt, run, syscall

AF_VSOCK, AF_NETLINK, AF_PACKET = 40, 16, 17
SYS_SOCKET, SYS_SOCKETPAIR = 41, 53  # x86_64 numbers


def make(family: int, kind: int, proto: int = 0) -> str:
    socket.socket(family, kind, proto).close()
    return f"made a socket of family {family}"


def raw_socket(domain: int, kind: int) -> str:
    """socket(2) itself, so that all 64 bits of the family reach the kernel."""
    import os

    os.close(syscall(SYS_SOCKET, domain, kind, 0))
    return f"made a socket with domain {domain:#x}"


def raw_socketpair(domain: int, kind: int) -> str:
    import ctypes
    import os

    fds = (ctypes.c_int * 2)()
    syscall(SYS_SOCKETPAIR, domain, kind, 0, ctypes.addressof(fds))
    os.close(fds[0])
    os.close(fds[1])
    return f"made a socket pair of family {domain}"


def main(a: dict[str, str]) -> None:
    attempt("vsock", lambda: make(AF_VSOCK, socket.SOCK_STREAM))
    attempt("netlink", lambda: make(AF_NETLINK, socket.SOCK_RAW, 0))  # NETLINK_ROUTE
    attempt("packet", lambda: make(AF_PACKET, socket.SOCK_RAW))
    attempt("vsock_high_bits", lambda: raw_socket(AF_VSOCK | 1 << 32, socket.SOCK_STREAM))
    attempt("socketpair_netlink", lambda: raw_socketpair(AF_NETLINK, socket.SOCK_RAW))
    attempt("allowed_unix", lambda: raw_socketpair(socket.AF_UNIX, socket.SOCK_STREAM))
    attempt("allowed_inet", lambda: make(socket.AF_INET, socket.SOCK_STREAM))
    attempt("allowed_inet6", lambda: make(socket.AF_INET6, socket.SOCK_DGRAM))


if __name__ == "__main__":
    run(main)
