"""The FTS5 query that narrows a simple search to the notes that may match it.

The simple search's terms are the query's whitespace-separated words; a note matches when
each occurs, ignoring case, in ``basename + "\\n\\n" + content``. The index holds that text
folded (``fold.py``) in a trigram table, where a quoted phrase of three or more characters
finds exactly the notes whose folded text contains it. So each term gives the phrases of its
folded form, and a note must contain all of them (``AND``).

Dropping a phrase only widens the result, and some must be dropped: a trigram table cannot
look up fewer than three characters, so a term shorter than that narrows nothing, and a term
is cut around the characters no note text can hold (NUL, which FTS5's query parser would end
the query at, and a lone UTF-16 surrogate, which cannot be sent to SQLite), each piece of
three characters or more still required. A query none of whose terms gives a phrase cannot be
narrowed (``None``).
"""

from __future__ import annotations

import re

from vaultgate.engine.index.fold import fold

MIN_PHRASE = 3  # the trigram tokenizer's unit
_UNSEARCHABLE = re.compile("[\x00\ud800-\udfff]")


def match_expression(query: str) -> str | None:
    """The FTS5 MATCH expression for ``query``'s terms, or None when no term is long enough."""
    phrases: dict[str, None] = {}
    for term in query.split():
        for piece in _UNSEARCHABLE.split(fold(term)):
            if len(piece) >= MIN_PHRASE:
                phrases['"' + piece.replace('"', '""') + '"'] = None
    return " AND ".join(phrases) or None


# Words too common to say what a note is about: as an OR-ed phrase each would match nearly
# every note, and ranking them costs more than they tell (English; other languages' common
# words weigh little in bm25 anyway).
STOPWORDS = frozenset(
    {
        "the",
        "and",
        "for",
        "are",
        "but",
        "not",
        "you",
        "all",
        "any",
        "can",
        "had",
        "her",
        "was",
        "one",
        "our",
        "out",
        "has",
        "him",
        "his",
        "how",
        "its",
        "may",
        "new",
        "now",
        "old",
        "see",
        "two",
        "who",
        "did",
        "get",
        "let",
        "put",
        "say",
        "she",
        "too",
        "use",
        "that",
        "with",
        "have",
        "this",
        "will",
        "your",
        "from",
        "they",
        "been",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "there",
        "their",
        "them",
        "then",
        "than",
        "into",
        "some",
        "could",
        "would",
        "should",
        "about",
        "does",
        "doing",
        "find",
        "want",
        "need",
    }
)


def any_word_expression(query: str, *, prefixes: bool = False) -> str | None:
    """An FTS5 MATCH expression for the notes holding any of ``query``'s words (three
    characters or more, common English words left out), for ranking by bm25; with
    ``prefixes``, each as the start of a word (for the word table); None when no word is
    left."""
    return " OR ".join(any_word_phrases(query, prefixes=prefixes)) or None


def any_word_phrases(query: str, *, prefixes: bool = False) -> list[str]:
    """The phrases ``any_word_expression`` OR-s, each an FTS5 MATCH expression alone."""
    phrases: dict[str, None] = {}
    for term in query.split():
        for piece in _UNSEARCHABLE.split(fold(term.strip(_PUNCTUATION))):
            if len(piece) >= MIN_PHRASE and piece not in STOPWORDS:
                # a prefix of one or two letters ('c++' is 'c*') would merge a posting list
                # of nearly every word
                star = "*" if prefixes and _LONG_LAST_WORD.search(piece) else ""
                phrases['"' + piece.replace('"', '""') + '"' + star] = None
    return list(phrases)


_LONG_LAST_WORD = re.compile(rf"\w{{{MIN_PHRASE},}}$")
_PUNCTUATION = "\"'.,;:!?()[]{}<>«»“”‘’`*_~"

# Scripts written without spaces between words, and Hangul (whose words carry their particles):
# the word table holds a run of them as one token, so only trigrams find a word inside it.
_UNSPACED = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1100-\u11ff\u1780-\u17ff\u2e80-\ua4cf\uac00-\ud7af"
    "\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003ffff]"
)


def ranks_by_whole_words(query: str) -> bool:
    """Whether ``query``'s words may be ranked in the word table (``notes_words``, one token a
    word): False when one is in a script written without spaces, which only the trigram
    table finds inside a longer run."""
    return _UNSPACED.search(query) is None
