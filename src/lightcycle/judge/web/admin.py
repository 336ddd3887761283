"""The admin page: what the judge failed on, and the official play's controls.

- the submissions and the matches the judge itself failed on (``internal_error``: never
  counted against a student), each with the last error;
- "start a round" for an elimination contest (`lightcycle.judge.service.rounds.start_round`:
  refused with one line while a round runs or too few players remain);
- the ladder on or off for a ladder contest (`lightcycle.judge.service.ladder.set_ladder`).

Only admins (`lightcycle judge admin add`) see the page or may post its forms.
"""

# No `from __future__ import annotations`: FastAPI reads the routes' annotations (Request)
# at run time.
from typing import Any

import sqlalchemy as sa
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from lightcycle.judge.service import ladder, matches, rounds
from lightcycle.judge.service.tables import MatchRow
from lightcycle.judge.service.tables import matches as matches_table
from lightcycle.judge.web.site import Site

FAILED_SHOWN = 200
"""The newest failed matches the admin page lists."""


def failed_matches(conn: sa.Connection) -> list[MatchRow]:
    """The matches the judge gave up on (``internal_error``), newest first."""
    return matches.load_matches(conn, matches_table.c.state == "internal_error", FAILED_SHOWN)


def router(site: Site) -> APIRouter:
    """The routes of the admin page (see the module docstring)."""
    routes = APIRouter()
    contest = site.contest

    def admin_or_page(request: Request) -> tuple[Any, HTMLResponse | None]:
        user = site.current_user(request)
        if user is None:
            return None, site.need_login(request)
        if not user.is_admin:
            return None, site.admins_only(request)
        return user, None

    @routes.get("/admin", response_class=HTMLResponse)
    def admin_page(request: Request) -> HTMLResponse:
        user, refusal = admin_or_page(request)
        if refusal is not None:
            return refusal

        def query(conn: sa.Connection) -> dict[str, Any]:
            mode = site.official_mode
            return {
                "failed_matches": failed_matches(conn),
                "running": rounds.current_round(conn) if mode == "elimination" else None,
                "ladder": ladder.status(conn, contest) if mode == "ladder" else None,
            }

        return site.html(
            request,
            "admin.html",
            user=user,
            errors=site.store.internal_errors(),
            **site.read(query),
        )

    @routes.post("/admin/rounds", response_class=HTMLResponse)
    async def start_round(request: Request) -> Response:
        user, refusal = admin_or_page(request)
        if refusal is not None:
            return refusal
        if await site.form_of(request, max_files=0) is None:
            return site.forbidden_form(request)
        try:
            await run_in_threadpool(rounds.start_round, site.engine, contest, user.id)
        except rounds.RoundError as exc:
            return site.error(request, 400, "No round started", str(exc))
        return site.redirect("/official")

    @routes.post("/admin/ladder", response_class=HTMLResponse)
    async def switch_ladder(request: Request) -> Response:
        _, refusal = admin_or_page(request)
        if refusal is not None:
            return refusal
        form = await site.form_of(request, max_files=0)
        if form is None:
            return site.forbidden_form(request)
        on = form.get("on") == "1"
        try:
            await run_in_threadpool(ladder.set_ladder, site.engine, contest, on)
        except ladder.LadderError as exc:
            return site.error(request, 400, "Ladder not switched", str(exc))
        return site.redirect("/admin")

    return routes
