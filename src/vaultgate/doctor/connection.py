"""The rows about the way to Obsidian: TCP, then TLS (https) or plain HTTP (http).

The TLS row shakes hands with the trust the server itself will use (``resolve_verify``, the
same code the client is built from), hostname checks on, so a pass means the server's own
handshake passes. A failure is told apart by what the port really speaks and which names its
certificate carries, never by an error's text. An http/https mix-up is found by
``obsidian.probes.wrong_protocol``, the test the server's client runs when a connection breaks,
so both name it in the same words.
"""

from __future__ import annotations

import socket
import ssl
from functools import partial

import anyio

from vaultgate.config import CERTIFICATE_PATH, DEFAULT_HOST, ObsidianSettings
from vaultgate.doctor.certificates import certificate_names, names_cover
from vaultgate.doctor.report import Check, warn
from vaultgate.doctor.wsl import wsl_hint
from vaultgate.errors import ConfigError
from vaultgate.obsidian.probes import (
    connect,
    handshake,
    peer_certificate,
    speaks_plain_http,
    unverified_context,
    wrong_protocol,
)
from vaultgate.obsidian.transport import resolve_verify, tls_trust

HTTPS_PORT = 27124
HTTP_PORT = 27123
# OpenSSL's verify codes for a certificate that does not name the host (name or IP address).
_NAME_MISMATCH = {62, 64}
_SAN_SETTING = (
    "the plugin's subject alternative names (Obsidian → Settings → Local REST API → "
    "Advanced settings; the plugin then makes a new certificate)"
)


async def tcp_check(settings: ObsidianSettings, proc_version: str) -> Check:
    where = f"{settings.host}:{settings.port}"
    try:
        await anyio.to_thread.run_sync(connect, settings.host, settings.port, settings.timeout)
    except TimeoutError:
        return Check(
            "TCP",
            False,
            f"{where} did not answer within {settings.timeout:g} s",
            "Check OBSIDIAN_HOST (a firewall may drop the connection) or raise OBSIDIAN_TIMEOUT.",
        )
    except socket.gaierror:
        return Check(
            "TCP", False, f"{settings.host} cannot be resolved", "Check OBSIDIAN_HOST's spelling."
        )
    except OSError as exc:
        refused = isinstance(exc, ConnectionRefusedError)
        fix = (
            "Open Obsidian and enable the Local REST API plugin. Check the port "
            f"(https {HTTPS_PORT}, http {HTTP_PORT}) and OBSIDIAN_PROTOCOL."
        )
        hint = wsl_hint(proc_version, settings)
        return Check(
            "TCP",
            False,
            f"{where}: {'connection refused' if refused else exc.strerror or type(exc).__name__}",
            f"{hint} {fix}" if hint else fix,
        )
    return Check("TCP", True, f"{where} accepts connections")


async def tls_check(settings: ObsidianSettings) -> Check:
    """A handshake with the server's own trust and hostname checks.

    A port that never answers is waited on once: where the certificate is fetched first
    (loopback, no OBSIDIAN_CERT), an unverified handshake asks first whether TLS answers at
    all, since the fetch and the handshake would each wait the whole timeout.
    """
    trust = tls_trust(settings)
    if trust == "fetched":
        probe = partial(
            handshake, settings.host, settings.port, unverified_context(), settings.timeout
        )
        try:
            await anyio.to_thread.run_sync(probe)
        except TimeoutError:
            return _no_answer("TLS", settings)
        except (ssl.SSLError, OSError) as exc:  # the handshake broke: maybe the port is not TLS
            return await _not_tls(settings, exc)
    try:
        verify = await resolve_verify(settings)
    except ConfigError as exc:
        return Check("TLS", False, "OBSIDIAN_CERT cannot be used", str(exc))
    context = verify if isinstance(verify, ssl.SSLContext) else unverified_context()
    probe = partial(handshake, settings.host, settings.port, context, settings.timeout)
    try:
        der = await anyio.to_thread.run_sync(probe)
    except ssl.SSLCertVerificationError as exc:
        if exc.verify_code in _NAME_MISMATCH:
            return await _name_mismatch(settings)
        return _untrusted(settings, exc.verify_message or "certificate verify failed")
    except TimeoutError:
        return _no_answer("TLS", settings)
    except (ssl.SSLError, OSError) as exc:  # the handshake broke: maybe the port is not TLS
        return await _not_tls(settings, exc)
    names = ", ".join(certificate_names(der)) or "nothing"
    if verify is False:
        return warn(
            "TLS",
            "verification OFF for vaultgate's client (OBSIDIAN_VERIFY_SSL=false); the "
            f"certificate names {names}",
            "On 127.0.0.1 vaultgate pins the plugin's own certificate by itself: remove "
            "OBSIDIAN_VERIFY_SSL.",
        )
    match trust:
        case "fetched":
            how = f"pinned to the plugin's certificate (fetched from {CERTIFICATE_PATH})"
        case "file":
            how = f"checked against OBSIDIAN_CERT ({settings.cert})"
        case "system":
            how = "checked against the system trust store"
    return Check("TLS", True, f"handshake verified, {how}; it names {names}")


async def http_check(settings: ObsidianSettings) -> Check:
    """Plain http: is it plain HTTP that answers (and not the plugin's https port)?"""
    port = settings.port
    try:
        answered = await anyio.to_thread.run_sync(
            speaks_plain_http, settings.host, port, settings.timeout
        )
    except TimeoutError:  # waited once: asking whether it speaks https would wait again
        return _no_answer("HTTP", settings)
    if answered:
        return Check("HTTP", True, "plain http answered (no TLS: the key travels unencrypted)")
    mixed_up = await wrong_protocol(settings)
    if mixed_up is not None:
        return Check("HTTP", False, mixed_up.detail, mixed_up.fix)
    return Check(
        "HTTP",
        False,
        f"port {port} accepts connections but gives no HTTP answer",
        f"Check OBSIDIAN_PORT: the plugin serves https on {HTTPS_PORT} and http on {HTTP_PORT}.",
    )


def _no_answer(row: str, settings: ObsidianSettings) -> Check:
    what = "TLS answer" if row == "TLS" else "HTTP answer"
    return Check(
        row,
        False,
        f"no {what} within {settings.timeout:g} s",
        "Bring Obsidian to the front (macOS App Nap can pause it) or raise OBSIDIAN_TIMEOUT.",
    )


async def _name_mismatch(settings: ObsidianSettings) -> Check:
    host = settings.host
    der = await anyio.to_thread.run_sync(peer_certificate, host, settings.port, settings.timeout)
    names = certificate_names(der or b"")
    shown = ", ".join(names) or "no names"
    if host == "localhost" and names_cover(names, DEFAULT_HOST):
        fix = (
            f"Use {DEFAULT_HOST}, or add localhost to {_SAN_SETTING}. {DEFAULT_HOST} is "
            "OBSIDIAN_HOST's default: unset OBSIDIAN_HOST or set it to that."
        )
    else:
        listed = [name.partition(":")[2] for name in names]
        fix = (
            f"Set OBSIDIAN_HOST to a name the certificate lists ({', '.join(listed) or 'none'}), "
            f"or add {host} to {_SAN_SETTING}."
        )
    return Check("TLS", False, f"the certificate names {shown}, not {host!r}", fix)


def _untrusted(settings: ObsidianSettings, reason: str) -> Check:
    certificate = settings.certificate_url
    match tls_trust(settings):
        case "file":
            fix = (
                f"OBSIDIAN_CERT ({settings.cert}) is not the certificate this port serves: "
                f"download it again from {certificate} (the plugin makes a new one when asked), "
                "or unset OBSIDIAN_CERT: on 127.0.0.1 vaultgate fetches it itself."
            )
        case "fetched":
            fix = (
                f"The certificate served at {certificate} does not verify this port's TLS, so "
                "something other than the plugin may answer here: check OBSIDIAN_PORT "
                f"({HTTPS_PORT} is the plugin's https port)."
            )
        case "system":
            fix = (
                "The system does not trust the plugin's self-signed certificate: point "
                f"OBSIDIAN_CERT at it (download it from {certificate}), or use the plugin's "
                "http port with OBSIDIAN_PROTOCOL=http."
            )
    return Check("TLS", False, f"certificate not trusted ({reason})", fix)


async def _not_tls(settings: ObsidianSettings, exc: BaseException) -> Check:
    mixed_up = await wrong_protocol(settings)
    if mixed_up is not None:
        return Check("TLS", False, mixed_up.detail, mixed_up.fix)
    reason = exc.reason if isinstance(exc, ssl.SSLError) and exc.reason else type(exc).__name__
    return Check(
        "TLS",
        False,
        f"the TLS handshake failed ({reason})",
        f"Check that OBSIDIAN_PORT is the plugin's https port ({HTTPS_PORT}) and that nothing "
        "else answers there.",
    )
