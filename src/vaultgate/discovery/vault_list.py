"""Obsidian's list of vaults (``obsidian.json``): where it is, and the folders it names.

Obsidian keeps ``{"vaults": {"<id>": {"path": "…", "ts": …, "open": true}}}`` in its
configuration folder. Nothing here raises on what the file holds: a missing, unreadable or
malformed file (of any shape: nesting deep enough to exhaust the parser's recursion, a size
no vault list has, another encoding, a FIFO or a device), and each entry that names no usable
folder, become a reason in words.
"""

from __future__ import annotations

import json
import math
import os
import stat
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

VAULT_LIST = "obsidian.json"
_FLATPAK = (".var", "app", "md.obsidian.Obsidian", "config", "obsidian")
_SNAP = ("snap", "obsidian", "current", ".config", "obsidian")
# Obsidian's list holds ~150 bytes per vault: 1 MiB is thousands of vaults, and reading more
# would let a planted file hold the search (and memory) up.
MAX_VAULT_LIST_BYTES = 1 << 20


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
        data = json.loads(_read_small(source).decode("utf-8-sig"))
    except _TooLarge:
        return VaultList(
            source, problem=f"{source} is over {MAX_VAULT_LIST_BYTES:,} bytes: no vault list"
        )
    except OSError as exc:
        return VaultList(source, problem=f"{source} cannot be read ({exc.strerror or exc})")
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested past the parser
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


class _TooLarge(Exception):
    """The file is larger than any vault list (MAX_VAULT_LIST_BYTES)."""


def _read_small(source: Path) -> bytes:
    """The file's bytes: only a regular file (a FIFO or a device would block or never end),
    and only up to MAX_VAULT_LIST_BYTES."""
    # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer
    descriptor = os.open(source, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(descriptor, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise OSError(0, "not a regular file")
        data = file.read(MAX_VAULT_LIST_BYTES + 1)
    if len(data) > MAX_VAULT_LIST_BYTES:
        raise _TooLarge
    return data


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
        return f"{text!r} cannot be read ({getattr(exc, 'strerror', None) or exc})"
    except ValueError:  # a lone surrogate, which no file system name can encode
        return f"{text!r} is no name the disk can hold"
    return Candidate(folder, open=entry.get("open") is True, ts=_timestamp(entry.get("ts")))


def _timestamp(ts: Any) -> float:
    """``ts`` as a number to sort by; 0 for anything else (text, an integer past a float,
    NaN, which sorts nowhere)."""
    if not isinstance(ts, (int, float)) or isinstance(ts, bool):
        return 0.0
    try:
        number = float(ts)
    except OverflowError:
        return 0.0
    return number if math.isfinite(number) else 0.0
