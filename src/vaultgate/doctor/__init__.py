"""`vaultgate doctor`: each row a real test of what the server will do, each failure its fix.

Rows, in order (a failed step skips the steps that need it):

    settings   a value repaired at start (a key with spaces or quotes), an unknown variable
    TCP        the host and port accept a connection (under WSL: the Windows side's address)
    TLS        a handshake with the server's own trust and hostname checks (https), or
    HTTP       plain HTTP answers (http); each tells http/https port mix-ups apart
    request    GET / through the server's own client
    API key    an authenticated GET /vault/
    plugin     its version (failing below the oldest supported) and feature table
    found      without VAULTGATE_VAULT: the vault folder found in Obsidian's vault list and
               how it was verified against the plugin, or why none is used (``doctor/found.py``)
    memory     the memory database opens, takes a write, and has a known schema

With a vault folder (VAULTGATE_VAULT), a ``backend`` row says which backend answers what and a
``vault`` row checks the folder without writing into it (``doctor/vault.py``). ``folder`` never
asks Obsidian, so its rows are left out; under ``auto`` a failing Obsidian row is a warning,
since only what needs Obsidian stops working.
"""

from __future__ import annotations

import sys

import anyio

from vaultgate import __version__
from vaultgate.config import Settings
from vaultgate.doctor.connection import http_check, tcp_check, tls_check
from vaultgate.doctor.found import found_check
from vaultgate.doctor.memory import memory_check
from vaultgate.doctor.plugin import missing_key, plugin_checks
from vaultgate.doctor.report import Check, render, say, warn
from vaultgate.doctor.vault import backend_check, vault_check
from vaultgate.doctor.wsl import read_proc_version

__all__ = ["Check", "render", "run_checks", "run_doctor"]


async def run_checks(settings: Settings, *, proc_version: str | None = None) -> list[Check]:
    """Every row in order; ``proc_version`` stands in for /proc/version (tests)."""
    obsidian = settings.obsidian
    vault = settings.vault
    checks = [backend_check(vault, obsidian.base_url)]
    checks += [warn("settings", notice) for notice in settings.notices]
    if vault.served_folder is not None:
        folder, read_only = vault.served_folder, settings.safety.read_only
        checks.append(
            await anyio.to_thread.run_sync(lambda: vault_check(folder, read_only=read_only))
        )
    if vault.backend != "folder":
        plugin = [Check("endpoint", True, obsidian.base_url)]
        plugin += await _obsidian_checks(settings, proc_version)
        if vault.backend == "auto":  # Obsidian down stops only what needs it
            plugin = [_as_warning(check) for check in plugin]
        checks += plugin
        if vault.folder is None and all(check.ok for check in plugin):
            checks.append(await found_check(settings))
    checks.append(await anyio.to_thread.run_sync(memory_check, settings.memory.db))
    return checks


async def _obsidian_checks(settings: Settings, proc_version: str | None) -> list[Check]:
    obsidian = settings.obsidian
    tcp = await tcp_check(obsidian, read_proc_version() if proc_version is None else proc_version)
    if not tcp.ok:
        return [tcp] + ([missing_key()] if obsidian.api_key is None else [])
    channel = await (tls_check(obsidian) if obsidian.protocol == "https" else http_check(obsidian))
    if not channel.ok:
        return [tcp, channel] + ([missing_key()] if obsidian.api_key is None else [])
    return [tcp, channel, *await plugin_checks(obsidian)]


def _as_warning(check: Check) -> Check:
    if check.ok:
        return check
    return warn(check.name, f"{check.detail} (needed only for what needs Obsidian)", check.fix)


def run_doctor(settings: Settings) -> int:
    """Print vaultgate's version and every row; 1 when any row failed, else 0."""
    say(f"vaultgate {__version__}")
    checks = anyio.run(run_checks, settings)
    say(render(checks))
    failed = [check for check in checks if not check.ok]
    if failed:
        print(f"\n{len(failed)} check(s) failed.", file=sys.stderr)
        return 1
    return 0
