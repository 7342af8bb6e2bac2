"""The rows about the plugin itself: a request as the server sends it, the key, the version."""

from __future__ import annotations

from vaultgate.backend import ServerStatus
from vaultgate.config import ObsidianSettings
from vaultgate.doctor.report import Check
from vaultgate.errors import (
    API_KEY_FIX,
    AuthenticationFailed,
    ObsidianError,
    ObsidianTimeout,
    ObsidianUnreachable,
)
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.obsidian.features import FEATURES, MIN_PLUGIN_VERSION, FeatureSet
from vaultgate.obsidian.transport import build_http_client

CERTIFICATE_WARNING_DAYS = 30


async def plugin_checks(settings: ObsidianSettings) -> list[Check]:
    """``GET /`` and an authenticated ``GET /vault/`` through the server's own client."""
    client = ObsidianClient(settings, await build_http_client(settings))
    try:
        try:
            status = await client.status()
        except ObsidianError as exc:
            return [_request_failure(exc)]
        checks = [Check("request", True, f"GET / answered by {status.service}")]
        checks.append(await _key_check(client, settings))
    finally:
        await client.aclose()
    return checks + version_checks(status)


def missing_key() -> Check:
    return Check("API key", False, "OBSIDIAN_API_KEY is not set", API_KEY_FIX)


async def _key_check(client: ObsidianClient, settings: ObsidianSettings) -> Check:
    if settings.api_key is None:
        return missing_key()
    try:
        entries = await client.list_directory("")
    except AuthenticationFailed:
        return Check(
            "API key",
            False,
            "rejected",
            "Copy the key again from Obsidian → Settings → Local REST API; if two vaults are "
            "open, make sure this port is the right vault's.",
        )
    except ObsidianError as exc:
        return Check("API key", False, "the authenticated request GET /vault/ failed", str(exc))
    listed = f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'}"
    return Check("API key", True, f"accepted (GET /vault/ listed {listed})")


def version_checks(status: ServerStatus) -> list[Check]:
    version = status.plugin_version
    running = f"Local REST API {version} on Obsidian {status.obsidian_version}"
    if version < MIN_PLUGIN_VERSION:
        return [
            Check(
                "plugin",
                False,
                f"{running}: older than {MIN_PLUGIN_VERSION}, the oldest vaultgate supports",
                "Update the plugin: Obsidian → Settings → Community plugins → Check for "
                f"updates (Local REST API {MIN_PLUGIN_VERSION} or newer).",
            )
        ]
    checks = [Check("plugin", True, running)]
    features = FeatureSet(version)
    available = [f.name for f in FEATURES if features.has(f.name)]
    missing = [f"{f.name} ({f.requirement()})" for f in FEATURES if not features.has(f.name)]
    checks.append(Check("features", True, ", ".join(available) or "none"))
    if missing:
        checks.append(Check("not in this version", True, ", ".join(missing)))
    days = status.certificate_days_left
    if days is not None and days < CERTIFICATE_WARNING_DAYS:
        checks.append(
            Check(
                "certificate",
                True,
                f"expires in {days:.0f} days",
                "Regenerate it in the plugin's settings soon.",
                warning=True,
            )
        )
    return checks


def _request_failure(exc: ObsidianError) -> Check:
    match exc:
        case ObsidianTimeout():
            return Check(
                "request",
                False,
                "GET / got no answer in time",
                "Bring Obsidian to the front (macOS App Nap can pause it) or raise "
                "OBSIDIAN_TIMEOUT.",
            )
        case ObsidianUnreachable():
            return Check(
                "request",
                False,
                "GET / was dropped without an answer",
                "Check OBSIDIAN_PORT and OBSIDIAN_PROTOCOL (the plugin serves https on 27124, "
                "http on 27123), then restart Obsidian.",
            )
        case _:
            return Check("request", False, "GET / failed", str(exc))
