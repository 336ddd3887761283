"""Errors are pages: a wrong address, a bad parameter or the judge's own failure is a page
with one line, never a traceback (the exception is logged for the instructor)."""

# No `from __future__ import annotations`: FastAPI reads the handlers' annotations.
import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, Response
from starlette.exceptions import HTTPException

from lightcycle.judge.web.site import Site

log = logging.getLogger(__name__)


def install(app: FastAPI, site: Site) -> None:
    """Make every error of ``app`` a page of ``site``."""

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        if exc.status_code == 404:
            return site.error(request, 404, "Not found", f"Nothing is at {request.url.path} here.")
        return site.error(request, exc.status_code, "Refused", str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        return site.error(request, 400, "Bad request", f"{request.url.path}: check the address")

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception) -> Response:
        log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        return HTMLResponse(
            "<!DOCTYPE html><title>internal error</title><h1>Internal error</h1>"
            "<p>The judge failed on this request; it is logged. "
            "Try again, or tell the instructor.</p>",
            500,
        )
