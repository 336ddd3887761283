"""Matches: start a friendly one, a student's list, and every match's page.

- ``/matches``: the form of a new friendly match (as many seats as ``[friendly] players``
  allows, each offering only the programs, or the contest's Dummy, with which the match is
  one the service accepts: `lightcycle.judge.service.social.friendly_form`; the page asks
  again with ``?seat=...`` after each change) and the student's matches. A refusal of a
  crafted request (`lightcycle.judge.service.social.check_friendly`) is a page with one
  line.
- ``/matches/{id}``: the match's seats (player, rank, score, verdict, the share of its
  CPU-time limit it used), refreshing itself until the match is over, then its game in
  the viewer (2D or 3D, as ``/games/{id}`` shows a submission's games). A friendly match
  is seen only by the owners of its programs and the admins: anyone else gets 404, the
  same page as a match that does not exist (`lightcycle.judge.service.social.may_see_match`).
  Official and ladder matches are public. A seat's stderr is shown to its owner only.
"""

# No `from __future__ import annotations`: FastAPI reads the routes' annotations (Request)
# at run time.
from typing import Any

import sqlalchemy as sa
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from lightcycle.judge.service import matches as svc
from lightcycle.judge.service import social
from lightcycle.judge.service.tables import MatchRow, UserRow
from lightcycle.judge.web.site import Site

MATCH_FINAL = frozenset({"done", "internal_error"})
"""States a match never leaves: its page stops refreshing."""

DUMMY = "dummy"
"""The form's value of a seat played by the contest's reference bot."""


def seat_choices(form: Any) -> list[int | None] | str:
    """The seats a new-match form asks for (``None``: a Dummy), or what is wrong."""
    seats: list[int | None] = []
    for raw in form.getlist("seat"):
        value = str(raw).strip()
        if value == DUMMY:
            seats.append(None)
        elif value.isdigit():
            seats.append(int(value))
        else:
            return "choose a program or the reference bot for every seat"
    return seats


def router(site: Site) -> APIRouter:
    """The routes of matches (see the module docstring)."""
    routes = APIRouter()
    contest = site.contest
    counts = social.friendly_seats(contest)

    @routes.get("/matches", response_class=HTMLResponse)
    def matches_page(request: Request, players: int | None = None) -> HTMLResponse:
        user = site.current_user(request)
        if user is None:
            return site.need_login(request)
        seats = players if players in counts else counts[0]
        chosen = seat_choices(request.query_params)  # the form asking again after a change

        def query(conn: sa.Connection) -> dict[str, Any]:
            picked = chosen if isinstance(chosen, list) else []
            return {
                "form": social.friendly_form(conn, contest, user.id, seats, picked),
                "mine": svc.matches_of_user(conn, user.id),
            }

        return site.html(
            request,
            "matches.html",
            user=user,
            counts=counts,
            seats=seats,
            **site.read(query),
        )

    @routes.post("/matches", response_class=HTMLResponse)
    async def start_match(request: Request) -> Response:
        got = await site.user_form(request, max_files=0, max_fields=32)
        if isinstance(got, Response):
            return got
        user, form = got
        seats = seat_choices(form)
        if isinstance(seats, str):
            return site.error(request, 400, "No match started", seats)
        try:
            mid = await run_in_threadpool(svc.create_friendly, site.engine, contest, user.id, seats)
        except ValueError as exc:  # SocialError and the match's own refusals: one line
            return site.error(request, 400, "No match started", str(exc))
        return site.redirect(f"/matches/{mid}")

    def visible(request: Request, mid: int, replay: bool = False) -> tuple[Any, Any]:
        """(user, match) when the visitor may see match ``mid``, else (user, None)."""
        user = site.current_user(request)

        def query(conn: sa.Connection) -> MatchRow | None:
            match = svc.load_match(conn, mid, replay=replay)
            if match is None or not social.may_see_match(conn, user, match):
                return None
            return match

        return user, site.read(query)

    def no_match(request: Request, mid: int) -> HTMLResponse:
        return site.error(request, 404, "No such match", f"There is no match {mid} you can see.")

    def match_view(request: Request, mid: int, template: str) -> HTMLResponse:
        user, match = visible(request, mid)
        if match is None:
            return no_match(request, mid)
        return site.html(
            request,
            template,
            user=user,
            match=match,
            seats=shown_seats(match, user),
            final=match.state in MATCH_FINAL,
        )

    @routes.get("/matches/{mid}", response_class=HTMLResponse)
    def match_page(request: Request, mid: int) -> HTMLResponse:
        return match_view(request, mid, "match.html")

    @routes.get("/fragments/matches/{mid}", response_class=HTMLResponse)
    def match_fragment(request: Request, mid: int) -> HTMLResponse:
        return match_view(request, mid, "_match.html")

    @routes.get("/matches/{mid}/game", response_class=HTMLResponse)
    def match_game(request: Request, mid: int, embed: bool = False) -> Any:
        _, match = visible(request, mid, replay=True)
        if match is None:
            return no_match(request, mid)
        back = None if embed else f"/matches/{mid}"  # in the match's page: no way out
        return site.replay_page(request, match.replay, f"match {mid}", back)

    return routes


def shown_seats(match: MatchRow, user: UserRow | None) -> list[dict[str, Any]]:
    """A match's seats as the page shows them: a seat's stderr only to its owner and to
    admins (a rival's debugging output is theirs)."""
    out = []
    for seat in match.seats:
        own = user is not None and (user.is_admin or seat.user_id == user.id)
        out.append(
            {
                "seat": seat.seat,
                "name": seat.name,
                "dummy": seat.submission_id is None,
                "submission_id": seat.submission_id,
                "own": own,
                "rank": seat.rank,
                "score": seat.score,
                "verdict": seat.verdict or "",
                "detail": seat.detail,
                "turn": seat.turn,
                "cpu_used": seat.cpu_used,
                "cpu_limit": seat.cpu_limit,
                "stderr_tail": seat.stderr_tail if own else "",
            }
        )
    return out
