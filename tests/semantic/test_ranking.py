"""Cosine top-k and reciprocal rank fusion, on numbers small enough to check by hand."""

from __future__ import annotations

import pytest

from vaultgate.semantic.ranking import RRF_K, cosine_top, fuse

np = pytest.importorskip("numpy")


def unit(*values: float) -> object:
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_cosine_top_ranks_rows_by_similarity_best_first() -> None:
    matrix = np.stack([unit(1, 0), unit(0, 1), unit(1, 1), unit(-1, 0)]).astype(np.float16)

    top = cosine_top(unit(1, 0.1), matrix, 3)

    assert [row for row, _ in top] == [0, 2, 1]
    assert top[0][1] == pytest.approx(0.995, abs=1e-2)


def test_cosine_top_of_more_rows_than_there_are_gives_them_all() -> None:
    matrix = np.stack([unit(0, 1), unit(1, 0)])

    assert [row for row, _ in cosine_top(unit(1, 0), matrix, 10)] == [1, 0]
    assert cosine_top(unit(1, 0), matrix[:0], 10) == []


def test_ties_keep_row_order() -> None:
    matrix = np.stack([unit(1, 0)] * 5)

    assert [row for row, _ in cosine_top(unit(1, 0), matrix, 3)] == [0, 1, 2]


def test_fusion_adds_one_over_k_plus_rank_from_each_ranking() -> None:
    fused = dict(fuse([["a", "b", "c"], ["c", "a"]]))

    assert fused["a"] == pytest.approx(1 / (RRF_K + 1) + 1 / (RRF_K + 2))
    assert fused["c"] == pytest.approx(1 / (RRF_K + 3) + 1 / (RRF_K + 1))
    assert fused["b"] == pytest.approx(1 / (RRF_K + 2))
    assert [key for key, _ in fuse([["a", "b", "c"], ["c", "a"]])] == ["a", "c", "b"]


def test_a_name_in_one_ranking_only_still_counts() -> None:
    assert fuse([[], ["x"]]) == [("x", pytest.approx(1 / (RRF_K + 1)))]


def test_weights_scale_each_ranking_s_share() -> None:
    fused = dict(fuse([["a", "b"], ["b", "a"]], k=5, weights=[1.0, 1.5]))

    assert fused["a"] == pytest.approx(1 / 6 + 1.5 / 7)
    assert fused["b"] == pytest.approx(1 / 7 + 1.5 / 6)
    assert [key for key, _ in fuse([["a", "b"], ["b", "a"]], k=5, weights=[1.0, 1.5])] == [
        "b",
        "a",
    ]


def test_a_weight_for_each_ranking_or_an_error() -> None:
    with pytest.raises(ValueError, match="2 rankings but 1 weights"):
        fuse([["a"], ["b"]], weights=[2.0])
