"""Searching the vault: simple text search, structured (JsonLogic / Dataview) and semantic.

A query's whole result is kept (``Snapshots``) for the later pages cut from it: paging through
it does not search the vault again. A first page (offset 0) searches again unless the vault's
generation says nothing changed since (the folder's index, within its watcher's delay); through
the plugin alone, it always searches again. Results are normalised here (ordering by
score, match trimming, folder scoping) so every plugin version looks the same to the model, and
kept lean: scores to 3 significant digits, no field the model can derive from another.

A JsonLogic ``regexp`` or ``glob`` pattern written in the query is at most
``PATTERN_CHARS`` long: the folder backend compiles and runs it inside the server (for every
note), where ``re`` holds the GIL, so a huge pattern would stall every other call.
"""

from __future__ import annotations

import json
import math
import operator
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, overload, runtime_checkable

from vaultgate.backend import Backend
from vaultgate.cache import Served, Snapshots
from vaultgate.errors import InvalidArgument
from vaultgate.obsidian.models import SimpleHit as PluginHit
from vaultgate.obsidian.models import SimpleMatch
from vaultgate.paths import normalize_directory
from vaultgate.vault.snippets import trimmed_context, words_within

SEARCH_TTL_SECONDS = 60.0
SMART_TEXT_LIMIT = 120
LOCAL_RESULTS = 100  # notes a search of the local index answers, paged (a total that holds)
PATTERN_CHARS = 1_000
_PATTERN_OPERATIONS = ("regexp", "glob")

QueryType = Literal["jsonlogic", "dataview"]
SmartMode = Literal["hybrid", "keyword", "semantic", "smart_connections"]


@runtime_checkable
class PagedMatches(Protocol):
    """A hit's matches that can build only those a page shows (the folder backend's)."""

    def page(self, limit: int) -> tuple[Sequence[SimpleMatch], int]:
        """The first ``limit`` matches in the order a page shows them (those in the text by
        start, then those in the file name by start), and how many there are."""
        ...


@dataclass(slots=True)  # not frozen: made once per hit, thousands per broad search
class SimpleHit:
    """One matching note. Matches stay as the plugin sent them until a page renders them:
    a broad query has thousands of hits and most are never shown (the folder backend builds
    a hit's matches only then). ``context_length``: the context asked of the backend, which
    says whether a context's side was cut or reached the note's start or end."""

    filename: str
    score: float
    raw_matches: Sequence[SimpleMatch]
    context_length: int

    def render(
        self,
        max_matches: int,
        *,
        with_score: bool = True,
        with_offsets: bool = False,
        shown_side: int | None = None,
    ) -> dict[str, Any]:
        """``{"filename", "score"?, "matchCount"?, "matches"}``: content matches first, in
        document order, then file-name matches, each a context trimmed to whole words, or
        ``{"context", "start", "end"}`` ``with_offsets``.

        ``matchCount`` is there only when ``max_matches`` left some out: otherwise it is the
        length of ``matches``. ``with_score`` False: the caller found every score of the
        result equal, so a score orders nothing. ``shown_side``: contexts shortened to this
        many characters a side.
        """
        raw = self.raw_matches
        if isinstance(raw, PagedMatches):
            shown, count = raw.page(max_matches)
        else:
            ordered = sorted(raw, key=_match_order)
            shown, count = ordered[:max_matches], len(ordered)
        rendered: dict[str, Any] = {"filename": self.filename}
        if with_score:
            rendered["score"] = significant(self.score)
        if count > max_matches:
            rendered["matchCount"] = count
        rendered["matches"] = [
            _match(match, self.context_length, with_offsets=with_offsets, shown_side=shown_side)
            for match in shown
        ]
        return rendered


class SimpleHits(Sequence[SimpleHit]):
    """A search's notes in their order, each made a :class:`SimpleHit` when read: a broad
    word finds thousands of notes, and a page shows twenty."""

    __slots__ = ("_context_length", "_items")

    def __init__(self, items: Sequence[PluginHit], context_length: int) -> None:
        self._items, self._context_length = items, context_length

    @classmethod
    def best_first(cls, items: Iterable[PluginHit], context_length: int) -> SimpleHits:
        """``items`` by score, highest first, then by path."""
        ordered = sorted(items, key=_filename)
        ordered.sort(key=_score, reverse=True)  # stable: equal scores stay by path
        return cls(ordered, context_length)

    def below(self, prefix: str) -> SimpleHits:
        """The notes whose path starts with ``prefix``, in the same order."""
        kept = [item for item in self._items if item["filename"].startswith(prefix)]
        return SimpleHits(kept, self._context_length)

    @overload
    def __getitem__(self, index: int) -> SimpleHit: ...

    @overload
    def __getitem__(self, index: slice) -> list[SimpleHit]: ...

    def __getitem__(self, index: int | slice) -> SimpleHit | list[SimpleHit]:
        if isinstance(index, slice):
            return [_simple_hit(item, self._context_length) for item in self._items[index]]
        return _simple_hit(self._items[index], self._context_length)

    def __len__(self) -> int:
        return len(self._items)


_filename = operator.itemgetter("filename")


def _score(item: PluginHit) -> float:
    return item.get("score", 0.0)


def scores_order_something(hits: Sequence[SimpleHit]) -> bool:
    """Whether the scores, as a page shows them, differ anywhere in the result: when they
    are all equal they order nothing and are left out of every page."""
    if not hits:
        return False
    first = significant(hits[0].score)
    # (stops at the first that differs: a broad word's thousands of hits are not all read)
    return any(significant(hit.score) != first for hit in hits)


SCORE_DIGITS = 3


def significant(value: Any, digits: int = SCORE_DIGITS) -> Any:
    """A score rounded to ``digits`` significant digits (0.123456 → 0.123, 1234.5 → 1230.0);
    the full precision says nothing to the model. Anything but a finite number is kept."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return value
    if value == 0:
        return 0.0
    return round(float(value), digits - 1 - math.floor(math.log10(abs(value))))


def _match_order(raw: SimpleMatch) -> tuple[bool, int]:
    span = raw["match"]
    return (span.get("source", "content") != "content", span["start"])


def _match(
    raw: SimpleMatch, context_length: int, *, with_offsets: bool, shown_side: int | None = None
) -> Any:
    span = raw["match"]
    context = trimmed_context(
        raw["context"],
        start=span["start"],
        end=span["end"],
        context_length=context_length,
        in_content=span.get("source", "content") == "content",
        shown_side=shown_side,
    )
    if not with_offsets:
        return context
    return {"context": context, "start": span["start"], "end": span["end"]}


class VaultSearcher:
    """Runs searches through the client and keeps each full result for its later pages."""

    def __init__(self, client: Backend, ttl: float = SEARCH_TTL_SECONDS) -> None:
        self._client = client
        self._simple: Snapshots[tuple[str, int], SimpleHits] = Snapshots(client.generation, ttl)
        self._structured: Snapshots[tuple[str, str], list[dict[str, Any]]] = Snapshots(
            client.generation, ttl
        )

    def invalidate(self) -> None:
        """Forget kept results: called after any write made through vaultgate."""
        self._simple.clear()
        self._structured.clear()

    async def simple(
        self, query: str, *, context_length: int, folder: str | None = None, offset: int = 0
    ) -> Served[SimpleHits]:
        """Every note matching ``query``, best first (score descending, then path): searched
        now for a first page, from the first page's snapshot for a later one (``offset``)."""
        query = query.strip()
        if not query:
            raise InvalidArgument("query is empty. Pass one or more words to look for.")

        async def search() -> SimpleHits:
            raw = await self._client.search_simple(query, context_length)
            return SimpleHits.best_first(raw, context_length)

        served = await self._simple.get((query, context_length), search, first_page=offset == 0)
        if folder:
            return Served(served.value.below(normalize_directory(folder)), served.notice)
        return served

    async def structured(
        self, query: str | dict[str, Any], query_type: QueryType, *, offset: int = 0
    ) -> Served[list[dict[str, Any]]]:
        """Rows ``{"filename", "result"}`` of a JsonLogic or Dataview query, by filename:
        evaluated now for a first page, from its snapshot for a later one (``offset``)."""
        text = query if isinstance(query, str) else json.dumps(query, sort_keys=True)

        async def evaluate() -> list[dict[str, Any]]:
            match query_type:
                case "jsonlogic":
                    parsed = _parse_jsonlogic(query)
                    refuse_long_patterns(parsed)
                    return await self._client.search_jsonlogic(parsed)
                case "dataview":
                    if not isinstance(query, str) or not query.strip():
                        raise InvalidArgument(
                            'A Dataview query is DQL text, e.g. TABLE status FROM "Projects".'
                        )
                    return await self._client.search_dql(query)

        return await self._structured.get((query_type, text), evaluate, first_page=offset == 0)

    async def smart(
        self,
        query: str,
        *,
        folders: list[str] | None,
        exclude_folders: list[str] | None,
        limit: int,
        mode: SmartMode = "hybrid",
    ) -> tuple[list[dict[str, Any]], str | None, bool]:
        """The first ``limit`` notes found by meaning, a notice for the model (or None), and
        whether those are all there are (Smart Connections pages nothing and counts nothing:
        a full answer may have more behind it).

        ``hybrid``, ``keyword`` and ``semantic`` rank from the vault folder's own index
        (``search_local``: folders applied before ranking); a backend without one (Obsidian's
        plugin alone) and ``smart_connections`` ask the MCP Tools companion plugin, its text
        trimmed to whole words, scores rounded, breadcrumbs only where they say more than
        the path (a block's headings)."""
        if not query.strip():
            raise InvalidArgument("query is empty. Describe what you are looking for.")
        if mode != "smart_connections":
            wanted = _in_folders(folders, exclude_folders)
            local = await self._client.search_local(
                query, mode=mode, wanted=wanted, limit=max(limit, LOCAL_RESULTS)
            )
            if local is not None:
                return local.rows, local.notice, True
        raw = await self._client.search_smart(
            query, folders=folders, exclude_folders=exclude_folders, limit=limit
        )
        return [_smart_row(item) for item in raw[:limit]], None, len(raw) < limit


def _in_folders(
    folders: list[str] | None, exclude_folders: list[str] | None
) -> Callable[[str], bool]:
    """Whether a note's path is below one of ``folders`` (any, when none is given) and
    below none of ``exclude_folders``."""
    included = tuple(normalize_directory(f) for f in folders or () if f.strip("/"))
    excluded = tuple(normalize_directory(f) for f in exclude_folders or () if f.strip("/"))

    def wanted(path: str) -> bool:
        if included and not path.startswith(included):
            return False
        return not (excluded and path.startswith(excluded))

    return wanted


def _smart_row(item: dict[str, Any]) -> dict[str, Any]:
    path, breadcrumbs = item.get("path"), item.get("breadcrumbs")
    row = {
        "path": path,
        "text": trim_text(str(item.get("text", "")), SMART_TEXT_LIMIT),
        "score": significant(item.get("score")),
    }
    if not isinstance(path, str) or breadcrumbs != _path_crumbs(path):
        row["breadcrumbs"] = breadcrumbs
    return row


def _path_crumbs(path: str) -> str:
    """The breadcrumbs Smart Connections gives a whole note: its folders and name."""
    return " > ".join(path.removesuffix(".md").split("/"))


def _simple_hit(item: PluginHit, context_length: int) -> SimpleHit:
    return SimpleHit(
        filename=item["filename"],
        score=item.get("score", 0.0),
        raw_matches=item.get("matches", ()),
        context_length=context_length,
    )


def _parse_jsonlogic(query: str | dict[str, Any]) -> Any:
    if not isinstance(query, str):
        return query
    try:
        return json.loads(query)
    except json.JSONDecodeError as exc:
        raise InvalidArgument(
            f"The JsonLogic query is not valid JSON ({exc.msg} at character {exc.pos}). "
            'Example: {"glob": ["Projects/**", {"var": "path"}]} or '
            '{"in": ["meeting", {"var": "tags"}]}.'
        ) from exc


def refuse_long_patterns(query: Any) -> None:
    """Refuse a ``regexp`` or ``glob`` whose pattern, as written in the query, is longer than
    ``PATTERN_CHARS`` (a pattern computed from a note's values cannot be checked here)."""
    pending = [query]
    while pending:
        node = pending.pop()
        if isinstance(node, list):
            pending.extend(node)
        elif isinstance(node, dict):
            for operation, arguments in node.items():
                pattern = arguments[0] if isinstance(arguments, list) and arguments else ""
                pattern = pattern if isinstance(pattern, str) else ""
                if operation in _PATTERN_OPERATIONS and len(pattern) > PATTERN_CHARS:
                    raise InvalidArgument(
                        f"The {operation} pattern is {len(pattern):,} characters long, more "
                        f"than the {PATTERN_CHARS:,} a JsonLogic pattern may have. Split it "
                        'into several, joined with {"or": [...]}, or match exact values with '
                        '{"in": [{"var": "path"}, [...]]}.'
                    )
                pending.append(arguments)


def trim_text(text: str, limit: int) -> str:
    """``text`` with its whitespace collapsed, cut to whole words (or whole grapheme
    clusters, where a word is longer) within ``limit`` characters, "…" marking a cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return words_within(text, limit - 1) + "…"
