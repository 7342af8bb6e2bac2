"""Ranking by meaning and fusing rankings: pure functions over numbers and names.

Brute force: a query's cosine with every note is one matrix-vector product (about 1 ms for
20,000 notes of 256 values), so no approximate index is needed at a vault's scale.
Reciprocal rank fusion (Cormack et al., 2009) adds ``weight / (k + rank)`` from each ranking a
name is in; it needs no score calibration between BM25 and cosine. k = 60 and equal weights are
the paper's defaults; a caller may weigh one ranking more and look less deep (a smaller k).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

RRF_K = 60

Key = TypeVar("Key", bound=Hashable)


def cosine_top(
    query: npt.NDArray[np.float32], matrix: npt.NDArray[np.floating], k: int
) -> list[tuple[int, float]]:
    """The ``k`` rows of ``matrix`` (unit vectors, float16 or float32) most similar to the
    unit vector ``query``, best first: ``(row, cosine)``; ties keep row order."""
    import numpy as np

    rows = matrix.shape[0]
    if rows == 0 or k <= 0:
        return []
    scores = matrix.astype(np.float32, copy=False) @ query.astype(np.float32, copy=False)
    top = np.argpartition(-scores, k - 1)[:k] if k < rows else np.arange(rows)
    ordered = top[np.lexsort((top, -scores[top]))]
    return [(int(row), float(scores[row])) for row in ordered]


def fuse(
    rankings: Sequence[Sequence[Key]],
    k: float = RRF_K,
    weights: Sequence[float] | None = None,
) -> list[tuple[Key, float]]:
    """Reciprocal rank fusion of ``rankings`` (each best first): every key with the sum of
    ``weight / (k + rank)`` (rank from 1; each ranking's weight 1 unless ``weights`` says)
    over the rankings holding it, best first; ties keep the order of first appearance."""
    if weights is not None and len(weights) != len(rankings):
        raise ValueError(f"{len(rankings)} rankings but {len(weights)} weights")
    scores: dict[Key, float] = {}
    for n, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[n]
        for rank, key in enumerate(ranking, 1):
            scores[key] = scores.get(key, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda item: -item[1])
