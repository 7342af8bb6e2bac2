"""Vault-wide questions as the plugin answers them: JsonLogic over every note, and tags.

Both walk every markdown note, as the plugin does on each request; a note that cannot be
read is left out. The simple search lives in ``simple_search.py``, Dataview's DQL (3.x) in
``dql.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from vaultgate.engine import jsonlogic
from vaultgate.engine.behaviour import Behaviour
from vaultgate.engine.errors import InvalidQuery
from vaultgate.engine.representations import note_json
from vaultgate.engine.tags import count_tags, counted_tags
from vaultgate.engine.vault import Vault


def jsonlogic_search(vault: Vault, behaviour: Behaviour, query: Any) -> list[dict[str, Any]]:
    """``{"filename", "result"}`` for each note whose JSON the query finds truthy.

    Per note it does what the plugin version does: before 4.0.3 every note's content is
    read; 4.0.0-4.0.2 also scan every note's links for its backlinks; 4.0.3+ build the
    backlinks index once and read content only when the query mentions "content". A query
    that fails on a note is InvalidQuery naming that note.
    """
    include_content = not behaviour.lazy_content or names_content(query)
    backlinks = vault.backlinks_index() if behaviour.backlinks_index else None

    def notes() -> Iterator[tuple[str, Any]]:
        for path in vault.markdown_files():
            try:
                yield (
                    path,
                    note_json(
                        vault, path, behaviour, include_content=include_content, backlinks=backlinks
                    ),
                )
            except OSError:
                continue

    return evaluate_notes(query, notes())


def names_content(query: Any) -> bool:
    """Does ``query`` mention "content"? 4.0.3+ read a note's text only then."""
    return '"content"' in json.dumps(query, ensure_ascii=False, separators=(",", ":"))


@jsonlogic.regex_budget()
def evaluate_notes(query: Any, notes: Iterable[tuple[str, Any]]) -> list[dict[str, Any]]:
    """``{"filename", "result"}`` for each ``(path, note JSON)`` the query finds truthy, as
    the plugin answers (json-logic-js, then its filter); InvalidQuery names the note it
    failed on. The notes share one budget of pattern matching (jsonlogic.regex_budget)."""
    results: list[dict[str, Any]] = []
    for path, data in notes:
        try:
            result = jsonlogic.apply(query, data)
        except jsonlogic.JsonLogicError as exc:
            raise InvalidQuery(str(exc), path=path) from exc
        if jsonlogic.is_sane_truthy(result):
            results.append({"filename": path, "result": result})
    return results


def tag_counts(vault: Vault) -> list[tuple[str, int]]:
    """``/tags/``: every tag occurrence of every note, each also counted for its parents
    (``engine/tags.py``)."""

    def occurrences() -> Iterator[list[str]]:
        for path in vault.markdown_files():
            try:
                meta = vault.meta(path)
            except OSError:
                continue
            yield counted_tags(meta.frontmatter, meta.inline_tags)

    return count_tags(occurrences())
