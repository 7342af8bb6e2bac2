"""Changes to notes made through the plugin while it answers, seen at once from the folder.

When vaultgate found the vault folder itself (Obsidian's vault list, verified against the
plugin), a change to a note goes to the plugin, so that Obsidian makes it as its user set it
up: the note open in its editor, link updating on a move, its trash setting. Reads, listings
and searches still come from the folder, which re-reads each path a change touched before
the change returns (read-your-writes: ``FolderBackend.changed_elsewhere``).

Before a change is sent, the notes it touches are asked of the plugin and compared with the
folder (``same_vault``): a change goes through the plugin only while the plugin serves the
folder whose rules were checked. A disagreement, or a 401, sends nothing, and ``on_doubt``
has the folder verified again at once (``discovery.finder``).

What "the plugin does not answer" means, for a change (docs/design.md, "Changes through
Obsidian"): a change the plugin cannot have received (the connection refused or not made in
time, the handshake broken, the port speaking the other protocol) is made in the folder
instead. A change that was sent and then met silence (a read timeout, a dropped connection)
may have been made: it is not repeated in the folder, which could append twice or move a
moved note; ChangeUncertain says so, and the touched paths are re-read for what landed.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import anyio

from vaultgate.backend import LinkUpdates
from vaultgate.errors import (
    AuthenticationFailed,
    ChangeUncertain,
    ObsidianTimeout,
    ObsidianTLSError,
    ObsidianUnreachable,
    VaultMismatch,
)
from vaultgate.folder.backend import FolderBackend
from vaultgate.folder.same_vault import check_same_notes
from vaultgate.obsidian.client import ObsidianClient

_T = TypeVar("_T")

log = logging.getLogger(__name__)

# What a change may meet on its way to the plugin. Each carries whether it was sent (a TLS
# failure never is: the handshake comes first).
_NOT_ANSWERING = (ObsidianUnreachable, ObsidianTimeout, ObsidianTLSError)


@dataclass(frozen=True, slots=True)
class Sent(Generic[_T]):
    """The plugin made the change and answered ``value``."""

    value: _T


class PluginChanges:
    """Sends changes to the plugin and tells the folder side what they touched."""

    def __init__(
        self,
        folder: FolderBackend,
        obsidian: ObsidianClient,
        *,
        on_doubt: Callable[[str], None] | None = None,
    ) -> None:
        """``on_doubt(why)``: the plugin may no longer serve ``folder`` (a note disagrees,
        or a 401): the owner verifies the folder again."""
        self.folder = folder
        self.obsidian = obsidian
        self._on_doubt = on_doubt
        self._answering = True  # as the last change saw it: logged once when it turns

    async def make(
        self,
        action: str,
        path: str,
        send: Callable[[], Awaitable[_T]],
        *,
        needs: str | None = None,
        touched: Sequence[str] = (),
        checked: Sequence[str] = (),
    ) -> Sent[_T] | None:
        """``send()`` the change when the plugin answers, has the feature ``needs`` and
        agrees with the folder on the notes ``checked`` (default: ``path``); then the folder
        side re-reads ``touched`` (default: ``path``). None: the plugin was not used and
        cannot have received the change (the caller makes it in the folder)."""
        try:
            features = await self.obsidian.features()  # asked once, then kept
        except _NOT_ANSWERING as exc:  # a GET: nothing changed, whatever happened
            self._turned(False, exc)
            return None
        if needs is not None and not features.has(needs):
            return None
        paths = list(touched) or [path]
        try:
            await check_same_notes(self.folder.folder, self.obsidian, action, checked or [path])
        except _NOT_ANSWERING as exc:  # GETs again: nothing changed
            self._turned(False, exc)
            return None
        except (VaultMismatch, AuthenticationFailed) as exc:
            self._doubt(f"{action} {path!r}: {exc}")
            raise
        try:
            value = await send()
        except AuthenticationFailed as exc:
            self._doubt(f"{action} {path!r}: {exc}")
            raise
        except _NOT_ANSWERING as exc:
            if not getattr(exc, "sent", False):
                self._turned(False, exc)
                return None
            await self.folder.changed_elsewhere(paths)  # for whatever landed
            raise ChangeUncertain(path, action, exc) from exc
        self._turned(True, None)
        await self.folder.changed_elsewhere(paths)
        return Sent(value)

    async def move(self, source: str, destination: str, *, overwrite: bool) -> LinkUpdates | None:
        """MOVE through the plugin (4.1 and later), so Obsidian rewrites the links to the note
        as its user set it to. The folder plans the move first (the same checks and errors);
        the answer names the planned notes whose text the move changed. None: not sent."""
        planned = await self.folder.move_note(
            source, destination, overwrite=overwrite, dry_run=True
        )
        before = await self._planned_texts(planned, source, destination, moved=False)
        sent = await self.make(
            "Moving",
            source,
            lambda: self.obsidian.move_note(source, destination, overwrite=overwrite),
            needs="move",
            touched=[source, destination, *before],
            checked=[source, destination, *before],
        )
        if sent is None:
            return None
        after = await self._planned_texts(planned, source, destination, moved=True)
        rewritten = tuple(
            (path, links)
            for path, links in planned.notes
            if after[_named_before(path, source, destination)]
            != before[_named_before(path, source, destination)]
        )
        return LinkUpdates(notes=rewritten, stranded=planned.stranded)

    def _doubt(self, why: str) -> None:
        if self._on_doubt is not None:
            self._on_doubt(why)

    def _turned(self, answering: bool, why: Exception | None) -> None:
        if answering == self._answering:
            return
        self._answering = answering
        if answering:
            log.info("Obsidian answers again: changes to notes go through it")
            return
        log.info(
            "Obsidian is not answering at %s (%s): changes to notes are made in the vault "
            "folder until it does",
            self.obsidian.base_url,
            type(why).__name__,
        )

    async def _planned_texts(
        self, planned: LinkUpdates, source: str, destination: str, *, moved: bool
    ) -> dict[str, bytes | None]:
        """The bytes of the notes a move plans to rewrite, by their names before the move,
        read where they are before it, or after it (``moved``)."""
        root = self.folder.folder

        def read() -> dict[str, bytes | None]:
            found: dict[str, bytes | None] = {}
            for path, _links in planned.notes:
                named = _named_before(path, source, destination)
                where = path if moved else named
                try:
                    found[named] = root.joinpath(*where.split("/")).read_bytes()
                except OSError:
                    found[named] = None
            return found

        return await anyio.to_thread.run_sync(read)


def _named_before(path: str, source: str, destination: str) -> str:
    """A planned note's name before the move (the moved note may link to itself)."""
    return source if path == destination else path
