"""The judge's website: accounts, uploads, submissions with their live state, the admin page.

``create_app(store, contest, secret_key)`` is served by uvicorn (`lightcycle.judge.web.serve`).
Pages are Jinja2 templates (``templates/``) in the game server's look; the lists that
change while a student watches (the states of their submissions) refresh themselves with a
few lines of script in the spirit of htmx (``hx-get`` polled every 2 s), kept in the page,
because a judge on a course's LAN must work without the internet.

What a student may do is all checked here, before the store is asked: who they are (a
signed session cookie, `lightcycle.judge.web.auth`), that every POST carries the session's
CSRF token (else 403 and a page that says to reload), and what an upload is (one file of
at most the contest's ``source_size`` bytes, in one of its languages, under a player name
of 1-12 characters). A student sees only their own submissions and games; the admin sees
every one. Every failure is a page with one line that says what to do, never a traceback.
"""

# No `from __future__ import annotations`: FastAPI reads the routes' annotations (Request)
# at run time.
import json
import re
from dataclasses import dataclass
from pathlib import PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING, Any

from lightcycle.judge.web.auth import (
    check_email,
    check_password,
    csrf_ok,
    csrf_token,
    log_in,
)
from lightcycle.replay.model import Replay, ReplayError
from lightcycle.storage.passwords import hash_secret, needs_rehash, verify_secret
from lightcycle.viewer.data import viewer_data
from lightcycle.viewer.html import page
from lightcycle.viewer.server import INSTALL, WebUnavailable

if TYPE_CHECKING:
    from lightcycle.judge.service.contest import Contest
    from lightcycle.judge.service.store import JudgeStore

NAME = re.compile(r"[A-Za-z0-9_-]{1,12}")
"""A player name: 1-12 letters, digits, ``_`` or ``-`` (the store checks it again)."""

FINAL_STATES = frozenset(
    {"build_failed", "test_failed", "qualify_failed", "accepted", "internal_error"}
)
"""States a submission never leaves: its page stops polling."""

FORM_SLACK = 16 * 1024
"""Bytes a multipart form may carry beyond the source file (field names, boundaries)."""

_SAFE_FILENAME = re.compile(r"[^A-Za-z0-9._-]")


@dataclass(frozen=True)
class LanguageChoice:
    """A language a student may upload in, as the upload form offers it."""

    name: str
    suffixes: tuple[str, ...]


def contest_languages(contest: "Contest") -> list[LanguageChoice]:
    """The contest's allowed languages (its ``languages`` holds only those) with the
    suffix a file in each must have."""
    return [LanguageChoice(name, (spec.suffix,)) for name, spec in contest.languages.items()]


def safe_filename(raw: str) -> str:
    """The upload's file name without any folder (from either kind of path), with every
    character but letters, digits, ``.``, ``_`` and ``-`` made ``_``: the build sees it."""
    base = PurePosixPath(PureWindowsPath(raw).name).name
    return _SAFE_FILENAME.sub("_", base)[:64]


def seats_of(game: Any) -> list[dict[str, Any]]:
    """A game's seats as dicts with every key the page shows, whether the store gives a
    list or JSON text, and whatever a seat lacks (a page must render for any game)."""
    seats = getattr(game, "seats", None)
    if isinstance(seats, str):
        try:
            seats = json.loads(seats)
        except ValueError:
            return []
    out = []
    for seat in seats if isinstance(seats, list) else []:
        if not isinstance(seat, dict):
            continue
        shown = {key: seat.get(key) or "" for key in ("name", "verdict", "detail", "stderr_tail")}
        for key in ("cpu_used", "cpu_limit"):
            value = seat.get(key)
            shown[key] = float(value) if isinstance(value, int | float) else None
        out.append(shown)
    return out


def create_app(store: "JudgeStore", contest: "Contest", secret_key: bytes) -> Any:
    """The FastAPI application of the judge's website (see the module docstring).

    Args:
        store: the judge's `JudgeStore`.
        contest: the loaded contest file.
        secret_key: the cookie-signing key (`lightcycle.judge.web.auth.load_secret_key`).

    Raises:
        WebUnavailable: without FastAPI, Jinja2, itsdangerous or python-multipart.
    """
    try:
        import itsdangerous  # noqa: F401 -- SessionMiddleware needs it
        import python_multipart  # noqa: F401 -- request.form() needs it
        from fastapi import FastAPI, Request
        from fastapi.exceptions import RequestValidationError
        from fastapi.responses import HTMLResponse, RedirectResponse, Response
        from fastapi.templating import Jinja2Templates
        from jinja2 import Environment, PackageLoader, select_autoescape
        from starlette.concurrency import run_in_threadpool
        from starlette.datastructures import UploadFile
        from starlette.exceptions import HTTPException
        from starlette.middleware.sessions import SessionMiddleware
    except ImportError:
        raise WebUnavailable(
            "the judge's website needs FastAPI, Jinja2, itsdangerous and python-multipart: "
            + INSTALL
        ) from None

    env = Environment(
        loader=PackageLoader("lightcycle.judge.web", "templates"),
        autoescape=select_autoescape(default=True),
    )
    templates = Jinja2Templates(env=env)
    app = FastAPI(title="lightcycle judge", docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(
        SessionMiddleware,
        secret_key=secret_key.hex(),
        session_cookie="judge_session",
        max_age=14 * 24 * 3600,
        same_site="lax",
    )
    languages = contest_languages(contest)
    source_size = int(contest.limits.source_size)
    title = contest.title or contest.name

    def current_user(request: Request) -> Any:
        user_id = request.session.get("user_id")
        return store.user(user_id) if isinstance(user_id, int) else None

    def html(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        context.setdefault("user", current_user(request))
        context.update(
            csrf=csrf_token(request.session),
            contest=contest,
            contest_title=title,
            languages=languages,
            source_size=source_size,
            final_states=FINAL_STATES,
        )
        response: HTMLResponse = templates.TemplateResponse(request, template, context, status)
        return response

    def error(request: Request, status: int, title_: str, message: str) -> HTMLResponse:
        return html(request, "error.html", status, title=title_, message=message)

    def home() -> RedirectResponse:
        return RedirectResponse("/", status_code=303)

    def need_login(request: Request) -> HTMLResponse:
        return error(request, 401, "Log in first", "This page is for logged-in students: log in.")

    def forbidden_form(request: Request) -> HTMLResponse:
        return error(
            request,
            403,
            "Form refused",
            "This form has expired or was not sent from this site's page: "
            "reload the page and send it again.",
        )

    async def form_of(request: Request, **limits: int) -> Any:
        """The POSTed form if it carries the session's CSRF token, else None."""
        form = await request.form(**limits)
        return form if csrf_ok(request.session, form.get("csrf")) else None

    def mine(request: Request, user: Any, sid: int) -> Any:
        """Submission ``sid`` if ``user`` may see it."""
        row = store.submission(sid)
        if row is None or (row.user_id != user.id and not user.is_admin):
            return None
        return row

    # -- accounts ---------------------------------------------------------------------------
    @app.get("/", response_class=HTMLResponse)
    def index(request: Request) -> HTMLResponse:
        user = current_user(request)
        subs = store.submissions_of(user.id) if user is not None else []
        return html(request, "index.html", user=user, submissions=subs)

    @app.get("/signup", response_class=HTMLResponse)
    def signup_page(request: Request) -> HTMLResponse:
        return html(request, "signup.html", problem=None, email="")

    @app.post("/signup", response_class=HTMLResponse)
    async def signup(request: Request) -> Response:
        form = await form_of(request, max_files=0)
        if form is None:
            return forbidden_form(request)
        email = str(form.get("email") or "").strip().lower()
        password = str(form.get("password") or "")
        problem = check_email(email) or check_password(password)
        if problem is None:
            hashed = await run_in_threadpool(hash_secret, password)
            try:
                user_id = await run_in_threadpool(store.create_user, email, hashed)
            except ValueError:
                problem = f"{email} already has an account: log in instead"
            else:
                log_in(request.session, user_id)
                return home()
        return html(request, "signup.html", 400, problem=problem, email=email)

    @app.get("/login", response_class=HTMLResponse)
    def login_page(request: Request) -> HTMLResponse:
        return html(request, "login.html", problem=None, email="")

    @app.post("/login", response_class=HTMLResponse)
    async def login(request: Request) -> Response:
        form = await form_of(request, max_files=0)
        if form is None:
            return forbidden_form(request)
        email = str(form.get("email") or "").strip().lower()
        password = str(form.get("password") or "")
        row = await run_in_threadpool(store.user_by_email, email)
        good = row is not None and await run_in_threadpool(
            verify_secret, password, row.password_hash
        )
        if row is None or not good:
            problem = "wrong email or password: try again, or sign up"
            return html(request, "login.html", 400, problem=problem, email=email)
        if needs_rehash(row.password_hash):
            stronger = await run_in_threadpool(hash_secret, password)
            await run_in_threadpool(store.set_password, row.id, stronger)
        log_in(request.session, row.id)
        return home()

    @app.post("/logout")
    async def logout(request: Request) -> Response:
        if await form_of(request, max_files=0) is None:
            return forbidden_form(request)
        request.session.clear()
        return home()

    # -- submissions ------------------------------------------------------------------------
    @app.post("/submit", response_class=HTMLResponse)
    async def submit(request: Request) -> Response:
        user = current_user(request)
        if user is None:
            return need_login(request)
        length = request.headers.get("content-length", "")
        if length.isdigit() and int(length) > source_size + FORM_SLACK:
            return error(request, 413, "Upload refused", too_big(int(length)))
        form = await form_of(request, max_files=1, max_fields=8)
        if form is None:
            return forbidden_form(request)
        upload = form.get("source")
        name = str(form.get("name") or "").strip()
        language = str(form.get("language") or "")
        problem: str | None = None
        content = b""
        choice = next((c for c in languages if c.name == language), None)
        if not NAME.fullmatch(name):
            problem = "the player name is 1 to 12 letters, digits, _ or - (e.g. jane_2)"
        elif choice is None:
            allowed = ", ".join(c.name for c in languages)
            problem = f"{language or 'no language'} is not allowed here: choose one of {allowed}"
        elif not isinstance(upload, UploadFile) or not upload.filename:
            problem = "choose the source file to upload"
        else:
            content = await upload.read(source_size + 1)
            filename = safe_filename(upload.filename)
            if len(content) > source_size:
                problem = too_big(len(content))
            elif not content:
                problem = f"{filename} is empty: upload the bot's source file"
            elif choice.suffixes and not filename.endswith(choice.suffixes):
                problem = (
                    f"{filename} is not a {choice.name} file: its name must end with "
                    + " or ".join(choice.suffixes)
                )
        if problem is not None:
            return error(request, 400, "Upload refused", problem)
        assert isinstance(upload, UploadFile) and choice is not None
        try:
            sid = await run_in_threadpool(
                store.submit,
                user.id,
                name,
                choice.name,
                safe_filename(upload.filename or ""),
                content,
            )
        except ValueError as exc:
            return error(request, 400, "Upload refused", str(exc))
        return RedirectResponse(f"/submissions/{sid}", status_code=303)

    def too_big(size: int) -> str:
        return (
            f"the upload has {size} bytes; this contest takes source files of at most "
            f"{source_size} bytes"
        )

    @app.get("/fragments/submissions", response_class=HTMLResponse)
    def fragment_submissions(request: Request) -> HTMLResponse:
        user = current_user(request)
        if user is None:
            return need_login(request)
        return html(request, "_submissions.html", submissions=store.submissions_of(user.id))

    def submission_context(row: Any) -> dict[str, Any]:
        games = [(g, seats_of(g)) for g in row.games]
        return {"sub": row, "steps": row.steps, "games": games}

    def submission_view(request: Request, sid: int, template: str) -> HTMLResponse:
        """A submission of the logged-in user in ``template`` (its page or its fragment)."""
        user = current_user(request)
        if user is None:
            return need_login(request)
        row = mine(request, user, sid)
        if row is None:
            return error(request, 404, "No such submission", f"You have no submission {sid}.")
        return html(request, template, **submission_context(row))

    @app.get("/submissions/{sid}", response_class=HTMLResponse)
    def submission_page(request: Request, sid: int) -> HTMLResponse:
        return submission_view(request, sid, "submission.html")

    @app.get("/fragments/submissions/{sid}", response_class=HTMLResponse)
    def fragment_submission(request: Request, sid: int) -> HTMLResponse:
        return submission_view(request, sid, "_submission.html")

    @app.get("/games/{gid}", response_class=HTMLResponse)
    def game_page(request: Request, gid: int) -> HTMLResponse:
        user = current_user(request)
        if user is None:
            return need_login(request)
        game = store.game(gid)
        row = mine(request, user, game.submission_id) if game is not None else None
        if game is None or row is None:
            return error(request, 404, "No such game", f"You have no game {gid}.")
        if not game.replay:
            return error(request, 404, f"game {gid}", f"Game {gid} has no replay.")
        try:
            replay = Replay.from_json(game.replay, f"game {gid}")
            data = viewer_data(replay, list(replay.states()))
        except (ReplayError, ValueError) as exc:
            return error(request, 500, f"game {gid}", f"its replay cannot be shown: {exc}")
        return HTMLResponse(page(data, back_link=f"/submissions/{row.id}"))

    @app.get("/admin", response_class=HTMLResponse)
    def admin_page(request: Request) -> HTMLResponse:
        user = current_user(request)
        if user is None:
            return need_login(request)
        if not user.is_admin:
            return error(request, 403, "Admins only", "This page is for the contest's admins.")
        return html(request, "admin.html", errors=store.internal_errors())

    @app.get("/favicon.ico")
    def favicon() -> Response:
        return Response(status_code=204)  # no icon, and no 404 in every browser's console

    # -- errors are pages ---------------------------------------------------------------------
    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        if exc.status_code == 404:
            return error(request, 404, "Not found", f"Nothing is at {request.url.path} here.")
        return error(request, exc.status_code, "Refused", str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        return error(request, 400, "Bad request", f"{request.url.path}: check the address")

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception) -> Response:
        return HTMLResponse(
            "<!DOCTYPE html><title>internal error</title><h1>Internal error</h1>"
            "<p>The judge failed on this request; it is logged. "
            "Try again, or tell the instructor.</p>",
            500,
        )

    return app
