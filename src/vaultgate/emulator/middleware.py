"""What the plugin does before any route: response time, open CORS, then the bearer check.

Only ``/``, ``/openapi.yaml`` and the certificate are exempt from authentication; the
comparison is of the whole header value, exactly ``Bearer <key>``. The preflight lists
the methods the version passes to ``cors()`` (its default list before MOVE existed).
After the key, Express decodes the params of the route that matches: a broken escape
there is the error handler's 500, before any handler runs.
"""

from __future__ import annotations

import time

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vaultgate.emulator.apierrors import ApiError, ErrorCode, auth_message
from vaultgate.emulator.responses import error_response
from vaultgate.emulator.urlpath import raw_path, undecodable_param

AUTH_EXEMPT = frozenset({"/", "/openapi.yaml", "/obsidian-local-rest-api.crt"})


class PluginMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        *,
        api_key: str,
        plugin_name: str,
        cors_methods: str,
        periodic: bool,
        requests: list[tuple[str, str]] | None = None,
    ) -> None:
        self.app = app
        self.requests = requests  # where each authenticated request is noted, if anywhere
        self.periodic = periodic  # the /periodic/ routes exist (below 5.0.2)
        self.expected = f"Bearer {api_key}"
        self.plugin_name = plugin_name
        self.cors_methods = cors_methods

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["Access-Control-Allow-Origin"] = "*"
                elapsed = (time.perf_counter() - started) * 1000
                headers["X-Response-Time"] = f"{elapsed:.3f}ms"
            await send(message)

        request_headers = Headers(scope=scope)
        if scope["method"] == "OPTIONS":
            await self._preflight(request_headers, send_with_headers)
            return
        if scope["path"] not in AUTH_EXEMPT and request_headers.get("authorization") != (
            self.expected
        ):
            error = ApiError(
                ErrorCode.API_KEY_AUTHORIZATION_REQUIRED, message=auth_message(self.plugin_name)
            )
            await error_response(error)(scope, receive, send_with_headers)
            return
        if self.requests is not None:
            self.requests.append((scope["method"], scope["path"]))
        broken = undecodable_param(raw_path(scope), periodic=self.periodic)
        if broken is not None:
            error = ApiError(status=500, detail=f"Failed to decode param '{broken}'")
            await error_response(error)(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    async def _preflight(self, request_headers: Headers, send: Send) -> None:
        headers = [
            (b"access-control-allow-methods", self.cors_methods.encode()),
            (b"content-length", b"0"),
        ]
        requested = request_headers.get("access-control-request-headers")
        if requested:
            headers.append((b"access-control-allow-headers", requested.encode("latin-1")))
            headers.append((b"vary", b"Access-Control-Request-Headers"))
        await send({"type": "http.response.start", "status": 204, "headers": headers})
        await send({"type": "http.response.body", "body": b""})
