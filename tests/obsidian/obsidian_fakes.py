"""Stand-ins for the plugin in client tests: its answers, its certificate, its TLS server."""

from __future__ import annotations

import datetime as dt
import ipaddress
import json
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import respx
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from vaultgate.config import CERTIFICATE_PATH, ObsidianSettings, Secret

API_KEY = "5f2b" * 16  # 64 lowercase hex characters, like the plugin's keys
HTTP_BASE = "http://127.0.0.1:27123"


def root_answer(version: str = "5.1.0", *, authenticated: bool = True) -> dict[str, Any]:
    """``GET /`` as the plugin sends it; the last two keys only when the key was accepted."""
    answer: dict[str, Any] = {
        "status": "OK",
        "service": "Obsidian Local REST API",
        "authenticated": authenticated,
        "versions": {"obsidian": "1.9.10", "self": version},
        "manifest": {"id": "obsidian-local-rest-api", "version": version},
    }
    if authenticated:
        answer["certificateInfo"] = {"validityDays": 200.5, "regenerateRecommended": False}
        answer["apiExtensions"] = []
    return answer


def serve_version(router: respx.Router, version: str) -> respx.Route:
    return router.get("/").respond(200, json=root_answer(version))


# --- certificates like the plugin's ---------------------------------------------------------


@dataclass(frozen=True)
class PluginCert:
    cert_pem: str
    key_pem: str
    serial: int

    def write(self, folder: Path) -> tuple[Path, Path]:
        cert, key = folder / f"{self.serial}.crt", folder / f"{self.serial}.key"
        cert.write_text(self.cert_pem, encoding="utf-8")
        key.write_text(self.key_pem, encoding="utf-8")
        return cert, key


def make_plugin_cert() -> PluginCert:
    """Self-signed, CA-flagged, served as the leaf, SAN ``IP:127.0.0.1`` only, as the plugin's.

    An EC key instead of the plugin's RSA 2048 keeps the tests fast; nothing here depends on it.
    """
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Obsidian Local REST API")])
    now = dt.datetime.now(dt.UTC)
    serial = x509.random_serial_number()
    usage = x509.KeyUsage(
        digital_signature=True,
        content_commitment=True,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=True,
        crl_sign=False,
        encipher_only=False,
        decipher_only=False,
    )
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(serial)
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=365))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(usage, critical=False)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    return PluginCert(
        cert_pem=cert.public_bytes(serialization.Encoding.PEM).decode("ascii"),
        key_pem=key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode("ascii"),
        serial=serial,
    )


# --- a TLS server that answers like the plugin ----------------------------------------------


@dataclass(frozen=True)
class PluginServer:
    port: int
    cert: PluginCert

    def settings(self, **changes: Any) -> ObsidianSettings:
        values: dict[str, Any] = {
            "api_key": Secret(API_KEY),
            "host": "127.0.0.1",
            "port": self.port,
            "protocol": "https",
            "timeout": 5.0,
        }
        values.update(changes)
        return ObsidianSettings(**values)


class _PluginHandler(BaseHTTPRequestHandler):
    serve_certificate = True
    cert_pem = ""

    def do_GET(self) -> None:
        if self.path == "/":
            self._answer(200, "application/json", json.dumps(root_answer()).encode())
        elif self.path == CERTIFICATE_PATH and self.serve_certificate:
            self._answer(200, "application/octet-stream", self.cert_pem.encode("ascii"))
        else:
            body = {"message": "Not Found", "errorCode": 40400}
            self._answer(404, "application/json", json.dumps(body).encode())

    def _answer(self, status: int, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass


@contextmanager
def plugin_server(
    cert: PluginCert, folder: Path, *, serve_certificate: bool, tls: bool = True
) -> Iterator[PluginServer]:
    """An https server on 127.0.0.1 (any free port) with ``cert``, in a background thread;
    with ``tls=False``, the plugin's plain http port instead."""
    handler = type(
        "Handler",
        (_PluginHandler,),
        {"serve_certificate": serve_certificate, "cert_pem": cert.cert_pem},
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    if tls:
        cert_file, key_file = cert.write(folder)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert_file, key_file)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    # a short poll interval only makes shutdown() return sooner
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield PluginServer(port=server.server_address[1], cert=cert)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
