"""`vaultgate doctor`: check the configured Obsidian step by step and say how to fix failures."""

from __future__ import annotations

import sys
from dataclasses import dataclass

import anyio

from vaultgate.config import ObsidianSettings, Settings
from vaultgate.errors import (
    AuthenticationFailed,
    ObsidianError,
    ObsidianTimeout,
    ObsidianTLSError,
    ObsidianUnreachable,
)
from vaultgate.obsidian.client import ObsidianClient, ServerStatus
from vaultgate.obsidian.features import FEATURES, FeatureSet
from vaultgate.obsidian.transport import build_http_client


def say(text: str) -> None:
    """The doctor is a command of its own (never the server), so stdout is its report."""
    sys.stdout.write(text + "\n")


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""


def tls_mode(settings: ObsidianSettings) -> str:
    if settings.protocol == "http":
        return "none (plain http)"
    if not settings.verify_ssl:
        return "verification OFF for vaultgate's client (OBSIDIAN_VERIFY_SSL=false)"
    if settings.cert is not None:
        return f"verified against OBSIDIAN_CERT ({settings.cert})"
    if settings.is_loopback:
        return "verified against the plugin's certificate, fetched and pinned (loopback)"
    return "verified against the system trust store"


async def run_checks(settings: Settings) -> list[Check]:
    """Each check in order; the first failure stops the ones that depend on it."""
    obsidian = settings.obsidian
    checks = [Check("endpoint", True, obsidian.base_url), Check("TLS", True, tls_mode(obsidian))]
    if obsidian.api_key is None:
        checks.append(
            Check(
                "API key",
                False,
                "OBSIDIAN_API_KEY is not set",
                "Copy the key from Obsidian → Settings → Local REST API into OBSIDIAN_API_KEY.",
            )
        )
    http = await build_http_client(obsidian)
    client = ObsidianClient(obsidian, http)
    try:
        status = await client.status()
    except ObsidianError as exc:
        checks.append(_connection_failure(exc, obsidian))
        return checks
    finally:
        await client.aclose()
    checks.append(Check("reachable", True, f"{status.service} answered"))
    checks.extend(_status_checks(status, obsidian))
    return checks


def _connection_failure(exc: ObsidianError, settings: ObsidianSettings) -> Check:
    match exc:
        case ObsidianTLSError():
            return Check(
                "reachable",
                False,
                f"TLS failed: {exc.detail}",
                "Set OBSIDIAN_CERT to the plugin's certificate (download it from "
                f"{settings.base_url}/obsidian-local-rest-api.crt), or use the http port "
                "(OBSIDIAN_PROTOCOL=http, OBSIDIAN_PORT=27123) after enabling it in the plugin.",
            )
        case ObsidianTimeout():
            return Check(
                "reachable",
                False,
                "no answer in time",
                "Bring Obsidian to the front (macOS App Nap can pause it) or raise "
                "OBSIDIAN_TIMEOUT.",
            )
        case ObsidianUnreachable():
            other = "http" if settings.protocol == "https" else "https"
            return Check(
                "reachable",
                False,
                "connection refused",
                "Open Obsidian and enable the Local REST API plugin. Check the port "
                f"(https 27124, http 27123) and protocol (maybe OBSIDIAN_PROTOCOL={other}).",
            )
        case AuthenticationFailed():
            return Check("API key", False, "rejected", str(exc))
        case _:
            return Check("reachable", False, str(exc), "Run with -v for details.")


def _status_checks(status: ServerStatus, settings: ObsidianSettings) -> list[Check]:
    checks: list[Check] = []
    if settings.api_key is not None:
        checks.append(
            Check(
                "API key",
                status.authenticated,
                "accepted" if status.authenticated else "rejected",
                ""
                if status.authenticated
                else "Copy the key again from Obsidian → Settings → Local REST API; if two "
                "vaults are open, make sure this port is the right vault's.",
            )
        )
    checks.append(
        Check(
            "plugin",
            True,
            f"Local REST API {status.plugin_version} on Obsidian {status.obsidian_version}",
        )
    )
    features = FeatureSet(status.plugin_version)
    available = [f.name for f in FEATURES if features.has(f.name)]
    missing = [f"{f.name} ({f.requirement()})" for f in FEATURES if not features.has(f.name)]
    checks.append(Check("features", True, ", ".join(available) or "none"))
    if missing:
        checks.append(Check("not in this version", True, ", ".join(missing)))
    if status.certificate_days_left is not None and status.certificate_days_left < 30:
        checks.append(
            Check(
                "certificate",
                True,
                f"expires in {status.certificate_days_left:.0f} days",
                "Regenerate it in the plugin's settings soon.",
            )
        )
    return checks


def render(checks: list[Check]) -> str:
    width = max(len(check.name) for check in checks)
    lines = []
    for check in checks:
        mark = "ok  " if check.ok else "FAIL"
        lines.append(f"{mark}  {check.name.ljust(width)}  {check.detail}")
        if check.fix:
            lines.append(f"{'':4}  {'':{width}}  → {check.fix}")
    return "\n".join(lines)


def run_doctor(settings: Settings) -> int:
    checks = anyio.run(run_checks, settings)
    say(render(checks))
    failed = [check for check in checks if not check.ok]
    if failed:
        print(f"\n{len(failed)} check(s) failed.", file=sys.stderr)
        return 1
    return 0
