"""An emulator of the Obsidian Local REST API plugin, served from a folder of notes.

The HTTP face of ``vaultgate.engine``: the engine knows the vault (index, notes, searches,
PATCH); this package parses the plugin's requests and answers as the plugin does.
``create_app`` builds the ASGI app (``app.py``); ``start_emulator`` runs it on real sockets
in a background thread (``runner.py``); ``make_self_signed_certificate`` makes the kind of
certificate the plugin serves (``tls.py``). The emulated plugin version (3.x to 5.1.0)
decides listing rules, representations, search order, write and PATCH formats, and error
codes (``vaultgate.engine.behaviour``).

Reads live in ``routes_vault.py`` and ``routes_search.py``; whole-file writes (PUT, POST,
DELETE, MOVE, COPY) in ``routes_write.py``; PATCH and targeted PUT/POST in
``routes_patch.py`` (1.x engine: ``vaultgate.patching``; 5.x JSON instructions: the
engine's ``instruction.py`` and ``patch_v2.py``); ``/periodic/`` in ``periodic.py``;
commands and ``/open/`` in ``routes_system.py``; the companion plugin in ``smart.py`` and
``templates.py``. Every change to the vault folder goes through the engine's
``vaultfs.py``; engine errors become the plugin's answers in ``apierrors.py``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vaultgate.emulator.app import EmulatorConfig, create_app, emulator_state
    from vaultgate.emulator.runner import RunningEmulator, start_emulator
    from vaultgate.emulator.tls import make_self_signed_certificate
    from vaultgate.emulator.workspace import EmulatorState

# Imported on first use, so that ``vaultgate.emulator.apierrors`` (the plugin's error answers,
# which the folder backend speaks too) loads without Starlette and the HTTP face.
_EXPORTS = {
    "EmulatorConfig": "vaultgate.emulator.app",
    "create_app": "vaultgate.emulator.app",
    "emulator_state": "vaultgate.emulator.app",
    "RunningEmulator": "vaultgate.emulator.runner",
    "start_emulator": "vaultgate.emulator.runner",
    "make_self_signed_certificate": "vaultgate.emulator.tls",
    "EmulatorState": "vaultgate.emulator.workspace",
}

__all__ = [
    "EmulatorConfig",
    "EmulatorState",
    "RunningEmulator",
    "create_app",
    "emulator_state",
    "make_self_signed_certificate",
    "start_emulator",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
