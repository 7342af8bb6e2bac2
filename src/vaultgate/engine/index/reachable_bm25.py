"""bm25 over the notes a search may reach, not over every note of the index (issue 36).

FTS5's ``bm25()`` weighs each word by how many notes of the whole table hold it, and each
note's length against the average of the whole table, so a note the caller may not see (tagged
``mcp-hidden``, denied by the policy) would move the order and the scores of the notes it may:
enough to tell, by searching, how often a word occurs in notes it never sees. Here the same
formula (FTS5's: k1 = 1.2, b = 0.75, the same idf and its floor) is computed with the
statistics of the reachable notes alone: their count, their average length, and how many of
them hold each phrase.

What FTS5 does not give is how often a phrase occurs in a note; it is read back from FTS5's own
score for that phrase alone, which is a known function of it (``term_frequency``): no second
tokenizer that could disagree with the table's. Each note's length is in the table's
``docsize`` rows (one varint per column).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

K1 = 1.2  # FTS5's bm25 defaults
B = 0.75
IDF_FLOOR = 1e-6  # FTS5's idf for a phrase held by half of the notes or more


def varints(blob: bytes) -> list[int]:
    """The SQLite varints in ``blob`` (FTS5's docsize and averages records)."""
    values: list[int] = []
    at = 0
    while at < len(blob):
        value = 0
        for length in range(9):
            byte = blob[at]
            at += 1
            if length == 8:  # the ninth byte carries 8 bits
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        values.append(value)
    return values


def idf(notes: int, holding: int) -> float:
    """FTS5's inverse document frequency of a phrase ``holding`` of ``notes`` notes hold."""
    value = math.log((notes - holding + 0.5) / (holding + 0.5)) if notes else 0.0
    return value if value > 0 else IDF_FLOOR


def _length_factor(size: int, average: float) -> float:
    return K1 * (1 - B + B * size / average) if average > 0 else K1


def term_frequency(score: float, phrase_idf: float, size: int, average: float) -> int:
    """How often the phrase occurs in a note whose one-phrase FTS5 ``bm25()`` is ``score``,
    given the idf and the average length FTS5 used (both over the whole table)."""
    share = -score / phrase_idf  # tf (k1 + 1) / (tf + K)
    if share <= 0:
        return 0
    if share >= K1 + 1:  # only an unbounded tf reaches it
        share = math.nextafter(K1 + 1, 0)
    return max(1, round(share * _length_factor(size, average) / (K1 + 1 - share)))


def ranked(
    frequencies: Iterable[Mapping[int, int]],
    sizes: Mapping[int, int],
) -> list[tuple[int, float]]:
    """The notes of ``sizes`` (row id → length: the reachable notes, all of them) holding any
    phrase, best first, with their bm25 (negative, lower is better, as FTS5's), from each
    phrase's frequencies by row id (rows outside ``sizes`` are left out)."""
    notes = len(sizes)
    average = sum(sizes.values()) / notes if notes else 0.0
    scores: dict[int, float] = {}
    for by_row in frequencies:
        held = {row: tf for row, tf in by_row.items() if row in sizes and tf > 0}
        weight = idf(notes, len(held))
        for row, tf in held.items():
            part = weight * tf * (K1 + 1) / (tf + _length_factor(sizes[row], average))
            scores[row] = scores.get(row, 0.0) - part
    return sorted(scores.items(), key=lambda item: (item[1], item[0]))
