"""Listing the vault: one folder, or every file below a folder, filtered by a glob.

The plugin lists one level per request, so a recursive listing walks the folders concurrently
(bounded, so a large vault does not open hundreds of connections) and keeps the result per
folder for the later pages cut from it: pages 2..N of the same listing cost no request at all.
A first page lists again, unless the vault's generation says nothing changed since
(``cache.Snapshots``: the folder's index, within its watcher's delay; never the plugin alone).

Each of those requests costs the plugin a pass over the whole vault's file index (about 9 ms
on 20,000 notes, one request at a time), so a walk costs the number of folders times that.
Only folder listings show files other than notes: no search sees attachments, and any folder
may hold one, so a listing of every file needs every folder's listing; that stays the walk.
A listing of notes alone (``notes_only``) needs no folder at all: one JsonLogic search true
for every note returns every note's path (0.1 s on 20,000 notes in the plugin), except on
4.0.0-4.0.2, whose search scans every note's links once per note, where the walk is cheaper.

Served from the vault folder, the backend knows every file at once (``list_files_below``):
no walk and no search at all.

A page is shown in one of two layouts: ``flat``, the paths themselves, or ``tree``, the same
files grouped under their folders, each folder written once (the vault root is the folder
``""``). Both page by files, so offsets mean the same in either.
Flat is seed 004's shape (``{"files": [...], "pagination": ...}``) and the default of every
listing; a tree writes each path's folder once per page instead of once per file, so a walk of
a whole vault in tree pages of 1,000 files costs about half the characters.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from typing import Literal

import anyio
from wcmatch import glob

from vaultgate.backend import Backend
from vaultgate.cache import Served, Snapshots
from vaultgate.errors import InvalidArgument, NotFound
from vaultgate.obsidian.features import quadratic_search
from vaultgate.paging import Page, compact_json, page_fitting
from vaultgate.paths import normalize_directory
from vaultgate.unicode import canonical

LISTING_TTL_SECONDS = 30.0
WALK_CONCURRENCY = 8
GLOB_FLAGS = glob.GLOBSTAR | glob.BRACE | glob.DOTGLOB
EVERY_NOTE: bool = True  # a JsonLogic query true for every note (the plugin parses non-strict JSON)
NOTE_SUFFIX = ".md"  # Obsidian's markdown files, the only files a search sees

ProgressCallback = Callable[[int, int | None, str], Awaitable[None]]

Layout = Literal["flat", "tree"]
ROOT_FOLDER = ""


def split_folder(path: str) -> tuple[str, str]:
    """A listed path as (its folder, its name in that folder).

    ``'Projects/Acme/a.md'`` → ``('Projects/Acme/', 'a.md')``; a folder entry stays a name in its
    parent, ``'Projects/Acme/'`` → ``('Projects/', 'Acme/')``; at the root, ``('', 'a.md')``.
    """
    parent = path.removesuffix("/").rpartition("/")[0]
    folder = f"{parent}/" if parent else ROOT_FOLDER
    return folder, path[len(folder) :]


def group_by_folder(paths: Iterable[str]) -> dict[str, list[str]]:
    """The tree layout: names under their folders, folders in the order the paths meet them."""
    folders: dict[str, list[str]] = {}
    for path in paths:
        folder, name = split_folder(path)
        folders.setdefault(folder, []).append(name)
    return folders


def listing_costs(layout: Layout) -> Callable[[Sequence[str]], Iterator[str]]:
    """What each path of a page adds to the response in ``layout``.

    Flat, its quoted path; tree, its quoted name, plus its folder's key the first time the page
    meets that folder. A page is budgeted in the layout it is shown in, so a tree page holds
    about twice the files of a flat one; offsets count files, the same in either.
    """

    def costs(paths: Sequence[str]) -> Iterator[str]:
        seen: set[str] = set()
        for path in paths:
            if layout == "flat":
                yield compact_json(path)
                continue
            folder, name = split_folder(path)
            if folder in seen:
                yield compact_json(name)
            else:
                seen.add(folder)
                yield f"{compact_json(folder)}:[{compact_json(name)}]"

    return costs


def page_listing(
    files: Sequence[str], *, limit: int, offset: int, budget: int, layout: Layout
) -> Page[str]:
    """A page of ``files`` within ``limit`` and ``budget`` in ``layout``. A tree page the
    budget cut ends where a folder ends when one ends in its second half: the next page then
    starts a folder instead of writing its key again. A page cut by ``limit`` alone is never
    shortened (the seed's 100 files are 100 files)."""
    page = page_fitting(
        files, limit=limit, offset=offset, budget=budget, render_page=listing_costs(layout)
    )
    kept = len(page.items)
    if layout != "tree" or not page.has_more or kept == limit:
        return page
    first_left_out = split_folder(files[offset + kept])[0]
    end = kept
    while end > kept // 2 and split_folder(page.items[end - 1])[0] == first_left_out:
        end -= 1
    if end <= kept // 2:  # one folder fills the page's second half: cut it where the page was
        return page
    return Page(items=page.items[:end], total=page.total, offset=offset, limit=limit)


def compile_glob(pattern: str, *, name: str = "pattern") -> Callable[[str], bool]:
    """A matcher for vault-relative paths; a malformed glob is an InvalidArgument."""
    if not pattern.strip():
        raise InvalidArgument(f"{name} is empty. Use a glob such as '**/*.md' or 'Projects/**'.")
    if pattern.startswith("/"):
        raise InvalidArgument(
            f"{name} {pattern!r} starts with '/', but it is matched against vault-relative "
            f"paths such as 'Daily/2026-11-21.md'. Try {pattern.lstrip('/')!r}."
        )
    try:
        matcher = glob.compile(pattern, flags=GLOB_FLAGS)
    except Exception as exc:  # wcmatch raises several kinds for a malformed pattern
        raise InvalidArgument(
            f"{name} {pattern!r} is not a valid glob ({exc}). Examples: '**/*.md', "
            "'Daily/2026-*.md', 'Projects/{Alpha,Beta}/**'."
        ) from exc

    def match(path: str) -> bool:
        return bool(matcher.match(path.removesuffix("/")))

    return match


class VaultLister:
    """Lists folders through the client, keeping recursive listings for their later pages."""

    def __init__(self, client: Backend, ttl: float = LISTING_TTL_SECONDS) -> None:
        self._client = client
        self._listings: Snapshots[tuple[str, bool], list[str]] = Snapshots(client.generation, ttl)

    def invalidate(self) -> None:
        """Forget cached listings: called after any write made through vaultgate."""
        self._listings.clear()

    async def list_folder(self, directory: str) -> list[str]:
        """One level: vault-relative paths, folders ending with '/', sorted."""
        folder = normalize_directory(directory)
        entries = await self._client.list_directory(folder)
        return sorted(folder + entry for entry in entries)

    async def find_folder(self, directory: str) -> str | None:
        """The folder ``directory`` as the vault spells it ('a/b/'), matched in any letter case
        and Unicode form (a setting says 'Prompts/', the vault holds 'prompts/'); None when
        there is none. One listing per level, asked only when the exact name is missing."""
        found = ""
        for segment in normalize_directory(directory).removesuffix("/").split("/"):
            if not segment:
                return None
            try:
                entries = await self._client.list_directory(found)
            except NotFound:
                return None
            wanted = canonical(segment + "/")
            spelled = [e for e in entries if e == segment + "/"] or [
                e for e in entries if e.endswith("/") and canonical(e) == wanted
            ]
            if not spelled:
                return None
            found += spelled[0]
        return found

    async def list_recursive(
        self,
        directory: str,
        progress: ProgressCallback | None = None,
        *,
        notes_only: bool = False,
    ) -> list[str]:
        """Every file below ``directory`` (vault-relative paths, sorted), as the vault is now
        (see ``listed``)."""
        listed = await self.listed(directory, progress, notes_only=notes_only)
        return listed.value

    async def listed(
        self,
        directory: str,
        progress: ProgressCallback | None = None,
        *,
        notes_only: bool = False,
        offset: int = 0,
        unknown_max_age: float = 0.0,
    ) -> Served[list[str]]:
        """Every file below ``directory`` (vault-relative paths, sorted): listed now for a
        first page, from the first page's snapshot for a later one (``offset``).

        ``notes_only`` lists the notes alone (Obsidian's markdown files), from one search where
        the plugin answers that faster than a walk. A missing folder (or one the policy denies)
        is NotFound either way. ``unknown_max_age``: where nothing tells when the vault
        changes (the plugin alone), a first page may take a listing this many seconds old.
        """
        folder = normalize_directory(directory)

        async def listing() -> list[str]:
            return await self._list_below(folder, progress, notes_only=notes_only)

        return await self._listings.get(
            (folder, notes_only),
            listing,
            first_page=offset == 0,
            unknown_max_age=unknown_max_age,
        )

    async def _list_below(
        self, folder: str, progress: ProgressCallback | None, *, notes_only: bool
    ) -> list[str]:
        below = await self._client.list_files_below(folder)
        if below is not None:  # a backend that knows every file at once (the vault folder)
            files = [p for p in below if p.endswith(NOTE_SUFFIX)] if notes_only else below
        elif notes_only and await self._search_is_linear():
            files = await self._notes(folder, progress)
        else:
            files = await self._walk(folder, progress)
            if notes_only:
                files = [path for path in files if path.endswith(NOTE_SUFFIX)]
        files.sort()
        return files

    async def _search_is_linear(self) -> bool:
        # on 4.0.0-4.0.2 a search over N notes costs more than a walk's folders x files
        return not quadratic_search((await self._client.features()).version)

    async def _notes(self, folder: str, progress: ProgressCallback | None) -> list[str]:
        """Every note below ``folder`` from one search; a folder without notes is listed, so
        that a missing one is NotFound, as in the walk."""
        hits = await self._client.search_jsonlogic(EVERY_NOTE)
        notes = [
            path
            for hit in hits
            if isinstance(path := hit.get("filename"), str) and path.startswith(folder)
        ]
        if not notes and folder:
            await self._client.list_directory(folder)
        if progress is not None:
            await progress(1, 1, f"listed {len(notes)} notes in one search")
        return notes

    async def _walk(self, root: str, progress: ProgressCallback | None) -> list[str]:
        """Every file below ``root``, folders listed a few at a time. A failure lists no more
        folders, lets the listings already asked for finish (see vault/concurrent.py: a
        cancelled request costs its connection) and is raised as itself: "folder not found",
        "Obsidian is not reachable"."""
        files: list[str] = []
        failures: list[Exception] = []
        limiter = anyio.Semaphore(WALK_CONCURRENCY)
        visited = 0

        async def visit(folder: str, tg: anyio.abc.TaskGroup) -> None:
            nonlocal visited
            async with limiter:
                if failures:
                    return
                try:
                    entries = await self._client.list_directory(folder)
                except Exception as exc:  # kept, and raised as itself once the walk is done
                    failures.append(exc)
                    return
            visited += 1
            if progress is not None:
                await progress(visited, None, f"listed {visited} folders, {len(files)} files")
            for entry in entries:
                path = folder + entry
                if entry.endswith("/"):
                    tg.start_soon(visit, path, tg)
                else:
                    files.append(path)

        async with anyio.create_task_group() as tg:
            tg.start_soon(visit, root, tg)
        if failures:
            raise failures[0]
        return files
