"""The two listing layouts: grouping by folder, and budgeting a page for both alike."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vaultgate.paging import compact_json, page_fitting
from vaultgate.vault.listing import group_by_folder, listing_costs, split_folder


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        pytest.param("Welcome.md", ("", "Welcome.md"), id="root-file"),
        pytest.param("Daily/", ("", "Daily/"), id="root-folder-entry"),
        pytest.param("Projects/Acme/a.md", ("Projects/Acme/", "a.md"), id="nested-file"),
        pytest.param("Projects/Acme/", ("Projects/", "Acme/"), id="folder-entry-in-parent"),
        pytest.param("日本/🚀 plan.md", ("日本/", "🚀 plan.md"), id="unicode"),
    ],
)
def test_a_path_splits_into_its_folder_and_its_name(path: str, expected: tuple[str, str]) -> None:
    assert split_folder(path) == expected


def test_files_group_under_their_folders_in_the_order_the_page_meets_them() -> None:
    page = ["Projects/0.md", "Projects/Acme/x.md", "Projects/b.md", "Welcome.md", "Daily/"]

    assert group_by_folder(page) == {
        "Projects/": ["0.md", "b.md"],
        "Projects/Acme/": ["x.md"],
        "": ["Welcome.md", "Daily/"],
    }


segments = st.sampled_from(["A", "Acme", "日本", "🚀 x", "a b", "Z"])
paths = st.lists(
    st.tuples(st.lists(segments, max_size=3), segments, st.booleans()).map(
        lambda parts: "/".join([*parts[0], parts[1]]) + ("/" if parts[2] else ".md")
    ),
    unique=True,
).map(sorted)


@given(paths=paths)
def test_a_tree_holds_every_path_of_the_page_once(paths: list[str]) -> None:
    tree = group_by_folder(paths)

    rebuilt = [folder + name for folder, names in tree.items() for name in names]
    assert sorted(rebuilt) == paths
    for path in paths:
        assert "".join(split_folder(path)) == path


@given(paths=paths, budget=st.integers(min_value=0, max_value=400))
def test_a_budgeted_page_fits_in_both_layouts(paths: list[str], budget: int) -> None:
    page = page_fitting(paths, limit=1000, offset=0, budget=budget, render_page=listing_costs)
    items = list(page.items)

    if len(items) > 1:  # a single item is kept even when it alone is over the budget
        # The brackets around the page are the only characters the costs do not count.
        assert len(compact_json(items)) <= budget + 1
        assert len(compact_json(group_by_folder(items))) <= budget + 1
    if page.has_more:  # the cut is where the next item would overflow one of the layouts
        cost = sum(len(c) + 1 for c in listing_costs(paths[: len(items) + 1]))
        assert cost > budget


def counted(page: list[str]) -> int:
    """What the budget counts for a page: each cost and its separator, and the brackets."""
    return sum(len(cost) + 1 for cost in listing_costs(page)) + 1


def test_the_tree_costs_more_only_for_the_first_file_of_a_folder() -> None:
    lonely = ["Projects/Acme/a.md", "People/Ann/b.md"]
    crowded = ["Projects/Acme/a.md", "Projects/Acme/b.md", "Projects/Acme/c.md"]

    assert len(compact_json(group_by_folder(lonely))) == len(compact_json(lonely)) + 2 * 5
    assert counted(lonely) == len(compact_json(group_by_folder(lonely)))
    assert len(compact_json(group_by_folder(crowded))) < len(compact_json(crowded))
    assert counted(crowded) == len(compact_json(crowded)) + 5
