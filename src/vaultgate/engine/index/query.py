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
