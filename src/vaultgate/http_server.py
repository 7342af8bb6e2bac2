"""``vaultgate serve --http``: the MCP server over Streamable HTTP, for clients that cannot spawn a
process. Built on the SDK's ``streamable_http_app`` and run with uvicorn.

Every request passes RequestGuard before the SDK sees it:

1. ``Origin``: absent is fine (non-browser clients send none); present, it must be one of this
   server's own origins (``http(s)://127.0.0.1|localhost|[::1]:PORT``, plus the bound address's).
   A web page anywhere else, including one that reached the port by DNS rebinding, gets 403.
2. ``Authorization: Bearer <token>``, compared in constant time; anything else gets 401.

On a loopback bind the SDK's TransportSecuritySettings also checks the ``Host`` header. A
non-loopback bind needs VAULTGATE_HTTP_TOKEN set; on loopback an unset token is generated at
start and printed to stderr, the one place a token is ever shown.

Before any of that, GuardedH11Protocol keeps clients that never finish a request from holding
the server: a connection has HEADER_TIMEOUT seconds from its first byte (or from connecting) to
send its request headers; one client address holds at most MAX_WAITING_PER_ADDRESS connections
still waiting for headers (beyond it, that address's oldest stalled one is closed); and beyond
MAX_CONNECTIONS the oldest stalled connection of the address with the most waiting ones is
closed. So a flood of half-sent requests from one address only ever closes its own connections,
and a client from another address is answered while the flood goes on. Stalled means no byte
waits unread in the kernel: a burst of accepts runs every connection_made before any read, so
a client that sent its whole request is only not read yet, and is never the one closed; that
keeps it served even amid a flood from its own address (every local client is 127.0.0.1; issue
36). The caps are kept by one sweep per loop turn, not one pass per accepted connection. uvicorn
has none of this: its keep-alive timeout only runs after a response, and its
limit_concurrency answers 503 to every new request once half-sent ones fill it, which would
starve exactly the clients it should protect.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import logging
import secrets
import select
import socket
import sys
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import h11
import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from vaultgate.config import Secret
from vaultgate.errors import ConfigError
from vaultgate.logs import hide_in_logs
from vaultgate.serving import NotifyingServer, listen_tcp

log = logging.getLogger("vaultgate.http")

DEFAULT_HTTP_HOST = "127.0.0.1"
DEFAULT_HTTP_PORT = 8765
MCP_PATH = "/mcp"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
_START_TIMEOUT = 30.0
# A request's line and headers must arrive within this many seconds of its first byte (or of the
# connection); uvicorn's default keep-alive (5 s) closes idle connections between requests.
HEADER_TIMEOUT = 10.0
# Open connections at most; above it, the oldest one still waiting for its headers is closed,
# from the address with the most such connections.
MAX_CONNECTIONS = 128
# Connections still waiting for their headers from one client address, at most; an MCP client
# has a stream and a request or two open, so this leaves room for a few behind one NAT.
MAX_WAITING_PER_ADDRESS = 32
# Open SSE streams would hold a shutdown forever; after this many seconds they are cut.
_GRACEFUL_SHUTDOWN = 5


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _is_wildcard(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def _bracketed(host: str) -> str:
    bare = host.strip("[]")
    return f"[{bare}]" if ":" in bare else bare


def resolve_token(host: str, configured: Secret | None) -> tuple[Secret, bool]:
    """The token clients must send, and whether it was generated now (then it must be shown).

    Refuses a non-loopback ``host`` without a configured token: a token printed to one
    terminal is no way to share access with other machines.
    """
    if configured is not None:
        return configured, False
    if not is_loopback(host):
        raise ConfigError(
            f"Refusing to listen on {host} without VAULTGATE_HTTP_TOKEN: set it to a long random "
            "secret that clients send as 'Authorization: Bearer <token>', or keep the default "
            "--host 127.0.0.1."
        )
    return Secret(secrets.token_urlsafe(32)), True


def allowed_origins(host: str, port: int) -> frozenset[str]:
    """The Origin values a browser on this machine would send for this server."""
    names = list(LOOPBACK_NAMES)
    if not is_loopback(host) and not _is_wildcard(host):
        names.append(_bracketed(host).lower())
    return frozenset(f"{scheme}://{name}:{port}" for scheme in ("http", "https") for name in names)


def transport_security(host: str, port: int) -> TransportSecuritySettings:
    """The SDK's Host/Origin checks: exact loopback names and port on a loopback bind.

    Elsewhere the names clients use for this machine are unknown, so the Host check is off
    there; RequestGuard still checks Origin and the token, which such a bind requires.
    """
    if not is_loopback(host):
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{name}:{port}" for name in LOOPBACK_NAMES],
        allowed_origins=sorted(allowed_origins(host, port)),
    )


# A refused client gets no kept-alive connection: whatever body it was sending is not read.
_CLOSE = {"Connection": "close"}


class RequestGuard:
    """ASGI middleware: a foreign Origin gets 403, a missing or wrong bearer token 401."""

    def __init__(self, app: ASGIApp, *, token: Secret, origins: frozenset[str]) -> None:
        self._app = app
        self._token = token.reveal().encode("utf-8")
        self._origins = origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":  # starts the SDK's session manager
            await self._app(scope, receive, send)
            return
        if scope["type"] != "http":  # no websockets here: refuse the handshake
            await receive()
            await send({"type": "websocket.close", "code": 1008})
            return
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        if origin is not None and origin.lower() not in self._origins:
            log.warning("refused a request from Origin %r", origin)
            response = PlainTextResponse(
                "Forbidden: this MCP server accepts no requests from web pages of other origins.",
                status_code=403,
                headers=_CLOSE,
            )
        elif not self._authorized(headers.get("authorization")):
            response = PlainTextResponse(
                "Unauthorized: send 'Authorization: Bearer <VAULTGATE_HTTP_TOKEN>'.",
                status_code=401,
                headers={"WWW-Authenticate": 'Bearer realm="vaultgate"', **_CLOSE},
            )
        else:
            await self._app(scope, receive, send)
            return
        await response(scope, receive, send)

    def _authorized(self, header: str | None) -> bool:
        scheme, _, presented = (header or "").partition(" ")
        if scheme.lower() != "bearer":
            return False
        return hmac.compare_digest(presented.strip().encode("utf-8"), self._token)


def build_http_app(server: MCPServer, *, host: str, port: int, token: Secret) -> ASGIApp:
    """The SDK's Streamable HTTP app at /mcp for ``server``, behind RequestGuard.

    ``port`` is the bound port (never 0): allowed origins and hosts name it.
    """
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        transport_security=transport_security(host, port),
        host=host,
    )
    return RequestGuard(app, token=token, origins=allowed_origins(host, port))


def bind(host: str, port: int) -> socket.socket:
    """A listening socket, bound before uvicorn starts so that port 0 is known at once."""
    if not 0 <= port <= 65535:
        raise ConfigError(f"--port must be between 1 and 65535 (0: any free port), not {port}.")
    try:
        return listen_tcp(host, port)
    except OSError as exc:
        raise ConfigError(f"Cannot listen on {_bracketed(host)}:{port}: {exc.strerror}.") from exc


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    header_timeout: float = HEADER_TIMEOUT
    max_connections: int = MAX_CONNECTIONS
    max_waiting_per_address: int = MAX_WAITING_PER_ADDRESS


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for request headers and a cap on connections.

    Subclasses made by ``guarded_protocol`` set the limits; uvicorn builds one per connection.
    """

    limits = ConnectionLimits()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_deadline: asyncio.TimerHandle | None = None
        self._opened = 0.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._opened = self.loop.time()
        self._arm()
        self._make_room()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._waiting_for_headers():
            if self._header_deadline is None:
                self._arm()  # the first byte of a next request on a kept-alive connection
            self._make_room()  # read and still waiting: it may be closed now
        else:
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _waiting_for_headers(self) -> bool:
        """No request in progress: its line and headers have not all arrived."""
        in_request = self.cycle is not None and not self.cycle.response_complete
        return self.conn.their_state is h11.IDLE and not in_request

    def _arm(self) -> None:
        self._disarm()
        self._header_deadline = self.loop.call_later(
            self.limits.header_timeout, self._headers_too_late
        )

    def _disarm(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _headers_too_late(self) -> None:
        self._header_deadline = None
        if self._waiting_for_headers() and not self.transport.is_closing():
            log.debug("closed a connection that sent no complete request headers in time")
            self.transport.close()

    def _address(self) -> str:
        return str(self.client[0]) if self.client else ""

    def _stalled(self) -> bool:
        """Waiting for headers with nothing unread: it sent part of a request (or nothing)
        and stopped. Bytes in the kernel's buffer mean the loop has not read them yet."""
        sock = self.transport.get_extra_info("socket")
        return sock is None or not _unread_bytes(sock.fileno())

    def _make_room(self) -> None:
        """Ask for one sweep of this server's connections on the loop's next turn: a burst of
        accepts then costs one pass over the connections, not one per connection."""
        if self.server_state not in _SWEEP_PENDING:
            _SWEEP_PENDING.add(self.server_state)
            self.loop.call_soon(_sweep, self.server_state, self.limits)


# Servers whose sweep is scheduled; weak, so a stopped server leaves no trace.
_SWEEP_PENDING: weakref.WeakSet[ServerState] = weakref.WeakSet()


def _sweep(state: ServerState, limits: ConnectionLimits) -> None:
    """Keep the caps: each address's connections waiting for headers, then all connections.
    Each closes the oldest stalled connection, of the address over its cap for the first and
    of the address with the most waiting for the second. A connection with unread bytes is
    never closed, so the caps may be passed until the loop has read them (a turn)."""
    _SWEEP_PENDING.discard(state)
    waiting: dict[str, list[GuardedH11Protocol]] = {}
    still_open = 0
    for connection in state.connections:
        if connection.transport.is_closing():
            continue
        still_open += 1
        if isinstance(connection, GuardedH11Protocol) and connection._waiting_for_headers():
            waiting.setdefault(connection._address(), []).append(connection)
    closable = {
        address: [c for c in sorted(group, key=lambda c: c._opened) if c._stalled()]
        for address, group in waiting.items()
    }
    for address, group in waiting.items():
        over = len(group) - limits.max_waiting_per_address
        for victim in closable[address][: max(0, over)]:
            log.debug(
                "over %d connections waiting for headers from %s: closed its oldest",
                limits.max_waiting_per_address,
                address,
            )
            victim.transport.close()
            group.remove(victim)
            closable[address].remove(victim)
            still_open -= 1
    while still_open > limits.max_connections and waiting:
        address = max(waiting, key=lambda a: len(waiting[a]))
        if not closable[address]:
            return  # its waiting ones are unread: once read, data_received sweeps again
        victim = closable[address].pop(0)
        waiting[address].remove(victim)
        log.debug("over %d connections: closed the oldest idle one", limits.max_connections)
        victim.transport.close()
        still_open -= 1


def _unread_bytes(fd: int) -> bool:
    """Whether socket ``fd`` holds bytes no one has read yet, asked without waiting. A peer
    that has closed or reset its end counts as none: closing it loses nothing. poll where
    there is one (select() refuses descriptors above 1023 on Linux); POLLRDHUP (Linux) tells
    a closed end from data, elsewhere a closed end counts as unread until the loop reads it."""
    if fd < 0:
        return False
    if not hasattr(select, "poll"):
        readable, _, _ = select.select([fd], [], [], 0)
        return bool(readable)
    poller = select.poll()
    gone = getattr(select, "POLLRDHUP", 0) | select.POLLHUP | select.POLLERR
    poller.register(fd, select.POLLIN | gone)
    events = poller.poll(0)
    return bool(events) and not events[0][1] & gone


def guarded_protocol(limits: ConnectionLimits) -> type[GuardedH11Protocol]:
    return type("GuardedH11Protocol", (GuardedH11Protocol,), {"limits": limits})


def uvicorn_server(
    app: ASGIApp,
    on_started: Callable[[], None] = lambda: None,
    limits: ConnectionLimits = ConnectionLimits(),
) -> uvicorn.Server:
    return NotifyingServer(
        uvicorn.Config(
            app,
            http=guarded_protocol(limits),
            lifespan="on",  # the SDK's session manager runs in the app's lifespan
            log_level="warning",
            log_config=None,  # leave logging alone: nothing of ours goes to stdout
            access_log=False,
            proxy_headers=False,  # nothing in front of us is trusted to name the client
            server_header=False,
            timeout_graceful_shutdown=_GRACEFUL_SHUTDOWN,
        ),
        on_started,
    )


def run_http(
    server: MCPServer, *, host: str, port: int, token: Secret | None, summary: str = ""
) -> int:
    """Serve ``server`` on ``host:port`` until Ctrl-C; where and how to connect go to stderr,
    after ``summary`` (what the server uses, see Settings.summary) once it listens."""
    secret, generated = resolve_token(host, token)
    if generated:
        hide_in_logs([secret.reveal()])  # shown once below, to the user; never in a log line
    sock = bind(host, port)
    try:
        bound_port = int(sock.getsockname()[1])
        app = build_http_app(server, host=host, port=bound_port, token=secret)
        url = f"http://{_bracketed(host)}:{bound_port}{MCP_PATH}"

        def announce() -> None:
            lines = [summary] if summary else []
            lines.append(f"vaultgate: MCP over Streamable HTTP at {url}")
            if generated:
                # The one place a token is shown: the user needs it to connect a client.
                lines.append(f"  Bearer token for this run: {secret.reveal()}")
                lines.append("  (set VAULTGATE_HTTP_TOKEN to choose a lasting one)")
            else:
                lines.append("  Bearer token: the value of VAULTGATE_HTTP_TOKEN")
            lines.append("  Send 'Authorization: Bearer <token>' with every request. Ctrl-C stops.")
            print("\n".join(lines), file=sys.stderr, flush=True)

        asyncio.run(uvicorn_server(app, announce).serve(sockets=[sock]))
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    return 0


class ServerThread:
    """An ASGI app served on ``sock`` in a background thread, for tests and embedding."""

    def __init__(
        self, app: ASGIApp, sock: socket.socket, limits: ConnectionLimits = ConnectionLimits()
    ) -> None:
        self._sock = sock
        self._started = threading.Event()
        self._server = uvicorn_server(app, self._started.set, limits)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="vaultgate-http", daemon=True)
        host, port = sock.getsockname()[:2]
        self.url = f"http://{_bracketed(str(host))}:{port}"

    def _run(self) -> None:
        try:
            asyncio.run(self._server.serve(sockets=[self._sock]))
        except BaseException as exc:  # reported to the thread that called start()
            self._error = exc
        finally:
            self._started.set()

    def start(self) -> ServerThread:
        self._thread.start()
        if not self._started.wait(_START_TIMEOUT) or not self._server.started:
            self.stop()
            raise RuntimeError("the HTTP server did not start") from self._error
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(_START_TIMEOUT)
        self._sock.close()

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
