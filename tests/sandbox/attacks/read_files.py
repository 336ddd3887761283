"""Read what a bot must never see: /etc/shadow, another bot's files, the judge's database,
the repository, and list /root.

Arguments: ``neighbour=PATH`` (another bot's secret file, by absolute path),
``relative=PATH`` (the same by a path relative to the bot's folder, e.g.
``../other/secret.txt``), ``database=PATH`` (a sqlite file outside the bot's folder),
``repository=PATH`` (a file of the referee's repository), ``root_entry=NAME`` (a name
in /root). Each one not given is not tried.
"""

import os
import sqlite3

from _attack import attempt, run


def read(path: str) -> str:
    with open(path, "rb") as f:
        data = f.read(200)
    return f"read {len(data)} bytes: {data[:60]!r}"


def query(path: str) -> str:
    os.close(os.open(path, os.O_RDONLY))  # the errno, if it is hidden or unreadable
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT secret FROM secrets").fetchall()
    finally:
        con.close()
    return f"rows {rows!r}"


def list_root(entry: str) -> str:
    names = os.listdir("/root")
    if entry not in names:
        raise FileNotFoundError(2, f"no {entry} among {len(names)} names")
    return f"{len(names)} names, {entry} among them"


def main(a: dict[str, str]) -> None:
    attempt("read_shadow", lambda: read("/etc/shadow"))
    if "neighbour" in a:
        attempt("read_neighbour", lambda: read(a["neighbour"]))
    if "relative" in a:
        attempt("read_neighbour_relative", lambda: read(a["relative"]))
    if "database" in a:
        attempt("read_database", lambda: query(a["database"]))
    if "repository" in a:
        attempt("read_repository", lambda: read(a["repository"]))
    if "root_entry" in a:
        attempt("list_root", lambda: list_root(a["root_entry"]))


if __name__ == "__main__":
    run(main)
