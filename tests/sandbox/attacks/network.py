"""Use the network: connect to a host listener on the loopback interface, listen on a
port the host can reach, and connect to Unix sockets outside the bot's folder.

Arguments: ``connect=PORT`` (a TCP listener of the host on 127.0.0.1), ``listen=PORT``
(a free port; the program listens there for ``wait`` seconds and says ``READY``),
``unix=PATH`` (a Unix socket of the host), ``abstract=NAME`` (an abstract Unix socket
of the host). Only 127.0.0.1 is ever used.
"""

import socket

from _attack import attempt, blocked, report, run, say


def connect_tcp(port: int) -> str:
    with socket.create_connection(("127.0.0.1", port), timeout=1.0) as s:
        s.sendall(b"hello from a bot\n")
    return f"connected to 127.0.0.1:{port}"


def connect_unix(address: str | bytes) -> str:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(1.0)
        s.connect(address)
        s.sendall(b"hello from a bot\n")
    return f"connected to {address!r}"


def listen(port: int, wait: float) -> None:
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port))
        s.listen(1)
    except OSError as exc:
        say("ATTACK tcp_listen READY")
        blocked("tcp_listen", exc)
        return
    with s:
        say("ATTACK tcp_listen READY")
        s.settimeout(wait)
        try:
            conn, peer = s.accept()
        except TimeoutError:
            report("tcp_listen", False, f"ETIMEDOUT nobody reached port {port} in {wait} s")
            return
        conn.close()
        report("tcp_listen", True, f"accepted a connection from {peer[0]}")


def main(a: dict[str, str]) -> None:
    if "connect" in a:
        attempt("tcp_connect", lambda: connect_tcp(int(a["connect"])))
    if "unix" in a:
        attempt("unix_socket", lambda: connect_unix(a["unix"]))
    if "abstract" in a:
        attempt("unix_abstract", lambda: connect_unix(b"\0" + a["abstract"].encode()))
    if "listen" in a:
        listen(int(a["listen"]), float(a.get("wait", "2")))


if __name__ == "__main__":
    run(main)
