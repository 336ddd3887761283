"""Pieces of the judge's benchmarks that drive its website: the website as a real
``lightcycle judge serve`` process, an HTTP client that browses it as a person's browser
does (keep-alive, a session cookie, the login form with its CSRF token), what an open page
then does by itself (`stay`), a process's CPU time, and a percentile. Used by
bench/judge_rounds.py; the workers and the throwaway PostgreSQL server come from
bench/judge_throughput.py.

`stay` plays the few lines of script every judge page carries (templates/base.html, in
the spirit of htmx), read from the page's own HTML, so the load is the one real browsers
make: a part with ``hx-get`` and ``hx-trigger="every Ns"`` is fetched again every N s
until its content holds ``data-final``; under an ``sse-connect`` element, the page keeps
an event stream open (`EventStream`) and each event NAME refetches the parts with
``hx-trigger="sse:NAME"``, one refresh at a time, unless the event's data (the version) is
the one the parts show already (the element's ``data-version``, rendered with the page).
"""

from __future__ import annotations

import html
import http.client
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def website(contest: Path, url: str, logs: Path) -> Iterator[tuple[int, int]]:
    """``lightcycle judge serve --workers 0`` on 127.0.0.1 at a free port, its output in
    ``logs/serve.log``: yields (port, pid); stopped (SIGTERM, then SIGKILL) on leaving."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    log = logs / "serve.log"
    cmd = [sys.executable, "-m", "lightcycle", "judge", "serve", str(contest), "--db", url]
    cmd += ["--workers", "0", "--host", "127.0.0.1", "--port", "0"]
    with log.open("wb") as out:
        proc = subprocess.Popen(
            cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env
        )
    try:
        deadline = time.monotonic() + 60
        while (found := re.search(r"on http://127\.0\.0\.1:(\d+)/", log.read_text())) is None:
            if proc.poll() is not None or time.monotonic() > deadline:
                tail = log.read_text(errors="replace").strip().splitlines()[-3:]
                raise SystemExit(f"the website did not start: {' | '.join(tail)}")
            time.sleep(0.05)
        yield int(found[1]), proc.pid
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Client:
    """One browser's connection to the website on 127.0.0.1: kept alive between pages
    (opened again after an error), with the session cookie the site last set."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn: http.client.HTTPConnection | None = None
        self.cookie = ""

    def request(self, method: str, path: str, body: str | None = None) -> tuple[int, bytes]:
        """Send one request and read the whole answer: (status, body). A kept-alive
        connection the server has closed meanwhile (its keep-alive timeout) is opened again
        and the request sent once more, as browsers do.

        Raises:
            OSError, http.client.HTTPException: the connection failed (it is closed).
        """
        reused = self.conn is not None
        try:
            return self._send(method, path, body)
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            if not reused:
                raise
            return self._send(method, path, body)

    def _send(self, method: str, path: str, body: str | None) -> tuple[int, bytes]:
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        headers = {"Cookie": self.cookie} if self.cookie else {}
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            self.conn.request(method, path, body=body, headers=headers)
            response = self.conn.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException):
            self.close()
            raise
        for name, value in response.getheaders():
            if name.lower() == "set-cookie":
                self.cookie = value.split(";", 1)[0]
        if response.getheader("connection", "").lower() == "close":
            self.close()
        return response.status, data

    def get(self, path: str) -> int:
        """GET a page, read to its last byte: the status."""
        return self.request("GET", path)[0]

    def log_in(self, email: str, password: str) -> None:
        """Log in through the site's form (its CSRF token read from the login page).

        Raises:
            RuntimeError: no token on the page, or the site refused the login.
        """
        _, page = self.request("GET", "/login")
        token = re.search(rb'name="csrf" value="([^"]+)"', page)
        if token is None:
            raise RuntimeError("the login page has no CSRF token")
        form = urlencode({"email": email, "password": password, "csrf": token[1].decode()})
        status, _ = self.request("POST", "/login", form)
        if status not in (302, 303):
            raise RuntimeError(f"logging in as {email} answered {status}")

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


@dataclass
class StreamRecord:
    """One event stream a page held open: when (``time.time()``), and when each event came."""

    opened: float
    closed: float = 0.0
    events: list[float] = field(default_factory=list)


class EventStream:
    """A page's ``EventSource``: the stream on a connection of its own, read by a thread
    that puts each event's (name, data) on `names` (comments and ``retry:`` lines are
    skipped)."""

    def __init__(self, port: int, path: str, cookie: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.path, self.cookie = path, cookie
        self.names: queue.Queue[tuple[str, str]] = queue.Queue()
        self.record = StreamRecord(time.time())
        self.thread = threading.Thread(target=self._read, name="event-stream", daemon=True)
        self.thread.start()

    def _read(self) -> None:
        headers = {
            "Accept": "text/event-stream",
            **({"Cookie": self.cookie} if self.cookie else {}),
        }
        try:
            self.conn.request("GET", self.path, headers=headers)
            response = self.conn.getresponse()
            if response.status != 200:
                return
            name, data = "message", None
            while line := response.readline():
                line = line.rstrip(b"\r\n")
                if line.startswith(b"event:"):
                    name = line[6:].strip().decode()
                elif line.startswith(b"data:"):
                    data = line[5:].strip().decode()
                elif not line and data is not None:
                    self.record.events.append(time.time())
                    self.names.put((name, data))
                    name, data = "message", None
        except (OSError, http.client.HTTPException, ValueError, AttributeError):
            pass  # closed by `close` (http.client then has no file: AttributeError), or the server

    def close(self) -> StreamRecord:
        """Close the stream (the page is left) and say what it received."""
        self.record.closed = time.time()
        sock = self.conn.sock
        if sock is not None:
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        self.thread.join(10)
        self.conn.close()
        return self.record


_TAG = re.compile(rb"<[^>]*\bhx-get=[^>]*>")
_ATTR = {
    name: re.compile(rb"\b" + name.encode() + rb'="([^"]*)"') for name in ("hx-get", "hx-trigger")
}
_EVERY = re.compile(r"every (\d+(?:\.\d+)?)s")
_VERSION = re.compile(rb'\bsse-connect="[^"]*"[^>]*\bdata-version="([^"]*)"')


def page_parts(page: bytes) -> tuple[str | None, dict[str, list[str]], dict[str, float]]:
    """What a page's script does: (its event stream's path or None, the parts each event
    refetches, the polled parts with their period in seconds)."""
    found = re.search(rb'\bsse-connect="([^"]+)"', page)
    stream = html.unescape(found[1].decode()) if found else None
    pushed: dict[str, list[str]] = {}
    polled: dict[str, float] = {}
    for tag in _TAG.findall(page):
        get, trigger = (_ATTR[a].search(tag) for a in ("hx-get", "hx-trigger"))
        if get is None:
            continue
        path = html.unescape(get[1].decode())
        when = html.unescape(trigger[1].decode()) if trigger else "every 2s"
        if when.startswith("sse:"):
            pushed.setdefault(when[4:], []).append(path)
        elif every := _EVERY.search(when):
            polled[path] = float(every[1])
    return (stream if pushed else None), pushed, polled


def stay(
    client: Client,
    page: bytes,
    until: float,
    stop: threading.Event,
    fetch: Callable[[str, str], bytes | None],
    streams: list[StreamRecord],
) -> None:
    """Stay on ``page`` until ``until`` (``time.monotonic()``) doing what its script does
    (see the module docstring); every part is fetched by ``fetch(kind, path)`` (the body,
    or ``None`` on a failure), kind ``live part`` or ``polled part``."""
    stream_path, pushed, polled = page_parts(page)
    stream = EventStream(client.port, stream_path, client.cookie) if stream_path else None
    shown = _VERSION.search(page)
    version = html.unescape(shown[1].decode()) if shown else None
    due = {} if b"data-final" in page else {p: time.monotonic() + s for p, s in polled.items()}
    try:
        while not stop.is_set() and (now := time.monotonic()) < until:
            wait = max(0.0, min(until, 0.5 + now, *due.values()) - now)
            names: dict[str, str] = {}
            if stream is None:
                stop.wait(wait)
            else:
                try:
                    names.update([stream.names.get(timeout=wait)])
                    while True:  # one refresh for every event that came meanwhile
                        names.update([stream.names.get_nowait()])
                except queue.Empty:
                    pass
            for name, data in names.items():
                if data == version:
                    continue  # the parts show this version already: the script skips it
                for path in pushed.get(name, []):
                    fetch("live part", path)
                version = data
            for path, at in list(due.items()):
                if time.monotonic() >= at:
                    body = fetch("polled part", path)
                    if body is None or b"data-final" in body:
                        del due[path]
                    else:
                        due[path] = time.monotonic() + polled[path]
    finally:
        if stream is not None:
            streams.append(stream.close())


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux ``/proc``; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0-1) of ``values``, interpolated between neighbours; nan when
    there are none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)
