"""Everything a request handler needs, built once per app and kept in ``app.state``."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from starlette.requests import Request

from vaultgate.emulator.workspace import EmulatorState
from vaultgate.engine.behaviour import Behaviour


@dataclass(frozen=True)
class EmulatorConfig:
    """How to emulate: which vault, which key, which plugin version, which extras."""

    vault: Path
    api_key: str
    plugin_version: str = "5.1.0"
    obsidian_version: str = "1.13.1"
    active_file: str | None = None  # vault-relative path of the "open" note
    extensions: bool = False  # the MCP Tools companion plugin's routes
    certificate_pem: str | None = None  # served at /obsidian-local-rest-api.crt
    today: Callable[[], dt.date] = dt.date.today  # "now" for /periodic/ (inject in tests)
    # (id, name) of commands beyond the core handful: the community plugins a vault enables
    extra_commands: tuple[tuple[str, str], ...] = ()
    # how long note JSON of a file that is not markdown waits (the plugin's waitForFileCache)
    metadata_cache_timeout: float = 5.0


@dataclass(frozen=True)
class EmulatorContext:
    config: EmulatorConfig
    state: EmulatorState
    behaviour: Behaviour


def context_of(request: Request) -> EmulatorContext:
    context = request.app.state.emulator
    assert isinstance(context, EmulatorContext)
    return context
