"""Search-and-replace, properties and tags end to end: the server against the emulator at each
plugin version, on the awkward test vault (emoji, CJK, '%' and spaces in names, CRLF)."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from tests.tools.conftest import ClientFactory, EmulatorFactory, error_text, payload, texts

from vaultgate import markdown
from vaultgate.emulator.runner import RunningEmulator
from vaultgate.vault import replace

pytestmark = pytest.mark.anyio

VERSIONS = ["3.6.2", "4.1.7", "5.1.0"]
LAUNCH = "Projects/Personal/🚀 Launch plan.md"
DONE = "Projects/Personal/100% done.md"
JAPANESE = "Resources/Languages/日本語メモ.md"
CAPTURE = "Inbox/Quick capture.md"


@pytest.fixture(params=VERSIONS)
def version(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def emulator(version: str, emulator_factory: EmulatorFactory) -> RunningEmulator:
    return emulator_factory(plugin_version=version)


@pytest.fixture
async def client(emulator: RunningEmulator, connect: ClientFactory) -> AsyncIterator[Client]:
    async with connect(emulator) as connected:
        yield connected


@pytest.fixture
def put(vault: Path, emulator: RunningEmulator) -> Callable[[str, str], None]:
    """Write a note into the running emulator's vault, as a user's editor would."""

    def write_note(path: str, text: str) -> None:
        write(vault, path, text)
        emulator.state.refresh()

    return write_note


def read(vault: Path, path: str) -> str:
    return (vault / path).read_bytes().decode("utf-8")


def write(vault: Path, path: str, text: str) -> None:
    (vault / path).parent.mkdir(parents=True, exist_ok=True)
    (vault / path).write_bytes(text.encode("utf-8"))


def frontmatter(vault: Path, path: str) -> dict[str, Any]:
    parsed = markdown.parse_frontmatter(read(vault, path))
    assert parsed.valid
    return parsed.data


async def call(client: Client, tool: str, **arguments: Any) -> str:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, texts(result)
    return texts(result)[0]


# --- replace --------------------------------------------------------------------------------


async def test_a_dry_run_lists_each_note_with_its_matches_and_changes_nothing(
    client: Client, vault: Path
) -> None:
    before = read(vault, LAUNCH)

    page = payload(
        await client.call_tool(
            "replace_in_notes",
            {"find": "launch", "replacement": "release", "directory": "Projects"},
        )
    )

    notes = {note["path"]: note for note in page["notes"]}
    # '100% done.md' says launch only in its frontmatter (project: launch), left alone
    assert list(notes) == [LAUNCH]
    assert notes[LAUNCH]["matches"] == 1  # 'Launch' (capital) is another text
    first = notes[LAUNCH]["snippets"][0]
    assert "launch" in first["before"]
    assert "release" in first["after"]
    assert first["before"].replace("launch", "release", 1) == first["after"]
    assert page["pagination"]["total"] == 1
    assert page["pagination"]["hasMore"] is False
    assert page["matches"] == 1
    assert first["line"] == 23
    assert "dryRun=false" in page["note"]
    assert read(vault, LAUNCH) == before


async def test_a_real_run_replaces_what_the_dry_run_listed_and_keeps_everything_else(
    client: Client, vault: Path, put: Callable[[str, str], None]
) -> None:
    crlf = "Inbox/CRLF 日本語 #1.md"
    put(crlf, "---\r\ntags: [x]\r\n---\r\n# Acme 🚀\r\n\r\nAcme and ACME and Acme.\r\n")
    arguments = {"find": "Acme", "replacement": "Ácme 🧪", "directory": "Inbox"}
    listed = payload(await client.call_tool("replace_in_notes", arguments))
    sort = "Inbox/Meeting notes to sort.md"
    assert [n["path"] for n in listed["notes"]] == [crlf, sort, CAPTURE]
    capture_before = read(vault, CAPTURE)

    report = payload(await client.call_tool("replace_in_notes", {**arguments, "dryRun": False}))

    assert report == {
        "replaced": [
            {"path": crlf, "matches": 3},
            {"path": sort, "matches": 3},
            {"path": CAPTURE, "matches": 1},
        ],
        "remaining": 0,
    }
    assert read(vault, crlf) == (
        "---\r\ntags: [x]\r\n---\r\n# Ácme 🧪 🚀\r\n\r\nÁcme 🧪 and ACME and Ácme 🧪.\r\n"
    )
    assert read(vault, CAPTURE) == capture_before.replace("Acme", "Ácme 🧪")


async def test_a_real_run_changes_nothing_a_dry_run_did_not_list(
    client: Client, vault: Path
) -> None:
    before = read(vault, LAUNCH)

    report = payload(
        await client.call_tool(
            "replace_in_notes",
            {"find": "launch", "replacement": "x", "filename": LAUNCH, "dryRun": False},
        )
    )

    assert report["replaced"] == []
    assert report["remaining"] == 1
    assert report["nextOffset"] == 0
    assert "call with dryRun=true and offset=0" in report["unlisted"]
    assert read(vault, LAUNCH) == before


async def test_a_real_run_stops_at_the_first_note_its_dry_runs_did_not_show(
    client: Client, vault: Path, put: Callable[[str, str], None]
) -> None:
    for n in range(5):
        put(f"Walk/{n} 🚶.md", f"step {n}\n")
    arguments = {"find": "step", "replacement": "pas", "directory": "Walk", "limit": 2}
    await client.call_tool("replace_in_notes", arguments)  # shows 0 and 1

    first = payload(await client.call_tool("replace_in_notes", {**arguments, "dryRun": False}))
    second = payload(await client.call_tool("replace_in_notes", {**arguments, "dryRun": False}))
    listed = payload(await client.call_tool("replace_in_notes", {**arguments, "offset": 0}))
    third = payload(await client.call_tool("replace_in_notes", {**arguments, "dryRun": False}))

    assert [r["path"] for r in first["replaced"]] == ["Walk/0 🚶.md", "Walk/1 🚶.md"]
    assert (first["remaining"], first["nextOffset"]) == (3, 0)
    assert second["replaced"] == []
    assert "offset=0" in second["unlisted"]
    assert [n["path"] for n in listed["notes"]] == ["Walk/2 🚶.md", "Walk/3 🚶.md"]
    assert [r["path"] for r in third["replaced"]] == ["Walk/2 🚶.md", "Walk/3 🚶.md"]
    assert read(vault, "Walk/4 🚶.md") == "step 4\n"
    assert read(vault, "Walk/2 🚶.md") == "pas 2\n"


async def test_a_note_changed_since_the_dry_run_is_reported_not_written(
    client: Client, vault: Path, put: Callable[[str, str], None]
) -> None:
    arguments = {"find": "launch", "replacement": "release", "filename": LAUNCH}
    await client.call_tool("replace_in_notes", arguments)
    edited = read(vault, LAUNCH) + "\nA launch party, added by hand.\n"
    put(LAUNCH, edited)

    report = payload(await client.call_tool("replace_in_notes", {**arguments, "dryRun": False}))

    assert report["replaced"] == []
    assert report["changed"]["paths"] == [LAUNCH]
    assert read(vault, LAUNCH) == edited


async def test_the_frontmatter_is_replaced_in_only_when_asked(client: Client, vault: Path) -> None:
    arguments = {"find": "project/launch", "replacement": "project/ship", "filename": DONE}
    nothing = payload(await client.call_tool("replace_in_notes", arguments))
    assert nothing["notes"] == []
    assert nothing["note"] == "No note matches; nothing would change."

    arguments["frontmatter"] = True
    await client.call_tool("replace_in_notes", arguments)
    await client.call_tool("replace_in_notes", {**arguments, "dryRun": False})

    assert frontmatter(vault, DONE)["tags"] == ["checklist", "project/ship"]


async def test_a_replace_that_would_break_the_frontmatter_yaml_is_not_written(
    client: Client, vault: Path
) -> None:
    arguments = {"find": "launch", "replacement": "a: b: [", "filename": DONE, "frontmatter": True}
    before = read(vault, DONE)
    await client.call_tool("replace_in_notes", arguments)

    report = payload(await client.call_tool("replace_in_notes", {**arguments, "dryRun": False}))

    assert report["replaced"] == []
    assert "unreadable YAML" in report["failed"][0]["reason"]
    assert "set_note_property(filename=" in report["failed"][0]["reason"]
    assert read(vault, DONE) == before


async def test_a_regex_replaces_with_groups_through_the_dispatcher(
    client: Client, vault: Path
) -> None:
    arguments = {
        "operation": "replace",
        "find": r"^- (\d{4})-(\d{2})-(\d{2})",
        "replacement": r"- \3/\2/\1",
        "regex": True,
        "filename": LAUNCH,
    }
    listed = payload(await client.call_tool("vault", arguments))
    assert listed["notes"][0]["matches"] == 3

    await client.call_tool("vault", {**arguments, "dryRun": False})

    text = read(vault, LAUNCH)
    assert "- 12/12/2026 — launch 🎉" in text
    assert "target_date: 2026-12-12" in text  # frontmatter untouched


async def test_a_replacement_that_holds_the_text_is_not_applied_twice(
    client: Client, vault: Path
) -> None:
    arguments = {"find": "idea", "replacement": "ideas", "filename": CAPTURE}
    await client.call_tool("replace_in_notes", arguments)
    await client.call_tool("replace_in_notes", {**arguments, "dryRun": False})
    once = read(vault, CAPTURE)

    again = payload(await client.call_tool("replace_in_notes", {**arguments, "dryRun": False}))

    assert again == {"replaced": [], "remaining": 0}
    assert read(vault, CAPTURE) == once
    assert "#ideas" in once
    assert "ideass" not in once


async def test_dry_run_pages_walk_every_note_once_with_exact_totals(
    client: Client, vault: Path, put: Callable[[str, str], None]
) -> None:
    for n in range(7):
        put(f"Bulk/n{n} %.md", f"needle {n}\n" * (n + 1))
    seen: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = payload(
            await client.call_tool(
                "replace_in_notes",
                {
                    "find": "needle",
                    "replacement": "pin",
                    "directory": "Bulk",
                    "limit": 3,
                    "offset": offset,
                },
            )
        )
        assert page["pagination"]["total"] == 7
        assert page["matches"] == 28
        seen += [note["path"] for note in page["notes"]]
        offset = page["pagination"].get("nextOffset")

    assert seen == sorted(f"Bulk/n{n} %.md" for n in range(7))


async def test_a_dry_run_of_long_matches_stays_within_the_response_budget(
    client: Client, put: Callable[[str, str], None]
) -> None:
    for n in range(30):
        put(f"Long/{n:02} 📜.md", ("ab" * 3_000 + "\n") * 5)
    arguments = {"find": "(ab)+", "replacement": "x", "regex": True, "directory": "Long"}

    result = await client.call_tool("replace_in_notes", {**arguments, "limit": 100})

    page = payload(result)
    assert sum(len(t) for t in texts(result)) <= 30_000  # long matches are abbreviated
    assert len(page["notes"]) == 30
    assert page["pagination"]["hasMore"] is False
    assert page["pagination"]["total"] == 30
    assert page["matches"] == 150
    assert "[6,000 chars]" in page["notes"][0]["snippets"][0]["before"]


async def test_replace_reports_its_progress_when_asked(client: Client) -> None:
    seen: list[tuple[float, float | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total))

    result = await client.call_tool(
        "replace_in_notes",
        {"find": "meeting", "replacement": "réunion", "directory": "Daily"},
        progress_callback=progress,
    )

    assert not result.is_error
    assert seen[-1] == (5, 5)  # the five daily notes read


async def test_a_catastrophic_regex_is_stopped_and_the_server_keeps_answering(
    client: Client, vault: Path, put: Callable[[str, str], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replace, "REGEX_SECONDS", 1.0)
    put("Inbox/evil.md", "a" * 40 + "!\n")
    started = time.monotonic()

    message = error_text(
        await client.call_tool(
            "replace_in_notes",
            {"find": "(a+)+$", "replacement": "x", "regex": True, "filename": "Inbox/evil.md"},
        )
    )

    assert time.monotonic() - started < 5
    assert "more than 1 s" in message
    assert "nested repeats" in message
    assert await call(client, "set_note_property", filename="Inbox/evil.md", key="k", value=1)


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        pytest.param({"find": "a*", "regex": True}, "matches an empty string", id="empty-regex"),
        pytest.param({"find": r"\b", "regex": True}, "matches an empty string", id="zero-width"),
        pytest.param({"find": "(", "regex": True}, "not a valid Python regex", id="bad-regex"),
        pytest.param(
            {"find": "日本|" * 3_334, "regex": True}, "more than the 10,000", id="long-regex"
        ),
        pytest.param({"find": "(x)", "regex": True, "replacement": r"\2"}, "groups", id="group"),
        pytest.param({"find": ""}, "find is empty", id="empty"),
        pytest.param({"filename": "Attachments/diagram.png"}, "not a note", id="not-a-note"),
        pytest.param({"filename": ".obsidian/app.json"}, "hidden", id="hidden"),
        pytest.param({"directory": "Projects"}, "not both", id="both"),
        pytest.param({"filename": "Missing 日本.md"}, "was not found", id="missing"),
        pytest.param({"filename": None, "directory": "Nope"}, "was not found", id="no-folder"),
    ],
)
async def test_replace_refuses_what_cannot_work_with_what_to_do(
    client: Client, arguments: dict[str, Any], expected: str
) -> None:
    given = {"find": "x", "replacement": "y", "filename": LAUNCH, **arguments}

    assert expected in error_text(await client.call_tool("replace_in_notes", given))


async def test_a_replacement_that_multiplies_its_groups_is_refused_and_writes_nothing(
    client: Client, vault: Path, put: Callable[[str, str], None]
) -> None:
    put("Inbox/aaa 🧪 #1.md", "a" * 100_000 + "\n")  # 100 KB → 50 MB with this replacement
    arguments = {"find": "(a{100})", "replacement": "\\1" * 500, "regex": True}
    arguments["filename"] = "Inbox/aaa 🧪 #1.md"

    message = error_text(await client.call_tool("replace_in_notes", arguments))

    assert "from 100,001 past 1,200,002 characters" in message
    assert read(vault, "Inbox/aaa 🧪 #1.md") == "a" * 100_000 + "\n"


async def test_a_literal_replace_in_a_1_mb_note_is_quick(
    client: Client, vault: Path, put: Callable[[str, str], None]
) -> None:
    big = "Resources/Big 📚.md"
    put(big, ("word " * 20 + "needle\n") * 9_000)
    started = time.monotonic()

    page = payload(
        await client.call_tool(
            "replace_in_notes", {"find": "needle", "replacement": "pin", "filename": big}
        )
    )

    assert page["matches"] == 9_000
    assert len(json.dumps(page)) < 12_000
    assert time.monotonic() - started < 10


# --- properties -----------------------------------------------------------------------------


async def test_set_property_adds_and_replaces_keys_keeping_json_types(
    client: Client, vault: Path
) -> None:
    added = await call(
        client, "set_note_property", filename=LAUNCH, key="状态", value={"a": [1, True]}
    )
    replaced = await call(client, "set_note_property", filename=LAUNCH, key="budget", value=99.5)

    data = frontmatter(vault, LAUNCH)
    assert data["状态"] == {"a": [1, True]}
    assert data["budget"] == 99.5
    assert data["channels"] == ["newsletter", "mastodon", "forum"]
    assert "a new property" in added
    assert "was 120" in replaced
    assert read(vault, LAUNCH).split("---\n", 2)[2].startswith("# 🚀 Launch plan\n")


async def test_set_property_gives_a_note_without_frontmatter_its_first(
    client: Client, vault: Path
) -> None:
    body = read(vault, CAPTURE)

    await call(client, "set_note_property", filename=CAPTURE, key="status", value="triage")

    assert frontmatter(vault, CAPTURE) == {"status": "triage"}
    assert read(vault, CAPTURE).endswith(body)


async def test_delete_property_removes_one_key_and_nothing_else(
    client: Client, vault: Path, version: str
) -> None:
    before = read(vault, DONE)

    message = await call(client, "delete_note_property", filename=DONE, key="progress")

    assert "progress" not in frontmatter(vault, DONE)
    assert frontmatter(vault, DONE)["tags"] == ["checklist", "project/launch"]
    assert "it was 1.0" in message
    if version != "5.1.0":  # vaultgate's own edit: only the key's line goes
        assert read(vault, DONE) == before.replace("progress: 1.0\n", "")


async def test_delete_property_keeps_crlf_and_removes_a_block_list(
    client: Client, vault: Path, put: Callable[[str, str], None]
) -> None:
    path = "Inbox/CRLF.md"
    put(path, "---\r\ntags:\r\n- a\r\n- b\r\nkeep: ✓\r\n---\r\nBody\r\n")

    await call(client, "delete_note_property", filename=path, key="tags")

    text = read(vault, path)
    assert frontmatter(vault, path) == {"keep": "✓"}
    assert "\n" not in text.replace("\r\n", "")
    assert text.endswith("---\r\nBody\r\n")


async def test_deleting_a_missing_property_changes_nothing_and_names_the_keys(
    client: Client, vault: Path
) -> None:
    before = read(vault, JAPANESE)

    message = await call(client, "delete_note_property", filename=JAPANESE, key="nope")

    assert "nothing changed" in message
    assert "'level'" in message
    assert read(vault, JAPANESE) == before


# --- tags -----------------------------------------------------------------------------------


async def test_add_tag_appends_to_the_frontmatter_list(client: Client, vault: Path) -> None:
    message = await call(client, "add_note_tag", filename=JAPANESE, tag="#復習/毎日")

    assert frontmatter(vault, JAPANESE)["tags"] == ["language", "日本語", "復習/毎日"]
    assert "Added #復習/毎日" in message


async def test_add_tag_creates_tags_and_turns_a_string_into_a_list(
    client: Client, vault: Path, put: Callable[[str, str], None]
) -> None:
    put("Inbox/str.md", "---\ntags: alpha, beta\n---\ntext\n")

    await call(client, "add_note_tag", filename=CAPTURE, tag="inbox")
    await call(client, "add_note_tag", filename="Inbox/str.md", tag="gamma")

    assert frontmatter(vault, CAPTURE) == {"tags": ["inbox"]}
    assert frontmatter(vault, "Inbox/str.md") == {"tags": ["alpha", "beta", "gamma"]}


@pytest.mark.parametrize("tag", ["SIDE-project", "#side-project", "idea"])
async def test_a_tag_the_note_has_in_any_case_or_inline_is_not_added_again(
    client: Client, vault: Path, tag: str
) -> None:
    before = read(vault, LAUNCH)

    message = await call(client, "add_note_tag", filename=LAUNCH, tag=tag)

    assert "nothing changed" in message
    assert read(vault, LAUNCH) == before


async def test_remove_tag_matches_any_case_and_keeps_nested_tags(
    client: Client, vault: Path, put: Callable[[str, str], None]
) -> None:
    put("Inbox/t.md", "---\ntags: [Project, project/launch, other]\n---\n#project x\n")

    message = await call(client, "remove_note_tag", filename="Inbox/t.md", tag="#PROJECT")

    assert frontmatter(vault, "Inbox/t.md")["tags"] == ["project/launch", "other"]
    assert "still appears once in the text" in message
    assert read(vault, "Inbox/t.md").endswith("---\n#project x\n")


async def test_remove_tag_inline_removes_it_from_the_text_but_not_from_code(
    client: Client, vault: Path, put: Callable[[str, str], None]
) -> None:
    path = "Inbox/inline 🏷.md"
    put(path, "# T\r\n\r\nA #todo here #todo/sub and `#todo`\r\n#Todo\r\n")

    message = await call(client, "remove_note_tag", filename=path, tag="todo", inline=True)

    assert read(vault, path) == "# T\r\n\r\nA here #todo/sub and `#todo`\r\n\r\n"
    assert "removed 2 times inline" in message


async def test_remove_tag_says_when_the_tag_is_only_inline(client: Client, vault: Path) -> None:
    before = read(vault, CAPTURE)

    message = await call(client, "remove_note_tag", filename=CAPTURE, tag="idea")

    assert "only in its text" in message
    assert read(vault, CAPTURE) == before


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        pytest.param("add_note_tag", {"tag": "12"}, "not a tag", id="digits"),
        pytest.param("add_note_tag", {"tag": "two words"}, "not a tag", id="blank"),
        pytest.param("remove_note_tag", {"tag": "a//b"}, "not a tag", id="empty-level"),
        pytest.param(
            "set_note_property", {"key": " ", "value": 1}, "not a property", id="blank-key"
        ),
        pytest.param(
            "set_note_property",
            {"filename": "Missing 100%.md", "key": "k", "value": 1},
            "was not found",
            id="missing",
        ),
        pytest.param(
            "remove_note_tag", {"filename": "Missing.md", "tag": "t"}, "not found", id="gone"
        ),
        pytest.param(
            "delete_note_property",
            {"key": "k", "filename": "Attachments/diagram.png"},
            "not a note",
            id="not-a-note",
        ),
    ],
)
async def test_property_and_tag_edits_refuse_what_cannot_work(
    client: Client, tool: str, arguments: dict[str, Any], expected: str
) -> None:
    given = {"filename": LAUNCH, **arguments}

    assert expected in error_text(await client.call_tool(tool, given))


async def test_broken_yaml_is_refused_before_anything_is_written(
    client: Client, vault: Path, put: Callable[[str, str], None]
) -> None:
    put("Inbox/broken.md", "---\ntags: [a\n---\ntext\n")

    message = error_text(
        await client.call_tool("add_note_tag", {"filename": "Inbox/broken.md", "tag": "b"})
    )

    assert "not valid YAML" in message
    assert read(vault, "Inbox/broken.md") == "---\ntags: [a\n---\ntext\n"
