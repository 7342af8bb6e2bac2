"""Blocking probes of one host and port: TCP, a TLS handshake, plain HTTP; and the one test of
which protocol a port speaks when it is not the configured one.

They run in a worker thread (``anyio.to_thread``), each bounded by the timeout it is given.
The unverified handshakes only ask what the port speaks and which certificate it presents;
nothing is sent on them, least of all the key. ``vaultgate doctor`` and the client share
``wrong_protocol``, so the server names an http/https mix-up exactly as doctor does.
"""

from __future__ import annotations

import socket
import ssl

import anyio

from vaultgate.config import ObsidianSettings
from vaultgate.errors import WrongProtocol

_PLAIN_HTTP_ANSWER = b"HTTP/"


def connect(host: str, port: int, timeout: float) -> None:
    """Open and close a TCP connection; OSError (refused, unreachable, DNS) or TimeoutError."""
    with socket.create_connection((host, port), timeout=timeout):
        pass


def handshake(host: str, port: int, context: ssl.SSLContext, timeout: float) -> bytes:
    """Shake hands with ``context`` (checks as it says); the peer certificate's DER."""
    with (
        socket.create_connection((host, port), timeout=timeout) as sock,
        context.wrap_socket(sock, server_hostname=host) as tls,
    ):
        return tls.getpeercert(binary_form=True) or b""


def unverified_context() -> ssl.SSLContext:
    """For asking what a port speaks: no certificate or name checks, nothing sent after it."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def peer_certificate(host: str, port: int, timeout: float) -> bytes | None:
    """The certificate the port presents (DER), or None when it does not speak TLS."""
    try:
        return handshake(host, port, unverified_context(), timeout)
    except (OSError, ssl.SSLError):
        return None


def speaks_plain_http(host: str, port: int, timeout: float) -> bool:
    """True when a plain ``GET /`` is answered with an HTTP status line; TimeoutError when
    nothing came back in time (so a caller need not wait on the port again)."""
    shown = f"[{host}]" if ":" in host else host
    request = f"GET / HTTP/1.1\r\nHost: {shown}:{port}\r\nConnection: close\r\n\r\n"
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(request.encode("ascii"))
            return _read(sock, len(_PLAIN_HTTP_ANSWER)) == _PLAIN_HTTP_ANSWER
    except TimeoutError:
        raise
    except OSError:
        return False


async def wrong_protocol(settings: ObsidianSettings) -> WrongProtocol | None:
    """The mix-up, when the port speaks the other protocol than OBSIDIAN_PROTOCOL says: https
    (it presents a certificate) for ``http``, plain http (it answers ``GET /``) for ``https``.

    Asked only after a connection failed, so it costs nothing while all is well.
    """
    host, port, timeout = settings.host, settings.port, settings.timeout
    if settings.protocol == "http":
        spoken = await anyio.to_thread.run_sync(peer_certificate, host, port, timeout)
        return None if spoken is None else WrongProtocol(settings.base_url, port, "https")
    try:
        if await anyio.to_thread.run_sync(speaks_plain_http, host, port, timeout):
            return WrongProtocol(settings.base_url, port, "http")
    except TimeoutError:
        pass
    return None


def _read(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data
