"""The judge's website: one FastAPI application made of a router per area.

``create_app(store, contest, secret_key)`` is served by uvicorn (`lightcycle.judge.web.serve`).
Pages are Jinja2 templates (``templates/``) in the game server's look; the parts that
change while a student watches refresh themselves with a few lines of inline script in
the spirit of htmx (``hx-get`` polled every 2 s; the official pages refetch theirs when
a server-sent event says something official changed), kept in the page, because a judge
on a course's LAN must work without the internet.

The areas, each a module with a ``router(site)``:

- `accounts`: sign up, log in, uploads, a student's submissions and their games;
- `social`: friends, and a student's programs (make one public, choose the official one);
- `matches`: friendly matches and every match's page with its game in the viewer;
- `official`: the public standings, rounds, hall of fame and ladder, live;
- `admin`: internal errors, starting a round, the ladder on or off;
- `starters`: the contest's starting points, a bot per language, served as text.

What a visitor may do is all checked in the routers, before the service is asked: who
they are (a signed session cookie, `lightcycle.judge.web.auth`), that every POST carries
the session's CSRF token (else 403 and a page that says to reload), and what they may see
(`lightcycle.judge.service.social`). Every failure is a page with one line that says what
to do, never a traceback.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from lightcycle.viewer.server import INSTALL, WebUnavailable

if TYPE_CHECKING:
    from lightcycle.judge.service.contest import Contest
    from lightcycle.judge.service.store import JudgeStore


def create_app(
    store: JudgeStore,
    contest: Contest,
    secret_key: bytes,
    *,
    stopping: threading.Event | None = None,
) -> Any:
    """The FastAPI application of the judge's website (see the module docstring).

    Args:
        store: the judge's `JudgeStore`.
        contest: the loaded contest file.
        secret_key: the cookie-signing key (`lightcycle.judge.web.auth.load_secret_key`).
        stopping: set when the server stops (`lightcycle.judge.web.serve.Judge` passes
            its own): the official pages' event streams then end.

    Raises:
        WebUnavailable: without FastAPI, Jinja2, itsdangerous or python-multipart.
    """
    try:
        import itsdangerous  # noqa: F401 -- SessionMiddleware needs it
        import python_multipart  # noqa: F401 -- request.form() needs it
        from fastapi import FastAPI
        from fastapi.templating import Jinja2Templates
        from jinja2 import Environment, PackageLoader, select_autoescape
        from starlette.middleware.sessions import SessionMiddleware
    except ImportError:
        raise WebUnavailable(
            "the judge's website needs FastAPI, Jinja2, itsdangerous and python-multipart: "
            + INSTALL
        ) from None
    from lightcycle.judge.web import (
        accounts,
        admin,
        errors,
        matches,
        official,
        social,
        starters,
    )
    from lightcycle.judge.web.site import Site

    env = Environment(
        loader=PackageLoader("lightcycle.judge.web", "templates"),
        autoescape=select_autoescape(default=True),
    )
    env.filters["percent"] = percent
    app = FastAPI(title="lightcycle judge", docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(
        SessionMiddleware,
        secret_key=secret_key.hex(),
        session_cookie="judge_session",
        max_age=14 * 24 * 3600,
        same_site="lax",
    )
    site = Site(
        store,
        contest,
        Jinja2Templates(env=env),
        accounts.contest_languages(contest),
        stopping if stopping is not None else threading.Event(),
    )
    for area in (accounts, social, matches, official, admin, starters):
        app.include_router(area.router(site))
    errors.install(app, site)
    return app


def percent(used: float | None, limit: float | None) -> str:
    """``used`` as a share of ``limit`` ("12.5 %"), or "" when either is unknown: the
    course showed each player the part of its CPU-time limit a game took."""
    if used is None or not limit:
        return ""
    return f"{100.0 * used / limit:.1f} %"
