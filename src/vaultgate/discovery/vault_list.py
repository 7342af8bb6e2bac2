"""Obsidian's list of vaults (``obsidian.json``): where it is, and the folders it names.

Obsidian keeps ``{"vaults": {"<id>": {"path": "…", "ts": …, "open": true}}}`` in its
configuration folder. Nothing here raises on what the file holds: a missing, unreadable or
malformed file, and each entry that names no usable folder, become a reason in words.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

VAULT_LIST = "obsidian.json"
_FLATPAK = (".var", "app", "md.obsidian.Obsidian", "config", "obsidian")
_SNAP = ("snap", "obsidian", "current", ".config", "obsidian")


@dataclass(frozen=True, slots=True)
class Candidate:
    """A folder the vault list names: the one Obsidian has open first, then the latest used."""

    folder: Path  # resolved: a symbolic link to the vault is followed
    open: bool
    ts: float


@dataclass(frozen=True, slots=True)
class VaultList:
    """What the vault list offers: its candidates, or why it offers none."""

    source: Path | None  # the file read; None when none was found
    candidates: tuple[Candidate, ...] = ()
    skipped: tuple[str, ...] = ()  # one reason per entry that names no usable folder
    problem: str | None = None  # why the list as a whole is unusable


def vault_list_places(
    env: Mapping[str, str], *, platform: str | None = None, home: Path | None = None
) -> list[Path]:
    """Where Obsidian keeps its vault list on this system, most likely first."""
    platform = platform or sys.platform
    home = home or Path.home()
    if platform == "darwin":
        return [home / "Library" / "Application Support" / "obsidian" / VAULT_LIST]
    if platform == "win32":
        appdata = env.get("APPDATA")
        roaming = Path(appdata) if appdata else home / "AppData" / "Roaming"
        return [roaming / "obsidian" / VAULT_LIST]
    # Linux and the rest: as Obsidian (Electron) itself, XDG_CONFIG_HOME when set
    xdg = env.get("XDG_CONFIG_HOME")
    config = Path(xdg) if xdg and Path(xdg).is_absolute() else home / ".config"
    return [
        config / "obsidian" / VAULT_LIST,
        home.joinpath(*_FLATPAK) / VAULT_LIST,
        home.joinpath(*_SNAP) / VAULT_LIST,
    ]


def read_vault_list(override: Path | None, env: Mapping[str, str]) -> VaultList:
    """The vault list at ``override`` (VAULTGATE_OBSIDIAN_CONFIG), else at the first of
    Obsidian's places that holds one."""
    if override is not None:
        places = [override]
    else:
        try:
            places = vault_list_places(env)
        except RuntimeError:  # Path.home(): no home folder to look in
            return VaultList(None, problem="this user has no home folder to find Obsidian's in")
    source = next((place for place in places if _exists(place)), None)
    if source is None:
        where = " or ".join(str(place) for place in places)
        return VaultList(None, problem=f"no vault list of Obsidian's at {where}")
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except OSError as exc:
        return VaultList(source, problem=f"{source} cannot be read ({exc.strerror or exc})")
    except ValueError:  # not JSON, or not UTF-8
        return VaultList(source, problem=f"{source} is not JSON")
    vaults = data.get("vaults") if isinstance(data, dict) else None
    if not isinstance(vaults, dict):
        return VaultList(source, problem=f'{source} holds no "vaults" object')
    candidates: dict[Path, Candidate] = {}
    skipped: list[str] = []
    for key, entry in vaults.items():
        found = _candidate(entry)
        if isinstance(found, str):
            skipped.append(f"vault {key}: {found}")
        elif found.folder not in candidates or found.open:
            candidates[found.folder] = found  # one folder named twice is one candidate
    ordered = sorted(candidates.values(), key=lambda c: (not c.open, -c.ts))
    return VaultList(source, tuple(ordered), tuple(skipped))


def _exists(place: Path) -> bool:
    try:
        return place.exists()
    except OSError:  # a path too long, or a folder above it we may not enter
        return False


def _candidate(entry: Any) -> Candidate | str:
    """The candidate one entry names, or why it names none."""
    if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
        return 'no "path" text'
    text = entry["path"]
    if "\0" in text or not text or not Path(text).is_absolute():
        return f"{text!r} is not an absolute path"
    try:
        folder = Path(text).resolve()
        if not folder.exists():
            return f"{text} does not exist"
        if not folder.is_dir():
            return f"{text} is a file, not a folder"
        with os.scandir(folder) as entries:  # a folder we cannot list is no vault to serve
            next(entries, None)
    except (OSError, RuntimeError) as exc:  # RuntimeError: a loop of symbolic links
        return f"{text} cannot be read ({getattr(exc, 'strerror', None) or exc})"
    ts = entry.get("ts")
    return Candidate(
        folder,
        open=entry.get("open") is True,
        ts=float(ts) if isinstance(ts, (int, float)) and not isinstance(ts, bool) else 0.0,
    )
