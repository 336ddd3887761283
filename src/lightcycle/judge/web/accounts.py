"""Accounts, uploads and submissions: the pages of part 1.

Sign up, log in and out; upload a bot (one file of at most the contest's ``source_size``
bytes, in one of its languages, under a player name of 1-12 characters); a student's
submissions with their live state, steps and games, each game's replay in the viewer. A
student sees only their own submissions and games; the admin sees every one.
"""

# No `from __future__ import annotations`: FastAPI reads the routes' annotations (Request)
# at run time.
import json
import re
from dataclasses import dataclass
from pathlib import PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from lightcycle.judge.service.languages import ALSO_SUFFIXES
from lightcycle.judge.web.auth import check_email, check_password, log_in
from lightcycle.judge.web.site import Site
from lightcycle.storage.passwords import hash_secret, needs_rehash, verify_secret

if TYPE_CHECKING:
    from lightcycle.judge.service.contest import Contest

NAME = re.compile(r"[A-Za-z0-9_-]{1,12}")
"""A player name: 1-12 letters, digits, ``_`` or ``-`` (the store checks it again)."""

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
    return [
        LanguageChoice(name, (spec.suffix, *(ALSO_SUFFIXES.get(name, ()) if spec.builtin else ())))
        for name, spec in contest.languages.items()
    ]


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


def router(site: Site) -> APIRouter:
    """The routes of accounts, uploads and submissions (see the module docstring)."""
    routes = APIRouter()
    store = site.store
    languages: list[LanguageChoice] = site.languages
    source_size = site.source_size

    def mine(user: Any, sid: int) -> Any:
        """Submission ``sid`` if ``user`` may see it."""
        row = store.submission(sid)
        if row is None or (row.user_id != user.id and not user.is_admin):
            return None
        return row

    # -- accounts ---------------------------------------------------------------------------
    @routes.get("/", response_class=HTMLResponse)
    def index(request: Request) -> HTMLResponse:
        user = site.current_user(request)
        subs = store.submissions_of(user.id) if user is not None else []
        return site.html(request, "index.html", user=user, submissions=subs)

    @routes.get("/signup", response_class=HTMLResponse)
    def signup_page(request: Request) -> HTMLResponse:
        return site.html(request, "signup.html", problem=None, email="")

    @routes.post("/signup", response_class=HTMLResponse)
    async def signup(request: Request) -> Response:
        form = await site.form_of(request, max_files=0)
        if form is None:
            return site.forbidden_form(request)
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
                return site.redirect("/")
        return site.html(request, "signup.html", 400, problem=problem, email=email)

    @routes.get("/login", response_class=HTMLResponse)
    def login_page(request: Request) -> HTMLResponse:
        return site.html(request, "login.html", problem=None, email="")

    @routes.post("/login", response_class=HTMLResponse)
    async def login(request: Request) -> Response:
        form = await site.form_of(request, max_files=0)
        if form is None:
            return site.forbidden_form(request)
        email = str(form.get("email") or "").strip().lower()
        password = str(form.get("password") or "")
        row = await run_in_threadpool(store.user_by_email, email)
        good = row is not None and await run_in_threadpool(
            verify_secret, password, row.password_hash
        )
        if row is None or not good:
            problem = "wrong email or password: try again, or sign up"
            return site.html(request, "login.html", 400, problem=problem, email=email)
        if needs_rehash(row.password_hash):
            stronger = await run_in_threadpool(hash_secret, password)
            await run_in_threadpool(store.set_password, row.id, stronger)
        log_in(request.session, row.id)
        return site.redirect("/")

    @routes.post("/logout")
    async def logout(request: Request) -> Response:
        if await site.form_of(request, max_files=0) is None:
            return site.forbidden_form(request)
        request.session.clear()
        return site.redirect("/")

    # -- submissions ------------------------------------------------------------------------
    def too_big(size: int) -> str:
        return (
            f"the upload has {size} bytes; this contest takes source files of at most "
            f"{source_size} bytes"
        )

    @routes.post("/submit", response_class=HTMLResponse)
    async def submit(request: Request) -> Response:
        user = site.current_user(request)
        if user is None:
            return site.need_login(request)
        length = request.headers.get("content-length", "")
        if length.isdigit() and int(length) > source_size + FORM_SLACK:
            return site.error(request, 413, "Upload refused", too_big(int(length)))
        form = await site.form_of(request, max_files=1, max_fields=8)
        if form is None:
            return site.forbidden_form(request)
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
            return site.error(request, 400, "Upload refused", problem)
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
            return site.error(request, 400, "Upload refused", str(exc))
        return RedirectResponse(f"/submissions/{sid}", status_code=303)

    @routes.get("/fragments/submissions", response_class=HTMLResponse)
    def fragment_submissions(request: Request) -> HTMLResponse:
        user = site.current_user(request)
        if user is None:
            return site.need_login(request)
        return site.html(
            request, "_submissions.html", user=user, submissions=store.submissions_of(user.id)
        )

    def submission_view(request: Request, sid: int, template: str) -> HTMLResponse:
        """A submission of the logged-in user in ``template`` (its page or its fragment)."""
        user = site.current_user(request)
        if user is None:
            return site.need_login(request)
        row = mine(user, sid)
        if row is None:
            return site.error(request, 404, "No such submission", f"You have no submission {sid}.")
        games = [(g, seats_of(g)) for g in row.games]
        return site.html(request, template, user=user, sub=row, steps=row.steps, games=games)

    @routes.get("/submissions/{sid}", response_class=HTMLResponse)
    def submission_page(request: Request, sid: int) -> HTMLResponse:
        return submission_view(request, sid, "submission.html")

    @routes.get("/fragments/submissions/{sid}", response_class=HTMLResponse)
    def fragment_submission(request: Request, sid: int) -> HTMLResponse:
        return submission_view(request, sid, "_submission.html")

    @routes.get("/games/{gid}", response_class=HTMLResponse)
    def game_page(request: Request, gid: int) -> Any:
        user = site.current_user(request)
        if user is None:
            return site.need_login(request)
        game = store.game(gid)
        row = mine(user, game.submission_id) if game is not None else None
        if game is None or row is None:
            return site.error(request, 404, "No such game", f"You have no game {gid}.")
        return site.replay_page(request, game.replay, f"game {gid}", f"/submissions/{row.id}")

    @routes.get("/favicon.ico")
    def favicon() -> Response:
        return Response(status_code=204)  # no icon, and no 404 in every browser's console

    return routes
