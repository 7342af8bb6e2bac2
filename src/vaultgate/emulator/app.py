"""The emulator's ASGI app: a Local REST API served from a folder of notes.

Routes keep the plugin's trailing slashes (``/vault/``, ``/search/simple/``...); with
Starlette's slash redirects off, ``/vault`` is the same 404 ``40400`` the plugin gives. A
method a route does not serve also falls through to that 404, as in Express.
"""

from __future__ import annotations

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from vaultgate.emulator import (
    periodic,
    routes_search,
    routes_system,
    routes_vault,
    routes_write,
    smart,
    templates,
)
from vaultgate.emulator.apierrors import ApiError, Unanswered, from_engine
from vaultgate.emulator.context import EmulatorConfig, EmulatorContext, context_of
from vaultgate.emulator.middleware import PluginMiddleware
from vaultgate.emulator.responses import error_response
from vaultgate.emulator.workspace import EmulatorState
from vaultgate.engine.behaviour import Behaviour
from vaultgate.engine.errors import EngineError

__all__ = ["EmulatorConfig", "create_app", "emulator_state"]

_WRITES = ["PUT", "POST", "PATCH", "DELETE"]


def create_app(config: EmulatorConfig) -> Starlette:
    behaviour = Behaviour.for_version(config.plugin_version)
    state = EmulatorState(config.vault, active_file=config.active_file)
    app = Starlette(
        routes=_routes(config, behaviour),
        middleware=[
            Middleware(
                PluginMiddleware,
                api_key=config.api_key,
                plugin_name=behaviour.plugin_name,
                cors_methods=behaviour.cors_methods,
                periodic=behaviour.periodic,
                requests=state.requests,
            )
        ],
        exception_handlers={
            ApiError: _api_error,
            EngineError: _engine_error,
            HTTPException: _http_error,
            Unanswered: _unanswered,
        },
    )
    app.router.redirect_slashes = False
    app.state.emulator = EmulatorContext(config=config, state=state, behaviour=behaviour)
    return app


def emulator_state(app: Starlette) -> EmulatorState:
    """The mutable vault state behind an app made by :func:`create_app`."""
    context = app.state.emulator
    assert isinstance(context, EmulatorContext)
    return context.state


def _routes(config: EmulatorConfig, behaviour: Behaviour) -> list[BaseRoute]:
    vault = "/vault/{rest:path}"
    routes: list[BaseRoute] = [
        Route("/", routes_system.root, methods=["GET"]),
        Route(f"/{routes_system.CERT_NAME}", routes_system.certificate, methods=["GET"]),
        Route("/openapi.yaml", routes_system.openapi_yaml, methods=["GET"]),
        Route(vault, routes_vault.vault_get, methods=["GET"]),
        Route(vault, routes_write.vault_put, methods=["PUT"]),
        Route(vault, routes_write.vault_post, methods=["POST"]),
        Route(vault, routes_write.vault_patch, methods=["PATCH"]),
        Route(vault, routes_write.vault_delete, methods=["DELETE"]),
        Route("/active/{rest:path}", routes_vault.active_get, methods=["GET"]),
        Route("/active/{rest:path}", routes_write.active_write, methods=_WRITES),
        Route("/search/", routes_search.search, methods=["POST"]),
        Route("/search/simple/", routes_search.search_simple, methods=["POST"]),
        Route("/tags/", routes_search.tags, methods=["GET"]),
        Route("/commands/", routes_system.commands, methods=["GET"]),
        Route("/commands/{command_id}/", routes_system.command_execute, methods=["POST"]),
        Route("/open/{rest:path}", routes_system.open_file, methods=["POST"]),
    ]
    # a method a version lacks falls through to the catch-all 404 40400, as in Express
    if behaviour.move:
        routes.append(Route(vault, routes_write.vault_move, methods=["MOVE"]))
    if behaviour.copy:
        routes.append(Route(vault, routes_write.vault_copy, methods=["COPY"]))
    if behaviour.periodic:
        routes.append(Route("/periodic/{rest:path}", periodic.periodic, methods=["GET", *_WRITES]))
    if config.extensions:
        routes += [
            Route("/search/smart", smart.search_smart, methods=["POST"]),
            Route("/templates/execute", templates.templates_execute, methods=["POST"]),
        ]
    return routes


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return error_response(exc, worded_for_5=context_of(request).behaviour.worded_for_5)


async def _engine_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, EngineError)
    worded_for_5 = context_of(request).behaviour.worded_for_5
    return error_response(from_engine(exc), worded_for_5=worded_for_5)


async def _unanswered(request: Request, exc: Exception) -> Response:
    """Hold the request open, as the plugin does when its handler's failure goes uncaught;
    the connection ends when the client gives up (or the emulator stops)."""
    await anyio.sleep_forever()
    raise AssertionError("unreachable")  # pragma: no cover


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    # unmatched paths and methods alike reach the plugin's catch-all 404
    status = 404 if exc.status_code in (404, 405) else exc.status_code
    return error_response(ApiError(status=status))
