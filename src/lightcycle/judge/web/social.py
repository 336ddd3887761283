"""Friends and programs: the pages of the course's 4.2 (`lightcycle.judge.service.social`
holds the rules; these pages only ask it).

- ``/friends``: add a friend by email, the friends (both added each other), the requests
  sent and received; remove any of them (a friendship, a request, a refusal: one button).
- ``/programs``: a student's submissions, each with "make public" (one way: the page
  says so, and a public one shows "public" with no way back) and "play officially" (the
  chosen one takes effect when the next official round starts, never during one).

Every form carries the session's CSRF token; a refusal is a page with one line.
"""

# No `from __future__ import annotations`: FastAPI reads the routes' annotations (Request)
# at run time.
from typing import Any

import sqlalchemy as sa
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from lightcycle.judge.service import social as svc
from lightcycle.judge.web.site import Site


def router(site: Site) -> APIRouter:
    """The routes of friends and programs (see the module docstring)."""
    routes = APIRouter()

    # -- friends ---------------------------------------------------------------------------
    @routes.get("/friends", response_class=HTMLResponse)
    def friends_page(request: Request) -> HTMLResponse:
        user = site.current_user(request)
        if user is None:
            return site.need_login(request)
        mine = site.read(lambda conn: svc.friends(conn, user.id))
        return site.html(request, "friends.html", user=user, friends=mine, done=None)

    @routes.post("/friends/add", response_class=HTMLResponse)
    async def add_friend(request: Request) -> Response:
        got = await site.user_form(request, max_files=0)
        if isinstance(got, Response):
            return got
        user, form = got
        email = str(form.get("email") or "")
        try:
            await run_in_threadpool(svc.add_friend, site.engine, user.id, email)
        except svc.SocialError as exc:
            return site.error(request, 400, "Friend not added", str(exc))
        return site.redirect("/friends")

    @routes.post("/friends/remove", response_class=HTMLResponse)
    async def remove_friend(request: Request) -> Response:
        got = await site.user_form(request, max_files=0)
        if isinstance(got, Response):
            return got
        user, form = got
        friend = str(form.get("friend_id") or "")
        if not friend.isdigit():
            return site.error(request, 400, "Not removed", "choose whom to remove from the list")
        await run_in_threadpool(svc.remove_friend, site.engine, user.id, int(friend))
        return site.redirect("/friends")

    # -- programs --------------------------------------------------------------------------
    @routes.get("/programs", response_class=HTMLResponse)
    def programs_page(request: Request) -> HTMLResponse:
        user = site.current_user(request)
        if user is None:
            return site.need_login(request)

        def query(conn: sa.Connection) -> Any:
            return svc.official_program(conn, user.id)

        official = site.read(query)
        return site.html(
            request,
            "programs.html",
            user=user,
            programs=site.store.submissions_of(user.id),
            official=official,
            chosen=user.official_submission_id,
        )

    async def program_action(request: Request, sid: int, action: Any, refused: str) -> Response:
        got = await site.user_form(request, max_files=0)
        if isinstance(got, Response):
            return got
        user, _ = got
        try:
            await run_in_threadpool(action, site.engine, user.id, sid)
        except svc.SocialError as exc:
            return site.error(request, 400, refused, str(exc))
        return site.redirect("/programs")

    @routes.post("/programs/{sid}/public", response_class=HTMLResponse)
    async def make_public(request: Request, sid: int) -> Response:
        return await program_action(request, sid, svc.make_public, "Not made public")

    @routes.post("/programs/{sid}/official", response_class=HTMLResponse)
    async def play_officially(request: Request, sid: int) -> Response:
        return await program_action(request, sid, svc.set_official, "Not chosen")

    return routes
