"""POST /search/simple/: offsets, filename matches, context windows and ordering by version."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import Api, MakeApp, build_vault, client

pytestmark = pytest.mark.anyio

CONTENT = "Alpha beta. " + "x" * 150 + " ALPHA gamma alpha.\n"


@pytest.fixture
def search_vault(tmp_path: Path) -> Path:
    return build_vault(
        tmp_path / "search",
        {
            "alpha notes.md": CONTENT,
            "Other/beta.md": "Just beta here, and one alpha.\n",
            "Other/none.md": "Nothing to see.\n",
            "attachment.txt": "alpha alpha alpha",
        },
    )


async def search(make_app: MakeApp, vault: Path, url: str, version: str = "5.1.0") -> Any:
    async with client(make_app(version, vault=vault)) as http:
        response = await http.post(url)
    assert response.status_code == 200
    return response.json()


def by_file(results: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {result["filename"]: result for result in results}


async def test_content_offsets_index_the_file_content(
    make_app: MakeApp, search_vault: Path
) -> None:
    results = by_file(await search(make_app, search_vault, "/search/simple/?query=alpha"))
    hit = results["alpha notes.md"]
    content = (search_vault / "alpha notes.md").read_text(encoding="utf-8")
    contents = [m for m in hit["matches"] if m["match"]["source"] == "content"]
    assert len(contents) == 3
    for m in contents:
        assert content[m["match"]["start"] : m["match"]["end"]].lower() == "alpha"


async def test_a_term_in_the_base_name_is_a_filename_match(
    make_app: MakeApp, search_vault: Path
) -> None:
    results = by_file(await search(make_app, search_vault, "/search/simple/?query=alpha"))
    (name_match,) = [
        m for m in results["alpha notes.md"]["matches"] if m["match"]["source"] == "filename"
    ]
    assert name_match == {
        "match": {"start": 0, "end": 5, "source": "filename"},
        "context": "alpha notes",
    }


async def test_every_term_must_occur_somewhere_and_only_notes_are_searched(
    make_app: MakeApp, search_vault: Path
) -> None:
    results = await search(make_app, search_vault, "/search/simple/?query=BETA%20alpha")
    assert sorted(r["filename"] for r in results) == ["Other/beta.md", "alpha notes.md"]


async def test_the_context_window_spans_context_length_each_side(
    make_app: MakeApp, search_vault: Path
) -> None:
    results = by_file(
        await search(make_app, search_vault, "/search/simple/?query=gamma&contextLength=7")
    )
    (m,) = results["alpha notes.md"]["matches"]
    start, end = m["match"]["start"], m["match"]["end"]
    assert m["context"] == CONTENT[start - 7 : end + 7]
    assert m["context"] == " ALPHA gamma alpha."


async def test_the_context_is_clipped_at_the_start_of_the_note(
    make_app: MakeApp, search_vault: Path
) -> None:
    results = by_file(await search(make_app, search_vault, "/search/simple/?query=beta"))
    hit = results["alpha notes.md"]["matches"][0]
    assert hit["match"]["start"] == 6
    assert hit["context"] == CONTENT[0 : 10 + 100]


@pytest.mark.parametrize(
    ("version", "expected"),
    [pytest.param("3.4.2", "", id="3.4.2"), pytest.param("3.4.3", "Alpha beta. x", id="3.4.3")],
)
async def test_a_missing_context_length_defaults_to_100_from_3_4_3(
    make_app: MakeApp, search_vault: Path, version: str, expected: str
) -> None:
    results = by_file(await search(make_app, search_vault, "/search/simple/?query=beta", version))
    context = results["alpha notes.md"]["matches"][0]["context"]
    assert context[: len(expected)] == expected
    assert (context == "") == (expected == "")


async def test_before_3_3_there_are_no_filename_matches_and_no_source(
    make_app: MakeApp, search_vault: Path
) -> None:
    results = by_file(
        await search(make_app, search_vault, "/search/simple/?query=notes", version="3.2.0")
    )
    assert results == {}
    alpha = by_file(
        await search(make_app, search_vault, "/search/simple/?query=alpha", version="3.2.0")
    )
    assert all("source" not in m["match"] for m in alpha["alpha notes.md"]["matches"])


@pytest.mark.parametrize(
    ("version", "descending"),
    [pytest.param("3.6.2", False, id="3.6.2"), pytest.param("4.0.0", True, id="4.0.0")],
)
async def test_results_are_ordered_by_score_ascending_before_4_and_descending_after(
    make_app: MakeApp, search_vault: Path, version: str, descending: bool
) -> None:
    results = await search(make_app, search_vault, "/search/simple/?query=alpha", version)
    scores = [r["score"] for r in results]
    assert scores == sorted(scores, reverse=descending)
    best = results[0] if descending else results[-1]
    assert best["filename"] == "alpha notes.md"


# issue 36, difference 2: 3.x's comparator (1 when greater, else -1) never calls a tie, and
# V8 then returns equal scores in reverse file order; 4.x and 5.x keep file order
@pytest.mark.parametrize(
    ("version", "order"),
    [
        pytest.param("3.6.2", ["c.md", "b.md", "a.md", "best.md"], id="3.6.2"),
        pytest.param("4.1.7", ["best.md", "a.md", "b.md", "c.md"], id="4.1.7"),
        pytest.param("5.1.0", ["best.md", "a.md", "b.md", "c.md"], id="5.1.0"),
    ],
)
async def test_equal_scores_come_back_in_each_versions_order(
    make_app: MakeApp, tmp_path: Path, version: str, order: list[str]
) -> None:
    same = "zebra crossing\n"
    files: dict[str, str | bytes] = {
        "a.md": same,
        "b.md": same,
        "best.md": "zebra zebra\n",
        "c.md": same,
    }
    vault = build_vault(tmp_path / "ties", files)
    results = await search(make_app, vault, "/search/simple/?query=zebra", version)
    assert [r["filename"] for r in results] == order


async def test_a_missing_query_is_40090_from_4_0(api: Api) -> None:
    async with api() as http:
        response = await http.post("/search/simple/")
    assert response.status_code == 400
    assert response.json() == {
        "message": "The search query you provided is not valid.\n"
        "A single '?query=' parameter is required.",
        "errorCode": 40090,
    }


@pytest.mark.parametrize("url", ["/search/simple/", "/search/simple/?query=a&query=b"])
@pytest.mark.parametrize("version", ["3.3.0", "3.6.2", "4.1.7", "5.1.0"])
async def test_a_search_without_exactly_one_query_is_40090_from_3_3(
    api: Api, version: str, url: str
) -> None:
    async with api(version) as http:
        response = await http.post(url)
    assert response.status_code == 400
    assert response.json() == {
        "message": "The search query you provided is not valid.\n"
        "A single '?query=' parameter is required.",
        "errorCode": 40090,
    }


async def test_a_missing_query_crashed_before_3_3(api: Api) -> None:
    async with api("3.2.0") as http:
        response = await http.post("/search/simple/")
    assert response.status_code == 500
    assert response.json()["errorCode"] == 50000


async def test_offsets_count_utf16_code_units_like_javascript(
    make_app: MakeApp, tmp_path: Path
) -> None:
    vault = build_vault(tmp_path / "emoji", {"e.md": "😀 needle"})
    results = await search(make_app, vault, "/search/simple/?query=needle&contextLength=1")
    (m,) = results[0]["matches"]
    assert m["match"]["start"] == 3  # the emoji is two UTF-16 code units, then a space
    assert m["context"] == " needle"


# --- contexts cut inside a surrogate pair ---------------------------------------------------

ROCKET_FIRST = "🚀" + "a" * 98 + " zz"  # 'zz' starts at UTF-16 unit 101: 100 back is mid-🚀
ROCKET_LAST = "zz " + "b" * 98 + "🚀 tail"  # 100 past 'zz' ends between the rocket's halves


@pytest.fixture
def rocket_vault(tmp_path: Path) -> Path:
    return build_vault(
        tmp_path / "rockets",
        {"first.md": ROCKET_FIRST, "last.md": ROCKET_LAST, "日本 #1.md": "日本 🚀 zz 語"},
    )


async def raw_search(make_app: MakeApp, vault: Path, url: str, version: str) -> str:
    async with client(make_app(version, vault=vault)) as http:
        response = await http.post(url)
    assert response.status_code == 200
    return response.text


async def test_up_to_5_1_0_a_context_can_start_or_end_in_half_an_emoji(
    make_app: MakeApp, rocket_vault: Path
) -> None:
    text = await raw_search(make_app, rocket_vault, "/search/simple/?query=zz", "5.1.0")
    # JSON.stringify writes the lone half as an escape; the rest of the text stays UTF-8
    assert '"context": "\\ude80' + "a" * 98 + ' zz"' in text
    assert '"context": "zz ' + "b" * 98 + '\\ud83d"' in text
    assert '"context": "日本 🚀 zz 語"' in text
    contexts = {r["filename"]: r["matches"][0]["context"] for r in json.loads(text)}
    assert contexts["first.md"] == "\ude80" + "a" * 98 + " zz"
    assert contexts["last.md"] == "zz " + "b" * 98 + "\ud83d"


async def test_a_short_context_beside_cjk_and_an_emoji_is_cut_in_code_units(
    make_app: MakeApp, rocket_vault: Path
) -> None:
    url = "/search/simple/?query=zz&contextLength=2"
    results = by_file(json.loads(await raw_search(make_app, rocket_vault, url, "5.1.0")))
    (m,) = results["日本 #1.md"]["matches"]
    assert m["match"] == {"start": 6, "end": 8, "source": "content"}
    assert m["context"] == "\ude80 zz 語"


async def test_after_5_1_0_contexts_are_cut_at_whole_characters(
    make_app: MakeApp, rocket_vault: Path
) -> None:
    text = await raw_search(make_app, rocket_vault, "/search/simple/?query=zz", "5.1.1")
    assert "\\ud" not in text
    contexts = {r["filename"]: r["matches"][0]["context"] for r in json.loads(text)}
    assert contexts["first.md"] == ROCKET_FIRST
    assert contexts["last.md"] == "zz " + "b" * 98 + "🚀"
    url = "/search/simple/?query=zz&contextLength=2"
    short = by_file(json.loads(await raw_search(make_app, rocket_vault, url, "5.1.1")))
    assert short["日本 #1.md"]["matches"][0]["context"] == "🚀 zz 語"


async def test_the_score_uses_the_same_utf16_offsets_as_the_matches(
    make_app: MakeApp, rocket_vault: Path
) -> None:
    text = await raw_search(make_app, rocket_vault, "/search/simple/?query=zz", "5.1.0")
    scores = {r["filename"]: r["score"] for r in json.loads(text)}
    # "first\n\n" is 7 units, the rocket 2, then 98 a's and a space: 'zz' at unit 108
    assert scores["first.md"] == 1 + 1 / (1 + 108)
    assert scores["日本 #1.md"] == 1 + 1 / (1 + len("日本 #1\n\n") + 6)
