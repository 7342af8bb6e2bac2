"""Which changes a change description is about: shared words, nothing cleverer.

The rule (docs/tool-reference.md, sdd_context_check):

1. Words are runs of letters and digits, case-folded; ``-``, ``_`` and punctuation separate
   them, so the slug ``add-dispatchers`` has the words ``add`` and ``dispatchers``.
2. A plural ``s`` is dropped (``dispatchers`` → ``dispatcher``, ``policies`` → ``policy``).
3. One-letter words, common English words, the stage names and the verbs almost every change
   begins with (``add``, ``fix``, ``update``, ...) are left out: they would match everything.
4. A change matches when the description shares at least one word with the change's slug or
   with the title (first heading) of one of its artifacts. Changes sharing more words come
   first; at equal counts, more words shared with the slug, then project and slug order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")

_WORD = re.compile(r"[^\W_]+")
_COMMON = """
    a about above after again all also am an and any are as at be been before being below
    between both but by can could did do does doing down during each few for from further had
    has have having he her here hers him his how i if in into is it its itself just me more
    most my no nor not now of off on once only or other our ours out over own same she should
    so some such than that the their theirs them then there these they this those through to
    too under until up very was we were what when where which while who whom why will with
    would you your yours
"""
_SDD_WORDS = "proposal spec specs design tasks task verify verification delta change changes"
_CHANGE_VERBS = """
    add adds added adding fix fixes fixed update updates updated new make use using support
    improve implement allow remove refactor
"""
STOPWORDS = frozenset(f"{_COMMON} {_SDD_WORDS} {_CHANGE_VERBS}".split())


def words(text: str) -> frozenset[str]:
    """The distinct matching words of ``text`` (see the module docstring)."""
    found = set()
    for raw in _WORD.findall(text.casefold()):
        word = _singular(raw)
        if len(word) > 1 and raw not in STOPWORDS and word not in STOPWORDS:
            found.add(word)
    return frozenset(found)


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@dataclass(frozen=True, slots=True)
class Match(Generic[T]):
    """A change (``item``) and the description words it shares, from its slug and its titles."""

    item: T
    slug_words: tuple[str, ...]
    title_words: tuple[str, ...]  # shared with an artifact title but not with the slug

    @property
    def shared(self) -> tuple[str, ...]:
        return self.slug_words + self.title_words


def match(
    description: frozenset[str], slug: str, titles: Iterable[str], item: T
) -> Match[T] | None:
    """``item`` with the words ``description`` shares with ``slug`` and ``titles``, or None."""
    from_slug = description & words(slug)
    from_titles = (description & words(" ".join(titles))) - from_slug
    if not from_slug and not from_titles:
        return None
    return Match(item, tuple(sorted(from_slug)), tuple(sorted(from_titles)))


def rank(matches: Iterable[Match[T]]) -> list[Match[T]]:
    """Best first: more shared words, then more from the slug; ties keep the given order."""
    return sorted(matches, key=lambda m: (-len(m.shared), -len(m.slug_words)))


def search_words(text: str) -> str:
    """``text``'s words for a memory search: as written (the memory index does not stem), the
    common ones left out unless nothing else is left."""
    found = _WORD.findall(text.casefold())
    kept = [word for word in found if len(word) > 1 and word not in STOPWORDS]
    return " ".join(dict.fromkeys(kept or found))
