"""Blocking probes of one host and port: TCP, a TLS handshake, plain HTTP, certificate names.

They run in a worker thread (``anyio.to_thread``), each bounded by the timeout it is given.
The unverified handshakes only ask what the port speaks and which names its certificate
carries; nothing is sent on them, least of all the key.
"""

from __future__ import annotations

import ipaddress
import socket
import ssl

from cryptography import x509

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
    """True when a plain ``GET /`` is answered with an HTTP status line."""
    shown = f"[{host}]" if ":" in host else host
    request = f"GET / HTTP/1.1\r\nHost: {shown}:{port}\r\nConnection: close\r\n\r\n"
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(request.encode("ascii"))
            return _read(sock, len(_PLAIN_HTTP_ANSWER)) == _PLAIN_HTTP_ANSWER
    except OSError:
        return False


def certificate_names(der: bytes) -> list[str]:
    """The subject alternative names of a DER certificate, as 'IP:…' and 'DNS:…'."""
    try:
        certificate = x509.load_der_x509_certificate(der)
        names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (ValueError, x509.ExtensionNotFound):
        return []
    ips = [f"IP:{address}" for address in names.get_values_for_type(x509.IPAddress)]
    return ips + [f"DNS:{name}" for name in names.get_values_for_type(x509.DNSName)]


def names_cover(names: list[str], host: str) -> bool:
    """Whether a certificate with ``names`` is valid for ``host`` (exact names, '*.' wildcards)."""
    try:
        return f"IP:{ipaddress.ip_address(host)}" in names
    except ValueError:
        pass
    host = host.lower().rstrip(".")
    for name in names:
        if not name.startswith("DNS:"):
            continue
        pattern = name[4:].lower().rstrip(".")
        if pattern == host:
            return True
        if pattern.startswith("*.") and host.partition(".")[2] == pattern[2:]:
            return True
    return False


def _read(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data
