"""The official results, public and live: standings, rounds, hall of fame, the ladder.

No login is needed (the course published official results to everybody):

- ``/official``: the standings, the current (or last) round's stages and groups with
  their matches and results, the hall of fame; for a ladder contest, the ladder's table
  (mu, sigma, ordinal = mu - 3 sigma, games) and its latest matches;
- ``/official/rounds``: every round; ``/official/rounds/{id}``: one round.

**Live**: ``/official/events`` is a stream of server-sent events. It sends an
``official`` event whenever the official results' version
(`lightcycle.judge.service.rounds.official_version`: a cheap fingerprint of everything
official; for a ladder, also its matches) differs from the one the page shows: a page is
rendered with its version (``data-version``, and ``?v=`` in its stream's address; a
reconnecting ``EventSource`` sends the last event's ``id``, its version), so a page that
just opened is not made to fetch what it shows. The pages' few lines of inline script
(``base.html``) then refetch their fragments (``/fragments/official/...``). One poller
reads the version every `POLL_S` for all the open streams (`VersionClock`), and a stream
ends when its page closes or the server stops.

**Cheap under load**: every open page asks for the same parts at each change, so each
part is read and rendered once per version and kept (`Memo`); a request reads the
version first, then the parts kept under it.
"""

# No `from __future__ import annotations`: FastAPI reads the routes' annotations (Request)
# at run time.
import asyncio
import contextlib
import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar, cast

import sqlalchemy as sa
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, StreamingResponse
from markupsafe import Markup

from lightcycle.judge.service import ladder, rounds
from lightcycle.judge.service.matches import load_matches
from lightcycle.judge.service.roundviews import FINISHED, RULES, RUNNING
from lightcycle.judge.service.tables import matches as matches_table
from lightcycle.judge.web.site import Site

T = TypeVar("T")

POLL_S = 0.5
"""How often the official version is read while pages are open: a match's result shows
in every open page within about this long."""

KEEPALIVE_S = 15.0
"""A comment line is sent this often on a quiet stream, so a page that went away is
noticed (the write fails) and proxies do not close the connection as idle."""

LADDER_MATCHES_SHOWN = 20
"""The ladder's latest matches listed under its table."""

MEMO_SIZE = 32
"""Read models kept by `Memo` (a few versions of each part; a round's page per round)."""


def digest(text: str) -> str:
    """What pages and streams call the version: a digest of `official_version`'s text
    (a page needs to know that it changed, not the counts in it)."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class VersionClock:
    """The official version for every open event stream, read by ONE poller.

    While at least one stream listens (`listening`), a single asyncio task reads the
    version every ``every`` seconds (in a thread: the database blocks) and wakes the
    streams whose version is out of date (`changed`); with no stream open nothing is
    read. A stream therefore costs nothing between changes: no thread hop and no timer
    of its own, whatever the number of open pages.

    Args:
        read: reads the version's text from the database (blocking).
        every: seconds a read is reused, and the poller's period.
        stopping: set when the server stops: the poller wakes every stream and ends.
    """

    def __init__(
        self, read: Any, every: float = POLL_S, stopping: threading.Event | None = None
    ) -> None:
        self.read = read
        self.every = every
        self.stopping = stopping if stopping is not None else threading.Event()
        self.lock = threading.Lock()
        self.value = ""
        self.at = float("-inf")
        self.sent: str | None = None  # the value the streams were last woken with
        self.listeners = 0
        self.loop: asyncio.AbstractEventLoop | None = None
        self.woken = asyncio.Event()  # replaced after each wake: set = "look again"
        self.poller: asyncio.Task[None] | None = None

    def get(self) -> str:
        """The version, fresh to within ``every`` seconds (blocking: it may read)."""
        with self.lock:
            if time.monotonic() - self.at >= self.every:
                self.value = digest(str(self.read()))
                self.at = time.monotonic()
            return self.value

    @contextlib.asynccontextmanager
    async def listening(self) -> AsyncIterator[None]:
        """Count a stream as open while inside (the poller runs while any is)."""
        loop = asyncio.get_running_loop()
        if self.loop is not loop:  # a new server loop (tests): nothing carries over
            self.loop, self.woken, self.poller, self.sent = loop, asyncio.Event(), None, None
        self.listeners += 1
        self._keep_polling()
        try:
            yield
        finally:
            self.listeners -= 1

    async def changed(self, seen: str | None, timeout: float) -> str | None:
        """The version as soon as it differs from ``seen`` (at once if it does now), or
        ``None`` after ``timeout`` seconds without a change or when the server stops.
        Call inside `listening`."""
        deadline = time.monotonic() + timeout
        while not self.stopping.is_set():
            self._keep_polling()
            if self.sent is not None and self.sent != seen:
                return self.sent
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.woken.wait(), left)
        return None

    async def _poll(self) -> None:
        """The one loop that reads the version for all the streams of this event loop."""
        try:
            while self.listeners > 0 and not self.stopping.is_set():
                value: str | None = self.sent
                with contextlib.suppress(Exception):  # the database is away: next tick
                    value = await asyncio.to_thread(self.get)
                if value != self.sent:
                    self.sent = value
                    self._wake()
                await asyncio.sleep(self.every)
        finally:
            self._wake()  # streams see `stopping`, or find the poller gone and start one

    def _keep_polling(self) -> None:
        """Start the poller if none runs (the first stream, or it ended meanwhile)."""
        if self.loop is not None and (self.poller is None or self.poller.done()):
            self.poller = self.loop.create_task(self._poll())

    def _wake(self) -> None:
        self.woken.set()
        self.woken = asyncio.Event()


class Memo:
    """Read models kept by (what, version): the pages of one version share one read.

    Every open official page fetches its parts again at each change, all at once; the
    first request of a version computes a part and the others wait for it and reuse it
    (the read models are frozen dataclasses and tuples that templates only read). A key
    carries the version read in the same request before the part, so what is kept under
    a version is never older than it.
    """

    def __init__(self, size: int = MEMO_SIZE) -> None:
        self.size = size
        self.lock = threading.Lock()
        self.items: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self.gates: dict[tuple[Any, ...], threading.Lock] = {}

    def get(self, key: tuple[Any, ...], compute: Callable[[], T]) -> T:
        """The value kept under ``key``, else ``compute()``'s (computed once at a time)."""
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return cast(T, self.items[key])
            gate = self.gates.setdefault(key, threading.Lock())
        with gate:
            with self.lock:
                if key in self.items:
                    return cast(T, self.items[key])
            try:
                value = compute()
            finally:
                with self.lock:
                    self.gates.pop(key, None)
            with self.lock:
                self.items[key] = value
                while len(self.items) > self.size:
                    self.items.popitem(last=False)
            return value


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
    memo = Memo()

    def version_text(conn: sa.Connection) -> str:
        text = str(rounds.official_version(conn))
        return f"{text}|{ladder_version(conn)}" if ladder_mode else text

    def version() -> str:
        with site.engine.connect() as conn:
            return version_text(conn)

    clock = VersionClock(version, stopping=site.stopping)

    def round_part(conn: sa.Connection) -> dict[str, Any]:
        """The running round, else the last one, with its detail (None: no round yet),
        and the last finished round when another is shown (rounds in a row follow each
        other at once: its player out would otherwise vanish from the page)."""
        listed = rounds.rounds_list(conn)  # the newest first
        chosen = next((r for r in listed if r.state == RUNNING), None)
        if chosen is None and listed:
            chosen = listed[0]
        shown = None if chosen is None else rounds.round_detail(conn, chosen.id)
        previous = next(
            (r for r in listed if r.state == FINISHED and (chosen is None or r.id != chosen.id)),
            None,
        )
        return {"round": shown, "previous": previous}

    def ladder_part(conn: sa.Connection) -> dict[str, Any]:
        recent = load_matches(conn, matches_table.c.kind == "ladder", LADDER_MATCHES_SHOWN)
        return {
            "leaders": ladder.leaderboard(conn),
            "ladder_on": ladder.is_on(conn),
            "recent": recent,
        }

    def models(conn: sa.Connection, part: str, current: str) -> dict[str, Any]:
        """The read models one part's template shows (the standings kept for the hall's
        sake too: both come from the same table)."""

        def standings() -> Any:
            return memo.get(("standings", current), lambda: rounds.standings(conn))

        if part == "standings":
            return {"standings": standings()}
        if part == "round":
            return round_part(conn)
        if part == "hall":
            return {"hall": rounds.hall_of_fame(conn, standings())}
        return ladder_part(conn) if ladder_mode else {}

    def part_html(conn: sa.Connection, part: str, current: str) -> Markup:
        """A part of the official page rendered once per version for every request: the
        parts hold nothing of the visitor (no user, no form), and under load every open
        page asks for the same ones at each change."""

        def render() -> Markup:
            template = site.templates.get_template(f"_official_{part}.html")
            return Markup(template.render(rules=RULES, **models(conn, part, current)))

        return memo.get(("part", part, current), render)

    def version_now(conn: sa.Connection) -> str:
        """The version's digest, read first: what a request reads after it is at least
        as new, so nothing older is ever kept under a version (`Memo`)."""
        return digest(version_text(conn))

    @routes.get("/official", response_class=HTMLResponse)
    def official_page(request: Request) -> HTMLResponse:
        names: tuple[str, ...] = ("ladder",) if ladder_mode else ("round", "standings", "hall")
        if site.official_mode == "none":
            names = ()  # the page only says there is no official play

        def query(conn: sa.Connection) -> tuple[str, dict[str, Markup]]:
            current = version_now(conn)
            return current, {name: part_html(conn, name, current) for name in names}

        current, parts = site.read(query)
        return site.html(request, "official.html", version=current, parts=parts)

    @routes.get("/fragments/official/{part}", response_class=HTMLResponse)
    def official_fragment(request: Request, part: str) -> HTMLResponse:
        if part not in ("standings", "round", "hall", "ladder"):
            return site.error(request, 404, "Not found", f"Nothing is at {request.url.path} here.")
        return HTMLResponse(site.read(lambda c: part_html(c, part, version_now(c))))

    @routes.get("/official/rounds", response_class=HTMLResponse)
    def rounds_page(request: Request) -> HTMLResponse:
        return site.html(request, "rounds.html", rounds=site.read(rounds.rounds_list))

    def round_html(conn: sa.Connection, rid: int, current: str) -> tuple[int, Markup] | None:
        """Round ``rid``'s number and part, rendered once per version (None: no such
        round)."""

        def render() -> tuple[int, Markup] | None:
            detail = rounds.round_detail(conn, rid)
            if detail is None:
                return None
            template = site.templates.get_template("_official_round.html")
            return detail.round.number, Markup(template.render(round=detail, rules=RULES))

        return memo.get(("round page", rid, current), render)

    def round_view(request: Request, rid: int, whole: bool) -> HTMLResponse:
        def query(conn: sa.Connection) -> tuple[str, tuple[int, Markup] | None]:
            current = version_now(conn)
            return current, round_html(conn, rid, current)

        current, found = site.read(query)
        if found is None:
            return site.error(request, 404, "No such round", f"There is no round {rid}.")
        number, part = found
        if not whole:
            return HTMLResponse(part)
        return site.html(request, "round.html", rid=rid, number=number, part=part, version=current)

    @routes.get("/official/rounds/{rid}", response_class=HTMLResponse)
    def round_page(request: Request, rid: int) -> HTMLResponse:
        return round_view(request, rid, whole=True)

    @routes.get("/fragments/official/rounds/{rid}", response_class=HTMLResponse)
    def round_fragment(request: Request, rid: int) -> HTMLResponse:
        return round_view(request, rid, whole=False)

    @routes.get("/official/events")
    async def official_events(request: Request) -> StreamingResponse:
        return StreamingResponse(
            events(request, clock),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    return routes


def shown_version(request: Request) -> str | None:
    """The version the page already shows: the ``Last-Event-ID`` a reconnecting
    ``EventSource`` sends (each event's ``id`` is its version), else the ``v`` the page
    put in its stream's address (its ``data-version``)."""
    return request.headers.get("last-event-id") or request.query_params.get("v") or None


async def events(request: Request, clock: VersionClock) -> AsyncIterator[str]:
    """The event stream of one page: an ``official`` event whenever the version differs
    from the one the page shows (at once if it changed between the page's rendering and
    this connection, never for the version it already shows), a comment line when quiet
    for `KEEPALIVE_S`; it ends when the server stops. A page that closes is noticed by
    Starlette, which cancels this generator (or, on a server that does not say, by the
    next write failing)."""
    last = shown_version(request)
    yield f"retry: {int(POLL_S * 4000)}\n\n"
    async with clock.listening():
        while not clock.stopping.is_set():
            current = await clock.changed(last, KEEPALIVE_S)
            if clock.stopping.is_set():
                return
            if current is None:
                yield ": still here\n\n"
            else:
                last = current
                yield f"id: {current}\nevent: official\ndata: {current}\n\n"
