"""What the emulator and the Streamable HTTP server share about serving with uvicorn."""

from __future__ import annotations

import socket
from collections.abc import Callable

import uvicorn


def listen_tcp(host: str, port: int) -> socket.socket:
    """A listening socket, bound before uvicorn starts so that port 0 is known at once.

    proto must be IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY on accepted connections only
    then, and without it Nagle plus delayed ACKs add ~40 ms to every keep-alive response.
    """
    bare = host.strip("[]")
    family = socket.AF_INET6 if ":" in bare else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((bare, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


class NotifyingServer(uvicorn.Server):
    """A uvicorn server that calls back once it accepts connections."""

    def __init__(self, config: uvicorn.Config, on_started: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_started = on_started

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started:
            self._on_started()
