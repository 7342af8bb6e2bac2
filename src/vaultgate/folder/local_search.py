"""A search of the vault folder's own index: by words, by meaning, or both fused.

``hybrid`` fuses the bm25 ranking of the query's words (OR-ed: a note need not hold them all)
and the cosine ranking of the notes' vectors by reciprocal rank fusion (``semantic/ranking.py``)
with HYBRID_K and HYBRID_WEIGHTS; ``keyword`` and ``semantic`` give one ranking alone. Each
ranking is RANK_DEPTH notes deep and holds only the notes the caller wants (the access policy,
hidden notes, folders), so the fusion never sees another. Each row: ``{"path", "score",
"text"}``, the text the opening of the note's body.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from vaultgate import markdown
from vaultgate.backend import LocalMode, LocalResults
from vaultgate.engine.index import VaultIndex
from vaultgate.folder.meaning import MeaningIndex, Rankings
from vaultgate.semantic.ranking import fuse
from vaultgate.vault.search import SMART_TEXT_LIMIT, significant, trim_text

RANK_DEPTH = 200  # notes per ranking before fusion: far more than a page shows
# Chosen on the tuning half of bench/semantic_eval.py's questions, never on the half it reports
# (docs/design.md): meaning weighs half as much again as words (it ranks the answer higher
# more often), and a small k lets each ranking's first few notes lead.
HYBRID_K = 5
HYBRID_WEIGHTS = (1.0, 1.5)  # (words, meaning)
OPENING_BYTES = 8_192  # read of a note for its row's text


def answer(
    rankings: Rankings, mode: LocalMode, root: str, limit: int, notice: str | None
) -> LocalResults:
    """The first ``limit`` rows of ``mode``'s ranking."""
    scored: list[tuple[str, float]]
    match mode:
        case "keyword":
            scored = [(path, -rank) for path, rank in rankings.words]  # bm25: lower is better
        case "semantic":
            scored = rankings.meaning
        case "hybrid":
            scored = fuse(
                [[path for path, _ in rankings.words], [path for path, _ in rankings.meaning]],
                HYBRID_K,
                HYBRID_WEIGHTS,
            )
    if mode != "keyword" and rankings.embedded < rankings.notes:
        building = (
            f"Meaning is known for {rankings.embedded:,} of {rankings.notes:,} notes so far "
            "(vectors are being built in the background); ask again later for the rest."
        )
        notice = building if notice is None else f"{notice} {building}"
    # keyword rows show no score (their order is the ranking, bm25 over the reachable notes:
    # engine/index/reachable_bm25.py); fused ranks and cosines depend on the note alone
    rows = [
        {"path": path, "text": _opening(root, path)}
        if mode == "keyword"
        else {"path": path, "score": significant(score), "text": _opening(root, path)}
        for path, score in scored[:limit]
    ]
    return LocalResults(rows, notice)


def rank(
    meaning: MeaningIndex | None,
    index: VaultIndex,
    query: str,
    wanted: Callable[[str], bool],
    depth: int,
    mode: LocalMode = "hybrid",
) -> Rankings | None:
    """The rankings ``mode`` fuses or shows (by words alone when there is no embedder)."""
    if meaning is not None:
        return meaning.rank(index, query, wanted, depth, by_words=mode != "semantic")
    words = index.ranked_by_words(query, wanted, depth)
    return None if words is None else Rankings(words, [], 0, 0)


def _opening(root: str, path: str) -> str:
    """The start of the note's text after its frontmatter, whitespace collapsed, cut to
    whole words ('' when it cannot be read)."""
    try:
        with open(os.path.join(root, *path.split("/")), "rb") as handle:
            text = handle.read(OPENING_BYTES).decode("utf-8", "replace")
    except (OSError, ValueError):
        return ""
    return trim_text(text[markdown.parse_frontmatter(text).end :], SMART_TEXT_LIMIT)
