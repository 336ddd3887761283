"""``lightcycle view``: a folder of replays served on localhost, listed and playable.

A tournament leaves hundreds of replays in a folder; this serves them with a list page
(bots, map, result, length, date, newest first) and opens each in the same viewer
``lightcycle replay --html`` writes. It is a read-only local tool: files are only ever
read, only files inside the folder with a replay extension are served, and it listens
on 127.0.0.1 unless told otherwise.

The list reads what each file states (a lightcycle replay's stored outcome) without
re-simulating, so a big folder lists at once, and says for each game whether it has been
checked: opening a game re-simulates it (a corrupt replay gets an error page saying why
instead of the viewer), and ``/?check=1`` checks them all. Files in the other formats
have no stored outcome to show, so they are read, and so checked, for the list. Every
result is cached until the file changes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

from lightcycle.formats.errors import FormatError
from lightcycle.replay.convert import FORMATS, format_for_path, read_file
from lightcycle.replay.model import Replay, ReplayError
from lightcycle.viewer.data import viewer_data
from lightcycle.viewer.facts import result_text
from lightcycle.viewer.html import page

INSTALL = "pip install 'lightcycle[web]' (from a clone: pip install -e '.[web]')"
EXTENSIONS = {f.extension for f in FORMATS.values()}


class WebUnavailable(ReplayError):
    """FastAPI or uvicorn is not installed; the message says how to install them."""


@dataclass(frozen=True)
class Summary:
    """One line of the list page.

    Attributes:
        name: the file's path inside the folder (``/`` separated).
        bots: per seat, ``name (bot)``.
        map: the map id.
        ruleset: the ruleset id.
        result: the result in words, or why the file cannot be read.
        turns: the number of turns.
        date: the file's modification time.
        ok: whether the file could be read.
        checked: ``None`` when the moves have not been re-simulated yet, ``""`` when they
            lead to the stated result, else why the replay is corrupt.
    """

    name: str
    bots: tuple[str, ...]
    map: str
    ruleset: str
    result: str
    turns: int
    date: dt.datetime
    ok: bool
    checked: str | None = None


class Folder:
    """The replays under one folder, with summaries and checks cached per modification."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._cache: dict[Path, tuple[tuple[float, int], Summary]] = {}
        self._checks: dict[Path, tuple[tuple[float, int], str]] = {}

    def files(self) -> list[Path]:
        """Every replay file under the folder, by path."""
        found = [
            p
            for p in self.root.rglob("*")
            if p.suffix.lower() in EXTENSIONS and p.is_file() and not p.name.startswith(".")
        ]
        return sorted(found)

    def resolve(self, name: str) -> Path | None:
        """The file ``name`` names, or ``None`` when it is outside the folder or not a
        replay file (so no URL reaches anything else on the disk)."""
        p = (self.root / name).resolve()
        if not p.is_relative_to(self.root) or not p.is_file():
            return None
        return p if format_for_path(p) is not None else None

    @staticmethod
    def _key(path: Path) -> tuple[float, int]:
        st = path.stat()
        return st.st_mtime, st.st_size

    def read(self, path: Path) -> Replay:
        """Read and re-simulate ``path``, remembering the verdict for the list.

        Raises:
            ReplayError, FormatError: as `lightcycle.replay.convert.read_file` does.
        """
        key = self._key(path)
        try:
            rep = read_file(path)
        except (ReplayError, FormatError, ValueError) as exc:
            self._checks[path] = (key, str(exc))
            raise
        self._checks[path] = (key, "")
        return rep

    def checked(self, path: Path) -> str | None:
        """The cached check of ``path`` (see `Summary.checked`)."""
        found = self._checks.get(path)
        return found[1] if found is not None and found[0] == self._key(path) else None

    def summary(self, path: Path) -> Summary:
        """The list line of ``path`` (cached until the file changes)."""
        key = self._key(path)
        cached = self._cache.get(path)
        if cached is None or cached[0] != key:
            made = _summarize(path, path.relative_to(self.root).as_posix(), key[0])
            if format_for_path(path) is not FORMATS["lightcycle"]:
                self._checks[path] = (key, "" if made.ok else made.result)
            cached = (key, made)
            self._cache[path] = cached
        return dataclasses.replace(cached[1], checked=self.checked(path))

    def summaries(self, check: bool = False) -> list[Summary]:
        """Every file's line, newest first; ``check`` re-simulates the unchecked ones."""
        if check:
            for p in self.files():
                if self.checked(p) is None:
                    with contextlib.suppress(ReplayError, FormatError, ValueError):
                        self.read(p)
        return sorted((self.summary(p) for p in self.files()), key=lambda s: s.date, reverse=True)


def _stated(path: Path) -> Replay:
    """What a lightcycle JSON replay states, read without re-simulating."""
    fmt = format_for_path(path)
    text = path.read_text(encoding="utf-8")
    if fmt is FORMATS["lightcycle"]:
        return Replay.from_json(text, str(path))
    return read_file(path)


def _summarize(path: Path, name: str, mtime: float) -> Summary:
    date = dt.datetime.fromtimestamp(mtime)
    try:
        rep = _stated(path)
    except (ReplayError, FormatError, ValueError, OSError) as exc:
        return Summary(name, (), "", "", f"unreadable: {exc}", 0, date, False)
    bots = tuple(
        f"{s.get('name', '?')} ({s.get('bot', '')})" if s.get("bot") else s.get("name", "?")
        for s in rep.seats
    )
    return Summary(
        name, bots, rep.map_id, rep.ruleset, result_text(rep), len(rep.turns), date, True
    )


_LIST_STYLE = """
body{background:#0f1117;color:#e5e7eb;font:14px/1.45 system-ui,sans-serif;margin:0;padding:18px}
h1{font-size:18px;margin:0 0 12px}
table{border-collapse:collapse;width:100%}
th{text-align:left;color:#9ca3af;font-weight:500;padding:4px 8px;border-bottom:1px solid #2a2f3a}
td{padding:4px 8px;border-bottom:1px solid #1e2230;vertical-align:top}
a{color:#22d3ee;text-decoration:none} a:hover{text-decoration:underline}
.bad{color:#f87171} .dim{color:#9ca3af}
"""


def _check_cell(s: Summary) -> str:
    if s.checked is None:
        return '<td class="dim" title="opening the game checks it">not yet</td>'
    if s.checked == "":
        return '<td title="the moves lead to the stated result">✓</td>'
    return f'<td class="bad" title="{escape(s.checked)}">corrupt</td>'


def list_page(folder: Folder, check: bool = False) -> str:
    """The HTML list of every replay in ``folder`` (``check``: re-simulate them all)."""
    rows = []
    for s in folder.summaries(check):
        link = f'<a href="/game/{quote(s.name)}">{escape(s.name)}</a>'
        if not s.ok:
            rows.append(
                f'<tr><td>{link}</td><td colspan="6" class="bad">{escape(s.result)}</td>'
                f'<td class="dim">{s.date:%Y-%m-%d %H:%M}</td></tr>'
            )
            continue
        rows.append(
            "<tr>"
            f"<td>{link}</td>"
            f"<td>{'<br>'.join(escape(b) for b in s.bots)}</td>"
            f"<td>{escape(s.map)}</td>"
            f'<td class="dim">{escape(s.ruleset)}</td>'
            f"<td>{escape(s.result)}</td>"
            f"<td>{s.turns}</td>"
            f"{_check_cell(s)}"
            f'<td class="dim">{s.date:%Y-%m-%d %H:%M}</td>'
            "</tr>"
        )
    body = "\n".join(rows) or '<tr><td colspan="8" class="dim">no replays here yet</td></tr>'
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>replays in {escape(folder.root.name)}</title><style>{_LIST_STYLE}</style>"
        f"</head><body><h1>{len(rows)} replays in {escape(str(folder.root))}</h1>"
        '<p class="dim">Results are as the files state them until a game is checked '
        '(opened, or <a href="/?check=1">check them all</a>): checking re-simulates the '
        "moves.</p>"
        "<table><thead><tr><th>file</th><th>bots</th><th>map</th><th>ruleset</th>"
        "<th>result</th><th>turns</th><th>checked</th><th>date</th></tr></thead>"
        f"<tbody>{body}</tbody></table></body></html>"
    )


def error_page(name: str, message: str) -> str:
    """The page shown instead of the viewer for a file that cannot be played."""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>cannot show {escape(name)}</title><style>{_LIST_STYLE}</style></head><body>"
        '<p><a href="/">← all games</a></p>'
        f'<h1>{escape(name)} cannot be shown</h1><p class="bad">{escape(message)}</p>'
        "</body></html>"
    )


def create_app(root: str | Path) -> Any:
    """The FastAPI application serving the replays under ``root``.

    Raises:
        WebUnavailable: without FastAPI.
    """
    try:
        from fastapi import FastAPI
        from fastapi.responses import HTMLResponse, JSONResponse, Response
    except ImportError:
        raise WebUnavailable(f"lightcycle view needs FastAPI and uvicorn: {INSTALL}") from None

    folder = Folder(Path(root))
    app = FastAPI(title="lightcycle replays", docs_url=None, redoc_url=None, openapi_url=None)

    @app.get("/", response_class=HTMLResponse)
    def index(check: bool = False) -> HTMLResponse:
        return HTMLResponse(list_page(folder, check))

    @app.get("/game/{name:path}")
    def game(name: str) -> Response:
        if name.endswith("/replay.json"):
            return replay_json(name.removesuffix("/replay.json"))
        path = folder.resolve(name)
        if path is None:
            return HTMLResponse(error_page(name, "no such replay in this folder"), 404)
        try:
            rep = folder.read(path)
        except (ReplayError, FormatError, ValueError) as exc:
            return HTMLResponse(error_page(name, str(exc)), 422)
        states = list(rep.states())
        return HTMLResponse(page(viewer_data(rep, states), back_link="/"))

    def replay_json(name: str) -> Response:
        path = folder.resolve(name)
        if path is None:
            return JSONResponse({"error": "no such replay in this folder"}, 404)
        try:
            rep = folder.read(path)
        except (ReplayError, FormatError, ValueError) as exc:
            return JSONResponse({"error": str(exc)}, 422)
        return Response(rep.to_json(), media_type="application/json")

    @app.get("/api/replays")
    def api_list(check: bool = False) -> JSONResponse:
        return JSONResponse(
            [
                {
                    "name": s.name,
                    "bots": list(s.bots),
                    "map": s.map,
                    "ruleset": s.ruleset,
                    "result": s.result,
                    "turns": s.turns,
                    "date": s.date.isoformat(timespec="seconds"),
                    "ok": s.ok,
                    "checked": s.checked,
                }
                for s in folder.summaries(check)
            ]
        )

    return app


def serve(root: str | Path, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Run the server until interrupted.

    Raises:
        WebUnavailable: without FastAPI or uvicorn.
    """
    app = create_app(root)
    try:
        import uvicorn
    except ImportError:
        raise WebUnavailable(f"lightcycle view needs FastAPI and uvicorn: {INSTALL}") from None
    uvicorn.run(app, host=host, port=port, log_level="warning")
