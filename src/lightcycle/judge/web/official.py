"""The official results, public and live: standings, rounds, hall of fame, the ladder.

No login is needed (the course published official results to everybody):

- ``/official``: the standings, the current (or last) round's stages and groups with
  their matches and results, the hall of fame; for a ladder contest, the ladder's table
  (mu, sigma, ordinal = mu - 3 sigma, games) and its latest matches;
- ``/official/rounds``: every round; ``/official/rounds/{id}``: one round.

**Live**: ``/official/events`` is a stream of server-sent events. It sends an
``official`` event whenever the official results' version changes
(`lightcycle.judge.service.rounds.official_version`: a cheap fingerprint of everything
official; for a ladder, also its matches); the pages' few lines of inline script
(``base.html``) then refetch their fragments (``/fragments/official/...``). The version
is read at most once per `POLL_S` whatever the number of open pages (`VersionClock`), and
a stream ends when its page closes or the server stops.
"""

# No `from __future__ import annotations`: FastAPI reads the routes' annotations (Request)
# at run time.
import asyncio
import hashlib
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import sqlalchemy as sa
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, StreamingResponse

from lightcycle.judge.service import ladder, rounds
from lightcycle.judge.service.matches import load_matches
from lightcycle.judge.service.roundviews import RULES
from lightcycle.judge.service.tables import matches as matches_table
from lightcycle.judge.web.site import Site

POLL_S = 0.5
"""How often the official version is read while pages are open: a match's result shows
in every open page within about this long."""

KEEPALIVE_S = 15.0
"""A comment line is sent this often on a quiet stream, so a page that went away is
noticed (the write fails) and proxies do not close the connection as idle."""

LADDER_MATCHES_SHOWN = 20
"""The ladder's latest matches listed under its table."""


class VersionClock:
    """The official version, read at most once per ``every`` seconds for all streams.

    Args:
        read: reads the version from the database (blocking: run in a thread).
        every: seconds a read is reused.
    """

    def __init__(self, read: Any, every: float = POLL_S) -> None:
        self.read = read
        self.every = every
        self.lock = threading.Lock()
        self.value = ""
        self.at = float("-inf")

    def get(self) -> str:
        """The version, fresh to within ``every`` seconds (blocking: it may read)."""
        with self.lock:
            if time.monotonic() - self.at >= self.every:
                text = str(self.read())
                # a digest: the page needs to know that it changed, not the counts in it
                self.value = hashlib.sha256(text.encode()).hexdigest()[:16]
                self.at = time.monotonic()
            return self.value

    async def get_async(self) -> str:
        """`get` from the event loop: a fresh value at once, else read in a thread."""
        if time.monotonic() - self.at < self.every:
            return self.value
        return await asyncio.to_thread(self.get)


def ladder_version(conn: sa.Connection) -> str:
    """A fingerprint of the ladder's matches: it changes whenever one is created or ends
    (and so whenever a rating changes, in the same transaction)."""
    row = conn.execute(
        sa.select(
            sa.func.count(),
            sa.func.max(matches_table.c.id),
            sa.func.max(matches_table.c.finished_at),
        ).where(matches_table.c.kind == "ladder")
    ).one()
    return f"ladder:{row[0]}:{row[1]}:{row[2]}"


def router(site: Site) -> APIRouter:
    """The routes of the official pages (see the module docstring)."""
    routes = APIRouter()
    ladder_mode = site.official_mode == "ladder"

    def version() -> str:
        with site.engine.connect() as conn:
            text = str(rounds.official_version(conn))
            return f"{text}|{ladder_version(conn)}" if ladder_mode else text

    clock = VersionClock(version)

    def latest_round(conn: sa.Connection) -> Any:
        """The running round, else the last one, with its detail (None: no round yet)."""
        chosen = rounds.current_round(conn)
        if chosen is None:
            listed = rounds.rounds_list(conn)  # the newest first
            chosen = listed[0] if listed else None
        return None if chosen is None else rounds.round_detail(conn, chosen.id)

    def previous_round(conn: sa.Connection, shown: Any) -> Any:
        """The last finished round when another is shown (rounds in a row follow each
        other at once: its player out would otherwise vanish from the page)."""
        for r in rounds.rounds_list(conn):
            if r.state == "done" and (shown is None or r.id != shown.round.id):
                return r
        return None

    def ladder_context(conn: sa.Connection) -> dict[str, Any]:
        recent = load_matches(conn, matches_table.c.kind == "ladder", LADDER_MATCHES_SHOWN)
        return {
            "leaders": ladder.leaderboard(conn),
            "ladder_on": ladder.is_on(conn),
            "recent": recent,
        }

    def context(conn: sa.Connection, parts: tuple[str, ...]) -> dict[str, Any]:
        out: dict[str, Any] = {"rules": RULES}
        if "standings" in parts:
            out["standings"] = rounds.standings(conn)
        if "round" in parts:
            out["round"] = latest_round(conn)
            out["previous"] = previous_round(conn, out["round"])
        if "hall" in parts:
            out["hall"] = rounds.hall_of_fame(conn)
        if "ladder" in parts and ladder_mode:
            out.update(ladder_context(conn))
        return out

    @routes.get("/official", response_class=HTMLResponse)
    def official_page(request: Request) -> HTMLResponse:
        parts = ("ladder",) if ladder_mode else ("standings", "round", "hall")
        return site.html(request, "official.html", **site.read(lambda c: context(c, parts)))

    @routes.get("/fragments/official/{part}", response_class=HTMLResponse)
    def official_fragment(request: Request, part: str) -> HTMLResponse:
        if part not in ("standings", "round", "hall", "ladder"):
            return site.error(request, 404, "Not found", f"Nothing is at {request.url.path} here.")
        return site.html(
            request, f"_official_{part}.html", **site.read(lambda c: context(c, (part,)))
        )

    @routes.get("/official/rounds", response_class=HTMLResponse)
    def rounds_page(request: Request) -> HTMLResponse:
        return site.html(request, "rounds.html", rounds=site.read(rounds.rounds_list))

    def round_view(request: Request, rid: int, template: str) -> HTMLResponse:
        detail = site.read(lambda conn: rounds.round_detail(conn, rid))
        if detail is None:
            return site.error(request, 404, "No such round", f"There is no round {rid}.")
        return site.html(request, template, round=detail, rules=RULES)

    @routes.get("/official/rounds/{rid}", response_class=HTMLResponse)
    def round_page(request: Request, rid: int) -> HTMLResponse:
        return round_view(request, rid, "round.html")

    @routes.get("/fragments/official/rounds/{rid}", response_class=HTMLResponse)
    def round_fragment(request: Request, rid: int) -> HTMLResponse:
        return round_view(request, rid, "_official_round.html")

    @routes.get("/official/events")
    async def official_events(request: Request) -> StreamingResponse:
        return StreamingResponse(
            events(request, clock, site.stopping),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    return routes


async def events(
    request: Request, clock: VersionClock, stopping: threading.Event
) -> AsyncIterator[str]:
    """The event stream of one page: an ``official`` event now (the page may have missed
    a change between its rendering and this connection) and at every change after."""
    last = None
    quiet_since = time.monotonic()
    yield f"retry: {int(POLL_S * 4000)}\n\n"
    while not stopping.is_set():
        current = await clock.get_async()
        if current != last:
            last = current
            quiet_since = time.monotonic()
            yield f"event: official\ndata: {current}\n\n"
        elif time.monotonic() - quiet_since >= KEEPALIVE_S:
            quiet_since = time.monotonic()
            yield ": still here\n\n"
        if await request.is_disconnected():
            return
        await asyncio.sleep(clock.every / 2)
