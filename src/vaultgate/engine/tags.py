"""A note's tags as the plugin lists them (note JSON) and as it counts them (``GET /tags/``).

The two differ, as in the plugin's code at 3.5.0 through 5.1.0:

- note JSON (``getFileMetadataObject``) takes the frontmatter's ``tags`` key only, and only a
  list (3.x: each truthy item as JavaScript prints it; 4.0.1+: string items only), then every
  inline ``#tag``; one leading ``#`` goes, and each tag is listed once.
- ``/tags/`` asks Obsidian's ``getAllTags``: every tag under any ``tags``/``tag`` key (a list,
  or a string of tags), then every inline occurrence, none merged: a note with
  ``tags: [dup]`` and ``#dup #dup`` counts ``dup`` three times. Each tag counts for each of its
  parents too (``a/b/c`` for ``a`` and ``a/b``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from vaultgate.engine.jsonlogic import to_string
from vaultgate.markdown import frontmatter_tags

_ARRAY_INDEX = re.compile(r"0|[1-9]\d{0,9}")


def listed_tags(
    frontmatter: Mapping[str, Any], inline: Sequence[str], *, strings_only: bool
) -> list[str]:
    """The note JSON's ``tags``: the frontmatter's ``tags`` list, then the inline tags."""
    value = frontmatter.get("tags")
    items: list[Any] = list(value) if isinstance(value, list) else []
    if strings_only:
        items = [item for item in items if isinstance(item, str)]
    # the plugin drops falsy items before it strips '#', so a bare '#' lists as ''
    named = [to_string(item) for item in [*items, *inline] if _js_truthy(item)]
    return list(dict.fromkeys(tag.removeprefix("#") for tag in named))


def counted_tags(frontmatter: Mapping[str, Any], inline: Sequence[str]) -> list[str]:
    """Every tag occurrence Obsidian's ``getAllTags`` gives for the note (no '#')."""
    return [*frontmatter_tags(frontmatter), *inline]


def count_tags(notes: Iterable[Sequence[str]]) -> list[tuple[str, int]]:
    """``/tags/``'s table from each note's :func:`counted_tags`, in the order the plugin's
    JavaScript object lists it: integer-like names first, ascending, then as first met (a
    tag before its parents)."""
    counts: dict[str, int] = {}
    for tags in notes:
        for tag in tags:
            parts = tag.split("/")
            for name in [tag, *("/".join(parts[:i]) for i in range(1, len(parts)))]:
                if name:
                    counts[name] = counts.get(name, 0) + 1
    numeric = sorted((k for k in counts if _ARRAY_INDEX.fullmatch(k)), key=int)
    others = [k for k in counts if not _ARRAY_INDEX.fullmatch(k)]
    return [(name, counts[name]) for name in [*numeric, *others]]


def _js_truthy(value: Any) -> bool:
    if value is None or value is False or value == "":
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value != 0 and not math.isnan(value)
    return True
