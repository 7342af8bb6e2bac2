"""Pure paging: list pages, text windows, character and token budgets, navigation hints.

Every bounded response in vaultgate goes through one of these functions, so the guarantee
"walking every page returns every item and every character exactly once" is proved here, once,
by property tests, and tools never slice inline.

Lengths are counted in Python ``str`` characters (Unicode code points), so a window never splits
a character. A truncation notice is appended *after* the window and never counted in
``endIndex``/``nextIndex``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from vaultgate.errors import InvalidArgument

T = TypeVar("T")

TRUNCATION_NOTICE = "Content truncated. Call with startIndex of {next_index} to get more."

# The seeds' sizes. Every answer a call gets with its default arguments stays within
# DEFAULT_RESPONSE_BUDGET characters (seed 002's 2,000-token cap, counted in characters as the
# search pages count them), except a note's content window: CONTENT_WINDOW characters of the
# note (seed 004's maxLength default), plus its metadata line and truncation notice.
DEFAULT_RESPONSE_BUDGET = 5_000
CONTENT_WINDOW = 10_000
# Seed 004's success metric: "No tool call exceeds 50KB without explicit pagination". A page
# asked with default arguments keeps its default item count (100 files, 20 results) and
# shortens what each item shows before it would hold fewer; past this cap it is cut, with
# nextOffset, so nothing is lost.
ANSWER_CAP = 50_000


def truncation_notice(next_index: int) -> str:
    """The line that ends a truncated window and says where the next one starts."""
    return TRUNCATION_NOTICE.format(next_index=next_index)


def compact_json(value: Any) -> str:
    """The one JSON rendering of responses: no indentation, no spaces, unicode kept."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# --- lists ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """One page of a list: ``items`` starts at ``offset`` of ``total``."""

    items: Sequence[T]
    total: int
    offset: int
    limit: int
    # False where the source counts nothing (Smart Connections): ``total`` is then only what
    # was fetched, and more may lie beyond it.
    total_known: bool = True

    @property
    def next_offset(self) -> int:
        return self.offset + len(self.items)

    @property
    def has_more(self) -> bool:
        return self.next_offset < self.total

    def envelope(
        self,
        key: str,
        rendered: Sequence[Any] | Mapping[str, Any] | None = None,
        **extra: Any,
    ) -> str:
        """``{"<key>": [...], "pagination": {...}, ...extra}`` as compact JSON.

        The one envelope of every list page, in seed 004's "Response Metadata Standard":
        ``pagination`` holds ``total``, ``offset``, ``limit`` and ``hasMore``, always, plus
        ``nextOffset`` while more remains (a page cut by its character budget holds fewer than
        ``limit`` items, so ``offset + limit`` would skip some). ``rendered`` replaces the
        items: a list, or a mapping (e.g. files grouped by folder).
        """
        items: Sequence[Any] | Mapping[str, Any] = self.items if rendered is None else rendered
        body: dict[str, Any] = {key: dict(items) if isinstance(items, Mapping) else list(items)}
        body["pagination"] = self.pagination()
        body.update({k: v for k, v in extra.items() if v is not None})
        return compact_json(body)

    def pagination(self) -> dict[str, Any]:
        """Seed 004's ``PaginationMetadata`` for this page (``nextOffset`` added while more
        remains)."""
        metadata: dict[str, Any] = {"total": self.total} if self.total_known else {}
        metadata.update(offset=self.offset, limit=self.limit, hasMore=self.has_more)
        if self.has_more:
            metadata["nextOffset"] = self.next_offset
        return metadata


def check_limit(limit: int, *, maximum: int, name: str = "limit") -> None:
    if not 1 <= limit <= maximum:
        raise InvalidArgument(f"{name} must be between 1 and {maximum}; got {limit}.")


def check_offset(offset: int, total: int) -> None:
    if offset < 0:
        raise InvalidArgument(f"offset must be 0 or more; got {offset}.")
    if offset > 0 and offset >= total:
        raise InvalidArgument(
            f"offset {offset} is past the end: there are {total} items. "
            f"Use an offset below {total}, or offset=0 to start over."
        )


def page_items(items: Sequence[T], *, limit: int, offset: int) -> Page[T]:
    """Slice ``items[offset:offset+limit]``; an offset past a non-empty list is an error."""
    # A limit below 1 would slice wrongly (negative) or never advance (zero): paging would stall.
    if limit < 1:
        raise InvalidArgument(f"limit must be 1 or more; got {limit}.")
    check_offset(offset, len(items))
    return Page(items=items[offset : offset + limit], total=len(items), offset=offset, limit=limit)


def fit_count(rendered: Iterable[str], budget: int, *, at_least_one: bool = True) -> int:
    """How many leading items fit in ``budget`` characters, with a running total.

    Each item is measured once (never the whole string again per item). With ``at_least_one``
    the first item is always kept so paging can never stall on one oversized item.
    """
    used = 0
    count = 0
    for text in rendered:
        cost = len(text) + 1  # the separator that joins it to its neighbour
        if used + cost > budget and not (at_least_one and count == 0):
            break
        used += cost
        count += 1
    return count


def page_within_budget(
    items: Sequence[T],
    *,
    limit: int,
    offset: int,
    budget: int,
    render: Callable[[T], str],
) -> Page[T]:
    """A list page of at most ``limit`` items whose rendered size stays within ``budget``.

    When the budget cuts the page, ``nextOffset`` points at the first item left out, so nothing
    is skipped.
    """
    return page_fitting(
        items,
        limit=limit,
        offset=offset,
        budget=budget,
        render_page=lambda page: (render(item) for item in page),
    )


def page_fitting(
    items: Sequence[T],
    *,
    limit: int,
    offset: int,
    budget: int,
    render_page: Callable[[Sequence[T]], Iterable[str]],
) -> Page[T]:
    """``page_within_budget`` for items whose cost depends on the items before them on the page
    (a folder's name written once for all its files): ``render_page`` yields, in order and
    lazily, what each item of the page adds to the response."""
    page = page_items(items, limit=limit, offset=offset)
    kept = fit_count(render_page(page.items), budget)
    if kept == len(page.items):
        return page
    return Page(items=page.items[:kept], total=page.total, offset=offset, limit=limit)


def shorten_to_fit(
    render: Callable[[int], Sequence[str]], *, start: int, floor: int, budget: int
) -> tuple[int, Sequence[str]]:
    """The largest level from ``start`` down to ``floor`` at which ``render(level)`` (the
    page's items, each shortened to ``level``) fits ``budget`` characters, and those items;
    at ``floor`` when none fits. A page shortens what each item shows before it would hold
    fewer items than asked. A few renders at most: each step scales the level by how far the
    page is over its budget."""
    level = start
    rendered = render(level)
    while level > floor:
        size = sum(len(text) + 1 for text in rendered)
        if size <= budget:
            break
        level = max(floor, min(level - 1, level * budget // size))
        rendered = render(level)
    return level, rendered


# --- text windows ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Window:
    """``text`` is ``full[start_index:end_index]`` of a text ``total_length`` long."""

    text: str
    total_length: int
    start_index: int
    end_index: int

    @property
    def has_more(self) -> bool:
        return self.end_index < self.total_length

    @property
    def truncated(self) -> bool:
        """Cut or windowed: the text is not the whole content from its start. Only then does a
        response carry ``metadata()``; a whole content answers alone."""
        return self.start_index > 0 or self.has_more

    def metadata(self) -> dict[str, Any]:
        return {
            "truncated": self.truncated,
            "totalLength": self.total_length,
            "startIndex": self.start_index,
            "endIndex": self.end_index,
            "nextIndex": self.end_index if self.has_more else None,
            "hasMore": self.has_more,
        }

    def body_with_notice(self) -> str:
        """The window, plus the notice line when more remains (never counted in endIndex)."""
        if not self.has_more:
            return self.text
        separator = "" if self.text.endswith("\n") else "\n"
        return f"{self.text}{separator}\n{truncation_notice(self.end_index)}"


def window_text(text: str, *, start_index: int, max_length: int, maximum: int = 100_000) -> Window:
    """The window of ``text`` starting at ``start_index``, at most ``max_length`` characters."""
    check_limit(max_length, maximum=maximum, name="maxLength")
    total = len(text)
    if start_index < 0:
        raise InvalidArgument(f"startIndex must be 0 or more; got {start_index}.")
    if start_index > 0 and start_index >= total:
        raise InvalidArgument(
            f"startIndex {start_index} is past the end: the content is {total} characters long "
            f"(totalLength {total}). Use a startIndex below {total}."
        )
    end = min(total, start_index + max_length)
    return Window(
        text=text[start_index:end], total_length=total, start_index=start_index, end_index=end
    )


def fair_shares(lengths: Sequence[int], budget: int) -> list[int]:
    """Split ``budget`` characters among texts of ``lengths``, fairly (max-min): each text
    gets an equal share of what is left, a short one only what it needs, so what it leaves
    goes to the longer ones. Every text gets at least one character when ``budget`` is at
    least the number of texts; the shares never sum past ``budget``."""
    shares = [0] * len(lengths)
    left = budget
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    for taken, index in enumerate(order):
        share = min(max(lengths[index], 0), left // (len(order) - taken))
        shares[index] = share
        left -= share
    return shares


# --- tokens and hints -----------------------------------------------------------------------


def estimate_tokens(text: str) -> int:
    """About four characters a token, rounded up: cheap, deterministic, errs on the high side."""
    return math.ceil(len(text) / 4)


def navigation_hint(showing: int, total: int, hint: str) -> str:
    """``"Showing X of Y <hint>"`` when some rows were left out, else ``""``."""
    if showing >= total:
        return ""
    return f"Showing {showing} of {total} {hint}"
