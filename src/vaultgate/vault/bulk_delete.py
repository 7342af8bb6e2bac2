"""Deleting many notes by glob, never one that a dry run did not list first.

A dry run lists the matches (paged like any list) and remembers every path it showed for those
exact arguments. A real run recomputes the same page and deletes only paths a dry run with the
same arguments showed in the last ten minutes; anything else on the page is skipped and named.
The run stops at the first connection or authentication failure and says exactly what was and
was not deleted. A connection can drop after Obsidian deleted the file but before it answered,
so the file it stopped at is looked up again: gone (deleted), still there (failed), or, when
Obsidian cannot be asked, unknown.

Notes tagged ``mcp-protected`` or ``mcp-readonly`` are never deleted: they are left out of the
matches a dry run pages (and a real run recomputes), and both answers say how many were kept
and name the first of them. Each real delete still reads the note's current tags first (the
guard), so a note tagged since the dry run is kept too, and named. Notes tagged ``mcp-hidden``
are not listed at all, so no bulk delete ever sees them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from vaultgate.backend import Backend
from vaultgate.cache import TTLCache
from vaultgate.errors import (
    AuthenticationFailed,
    InvalidArgument,
    ObsidianTimeout,
    ObsidianTLSError,
    ObsidianUnreachable,
    ProtectedNote,
    VaultgateError,
)
from vaultgate.paging import Page, compact_json, page_within_budget
from vaultgate.paths import refuse_hidden_pattern
from vaultgate.vault.listing import VaultLister, compile_glob

DRY_RUN_MEMORY_SECONDS = 600.0
REAL_RUN_LIMIT = 200
KEPT_NAMED = 20  # a pattern matching hundreds of protected notes names the first ones
KEPT_REASON = "tagged mcp-protected or mcp-readonly: bulk delete never deletes them"
_STOPPING_ERRORS = (ObsidianUnreachable, ObsidianTimeout, ObsidianTLSError, AuthenticationFailed)

Progress = Callable[[int, int, str], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Selection:
    pattern: str
    directory: str
    exclude: str | None


@dataclass(frozen=True, slots=True)
class Kept:
    """The matches a protection tag keeps from deletion."""

    paths: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any] | None:
        if not self.paths:
            return None
        return {
            "count": len(self.paths),
            "paths": list(self.paths[:KEPT_NAMED]),
            "reason": KEPT_REASON,
        }


@dataclass(slots=True)
class RunReport:
    deleted: list[str] = field(default_factory=list)
    failed: list[dict[str, str]] = field(default_factory=list)
    not_attempted: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    stopped: str | None = None

    def as_json(self, remaining: int) -> dict[str, Any]:
        body: dict[str, Any] = {
            "deleted": self.deleted,
            "failed": self.failed,
            "remaining": remaining,
        }
        if self.unknown:
            body["unknown"] = {
                "paths": self.unknown,
                "reason": "the connection dropped mid-delete; list the folder to see if it is gone",
            }
        if self.not_attempted:
            body["notAttempted"] = self.not_attempted
        if self.skipped:
            body["skipped"] = {
                "paths": self.skipped,
                "reason": "not listed by a dry run with the same arguments; run dryRun=true first",
            }
        if (kept := Kept(tuple(self.kept)).as_json()) is not None:
            body["kept"] = kept
        if self.stopped:
            body["stopped"] = self.stopped
        return body


class BulkDeleter:
    def __init__(self, client: Backend, lister: VaultLister) -> None:
        self._client = client
        self._lister = lister
        self._shown: TTLCache[Selection, set[str]] = TTLCache(DRY_RUN_MEMORY_SECONDS, 64)

    async def matches(self, selection: Selection) -> list[str]:
        """Every file below the folder matching the pattern and not the exclude glob, sorted."""
        if not selection.pattern.strip():
            raise InvalidArgument(
                "pattern is empty; bulk delete needs a glob such as 'Inbox/*.md' or "
                "'Archive/2024/**'."
            )
        refuse_hidden_pattern(selection.pattern)
        include = compile_glob(selection.pattern)
        exclude = compile_glob(selection.exclude, name="exclude") if selection.exclude else None
        files = await self._lister.list_recursive(selection.directory)
        return [p for p in files if include(p) and not (exclude is not None and exclude(p))]

    async def refuse_whole_vault(self, selection: Selection, matched: list[str]) -> None:
        everything = await self._lister.list_recursive("")
        if matched and len(matched) == len(everything):
            raise InvalidArgument(
                f"pattern {selection.pattern!r} matches every one of the vault's "
                f"{len(everything):,} files. Narrow it, or pass confirmAll=true if you really "
                "mean to delete them all."
            )

    async def deletable(self, selection: Selection) -> tuple[list[str], Kept]:
        """The matches that may be deleted, and those a protection tag keeps."""
        matched = await self.matches(selection)
        marked = await self._client.marked_notes()
        kept = [path for path in matched if (m := marked.get(path)) is not None and m.kept]
        if not kept:
            return matched, Kept()
        kept_set = set(kept)
        return [path for path in matched if path not in kept_set], Kept(tuple(kept))

    async def dry_run(
        self, selection: Selection, *, limit: int, offset: int, budget: int
    ) -> tuple[Page[str], Kept]:
        """A page of the matches, at most ``limit`` of them within ``budget`` characters."""
        matched, kept = await self.deletable(selection)
        page = _page(matched, kept, limit=limit, offset=offset, budget=budget)
        shown = self._shown.get(selection) or set()
        self._shown.put(selection, shown | set(page.items))
        return page, kept

    async def run(
        self,
        selection: Selection,
        *,
        limit: int,
        offset: int,
        budget: int,
        progress: Progress | None = None,
    ) -> tuple[RunReport, int]:
        """Delete this page of matches (the page a dry run with the same arguments showed);
        return the report and how many matches remain."""
        self._lister.invalidate()  # decide on the vault as it is now
        matched, kept = await self.deletable(selection)
        page = _page(matched, kept, limit=limit, offset=offset, budget=budget)
        shown = self._shown.get(selection) or set()
        report = RunReport(kept=list(kept.paths))
        targets = [p for p in page.items if p in shown]
        report.skipped = [p for p in page.items if p not in shown]
        for index, path in enumerate(targets):
            try:
                await self._client.delete_listed_file(path, permanent=False)
            except _STOPPING_ERRORS as exc:
                report.stopped = f"Stopped at {path!r}: {exc}"
                report.not_attempted = targets[index + 1 :]
                await self._settle(path, exc, report, shown)
                break
            except ProtectedNote:
                report.kept.append(path)  # tagged since the dry run
                shown.discard(path)
            except VaultgateError as exc:
                report.failed.append({"path": path, "reason": str(exc)})
            else:
                report.deleted.append(path)
                shown.discard(path)
            if progress is not None:
                await progress(index + 1, len(targets), f"deleted {len(report.deleted)}")
        self._lister.invalidate()
        return report, len(matched) - len(report.deleted)

    async def _settle(
        self, path: str, failure: VaultgateError, report: RunReport, shown: set[str]
    ) -> None:
        """Where the file a run stopped at ended up: the request may have been applied."""
        if isinstance(failure, (AuthenticationFailed, ObsidianTLSError)):
            report.not_attempted.insert(0, path)  # refused before anything was done
            return
        try:
            size = await self._client.note_size(path)
        except VaultgateError:
            report.unknown.append(path)
            return
        if size is None:
            report.deleted.append(path)
            shown.discard(path)
        else:
            report.failed.append({"path": path, "reason": f"still there: {failure}"})


def _page(matched: list[str], kept: Kept, *, limit: int, offset: int, budget: int) -> Page[str]:
    """The page of ``matched`` a dry run lists and a real run deletes: the same for both, so a
    real run never meets a path its dry run left for the next page."""
    room = budget - len(compact_json(kept.as_json()))
    return page_within_budget(matched, limit=limit, offset=offset, budget=room, render=compact_json)
