"""The contest's starting points: a bot in each allowed language, served as text.

The front page lists them (``Site.starters``, from `lightcycle.judge.starters`: the
starters of the contest's ruleset, in its languages, for its protocol); each link serves
the file itself, so a student saves it, edits it and uploads it, without an account and
without the package's source tree:

- ``/starters/{language}``: the language's first starter;
- ``/starters/{language}/{filename}``: any of them (the 3D course's C++ has two: the
  kit's player and a whole program).

Plain text, UTF-8, with the file's name for "save as"; anything else is a 404 page that
says what there is.
"""

# No `from __future__ import annotations`: FastAPI reads the routes' annotations (Request)
# at run time.
from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse, Response

from lightcycle.judge.starters import Starter
from lightcycle.judge.web.site import Site


def router(site: Site) -> APIRouter:
    """The routes that serve the starters (see the module docstring)."""
    routes = APIRouter()

    def serve(request: Request, found: list[Starter]) -> Response:
        if not found:
            offered = ", ".join(sorted({s.language for s in site.starters})) or "none"
            return site.error(
                request,
                404,
                "No such starter",
                f"This contest has no such starting point; its languages with one: {offered}.",
            )
        starter = found[0]
        return PlainTextResponse(
            starter.text(),
            headers={"Content-Disposition": f'inline; filename="{starter.filename}"'},
        )

    @routes.get("/starters/{language}")
    def first_starter(request: Request, language: str) -> Response:
        return serve(request, [s for s in site.starters if s.language == language])

    @routes.get("/starters/{language}/{filename}")
    def starter(request: Request, language: str, filename: str) -> Response:
        found = [s for s in site.starters if s.language == language and s.filename == filename]
        return serve(request, found)

    return routes
