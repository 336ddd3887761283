"""The server's web side: pages, a JSON API and the live games' websockets.

``create_app(lobby, hub)`` is served by uvicorn in the server's one asyncio loop
(`lightcycle.server.app`). Pages are Jinja2 templates (``templates/``); their lists
refresh themselves with a few lines of script in the spirit of htmx (``hx-get`` with
``hx-trigger="every 2s"``) kept in the page, because a server on a LAN without internet
access must still work, and htmx itself is not among this project's dependencies.

A game is watched in the viewer that plays replays (`lightcycle.viewer`): a live game
through the websocket ``/ws/games/{id}`` (`lightcycle.viewer.live_server.feed`), a
finished one from its stored replay. Reading is all the web side does: nothing here
changes the lobby or the database, and no id from a URL reaches anything but a lookup.
"""

# No `from __future__ import annotations`: FastAPI reads the routes' annotations (Request,
# WebSocket, imported inside create_app) at run time.
import json
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from lightcycle.replay.model import Replay, ReplayError
from lightcycle.viewer.data import viewer_data
from lightcycle.viewer.html import live_page as viewer_live_page
from lightcycle.viewer.html import page
from lightcycle.viewer.live import LiveHub
from lightcycle.viewer.live_server import feed, games_json
from lightcycle.viewer.server import INSTALL, WebUnavailable

if TYPE_CHECKING:
    from lightcycle.server.lobby import Lobby
    from lightcycle.server.store import GameRow

RECENT = 50
"""Finished games the front page and ``/api/games`` list."""


def game_json(row: "GameRow") -> dict[str, Any]:
    """A stored game as JSON data, without its replay."""
    out = asdict(row)
    out.pop("replay", None)
    return out


def _queues(lobby: "Lobby") -> list[dict[str, Any]]:
    waiting = lobby.waiting()
    return [
        {
            "name": name,
            "ruleset": q.ruleset,
            "maps": list(q.maps),
            "players": q.players,
            "move_time": q.move_time,
            "rated": q.rated,
            "anonymous": q.anonymous,
            "waiting": waiting.get(name, []),
        }
        for name, q in lobby.config.queues.items()
    ]


def _challenges(lobby: "Lobby") -> list[dict[str, str]]:
    return [{"challenger": a, "challenged": b, "queue": q} for a, b, q in lobby.challenges()]


def _finished(lobby: "Lobby", limit: int = RECENT) -> list[dict[str, Any]]:
    return [game_json(g) for g in lobby.store.recent_games(limit) if g.status != "running"]


def create_app(lobby: "Lobby", hub: LiveHub) -> Any:
    """The FastAPI application of the server's web side (see the module docstring).

    Raises:
        WebUnavailable: without FastAPI or Jinja2.
    """
    try:
        from fastapi import FastAPI, Request, WebSocket
        from fastapi.responses import HTMLResponse, JSONResponse, Response
        from fastapi.templating import Jinja2Templates
        from jinja2 import Environment, PackageLoader, select_autoescape
    except ImportError:
        raise WebUnavailable(f"the server's web pages need FastAPI and Jinja2: {INSTALL}") from None

    env = Environment(
        loader=PackageLoader("lightcycle.server", "templates"),
        autoescape=select_autoescape(default=True),
    )
    templates = Jinja2Templates(env=env)
    app = FastAPI(title="lightcycle server", docs_url=None, redoc_url=None, openapi_url=None)

    def html(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        response: HTMLResponse = templates.TemplateResponse(request, template, context, status)
        return response

    def not_found(request: Request, title: str, message: str) -> HTMLResponse:
        return html(request, "error.html", 404, title=title, message=message)

    def known_queue(queue: str) -> bool:
        return queue in lobby.config.queues

    # -- pages -----------------------------------------------------------------------------
    @app.get("/", response_class=HTMLResponse)
    def index(request: Request) -> HTMLResponse:
        return html(
            request,
            "index.html",
            queues=_queues(lobby),
            challenges=_challenges(lobby),
            live=hub.games(),
            finished=_finished(lobby),
        )

    @app.get("/fragments/queues", response_class=HTMLResponse)
    def fragment_queues(request: Request) -> HTMLResponse:
        return html(request, "_queues.html", queues=_queues(lobby), challenges=_challenges(lobby))

    @app.get("/fragments/live", response_class=HTMLResponse)
    def fragment_live(request: Request) -> HTMLResponse:
        return html(request, "_live.html", live=hub.games())

    @app.get("/fragments/finished", response_class=HTMLResponse)
    def fragment_finished(request: Request) -> HTMLResponse:
        return html(request, "_finished.html", finished=_finished(lobby))

    @app.get("/games/{game_id}", response_class=HTMLResponse)
    def game_page(request: Request, game_id: str) -> HTMLResponse:
        if hub.status(game_id) is not None:
            return HTMLResponse(viewer_live_page(game_id, f"live game {game_id}", back_link="/"))
        row = lobby.store.game(game_id)
        if row is None:
            return not_found(request, "No such game", f"There is no game {game_id} here.")
        if row.replay is None:
            message = f"Game {game_id} is {row.status}" + (f": {row.reason}" if row.reason else "")
            return html(request, "error.html", 200, title=f"game {game_id}", message=message)
        try:
            replay = Replay.from_json(row.replay, f"game {game_id}")
            data = viewer_data(replay, list(replay.states()))
        except (ReplayError, ValueError) as exc:
            return html(request, "error.html", 500, title=f"game {game_id}", message=str(exc))
        return HTMLResponse(page(data, back_link="/"))

    @app.get("/ladder/{queue}", response_class=HTMLResponse)
    def ladder_page(request: Request, queue: str) -> HTMLResponse:
        if not known_queue(queue):
            return not_found(request, "No such queue", f"There is no queue {queue} here.")
        return html(request, "ladder.html", queue=queue, rows=lobby.store.ladder(queue))

    # a name is any printable text, "/" included: the whole rest of the path is the name
    @app.get("/players/{name:path}", response_class=HTMLResponse)
    def player_page(request: Request, name: str) -> HTMLResponse:
        games = [game_json(g) for g in lobby.store.player_games(name, RECENT)]
        standings = [
            (q, r)
            for q in lobby.config.queues
            for r in lobby.store.ladder(q)
            if r.name.lower() == name.lower()
        ]
        if not games and not standings:
            return not_found(request, "No such player", f"No game of {name} is recorded here.")
        return html(request, "player.html", name=name, games=games, standings=standings)

    # -- JSON API ----------------------------------------------------------------------------
    @app.get("/api/queues")
    def api_queues() -> JSONResponse:
        return JSONResponse({"queues": _queues(lobby), "challenges": _challenges(lobby)})

    @app.get("/api/games")
    def api_games(status: str | None = None) -> JSONResponse:
        if status not in (None, "live", "finished"):
            return JSONResponse({"error": "status is live or finished"}, 400)
        out: list[dict[str, Any]] = []
        if status in (None, "live"):
            out += games_json(hub, "live")
        if status in (None, "finished"):
            out += [{**g, "status": g["status"]} for g in _finished(lobby)]
        return JSONResponse(out)

    @app.get("/api/games/{game_id}")
    def api_game(game_id: str) -> Response:
        if hub.status(game_id) == "live":
            meta = next((g for g in hub.games() if g["id"] == game_id), {"id": game_id})
            return JSONResponse({**meta, "status": "live", "replay": None})
        row = lobby.store.game(game_id)
        if row is None:
            return JSONResponse({"error": f"no game {game_id}"}, 404)
        out = game_json(row)
        out["replay"] = json.loads(row.replay) if row.replay else None
        return JSONResponse(out)

    @app.get("/api/ladder/{queue}")
    def api_ladder(queue: str) -> JSONResponse:
        if not known_queue(queue):
            return JSONResponse({"error": f"no queue {queue}"}, 404)
        return JSONResponse([asdict(r) for r in lobby.store.ladder(queue)])

    @app.websocket("/ws/games/{game_id}")
    async def ws_game(websocket: WebSocket, game_id: str) -> None:
        await feed(websocket, hub, game_id)

    @app.exception_handler(404)
    async def missing(request: Request, exc: Exception) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": "no such resource"}, 404)
        return not_found(request, "Not found", f"Nothing is at {request.url.path} here.")

    return app
