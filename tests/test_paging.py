"""Property tests for paging: walking every page yields every item and character exactly once."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vaultgate.errors import InvalidArgument
from vaultgate.paging import (
    TRUNCATION_NOTICE,
    Page,
    Window,
    check_limit,
    compact_json,
    estimate_tokens,
    fair_shares,
    fit_count,
    navigation_hint,
    page_fitting,
    page_items,
    page_within_budget,
    shorten_to_fit,
    window_text,
)

NOTICE_LINE = re.compile(r"Content truncated\. Call with startIndex of (\d+) to get more\.")

# Pieces that tend to break character counting: astral emoji, emoji sequences joined by ZWJ or
# carrying a skin-tone modifier, regional-indicator flags, combining accents, CRLF line ends.
TRICKY_PIECES = [
    "😀",
    "👍🏽",
    "👩\u200d💻",
    "🇫🇷",
    "e\u0301",
    "a\u0308\u0304",
    "\r\n",
    "\n",
    "\r",
    "\u2028",
    "漢字",
    "𝔘𝔫𝔦",
]

texts = st.lists(
    st.one_of(
        st.text(max_size=20),
        st.sampled_from(TRICKY_PIECES),
        st.text(st.characters(min_codepoint=0x10000, exclude_categories=["Cs"]), max_size=5),
    ),
    max_size=30,
).map("".join)


def walk_windows(text: str, max_length: int) -> list[Window]:
    """Follow nextIndex from 0 until hasMore is false; fail instead of looping forever."""
    windows = [window_text(text, start_index=0, max_length=max_length)]
    while windows[-1].has_more:
        assert len(windows) <= len(text), "window paging stalled"
        next_index = windows[-1].metadata()["nextIndex"]
        windows.append(window_text(text, start_index=next_index, max_length=max_length))
    return windows


def walk_pages(items: list[int], limit: int) -> list[Page[int]]:
    pages = [page_items(items, limit=limit, offset=0)]
    while pages[-1].has_more:
        assert len(pages) <= len(items), "list paging stalled"
        pages.append(page_items(items, limit=limit, offset=pages[-1].next_offset))
    return pages


# --- page_items ---------------------------------------------------------------------------


@given(items=st.lists(st.integers()), limit=st.integers(min_value=1, max_value=50))
def test_walking_every_list_page_returns_every_item_once_in_order(
    items: list[int], limit: int
) -> None:
    pages = walk_pages(items, limit)

    assert [item for page in pages for item in page.items] == items
    assert len(pages) == max(1, math.ceil(len(items) / limit))
    for page in pages[:-1]:
        assert len(page.items) == limit
        assert page.has_more
    assert not pages[-1].has_more
    for page in pages:
        assert page.total == len(items)
        assert page.limit == limit


@given(items=st.lists(st.integers(), min_size=1), extra=st.integers(min_value=0, max_value=5))
def test_an_offset_at_or_past_the_end_is_refused_with_the_item_count(
    items: list[int], extra: int
) -> None:
    with pytest.raises(InvalidArgument, match=f"there are {len(items)} items"):
        page_items(items, limit=10, offset=len(items) + extra)


def test_offset_zero_on_an_empty_list_is_an_empty_last_page() -> None:
    page = page_items([], limit=10, offset=0)

    assert list(page.items) == []
    assert not page.has_more
    assert json.loads(page.envelope("files")) == {
        "files": [],
        "pagination": {"total": 0, "offset": 0, "limit": 10, "hasMore": False},
    }


def test_a_negative_offset_is_refused() -> None:
    with pytest.raises(InvalidArgument, match="offset must be 0 or more"):
        page_items([1, 2, 3], limit=10, offset=-1)


@pytest.mark.parametrize("limit", [0, -1])
def test_page_items_refuses_a_limit_that_could_never_advance(limit: int) -> None:
    with pytest.raises(InvalidArgument, match="limit"):
        page_items([1, 2, 3], limit=limit, offset=0)


# --- page_within_budget -------------------------------------------------------------------


def render_sized(item: tuple[int, int]) -> str:
    """Items are (identity, rendered size) so sizes are random and items stay distinguishable."""
    return "x" * item[1]


sized_items = st.lists(st.integers(min_value=0, max_value=120)).map(
    lambda sizes: list(enumerate(sizes))
)


@given(
    items=sized_items,
    limit=st.integers(min_value=1, max_value=20),
    budget=st.integers(min_value=0, max_value=200),
)
def test_walking_budgeted_pages_returns_every_item_once_and_never_stalls(
    items: list[tuple[int, int]], limit: int, budget: int
) -> None:
    pages = [page_within_budget(items, limit=limit, offset=0, budget=budget, render=render_sized)]
    while pages[-1].has_more:
        assert len(pages) <= len(items), "budgeted paging stalled"
        pages.append(
            page_within_budget(
                items,
                limit=limit,
                offset=pages[-1].next_offset,
                budget=budget,
                render=render_sized,
            )
        )

    assert [item for page in pages for item in page.items] == items
    for page in pages:
        cost = sum(len(render_sized(item)) + 1 for item in page.items)
        assert 1 <= len(page.items) <= limit or not items
        # Over budget only when a single oversized item had to be sent on its own.
        assert cost <= budget or len(page.items) == 1
        if page.has_more and len(page.items) < limit:
            following = items[page.next_offset]
            # The budget, not the limit, cut the page: the next item really did not fit.
            assert cost + len(render_sized(following)) + 1 > budget


@given(size=st.integers(min_value=1, max_value=500), budget=st.integers(min_value=0, max_value=10))
def test_an_item_larger_than_the_budget_is_sent_alone(size: int, budget: int) -> None:
    items = [(0, size + budget), (1, 1)]

    page = page_within_budget(items, limit=10, offset=0, budget=budget, render=render_sized)

    assert list(page.items) == [items[0]]
    assert page.has_more
    assert page.next_offset == 1


def test_page_fitting_measures_the_page_in_order_so_an_item_may_cost_by_its_neighbours() -> None:
    # A repeated letter costs one character, a new one three: what a grouped rendering does.
    def costs(page: Sequence[str]) -> Iterator[str]:
        seen: set[str] = set()
        for item in page:
            yield "x" if item in seen else "xxx"
            seen.add(item)

    items = ["a", "a", "a", "b", "b", "c"]

    page = page_fitting(items, limit=10, offset=1, budget=10, render_page=costs)

    assert list(page.items) == ["a", "a", "b"]  # 4 + 2 + 4: the next "b" (2) would overflow
    assert page.next_offset == 4


def test_an_envelope_keeps_a_mapping_as_an_object() -> None:
    page = page_items(["a/x", "a/y", "b"], limit=2, offset=0)

    rendered = page.envelope("folders", {"a/": ["x", "y"]})

    assert json.loads(rendered) == {
        "folders": {"a/": ["x", "y"]},
        "pagination": {"total": 3, "offset": 0, "limit": 2, "hasMore": True, "nextOffset": 2},
    }


# --- window_text --------------------------------------------------------------------------


@given(text=texts, max_length=st.integers(min_value=1, max_value=40))
def test_concatenating_every_window_reproduces_the_text_exactly(text: str, max_length: int) -> None:
    windows = walk_windows(text, max_length)

    assert "".join(window.text for window in windows) == text
    assert len(windows) == max(1, math.ceil(len(text) / max_length))
    for window in windows[:-1]:
        assert len(window.text) == max_length
    for window in windows:
        # Whole code points only: every window is valid on its own.
        window.text.encode("utf-8")


@given(text=texts, max_length=st.integers(min_value=1, max_value=40))
def test_end_and_next_index_count_only_the_window_never_the_notice(
    text: str, max_length: int
) -> None:
    for window in walk_windows(text, max_length):
        meta = window.metadata()
        assert meta["endIndex"] == meta["startIndex"] + len(window.text)
        assert text[meta["startIndex"] : meta["endIndex"]] == window.text
        assert meta["totalLength"] == len(text)
        if window.has_more:
            assert meta["nextIndex"] == meta["endIndex"]
            assert len(window.body_with_notice()) > len(window.text)
        else:
            assert meta["nextIndex"] is None


@given(text=texts, max_length=st.integers(min_value=1, max_value=40))
def test_only_the_last_window_has_no_more_and_no_notice(text: str, max_length: int) -> None:
    windows = walk_windows(text, max_length)
    last = windows[-1]

    assert all(window.has_more for window in windows[:-1])
    assert last.has_more is False
    assert last.metadata()["hasMore"] is False
    assert last.end_index == len(text)
    assert last.body_with_notice() == last.text
    assert last.truncated == (len(windows) > 1)


@given(text=texts, max_length=st.integers(min_value=1, max_value=40))
def test_a_truncated_window_ends_with_the_notice_line_naming_its_end_index(
    text: str, max_length: int
) -> None:
    for window in walk_windows(text, max_length)[:-1]:
        body = window.body_with_notice()
        notice = TRUNCATION_NOTICE.format(next_index=window.end_index)

        assert body.startswith(window.text)
        assert body.removeprefix(window.text) in ("\n" + notice, "\n\n" + notice)
        last_line = body.rsplit("\n", 1)[1]
        match = NOTICE_LINE.fullmatch(last_line)
        assert match is not None
        assert int(match.group(1)) == window.end_index
        assert window.truncated


def test_the_truncation_notice_is_its_own_paragraph() -> None:
    after_text = window_text("abcdef", start_index=0, max_length=3).body_with_notice()
    after_newline = window_text("ab\ncdef", start_index=0, max_length=3).body_with_notice()

    notice = "Content truncated. Call with startIndex of 3 to get more."
    assert after_text == f"abc\n\n{notice}"
    assert after_newline == f"ab\n\n{notice}"


@given(text=texts, extra=st.integers(min_value=0, max_value=10))
def test_a_start_index_at_or_past_the_end_states_the_total_length(text: str, extra: int) -> None:
    start_index = max(1, len(text) + extra)

    with pytest.raises(InvalidArgument) as caught:
        window_text(text, start_index=start_index, max_length=10)

    assert f"totalLength {len(text)}" in str(caught.value)


def test_start_index_zero_on_empty_text_is_an_empty_last_window() -> None:
    window = window_text("", start_index=0, max_length=10)

    assert window.metadata() == {
        "truncated": False,
        "totalLength": 0,
        "startIndex": 0,
        "endIndex": 0,
        "nextIndex": None,
        "hasMore": False,
    }
    assert window.body_with_notice() == ""


def test_a_negative_start_index_is_refused() -> None:
    with pytest.raises(InvalidArgument, match="startIndex must be 0 or more"):
        window_text("abc", start_index=-1, max_length=10)


@pytest.mark.parametrize(
    "max_length",
    [
        pytest.param(0, id="zero"),
        pytest.param(-5, id="negative"),
        pytest.param(101, id="above-maximum"),
    ],
)
def test_a_max_length_outside_its_range_is_refused(max_length: int) -> None:
    with pytest.raises(InvalidArgument, match=r"maxLength must be between 1 and 100"):
        window_text("abc", start_index=0, max_length=max_length, maximum=100)


def test_a_max_length_at_the_maximum_is_accepted() -> None:
    assert window_text("abc", start_index=0, max_length=100, maximum=100).text == "abc"


@given(
    maximum=st.integers(min_value=1, max_value=1000),
    limit=st.integers(min_value=-1000, max_value=2000),
)
def test_check_limit_accepts_exactly_one_to_maximum(maximum: int, limit: int) -> None:
    if 1 <= limit <= maximum:
        check_limit(limit, maximum=maximum)
    else:
        with pytest.raises(InvalidArgument, match=f"limit must be between 1 and {maximum}"):
            check_limit(limit, maximum=maximum)


# --- envelope -----------------------------------------------------------------------------


@given(items=st.lists(st.text(max_size=10)), limit=st.integers(min_value=1, max_value=10))
def test_envelope_is_compact_json_with_next_offset_only_when_more_remains(
    items: list[str], limit: int
) -> None:
    for page in walk_pages(list(range(len(items))), limit):
        rendered = [items[i] for i in page.items]
        envelope = page.envelope("files", rendered)
        body = json.loads(envelope)

        assert envelope == json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        assert body["files"] == rendered
        assert set(body) == {"files", "pagination"}
        # Seed 004's PaginationMetadata on every page, nextOffset while more remains.
        pagination = body["pagination"]
        assert set(pagination) - {"nextOffset"} == {"total", "offset", "limit", "hasMore"}
        assert pagination["total"] == len(items)
        assert (pagination["offset"], pagination["limit"]) == (page.offset, limit)
        assert pagination["hasMore"] is page.has_more
        assert ("nextOffset" in pagination) == page.has_more
        if page.has_more:
            assert pagination["nextOffset"] == page.next_offset


def test_envelope_keeps_unicode_drops_none_extras_and_adds_the_rest() -> None:
    page = page_items(["café", "🎉"], limit=1, offset=0)

    envelope = page.envelope("names", hint="more", skipped=None)

    assert envelope == (
        '{"names":["café"],"pagination":{"total":2,"offset":0,"limit":1,"hasMore":true,'
        '"nextOffset":1},"hint":"more"}'
    )


def test_a_page_past_the_end_and_a_later_page_tell_the_total() -> None:
    past = Page(items=[], total=3, offset=5, limit=2)
    later = page_items(["a", "b", "c"], limit=1, offset=1)

    assert json.loads(past.envelope("files"))["pagination"] == {
        "total": 3,
        "offset": 5,
        "limit": 2,
        "hasMore": False,
    }
    assert json.loads(later.envelope("files"))["pagination"] == {
        "total": 3,
        "offset": 1,
        "limit": 1,
        "hasMore": True,
        "nextOffset": 2,
    }


def test_a_source_that_counts_nothing_leaves_the_total_out_and_still_says_has_more() -> None:
    page = Page(items=["a"], total=2, offset=0, limit=1, total_known=False)

    assert json.loads(page.envelope("results"))["pagination"] == {
        "offset": 0,
        "limit": 1,
        "hasMore": True,
        "nextOffset": 1,
    }


@given(
    lengths=st.lists(st.integers(min_value=0, max_value=300), max_size=30),
    budget=st.integers(min_value=50, max_value=5_000),
)
def test_shorten_to_fit_keeps_every_item_and_shortens_until_it_fits_or_reaches_the_floor(
    lengths: list[int], budget: int
) -> None:
    def render(level: int) -> list[str]:
        return ["x" * min(length, level) for length in lengths]

    level, rendered = shorten_to_fit(render, start=300, floor=20, budget=budget)

    assert len(rendered) == len(lengths)  # never fewer items
    assert 20 <= level <= 300
    size = sum(len(text) + 1 for text in rendered)
    assert size <= budget or level == 20
    if level < 300:  # it only shortened because the whole page was over its budget
        assert sum(len(text) + 1 for text in render(300)) > budget


def test_compact_json_has_no_spaces_and_keeps_unicode() -> None:
    assert compact_json({"a": [1, 2], "b": "é 🎉"}) == '{"a":[1,2],"b":"é 🎉"}'


# --- hints and tokens ---------------------------------------------------------------------


@given(
    showing=st.integers(min_value=0, max_value=1000),
    total=st.integers(min_value=0, max_value=1000),
)
def test_navigation_hint_is_empty_only_when_everything_is_shown(showing: int, total: int) -> None:
    hint = navigation_hint(showing, total, "files; pass offset to see more.")

    if showing >= total:
        assert hint == ""
    else:
        assert hint == f"Showing {showing} of {total} files; pass offset to see more."


@given(text=texts)
def test_estimate_tokens_is_length_over_four_rounded_up(text: str) -> None:
    assert estimate_tokens(text) == (len(text) + 3) // 4


@pytest.mark.parametrize(
    ("text", "tokens"),
    [("", 0), ("a", 1), ("abcd", 1), ("abcde", 2), ("😀😀😀😀😀", 2)],
)
def test_estimate_tokens_examples(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens


# --- fit_count ----------------------------------------------------------------------------


def fitting_prefix(rendered: list[str], budget: int) -> int:
    """The longest prefix whose summed len+1 fits in ``budget``, computed independently."""
    best = 0
    for count in range(len(rendered) + 1):
        if sum(len(text) + 1 for text in rendered[:count]) <= budget:
            best = count
    return best


@given(
    rendered=st.lists(st.text(max_size=30)),
    budget=st.integers(min_value=-5, max_value=200),
)
def test_fit_count_keeps_the_longest_fitting_prefix_and_at_least_one(
    rendered: list[str], budget: int
) -> None:
    expected = fitting_prefix(rendered, budget)

    assert fit_count(rendered, budget, at_least_one=False) == expected
    assert fit_count(rendered, budget) == (max(expected, 1) if rendered else 0)


def test_fit_count_counts_the_separator_of_each_item() -> None:
    assert fit_count(["ab", "cd"], 6) == 2
    assert fit_count(["ab", "cd"], 5) == 1
    assert fit_count(["ab", "cd"], 0, at_least_one=False) == 0
    assert fit_count(["ab", "cd"], 0) == 1


def test_fit_count_reads_each_item_once_and_stops_at_the_first_that_does_not_fit() -> None:
    pulled: list[str] = []

    def one_shot() -> Iterator[str]:
        for text in ["aaa", "bbb", "ccc", "ddd"]:
            pulled.append(text)
            yield text

    assert fit_count(one_shot(), 8) == 2
    assert pulled == ["aaa", "bbb", "ccc"]


# --- fair shares of one budget (issue 13: read_many) ------------------------------------------


@given(st.lists(st.integers(min_value=0, max_value=50_000), max_size=20), st.data())
def test_fair_shares_never_pass_the_budget_nor_a_text_and_spend_what_the_texts_need(
    lengths: list[int], data: st.DataObject
) -> None:
    budget = data.draw(st.integers(min_value=len(lengths), max_value=200_000))

    shares = fair_shares(lengths, budget)

    assert len(shares) == len(lengths)
    assert sum(shares) <= budget
    assert all(0 <= share <= length for share, length in zip(shares, lengths, strict=True))
    assert sum(shares) == min(budget, sum(lengths))  # nothing left unspent while a text is cut
    assert all(share >= 1 for share, length in zip(shares, lengths, strict=True) if length)


@given(st.lists(st.integers(min_value=1, max_value=50_000), min_size=1, max_size=20), st.data())
def test_a_cut_text_gets_at_least_as_much_as_any_other_text(
    lengths: list[int], data: st.DataObject
) -> None:
    budget = data.draw(st.integers(min_value=len(lengths), max_value=200_000))

    shares = fair_shares(lengths, budget)

    for share, length in zip(shares, lengths, strict=True):
        if share < length:  # cut: no other text got more than one character more
            assert max(shares) <= share + 1


def test_a_short_text_leaves_its_unused_share_to_the_long_ones() -> None:
    assert fair_shares([100, 10_000, 10_000], 12_000) == [100, 5_950, 5_950]
    assert fair_shares([0, 7, 30_000], 12_000) == [0, 7, 11_993]
