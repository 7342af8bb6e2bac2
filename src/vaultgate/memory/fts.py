"""The FTS5 query builder: user text is data, never query syntax.

Every word becomes a quoted phrase with its inner quotes doubled, so ``"`` ``-`` ``*`` ``:``
``(`` ``NOT`` and the rest can never act as operators or column filters. A word with no letter or
digit (``-``, ``?``, ``@``) is left out: the tokenizer would make an empty phrase of it.

Filters (project, scope, type) are phrases on the ``facets`` column (see schema.sql), joined by
AND, so the index alone answers a filtered search and its count; user words are confined to the
title and content columns, so a word can never match a facet.
"""

from __future__ import annotations

from dataclasses import dataclass

from vaultgate.memory.inputs import searchable

MAX_TERMS = 32  # words searched for; the response says when more were given and left out


@dataclass(frozen=True, slots=True)
class TextQuery:
    terms: tuple[str, ...]  # distinct words, first occurrence kept, case-insensitively
    ignored: int  # words after the first MAX_TERMS
    blank: bool  # nothing but whitespace was given

    @property
    def has_words(self) -> bool:
        return bool(self.terms)


def parse_query(text: str) -> TextQuery:
    words: dict[str, str] = {}
    ignored = 0
    for word in searchable(text).split():
        if not any(ch.isalnum() for ch in word):
            continue
        key = word.casefold()
        if key in words:
            continue
        if len(words) == MAX_TERMS:
            ignored += 1
            continue
        words[key] = word
    return TextQuery(terms=tuple(words.values()), ignored=ignored, blank=not text.strip())


def quote(term: str) -> str:
    """One FTS5 string: the term between double quotes, each inner quote doubled."""
    return '"' + term.replace('"', '""') + '"'


def facet(prefix: str, value: str) -> str:
    """The token schema.sql writes for a facet: prefix + hex of the UTF-8 bytes."""
    return prefix + value.encode("utf-8").hex()


def match_expression(
    terms: tuple[str, ...],
    *,
    any_term: bool = False,
    project: str | None = None,
    scope: str | None = None,
    type: str | None = None,
) -> str:
    """The MATCH expression for ``terms`` (all of them, or any with ``any_term``) and filters.

    ``terms`` must not be empty: a search without words is a listing, not an FTS query.
    """
    if not terms:
        raise ValueError("an FTS expression needs at least one term")
    joiner = " OR " if any_term else " AND "
    parts = ["{title content} : (" + joiner.join(quote(t) for t in terms) + ")"]
    for prefix, value in (("p", project), ("s", scope), ("t", type)):
        if value is not None:
            parts.append("facets : " + quote(facet(prefix, value)))
    return " AND ".join(parts)
