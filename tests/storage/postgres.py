"""A throwaway PostgreSQL server for the tests, and a fresh database per test.

Registered for the whole suite by ``pytest_plugins`` in tests/conftest.py, so tests of any
component (tournament, server, judge) ask for ``postgres_url``.

- ``postgres_server`` (one per test process, so one per xdist worker, started only when a
  test asks): ``initdb`` in a temporary folder, then ``postgres`` listening on 127.0.0.1 at a
  free port and on a Unix socket in that folder, with durability off (``fsync=off``: a
  test database is thrown away). It costs ~1.5 s once per worker, and keeps workers
  independent (no shared server whose start the workers would have to agree on).
  ``initdb`` refuses to run as root, so as root the server runs as ``nobody``; a server
  whose test process dies gets SIGINT from the kernel (``setpriv --pdeathsig``) and stops.
- ``postgres_url``: a new database on that server for each test (``CREATE DATABASE`` takes
  tens of milliseconds), dropped after it, so tests share nothing and run in any order.

When PostgreSQL cannot be had (no server binaries: ``scripts/install-postgres``; no
psycopg: ``pip install 'lightcycle[postgres]'``; a server that does not start) the tests
that need it skip with the reason.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

USER = "lightcycle"
"""The cluster's superuser (``initdb -U``), whatever system user runs the server."""


PREFIX = "lightcycle-pg-"
"""The temporary folders' name prefix."""


class Unavailable(Exception):
    """Why PostgreSQL cannot be had here (the skip reason)."""


def find_binaries() -> Path | None:
    """The folder holding ``initdb`` and ``postgres``: the PATH, else Debian's place."""
    on_path = shutil.which("initdb")
    if on_path and shutil.which("postgres"):
        return Path(on_path).resolve().parent
    candidates = glob.glob("/usr/lib/postgresql/*/bin")
    for folder in sorted(candidates, key=_version, reverse=True):
        if os.access(f"{folder}/initdb", os.X_OK) and os.access(f"{folder}/postgres", os.X_OK):
            return Path(folder)
    return None


def _version(folder: str) -> tuple[int, ...]:
    name = Path(folder).parent.name
    return tuple(int(p) for p in name.split(".") if p.isdigit())


@dataclass
class Server:
    """A running throwaway cluster."""

    root: Path
    port: int
    process: subprocess.Popen[bytes]

    def conninfo(self, dbname: str = "postgres") -> str:
        """A libpq connection string for ``dbname`` over TCP on 127.0.0.1."""
        return f"host=127.0.0.1 port={self.port} user={USER} dbname={dbname} connect_timeout=5"

    def url(self, dbname: str) -> str:
        """An SQLAlchemy URL for ``dbname`` (what `lightcycle.storage.open_engine` takes)."""
        return f"postgresql+psycopg://{USER}@127.0.0.1:{self.port}/{dbname}"

    def admin(self, sql: str) -> None:
        """Run one statement outside a transaction (CREATE/DROP DATABASE need that)."""
        import psycopg

        with psycopg.connect(self.conninfo(), autocommit=True) as conn:
            conn.execute(sql.encode())  # our own fixed statements, no parameters

    def stop(self) -> None:
        """Fast shutdown (SIGINT), SIGKILL if it hangs; then the folder goes."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.root, ignore_errors=True)


def start_server() -> Server:
    """initdb and start a cluster in a new temporary folder (see the module docstring).

    Raises:
        Unavailable: with the reason, after cleaning up.
    """
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise Unavailable("psycopg is not installed: pip install 'lightcycle[postgres]'") from None
    binaries = find_binaries()
    if binaries is None:
        raise Unavailable("PostgreSQL is not installed (no initdb): run scripts/install-postgres")
    prefix = _as_user()
    _remove_stale()
    root = Path(tempfile.mkdtemp(prefix=PREFIX))
    try:
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chown(root, nobody.pw_uid, nobody.pw_gid)
        done = subprocess.run(
            [
                *prefix,
                str(binaries / "initdb"),
                "-D",
                str(root / "data"),
                "-U",
                USER,
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
                "--no-instructions",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if done.returncode != 0:
            raise Unavailable(f"initdb failed: {_last_line(done.stdout + done.stderr)}")
        for _attempt in range(3):  # another process may take the free port first
            server = _launch(prefix, binaries, root)
            if server is not None:
                return server
        raise Unavailable(f"postgres did not start: {_last_line(_log(root))}")
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise


def _remove_stale() -> None:
    """Delete the folders of servers whose test process was killed (kill -9 leaves them;
    the kernel stopped the server itself): older than an hour, no server running."""
    for folder in Path(tempfile.gettempdir()).glob(f"{PREFIX}*"):
        try:
            if time.time() - folder.stat().st_mtime < 3600:
                continue
            pid = int((folder / "data" / "postmaster.pid").read_text().split()[0])
            os.kill(pid, 0)
        except PermissionError:
            continue  # alive, another user's
        except (OSError, ValueError, IndexError):
            shutil.rmtree(folder, ignore_errors=True)  # no pid file, or its process is gone


def _as_user() -> list[str]:
    """The command prefix that runs the server: as ``nobody`` when we are root (initdb
    refuses root), with SIGINT for the server if the test process dies."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0:
        return [setpriv, "--pdeathsig", "INT"] if setpriv else []
    if setpriv is None:
        raise Unavailable("running as root without setpriv (util-linux): cannot drop to nobody")
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        raise Unavailable("running as root and there is no 'nobody' user to run initdb") from None
    return [
        setpriv,
        f"--reuid={nobody.pw_uid}",
        f"--regid={nobody.pw_gid}",
        "--clear-groups",
        "--pdeathsig",
        "INT",
    ]


def _launch(prefix: list[str], binaries: Path, root: Path) -> Server | None:
    """Start postgres on a free port; None when the port was taken meanwhile."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    log = open(root / "log", "ab")  # noqa: SIM115 -- the server writes it until it stops
    with log:
        process = subprocess.Popen(
            [
                *prefix,
                str(binaries / "postgres"),
                "-D",
                str(root / "data"),
                "-p",
                str(port),
                "-k",
                str(root),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "fsync=off",
                "-c",
                "synchronous_commit=off",
                "-c",
                "full_page_writes=off",
                "-c",
                "shared_buffers=32MB",
                "-c",
                "max_connections=200",
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    server = Server(root, port, process)
    import psycopg

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            if "could not bind" in _log(root):
                return None
            raise Unavailable(f"postgres exited at start: {_last_line(_log(root))}")
        try:
            psycopg.connect(server.conninfo(), connect_timeout=2).close()
            return server
        except psycopg.OperationalError:
            time.sleep(0.05)
    server.process.kill()
    server.process.wait()
    raise Unavailable(f"postgres did not answer within 30 s: {_last_line(_log(root))}")


def _log(root: Path) -> str:
    try:
        return (root / "log").read_text(errors="replace")
    except OSError:
        return ""


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "no output"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Server]:
    """The throwaway server of this test process (skips with the reason if none)."""
    try:
        server = start_server()
    except Unavailable as exc:
        pytest.skip(f"PostgreSQL unavailable: {exc}")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: Server) -> Iterator[str]:
    """A new, empty database for this test: its SQLAlchemy URL; dropped afterwards."""
    name = f"t_{uuid.uuid4().hex[:16]}"
    postgres_server.admin(f'CREATE DATABASE "{name}"')
    try:
        yield postgres_server.url(name)
    finally:
        postgres_server.admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
