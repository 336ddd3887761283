"""What every page of the judge's website shares: who is asking, pages, one-line refusals,
forms checked for their CSRF token.

`create_app` (`lightcycle.judge.web.app`) makes one `Site` and hands it to each area's
router (`accounts`, `social`, `matches`, `official`, `admin`), so a page of any area
renders with the same navigation, context and error pages, and a form of any area is
refused the same way when its token is missing.

Imported only by `create_app`, after it has checked that FastAPI and Jinja2 are there.
"""

# No `from __future__ import annotations`: FastAPI reads the routes' annotations (Request)
# at run time, in this module's routers too.
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import sqlalchemy as sa
from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.templating import Jinja2Templates
from starlette.concurrency import run_in_threadpool

from lightcycle.judge.service.tables import FINAL_STATES, UserRow
from lightcycle.judge.starters import starters_for
from lightcycle.judge.web.auth import csrf_ok, csrf_token
from lightcycle.replay.model import Replay, ReplayError
from lightcycle.viewer.data import viewer_data
from lightcycle.viewer.html import page

if TYPE_CHECKING:
    from lightcycle.judge.service.contest import Contest
    from lightcycle.judge.service.store import JudgeStore

T = TypeVar("T")


class Site:
    """The website's shared state and helpers.

    Args:
        store: the judge's store (its ``engine`` is what the service functions take).
        contest: the loaded contest file.
        templates: the Jinja2 templates (``templates/``).
        languages: the upload form's choices (`lightcycle.judge.web.accounts.LanguageChoice`).
        stopping: set when the server stops: open event streams end, so that uvicorn's
            shutdown does not wait for a browser tab to close.
    """

    def __init__(
        self,
        store: "JudgeStore",
        contest: "Contest",
        templates: Jinja2Templates,
        languages: list[Any],
        stopping: threading.Event,
    ) -> None:
        self.store = store
        self.contest = contest
        self.templates = templates
        self.languages = languages
        self.stopping = stopping
        self.source_size = int(contest.limits.source_size)
        self.title = contest.title or contest.name
        # the bot that fills a friendly match's empty seats, as the pages name it: the
        # 3D course's "Dummy", else the contest's own filler by its spec
        filler = str(contest.official.filler)
        dummy = filler.removeprefix("builtin:") == "dummy"
        self.filler_label = "Dummy" if dummy else f"{filler} (the reference bot)"
        self.filler_prose = "the Dummy" if dummy else f"the reference bot {filler}"
        # the contest's starting points: listed on the front page, served as text by
        # `lightcycle.judge.web.starters`
        self.starters = starters_for(
            contest.ruleset, contest.languages, contest.validation.protocol
        )

    @property
    def official_mode(self) -> str:
        """``elimination``, ``ladder`` or ``none``: which official pages there are."""
        return str(self.contest.official.mode)

    @property
    def engine(self) -> sa.Engine:
        """The database, as the service functions take it."""
        return self.store.engine

    def read(self, query: Callable[[sa.Connection], T]) -> T:
        """``query`` run on a connection of its own (a page's reads see one snapshot)."""
        with self.engine.connect() as conn:
            return query(conn)

    async def read_async(self, query: Callable[[sa.Connection], T]) -> T:
        """`read` from an ``async`` route, in a thread (the database blocks)."""
        return await run_in_threadpool(self.read, query)

    def current_user(self, request: Request) -> UserRow | None:
        """The logged-in user, or None."""
        user_id = request.session.get("user_id")
        return self.store.user(user_id) if isinstance(user_id, int) else None

    def html(
        self, request: Request, template: str, status: int = 200, **context: Any
    ) -> HTMLResponse:
        """``template`` rendered with the context every page has (user, CSRF token...)."""
        if "user" not in context:
            context["user"] = self.current_user(request)
        context.update(
            csrf=csrf_token(request.session),
            contest=self.contest,
            contest_title=self.title,
            languages=self.languages,
            source_size=self.source_size,
            final_states=FINAL_STATES,
            official_mode=self.official_mode,
            starters=self.starters,
            filler_label=self.filler_label,
            filler_prose=self.filler_prose,
        )
        response: HTMLResponse = self.templates.TemplateResponse(request, template, context, status)
        return response

    def error(self, request: Request, status: int, title: str, message: str) -> HTMLResponse:
        """A page with one line that says what is wrong and what to do."""
        return self.html(request, "error.html", status, title=title, message=message)

    def need_login(self, request: Request) -> HTMLResponse:
        """The page a logged-out visitor gets from a student's page."""
        return self.error(
            request, 401, "Log in first", "This page is for logged-in students: log in."
        )

    def admins_only(self, request: Request) -> HTMLResponse:
        """The page a student gets from an admin's page."""
        return self.error(request, 403, "Admins only", "This page is for the contest's admins.")

    def forbidden_form(self, request: Request) -> HTMLResponse:
        """The page a POST without the session's CSRF token gets."""
        return self.error(
            request,
            403,
            "Form refused",
            "This form has expired or was not sent from this site's page: "
            "reload the page and send it again.",
        )

    async def form_of(self, request: Request, **limits: int) -> Any:
        """The POSTed form if it carries the session's CSRF token, else None."""
        form = await request.form(**limits)
        return form if csrf_ok(request.session, form.get("csrf")) else None

    async def user_form(
        self, request: Request, **limits: int
    ) -> tuple[UserRow, Any] | HTMLResponse:
        """(the logged-in user, the POSTed form) for a student's form, or the page that
        refuses it (`need_login`, then `forbidden_form`): one check for every such form."""
        user = self.current_user(request)
        if user is None:
            return self.need_login(request)
        form = await self.form_of(request, **limits)
        if form is None:
            return self.forbidden_form(request)
        return user, form

    def replay_page(
        self, request: Request, replay_json: str | None, what: str, back: str | None
    ) -> HTMLResponse:
        """The viewer's page (2D or 3D, as the ruleset draws) for a stored replay (a
        game's or a match's), or a one-line page when there is none or it cannot be read."""
        if not replay_json:
            return self.error(request, 404, what, f"{what.capitalize()} has no replay.")
        try:
            replay = Replay.from_json(replay_json, what)
            data = viewer_data(replay, list(replay.states()))
        except (ReplayError, ValueError) as exc:
            return self.error(request, 500, what, f"its replay cannot be shown: {exc}")
        return HTMLResponse(page(data, back_link=back))

    @staticmethod
    def redirect(path: str) -> RedirectResponse:
        """A 303 to ``path`` (after a POST: a reload does not send the form again)."""
        return RedirectResponse(path, status_code=303)
