"""Which vault paths the tools may read and write: the one place that decides.

VAULTGATE_ALLOW and VAULTGATE_DENY are comma-separated entries, globs on vault-relative paths.
An entry means what it matches *and everything below it*: ``Private``, ``Private/``,
``./Private/**`` and ``Private/**`` all mean the folder Private, its own path included, so
neither its listing nor a delete of the folder path gets through. Entries are normalised once,
at start; one that can never match a reachable path (a hidden part, a ``..``) is a one-line
warning on stderr instead of silently guarding nothing.

A path is reachable when it is not hidden (no segment starts with '.'), no allow list is set
or an allow entry matches it, and no deny entry matches it. VAULTGATE_READ_ONLY refuses every
write. The guarded client (guard.py) asks this policy about every path it sends and every path
it returns, so listings, search results and link lists obey it too.

Names are compared as the disk may treat them, not as typed: case-folded and in Unicode NFC
(``vaultgate.unicode.canonical``), so ``Private``, ``private`` and ``PRIVATE`` are one
folder to every rule, as they are to Obsidian on macOS and Windows.

When the vault folder is known (``vault``), a path is also asked where it really is
(``vaultgate.locations``): a path is reachable only when its real location is inside the
vault (or, with ``VAULTGATE_FOLLOW_LINKS=all``, outside it and not hidden) and the rules hold
for both names. A single path (a read, a write, each end of a move) is resolved on the disk
when it is checked; the many paths of a listing or a search are resolved from the links a
walk of the folder met (``LinkMap``), kept ``LINKS_TTL_SECONDS`` and forgotten after every
write made through vaultgate.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import anyio
import anyio.to_thread

from vaultgate.config import SafetySettings
from vaultgate.engine.walk import scan_folder
from vaultgate.errors import (
    AccessDenied,
    ConfigError,
    HiddenPath,
    InvalidArgument,
    LinkNotFollowed,
    ReadOnlyMode,
)
from vaultgate.locations import (
    OBSIDIAN_LINKS,
    FollowLinks,
    LinkMap,
    Location,
    hidden_outside,
    locate,
    passes,
    real_root,
    served_links,
)
from vaultgate.paths import is_hidden
from vaultgate.unicode import canonical
from vaultgate.vault.listing import LISTING_TTL_SECONDS, compile_glob

LINKS_TTL_SECONDS = LISTING_TTL_SECONDS  # as long as a listing the link map filters is kept

log = logging.getLogger("vaultgate.policy")

_GLOB_CHARS = re.compile(r"[*?\[{]")


@dataclass(frozen=True, slots=True)
class _Entry:
    """One normalised allow/deny entry: matches a path, or a folder above it."""

    text: str
    _itself: Callable[[str], bool]
    _below: Callable[[str], bool]

    def matches(self, path: str) -> bool:
        return self._itself(path) or self._below(path)


def normalise_entry(raw: str) -> str:
    """'./Private/**', 'Private/' and 'Private' → 'Private'; an entry for the root → '**'."""
    entry = raw.strip()
    while entry.startswith("./"):
        entry = entry[2:]
    while True:
        trimmed = entry.rstrip("/").removesuffix("/**")
        if trimmed == entry:
            break
        entry = trimmed
    return entry if entry not in ("", ".") else "**"


def _compile(raw: str, setting: str) -> _Entry:
    text = normalise_entry(raw)
    try:  # matched against canonical paths: the entry is made canonical too
        itself = compile_glob(canonical(text), name=setting)
        below = compile_glob(f"{canonical(text)}/**", name=setting)
    except InvalidArgument as exc:
        raise ConfigError(str(exc)) from exc
    if is_hidden(text) or ".." in text.split("/"):
        log.warning(
            "%s entry %r can never match: vaultgate never reaches hidden paths (a part starting "
            "with '.') and paths are vault-relative without '..'.",
            setting,
            raw,
        )
    return _Entry(text, itself, below)


class AccessPolicy:
    def __init__(
        self,
        safety: SafetySettings,
        *,
        vault: Path | None = None,
        follow: FollowLinks = "inside",
    ) -> None:
        """``vault``: the vault folder, when known: paths are then also checked where they
        really are, links followed as ``follow`` says."""
        self.read_only = safety.read_only
        self.restricts_paths = safety.restricts_paths
        self._allow = [_compile(entry, "VAULTGATE_ALLOW") for entry in safety.allow]
        self._deny = [_compile(entry, "VAULTGATE_DENY") for entry in safety.deny]
        # The literal folder part of each allow entry, to tell which folders can hold allowed
        # files: 'Projects/Acme/*.md' → 'projects/acme/'.
        self._allow_prefixes = [
            canonical(_literal_prefix(entry.text + "/")) for entry in self._allow
        ]
        self._root = real_root(vault) if vault is not None else None
        self._links_rules = served_links(follow)
        self._link_map: LinkMap | None = None
        self._link_map_at = 0.0
        self._link_map_lock = anyio.Lock()

    def serve_folder(self, vault: Path | None) -> None:
        """The vault folder now served (found behind the plugin, or let go of): from now on
        paths are also checked where they really are in it, or, with None, by name alone as
        with the plugin alone. Called before calls reach a found folder, and after they left
        it, so no call is checked against a folder other than the one it reads."""
        self._root = real_root(vault) if vault is not None else None
        self._link_map = None
        self._link_map_at = 0.0

    # --- the rules on a name ------------------------------------------------------------------

    def _name_allows(self, path: str) -> bool:
        if is_hidden(path):
            return False
        if not self.restricts_paths:  # asked of every search hit: no generator for nothing
            return True
        key = canonical(path)
        if self._allow and not any(entry.matches(key) for entry in self._allow):
            return False
        return not any(entry.matches(key) for entry in self._deny)

    def _name_allows_folder(self, base: str) -> bool:
        if is_hidden(base):
            return False
        if not self.restricts_paths:
            return True
        key = canonical(base)
        if any(entry.matches(key) for entry in self._deny):
            return False  # a deny entry that matches a folder covers everything below it
        if not self._allow or any(entry.matches(key) for entry in self._allow):
            return True
        below = key + "/"
        return any(
            prefix.startswith(below) or below.startswith(prefix) for prefix in self._allow_prefixes
        )

    # --- many paths: a listing's, a search's --------------------------------------------------

    def allows(self, path: str) -> bool:
        """May a tool read or write the file (or folder) at ``path``? Both names are asked,
        the real one from the link map (``refresh_links`` first)."""
        path = path.removesuffix("/")
        if not self._name_allows(path):
            return False
        links = self._link_map  # None without the vault folder
        if links is None or not links.may_lead_elsewhere(path):
            return True  # asked of every search hit: no object for a path led nowhere else
        return self._real_allows(links.locate(path), folder=False)

    def refused(self, paths: Iterable[str]) -> set[str]:
        """Those of ``paths`` that ``allows`` refuses. Asked of a search's thousands of hits:
        with no rule on names and no link in the vault, only a hidden name is refused, and
        that is checked here without four calls a path."""
        links = self._link_map
        if not self.restricts_paths and (links is None or not links.links):
            return set(filter(is_hidden, paths))
        return {path for path in paths if not self.allows(path)}

    def allows_folder(self, folder: str) -> bool:
        """Could a reachable file lie below ``folder`` ('' is the root, else 'a/b/')?"""
        base = folder.removesuffix("/")
        if base == "":
            return True
        if not self._name_allows_folder(base):
            return False
        links = self._link_map
        if links is None or not links.may_lead_elsewhere(base):
            return True
        return self._real_allows(links.locate(base), folder=True)

    async def refresh_links(self, walked: LinkMap | None) -> None:
        """Take the links a walk met before a listing or a search is filtered: ``walked``,
        the backend's own (the folder backend walks the folder anyway), else a walk of the
        vault folder now, unless one is recent enough (in a worker thread: about as long as
        a listing of the folder; Obsidian's answers list what links lead to)."""
        root = self._root
        if root is None:
            return
        if walked is not None:
            self._link_map = walked
            return
        if self._links_fresh():
            return
        async with self._link_map_lock:
            if self._links_fresh():
                return
            found = await anyio.to_thread.run_sync(
                lambda: scan_folder(root, rules=OBSIDIAN_LINKS, stat_notes=False)
            )
            self._link_map = LinkMap(root, found.links)
            self._link_map_at = time.monotonic()

    def _links_fresh(self) -> bool:
        return (
            self._link_map is not None and time.monotonic() - self._link_map_at < LINKS_TTL_SECONDS
        )

    def forget_links(self) -> None:
        """Walk for links again before the next listing (after a write)."""
        self._link_map_at = 0.0

    @property
    def has_links(self) -> bool:
        """Did the last walk meet a symbolic link (so some listed path may lead elsewhere)?"""
        return self._link_map is not None and bool(self._link_map.links)

    def _real_allows(self, location: Location, *, folder: bool) -> bool:
        if not location.linked:
            return True
        if not passes(location, self._links_rules):
            return False
        if location.inside is None:
            return True  # outside the vault, not hidden, and VAULTGATE_FOLLOW_LINKS=all
        if folder:
            return location.inside == "" or self._name_allows_folder(location.inside)
        return self._name_allows(location.inside)

    # --- one path, checked on the disk now ----------------------------------------------------

    def check_read(self, path: str, *, shown: str = "") -> None:
        """AccessDenied unless ``path`` may be read; ``shown`` names it when the model did not."""
        self._refuse_hidden(path, shown)
        if not self._name_allows(path.removesuffix("/")):
            raise AccessDenied(path, "read", shown=shown)
        self._check_real(path, "read", shown)

    def check_write(self, path: str, *, shown: str = "") -> None:
        if self.read_only:
            raise ReadOnlyMode(shown or path)
        self._refuse_hidden(path, shown)
        if not self._name_allows(path.removesuffix("/")):
            raise AccessDenied(path, "write", shown=shown)
        self._check_real(path, "write", shown)

    def check_folder(self, folder: str) -> bool:
        """Whether the folder a model named ('a/b/') may be listed: both its names."""
        base = folder.removesuffix("/")
        if not self.allows_folder(folder):
            return False
        if self._root is None or base == "":
            return True
        return self._real_allows(locate(self._root, base), folder=True)

    def _check_real(self, path: str, action: str, shown: str) -> None:
        if self._root is None:
            return
        location = locate(self._root, path.removesuffix("/"))
        if not location.linked:
            return
        if location.loop:
            raise LinkNotFollowed(shown or path, "loop")
        if not passes(location, self._links_rules):
            outside = location.outside
            hidden = outside is None or hidden_outside(outside)
            raise LinkNotFollowed(shown or path, "hidden" if hidden else "outside")
        if location.inside is not None and not self._name_allows(location.inside):
            raise AccessDenied(path, action, shown=shown)

    @staticmethod
    def _refuse_hidden(path: str, shown: str) -> None:
        # Hidden paths are refused for what they are, with or without a policy.
        if is_hidden(path.removesuffix("/")):
            raise HiddenPath(path, shown=shown)


def _literal_prefix(pattern: str) -> str:
    """'Projects/Acme/**' → 'Projects/Acme/'; '**/x.md' → ''."""
    found = _GLOB_CHARS.search(pattern)
    literal = pattern if found is None else pattern[: found.start()]
    return literal[: literal.rfind("/") + 1]
