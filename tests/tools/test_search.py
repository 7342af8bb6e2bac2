"""search_vault_simple, search_vault and search_vault_smart against the emulator."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from tests.tools.conftest import (
    FIXTURE_VAULT,
    ClientFactory,
    EmulatorFactory,
    error_text,
    payload,
    size,
)
from tests.tools.test_protection_tags import serve

from vaultgate.emulator.runner import RunningEmulator
from vaultgate.engine import jsonlogic
from vaultgate.paging import ANSWER_CAP

pytestmark = pytest.mark.anyio


def notes_containing(vault: Path, word: str) -> set[str]:
    return {
        path.relative_to(vault).as_posix()
        for path in vault.rglob("*.md")
        if not any(part.startswith(".") for part in path.relative_to(vault).parts)
        and (word in path.read_text(encoding="utf-8").lower() or word in path.stem.lower())
    }


async def walk_search(client: Client, **arguments: object) -> list[dict[str, object]]:
    results: list[dict[str, object]] = []
    offset = 0
    while True:
        page = payload(
            await client.call_tool("search_vault_simple", {**arguments, "offset": offset})
        )
        results.extend(page["results"])
        if not page["pagination"]["hasMore"]:
            return results
        offset = page["pagination"]["nextOffset"]


async def test_paging_through_a_search_returns_each_matching_note_once(
    client: Client, vault: Path
) -> None:
    results = await walk_search(client, query="meeting", limit=3)

    filenames = [str(r["filename"]) for r in results]
    assert len(filenames) == len(set(filenames))
    assert set(filenames) == notes_containing(vault, "meeting")
    assert len(filenames) >= 8


async def test_results_are_best_first_and_matches_point_into_the_note(
    client: Client, vault: Path
) -> None:
    arguments = {"query": "meeting", "limit": 50, "maxMatchesPerFile": 3, "withOffsets": True}
    page = payload(await client.call_tool("search_vault_simple", arguments))

    scores = [r["score"] for r in page["results"]]
    assert scores == sorted(scores, reverse=True)
    for result in page["results"]:
        text = (vault / result["filename"]).read_text(encoding="utf-8")
        assert 1 <= len(result["matches"]) <= 3
        for match in result["matches"]:
            if text[match["start"] : match["end"]].lower() == "meeting":
                assert text[match["start"] : match["end"]] in match["context"]


def significant_digits(value: float) -> int:
    """How many significant digits the JSON of a number carries (0.00123 → 3, 2.5 → 2)."""
    digits = json.dumps(value).lstrip("-").replace(".", "").split("e")[0].lstrip("0")
    return len(digits.rstrip("0")) or 1


async def test_scores_carry_three_significant_digits_at_most(
    client: Client, vault: Path, emulator: RunningEmulator
) -> None:
    # The emulator's score is the match count plus 1/(1 + where the first match is): long floats.
    (vault / "Inbox" / "stripes.md").write_text("x" * 2_999 + " zebra zebra\n", encoding="utf-8")
    (vault / "Inbox" / "far.md").write_text("y" * 6_000 + " zebra 🦓\n", encoding="utf-8")
    (vault / "Inbox" / "near.md").write_text("zebra at 0.\n", encoding="utf-8")
    emulator.state.refresh()

    results = payload(await client.call_tool("search_vault_simple", {"query": "zebra"}))["results"]

    assert [(r["filename"], r["score"]) for r in results] == [
        ("Inbox/stripes.md", 2.0),  # 2 + 1/3010 = 2.000332…
        ("Inbox/near.md", 1.14),  # 1 + 1/(1 + len("near\n\n")) = 1.142857…
        ("Inbox/far.md", 1.0),  # 1 + 1/6007 = 1.000166…
    ]


async def test_match_count_appears_only_when_matches_were_left_out(
    client: Client, vault: Path, emulator: RunningEmulator
) -> None:
    (vault / "Inbox" / "marsupial.md").write_text("quokka one, quokka two\n", encoding="utf-8")
    emulator.state.refresh()

    def only_hit(page: dict[str, Any]) -> dict[str, Any]:
        (hit,) = page["results"]
        assert isinstance(hit, dict)
        return hit

    all_shown = only_hit(
        payload(
            await client.call_tool(
                "search_vault_simple", {"query": "quokka", "maxMatchesPerFile": 2}
            )
        )
    )
    cut = only_hit(payload(await client.call_tool("search_vault_simple", {"query": "quokka"})))

    assert set(all_shown) == {"filename", "matches"}  # one hit: its score orders nothing
    assert len(all_shown["matches"]) == 2
    assert cut["matchCount"] == 2
    assert len(cut["matches"]) == 1


async def test_later_pages_come_from_the_cached_result(
    client: Client, vault: Path, emulator: RunningEmulator
) -> None:
    first = payload(await client.call_tool("search_vault_simple", {"query": "meeting", "limit": 2}))
    (vault / "Inbox" / "another meeting.md").write_text("meeting meeting\n", encoding="utf-8")
    emulator.state.refresh()

    second = payload(
        await client.call_tool("search_vault_simple", {"query": "meeting", "limit": 2, "offset": 2})
    )

    # The new note is not searched for: the second page is the cached result's, whose total
    # is the first page's and which holds none of the new note.
    assert second["pagination"]["total"] == first["pagination"]["total"]
    assert "Inbox/another meeting.md" not in [hit["filename"] for hit in second["results"]]
    assert first["pagination"]["total"] >= 4


async def test_folder_scopes_the_search(client: Client) -> None:
    page = payload(
        await client.call_tool("search_vault_simple", {"query": "meeting", "directory": "Daily"})
    )

    assert page["results"]
    assert all(r["filename"].startswith("Daily/") for r in page["results"])


async def test_long_matches_shorten_their_contexts_and_keep_every_result(
    client: Client,
) -> None:
    arguments = {"query": "meeting", "contextLength": 500, "maxMatchesPerFile": 20}
    whole = payload(await client.call_tool("search_vault_simple", {"query": "meeting"}))

    result = await client.call_tool("search_vault_simple", arguments)

    page = payload(result)
    # never fewer results than asked: each match's context is shortened instead, and said so
    assert len(page["results"]) == min(20, whole["pagination"]["total"])
    assert "shortened to" in page["notice"]
    assert size(result) <= ANSWER_CAP
    widest = max(len(m) for hit in page["results"] for m in hit["matches"])
    assert widest < 2 * 500


async def test_an_empty_query_is_refused(client: Client) -> None:
    assert "empty" in error_text(await client.call_tool("search_vault_simple", {"query": "  "}))


async def test_jsonlogic_search_finds_notes_by_path_glob(client: Client, vault: Path) -> None:
    page = payload(
        await client.call_tool(
            "search_vault", {"query": '{"glob": ["Daily/*.md", {"var": "path"}]}', "limit": 200}
        )
    )

    assert sorted(r["filename"] for r in page["results"]) == sorted(
        p.relative_to(vault).as_posix() for p in (vault / "Daily").glob("*.md")
    )


async def test_jsonlogic_accepts_an_object_query(client: Client) -> None:
    page = payload(
        await client.call_tool("search_vault", {"query": {"glob": ["Daily/*.md", {"var": "path"}]}})
    )

    assert page["pagination"]["total"] == 5


async def test_invalid_jsonlogic_json_is_explained(client: Client) -> None:
    message = error_text(await client.call_tool("search_vault", {"query": "{not json"}))

    assert "not valid JSON" in message
    assert "glob" in message


async def test_dataview_on_a_new_plugin_names_the_version_and_the_alternative(
    client: Client,
) -> None:
    message = error_text(
        await client.call_tool(
            "search_vault", {"query": 'TABLE file.name FROM "Daily"', "queryType": "dataview"}
        )
    )

    assert "needs Local REST API < 4.0.0; you run 5.1.0" in message
    assert "jsonlogic" in message


async def test_dataview_works_where_the_plugin_still_has_it(
    emulator_factory: EmulatorFactory, connect: ClientFactory
) -> None:
    async with connect(emulator_factory(plugin_version="3.6.2")) as client:
        page = payload(
            await client.call_tool(
                "search_vault", {"query": 'TABLE tags FROM "Daily"', "queryType": "dataview"}
            )
        )

    assert page["pagination"]["total"] == 5
    assert all(r["filename"].startswith("Daily/") for r in page["results"])


async def test_a_huge_jsonlogic_result_is_cut_per_row(client: Client) -> None:
    result = await client.call_tool(
        "search_vault",
        {
            "query": {
                "if": [{"glob": ["Resources/Long*", {"var": "path"}]}, {"var": "content"}, False]
            }
        },
    )

    page = payload(result)
    row = page["results"][0]
    assert row["resultTruncated"] == {"length": row["resultTruncated"]["length"]}
    assert row["resultTruncated"]["length"] > 50_000
    assert "get_vault_file" in page["notice"]  # said once for the page, not in every row
    assert size(result) <= 12_000


async def test_a_page_without_cut_rows_has_no_notice(client: Client) -> None:
    page = payload(
        await client.call_tool("search_vault", {"query": {"glob": ["Daily/*", {"var": "path"}]}})
    )

    assert page["results"]
    assert "notice" not in page


async def test_smart_search_without_the_companion_plugin_names_it(client: Client) -> None:
    message = error_text(await client.call_tool("search_vault_smart", {"query": "launch"}))

    assert "MCP Tools" in message


async def test_smart_search_with_the_companion_plugin(
    emulator_factory: EmulatorFactory, connect: ClientFactory
) -> None:
    async with connect(emulator_factory(extensions=True)) as client:
        page = payload(
            await client.call_tool(
                "search_vault_smart", {"query": "launch plan rocket", "limit": 3}
            )
        )

    assert 0 < len(page["results"]) <= 3
    assert {"path", "text", "score", "breadcrumbs"} == set(page["results"][0])
    assert all(len(r["text"]) <= 300 for r in page["results"])
    # The emulator's cosine scores carry six decimals, e.g. 0.288675.
    assert all(significant_digits(r["score"]) <= 3 for r in page["results"])


async def test_server_info_reports_versions_and_features(client: Client) -> None:
    info = payload(await client.call_tool("get_server_info", {}))

    assert info["plugin"] == "5.1.0"
    assert info["authenticated"] is True
    assert info["features"]["dataview_search"]["available"] is False
    assert info["features"]["move"]["available"] is True


async def test_default_search_responses_stay_small_and_keep_every_row(
    client: Client, vault: Path
) -> None:
    for tool, arguments in [
        ("search_vault_simple", {"query": "meeting"}),
        ("search_vault", {"query": '{"var": "path"}'}),
    ]:
        assert size(await client.call_tool(tool, arguments)) <= 5_000, tool
    # every note's whole content: the 50 rows the seed names (all the notes here), each cut
    notes = len(list(vault.rglob("*.md")))
    whole = await client.call_tool("search_vault", {"query": '{"var": "content"}'})
    assert len(payload(whole)["results"]) == min(50, notes)
    assert size(whole) <= ANSWER_CAP
    assert size(await client.call_tool("get_server_info", {})) <= 12_000


async def test_largest_search_parameters_stay_under_110000_characters(client: Client) -> None:
    calls = [
        (
            "search_vault_simple",
            {"query": "the", "contextLength": 500, "maxMatchesPerFile": 20, "limit": 100},
        ),
        ("search_vault", {"query": {"var": "content"}, "limit": 200}),
    ]
    for tool, arguments in calls:
        result = await client.call_tool(tool, arguments)
        assert not result.is_error, tool
        assert size(result) <= 110_000, tool


async def test_a_search_reports_progress_when_asked(client: Client) -> None:
    updates: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    result = await client.call_tool(
        "search_vault_simple", {"query": "meeting"}, progress_callback=on_progress
    )

    total = payload(result)["pagination"]["total"]
    assert updates == [(0, 1, "searching the vault"), (1, 1, f"{total} notes match")]


@pytest.mark.parametrize("backend", ["3.6.2", "4.1.7", "5.1.0", "folder", "auto"])
async def test_a_jsonlogic_pattern_longer_than_the_limit_is_refused_on_every_backend(
    tmp_path: Path, backend: str
) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE_VAULT, vault)
    long_regexp = "|".join(["日本語", "#tag", "100%", "🚀"] * 100)  # 1,099 characters
    nested = {"and": [{"var": "path"}, {"or": [{"regexp": [long_regexp, {"var": "content"}]}]}]}
    async with serve(vault, backend) as world:
        for query in (nested, json.dumps(nested), {"glob": ["*" * 1_001, {"var": "path"}]}):
            result = await world.client.call_tool("search_vault", {"query": query})
            assert "more than the 1,000 a JsonLogic pattern may have" in error_text(result)
        at_limit = {"regexp": ["|".join(["日本語", "meeting"] * 100)[:1_000], {"var": "path"}]}
        assert not (await world.client.call_tool("search_vault", {"query": at_limit})).is_error


# The folder backend and auto evaluate JsonLogic in vaultgate; so does a plugin backend while
# a note is out of reach and the query reads links (vault/unseen.py).
SCRUBBED = {"VAULTGATE_DENY": "Areas/**"}


@pytest.mark.parametrize(
    ("backend", "extra"),
    [("folder", {}), ("auto", {}), ("5.1.0", SCRUBBED), ("4.1.7", SCRUBBED)],
    ids=["folder", "auto", "5.1.0-scrubbed", "4.1.7-scrubbed"],
)
async def test_a_pattern_that_takes_exponential_time_is_stopped_and_freezes_nothing(
    tmp_path: Path, backend: str, extra: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jsonlogic, "REGEX_SECONDS", 0.5)
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE_VAULT, vault)
    (vault / "Slow 🐌").mkdir()
    (vault / "Slow 🐌" / "日本 aaa.md").write_text("a" * 60 + "b\r\n", encoding="utf-8")
    # (a|aa)+$ backtracks through every split of the a's: exponential, never finishing alone
    query = {"and": [{"var": "backlinks"}, {"regexp": ["(a|aa)+$", {"var": "content"}]}]}
    query = {"or": [query, {"regexp": ["(a|aa)+$", {"var": "content"}]}]}
    finished: list[str] = []
    async with serve(vault, backend, extra) as world:

        async def search() -> None:
            result = await world.client.call_tool("search_vault", {"query": query})
            finished.append("search")
            assert "took more than 0.5 s of matching" in error_text(result)

        async def meanwhile() -> None:
            await anyio.sleep(0.1)  # the search is matching by now
            result = await world.client.call_tool("discover", {})
            assert not result.is_error
            finished.append("discover")

        async with anyio.create_task_group() as tg:
            tg.start_soon(search)
            tg.start_soon(meanwhile)

    assert finished == ["discover", "search"]  # the server answered while the pattern ran
