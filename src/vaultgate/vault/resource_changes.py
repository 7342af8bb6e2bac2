"""Which vault resources changed since clients last saw them, without MCP.

Two things are watched, and only while a client cares:

- **subscribed files**: each one's fingerprint (a hash of its bytes, or None while it cannot be
  read: missing, denied, ``mcp-hidden``) is taken when the first client subscribes, and
  compared at each ``check``; a change is reported once per URI spelling clients used (a
  client hears of the URI it subscribed to, as it wrote it). A subscription is held by an
  opaque holder (a connection, a listen stream) and goes when its last holder does; holders
  are weakly kept, so a client gone without unsubscribing stops the watch too.
- **the list of notes**, once a client has listed the resources: the set of note paths from
  a fresh listing, compared with the set last seen. Notes added or removed are a list change;
  an edit is not (it changes the order, which a client sees when it lists again).

A check costs one read per subscribed file and, when a client listed, one fresh recursive
listing (``VaultLister``): on a vault folder, disk reads; through the plugin, requests, which
is why the server checks the plugin less often (``tools/resources.py``). At most
``MAX_WATCHED_FILES`` files are watched at a time. Everything goes through the guarded client.
"""

from __future__ import annotations

import hashlib
import weakref
from dataclasses import dataclass, field

from vaultgate.backend import Backend
from vaultgate.change_watch import StaleHint
from vaultgate.errors import AccessDenied, InvalidArgument, NotANote, NotFound
from vaultgate.vault.listing import VaultLister
from vaultgate.vault.marks_scope import new_call

MAX_WATCHED_FILES = 100


@dataclass(slots=True)
class _Watched:
    fingerprint: bytes | None
    holders: dict[str, weakref.WeakSet[object]] = field(default_factory=dict)  # by URI

    def live_uris(self) -> dict[str, list[object]]:
        return {uri: list(held) for uri, held in self.holders.items() if len(held)}


@dataclass(frozen=True, slots=True)
class Changes:
    list_changed: bool
    updated: tuple[tuple[str, tuple[object, ...]], ...]  # (URI, its holders) per change


class ResourceWatch:
    """The subscribed files and the listed notes of one vault (see the module)."""

    def __init__(self, client: Backend, *, most: int = MAX_WATCHED_FILES) -> None:
        self._client = client
        self._fresh = VaultLister(client, ttl=0)  # a check must see the vault as it is now
        self._most = most
        self._watched: dict[str, _Watched] = {}
        self._notes: frozenset[str] | None = None  # what clients were last shown
        self._stale = StaleHint()

    @property
    def active(self) -> bool:
        """Is anything worth checking: a subscription, or a client that listed?"""
        self._prune()
        return bool(self._watched) or self._notes is not None

    def invalidate(self) -> None:
        """A write went through vaultgate: check soon rather than at the next poll."""
        self._stale.mark()

    async def wait_until_stale(self) -> None:
        """Return once ``invalidate`` has been called since the last wait (one waiter)."""
        await self._stale.wait()

    async def listed(self) -> None:
        """A client was shown the list: remember which notes it holds (first time only)."""
        if self._notes is None:
            self._notes = await self._note_paths()

    async def watch(self, path: str, uri: str, holder: object) -> None:
        """Watch ``path`` for ``holder``, who named it ``uri``."""
        watched = self._watched.get(path)
        if watched is None:
            self._prune()
            if len(self._watched) >= self._most:
                raise InvalidArgument(
                    f"At most {self._most} files can be subscribed to at a time; unsubscribe "
                    "from one you no longer need first."
                )
            watched = _Watched(await self._fingerprint(path))
            self._watched.setdefault(path, watched)
            watched = self._watched[path]
        watched.holders.setdefault(uri, weakref.WeakSet()).add(holder)

    def unwatch(self, path: str, uri: str, holder: object) -> None:
        watched = self._watched.get(path)
        if watched is None:
            return
        held = watched.holders.get(uri)
        if held is not None:
            held.discard(holder)
        self._prune()

    async def check(self) -> Changes:
        """What changed since the last check (or subscription, or listing)."""
        new_call()  # the watcher's task makes one check after another: each is its own call
        self._prune()
        updated: list[tuple[str, tuple[object, ...]]] = []
        for path, watched in list(self._watched.items()):
            now = await self._fingerprint(path)
            if now == watched.fingerprint:
                continue
            watched.fingerprint = now
            updated.extend((uri, tuple(held)) for uri, held in watched.live_uris().items())
        list_changed = False
        if self._notes is not None:
            notes = await self._note_paths()
            list_changed = notes != self._notes
            self._notes = notes
        return Changes(list_changed, tuple(updated))

    def _prune(self) -> None:
        for path, watched in list(self._watched.items()):
            watched.holders = {uri: held for uri, held in watched.holders.items() if len(held)}
            if not watched.holders:
                del self._watched[path]

    async def _fingerprint(self, path: str) -> bytes | None:
        try:
            data = await self._client.read_file(path)
        except (NotFound, AccessDenied, NotANote):
            return None
        return hashlib.blake2b(data, digest_size=16).digest()

    async def _note_paths(self) -> frozenset[str]:
        return frozenset(await self._fresh.list_recursive("", notes_only=True))
