"""The write tools end to end against the emulator at plugin 3.6.2, 4.1.7 and 5.1.0."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import Client
from mcp.types import CallToolResult
from tests.tools.conftest import (
    ClientFactory,
    EmulatorFactory,
    error_text,
    payload,
    size,
    texts,
)
from tests.tools.test_protection_tags import BACKENDS, serve

from vaultgate.markdown import parse_frontmatter
from vaultgate.paging import ANSWER_CAP

pytestmark = pytest.mark.anyio

VERSIONS = ["3.6.2", "4.1.7", "5.1.0"]
OVERVIEW = "Projects/Overview.md"


@pytest.fixture(params=VERSIONS)
async def versioned(
    request: pytest.FixtureRequest, emulator_factory: EmulatorFactory, connect: ClientFactory
) -> AsyncIterator[tuple[Client, str]]:
    version = str(request.param)
    async with connect(emulator_factory(plugin_version=version)) as client:
        yield client, version


def read(vault: Path, path: str) -> str:
    return (vault / path).read_text(encoding="utf-8")


def message(result: CallToolResult) -> str:
    assert not result.is_error, texts(result)
    return texts(result)[0]


async def test_create_makes_the_note_and_its_folders(
    versioned: tuple[Client, str], vault: Path
) -> None:
    client, _ = versioned

    answer = message(
        await client.call_tool(
            "create_vault_file", {"filename": "New/Deep/fresh note.md", "content": "# Fresh\n"}
        )
    )

    assert read(vault, "New/Deep/fresh note.md") == "# Fresh\n"
    assert "Created" in answer


async def test_create_refuses_an_existing_note_with_its_size(
    versioned: tuple[Client, str], vault: Path
) -> None:
    client, _ = versioned
    before = read(vault, OVERVIEW)

    error = error_text(
        await client.call_tool("create_vault_file", {"filename": OVERVIEW, "content": "x"})
    )

    assert f"exists ({len(before):,} chars)" in error
    assert "overwrite=true" in error
    assert "append_to_vault_file" in error
    assert read(vault, OVERVIEW) == before


async def test_create_with_overwrite_replaces(versioned: tuple[Client, str], vault: Path) -> None:
    client, _ = versioned

    message(
        await client.call_tool(
            "create_vault_file", {"filename": OVERVIEW, "content": "new", "overwrite": True}
        )
    )

    assert read(vault, OVERVIEW) == "new"


async def test_append_adds_a_newline_when_the_note_lacks_one(
    versioned: tuple[Client, str], vault: Path
) -> None:
    client, _ = versioned
    before = read(vault, "Inbox/Quick capture.md")
    assert not before.endswith("\n")

    message(
        await client.call_tool(
            "append_to_vault_file", {"filename": "Inbox/Quick capture.md", "content": "- more\n"}
        )
    )

    assert read(vault, "Inbox/Quick capture.md") == before + "\n- more\n"


async def test_append_creates_a_missing_note(versioned: tuple[Client, str], vault: Path) -> None:
    client, _ = versioned

    message(
        await client.call_tool(
            "append_to_vault_file", {"filename": "Inbox/brand new.md", "content": "hello\n"}
        )
    )

    assert read(vault, "Inbox/brand new.md") == "hello\n"


async def test_patch_by_unique_leaf_heading_shows_only_the_patched_section(
    versioned: tuple[Client, str], vault: Path
) -> None:
    client, _ = versioned

    answer = message(
        await client.call_tool(
            "patch_vault_file",
            {
                "filename": OVERVIEW,
                "patchOperation": "append",
                "targetType": "heading",
                "target": "Risks",
                "content": "- Vendor lock-in.\n",
            },
        )
    )

    after = read(vault, OVERVIEW)
    risks = after.index("### Risks")
    assert "- Vendor lock-in." in after[risks : after.index("## Timeline")]
    assert "Project Alpha::Notes::Risks" in answer
    assert "Vendor lock-in" in answer
    assert "Project Beta" not in answer  # the section, never the whole note
    assert after.count("### Risks") == 1


async def test_patch_an_ambiguous_heading_lists_the_full_paths_and_changes_nothing(
    versioned: tuple[Client, str], vault: Path
) -> None:
    client, _ = versioned
    before = read(vault, OVERVIEW)

    error = error_text(
        await client.call_tool(
            "patch_vault_file",
            {
                "filename": OVERVIEW,
                "patchOperation": "append",
                "targetType": "heading",
                "target": "Notes",
                "content": "- x\n",
                "createTargetIfMissing": True,
            },
        )
    )

    assert "'Project Alpha::Notes'" in error
    assert "'Project Beta::Notes'" in error
    assert read(vault, OVERVIEW) == before


async def test_patch_a_full_path_under_a_duplicate_name(
    versioned: tuple[Client, str], vault: Path
) -> None:
    client, _ = versioned

    message(
        await client.call_tool(
            "patch_vault_file",
            {
                "filename": OVERVIEW,
                "patchOperation": "prepend",
                "targetType": "heading",
                "target": "Project Beta::Notes",
                "content": "- First things first.\n",
            },
        )
    )

    after = read(vault, OVERVIEW)
    beta = after.index("# Project Beta")
    assert after.index("- First things first.") > beta
    assert after.count("- First things first.") == 1


async def test_patch_a_unicode_heading(versioned: tuple[Client, str], vault: Path) -> None:
    client, _ = versioned

    message(
        await client.call_tool(
            "patch_vault_file",
            {
                "filename": "Areas/Career/Résumé notes.md",
                "patchOperation": "append",
                "targetType": "heading",
                "target": "Expérience",
                "content": "- Café société ☕\n",
            },
        )
    )

    assert "- Café société ☕" in read(vault, "Areas/Career/Résumé notes.md")


async def test_patch_a_missing_heading_without_create_lists_what_exists(
    versioned: tuple[Client, str],
) -> None:
    client, _ = versioned

    error = error_text(
        await client.call_tool(
            "patch_vault_file",
            {
                "filename": OVERVIEW,
                "patchOperation": "append",
                "targetType": "heading",
                "target": "Nowhere",
                "content": "x",
            },
        )
    )

    assert "Project Alpha::Notes::Risks" in error


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param('"plain text"', "plain text", id="string"),
        pytest.param("42", 42, id="number"),
        pytest.param("2.5", 2.5, id="float"),
        pytest.param("true", True, id="bool"),
        pytest.param("null", None, id="null"),
        pytest.param('["a", "b"]', ["a", "b"], id="list"),
        pytest.param('{"x": 1, "y": [true]}', {"x": 1, "y": [True]}, id="object"),
    ],
)
async def test_patch_frontmatter_keeps_json_types(
    versioned: tuple[Client, str], vault: Path, value: str, expected: object
) -> None:
    client, _ = versioned

    message(
        await client.call_tool(
            "patch_vault_file",
            {
                "filename": OVERVIEW,
                "patchOperation": "replace",
                "targetType": "frontmatter",
                "target": "status",
                "content": value,
                "contentType": "json",
            },
        )
    )

    assert parse_frontmatter(read(vault, OVERVIEW)).data["status"] == expected


async def test_patch_json_content_must_be_json(versioned: tuple[Client, str]) -> None:
    client, _ = versioned

    error = error_text(
        await client.call_tool(
            "patch_vault_file",
            {
                "filename": OVERVIEW,
                "patchOperation": "replace",
                "targetType": "frontmatter",
                "target": "status",
                "content": "not json",
                "contentType": "json",
            },
        )
    )

    assert "not valid JSON" in error


async def test_patch_a_block(versioned: tuple[Client, str], vault: Path) -> None:
    client, _ = versioned
    note = "Projects/Work/Clients/Acme/Acme overview.md"

    answer = message(
        await client.call_tool(
            "patch_vault_file",
            {
                "filename": note,
                "patchOperation": "append",
                "targetType": "block",
                "target": "abc123",
                "content": " (confirmed)",
            },
        )
    )

    assert "(confirmed)" in read(vault, note)
    assert "(confirmed)" in answer


async def test_delete_moves_to_trash_on_5x_and_says_permanent_before(
    versioned: tuple[Client, str], vault: Path
) -> None:
    client, version = versioned

    answer = message(
        await client.call_tool("delete_vault_file", {"filename": "Inbox/Quick capture.md"})
    )

    assert not (vault / "Inbox/Quick capture.md").exists()
    if version == "5.1.0":
        assert "trash" in answer
        assert (vault / ".trash").exists()
    else:
        assert "permanently" in answer
        assert version in answer


async def test_permanent_delete_on_5x_skips_the_trash(
    emulator_factory: EmulatorFactory, connect: ClientFactory, vault: Path
) -> None:
    async with connect(emulator_factory(plugin_version="5.1.0")) as client:
        answer = message(
            await client.call_tool(
                "delete_vault_file", {"filename": "Inbox/Quick capture.md", "permanent": True}
            )
        )

    assert "permanently" in answer
    assert not any((vault / ".trash").rglob("Quick capture.md"))


async def test_move_renames_on_every_version(versioned: tuple[Client, str], vault: Path) -> None:
    client, _ = versioned
    before = read(vault, "Inbox/Quick capture.md")

    message(
        await client.call_tool(
            "move_vault_file", {"source": "Inbox/Quick capture.md", "destination": "Archive/"}
        )
    )

    assert not (vault / "Inbox/Quick capture.md").exists()
    assert read(vault, "Archive/Quick capture.md") == before


async def test_move_refuses_to_overwrite(versioned: tuple[Client, str], vault: Path) -> None:
    client, _ = versioned
    before = read(vault, "Daily/2026-11-20.md")

    error = error_text(
        await client.call_tool(
            "move_vault_file",
            {"source": "Daily/2026-11-21.md", "destination": "Daily/2026-11-20.md"},
        )
    )

    assert "overwrite=true" in error
    assert read(vault, "Daily/2026-11-20.md") == before
    assert (vault / "Daily/2026-11-21.md").exists()


async def test_dry_run_lists_and_deletes_nothing(
    versioned: tuple[Client, str], vault: Path
) -> None:
    client, _ = versioned

    page = payload(
        await client.call_tool("bulk_delete_files", {"pattern": "Daily/*.md", "limit": 2})
    )

    assert page["files"] == ["Daily/2026-11-17.md", "Daily/2026-11-18.md"]
    assert page["pagination"]["total"] == 5
    assert page["pagination"]["nextOffset"] == 2
    assert "dryRun=false" in page["note"]
    assert len(list((vault / "Daily").glob("*.md"))) == 5


async def test_a_real_run_deletes_exactly_what_the_dry_run_listed(
    versioned: tuple[Client, str], vault: Path
) -> None:
    client, _ = versioned
    arguments = {"pattern": "Daily/*.md", "exclude": "**/*-21.md", "limit": 3}
    listed = payload(await client.call_tool("bulk_delete_files", arguments))["files"]

    report = payload(await client.call_tool("bulk_delete_files", {**arguments, "dryRun": False}))

    assert report["deleted"] == listed
    assert report["failed"] == []
    assert report["remaining"] == 1
    remaining = sorted(p.name for p in (vault / "Daily").glob("*.md"))
    assert remaining == ["2026-11-20.md", "2026-11-21.md"]


async def test_a_dry_run_page_cut_by_the_budget_is_the_page_a_real_run_deletes(
    emulator_factory: EmulatorFactory, connect: ClientFactory, vault: Path
) -> None:
    # about 1,010 characters a path (a path holds at most 1,024 bytes), so the default 50 of
    # them pass a page's 50 KB cap
    level = "a rather long folder name 50% " * 6 + "x" * 20
    folder = vault / "Old 🗑 notes #1" / level / level / level / level
    folder.mkdir(parents=True)
    names = [f"{'a rather long note name 50% ' * 6}{'y' * 22}{n:02}.md" for n in range(50)]
    for name in names:
        (folder / name).write_text("old\n", encoding="utf-8")
    arguments = {"pattern": "Old 🗑 notes #1/**/*.md"}

    async with connect(emulator_factory()) as client:
        dry = await client.call_tool("bulk_delete_files", arguments)
        listed = payload(dry)["files"]
        real = await client.call_tool("bulk_delete_files", {**arguments, "dryRun": False})
    report = payload(real)

    assert size(dry) <= ANSWER_CAP
    assert 0 < len(listed) < 50  # the default limit is 50: the 50 KB cap cut the page
    assert payload(dry)["pagination"]["nextOffset"] == len(listed)
    assert report["deleted"] == listed
    assert "skipped" not in report
    assert sorted(p.name for p in folder.iterdir()) == sorted(names)[len(listed) :]


async def test_a_real_run_without_a_dry_run_deletes_nothing(
    versioned: tuple[Client, str], vault: Path
) -> None:
    client, _ = versioned

    report = payload(
        await client.call_tool("bulk_delete_files", {"pattern": "Daily/*.md", "dryRun": False})
    )

    assert report["deleted"] == []
    assert len(report["skipped"]["paths"]) == 5
    assert len(list((vault / "Daily").glob("*.md"))) == 5


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        pytest.param({"pattern": ""}, "pattern is empty", id="empty"),
        pytest.param({"pattern": "**"}, "confirmAll=true", id="whole-vault"),
        pytest.param({"pattern": "**/*", "dryRun": False}, "confirmAll=true", id="whole-vault-run"),
    ],
)
async def test_bulk_delete_refusals(
    client: Client, vault: Path, arguments: dict[str, object], expected: str
) -> None:
    assert expected in error_text(await client.call_tool("bulk_delete_files", arguments))
    assert (vault / OVERVIEW).exists()


async def test_confirm_all_lets_a_whole_vault_dry_run_through(client: Client) -> None:
    page = payload(
        await client.call_tool("bulk_delete_files", {"pattern": "**", "confirmAll": True})
    )

    assert page["pagination"]["total"] > 30


async def test_active_file_tools(versioned: tuple[Client, str], vault: Path) -> None:
    client, _ = versioned
    active = "Daily/2026-11-21.md"

    message(await client.call_tool("append_to_active_file", {"content": "- appended\n"}))
    assert read(vault, active).endswith("- appended\n")

    message(
        await client.call_tool(
            "patch_active_file",
            {
                "patchOperation": "append",
                "targetType": "heading",
                "target": "Tasks",
                "content": "- [ ] new task\n",
            },
        )
    )
    after = read(vault, active)
    assert after.index("- [ ] new task") < after.index("## Notes")

    message(await client.call_tool("update_active_file", {"content": "# Replaced\n"}))
    assert read(vault, active) == "# Replaced\n"

    message(await client.call_tool("delete_active_file", {"permanent": True}))
    assert not (vault / active).exists()


async def test_show_file_in_obsidian_opens_it(
    emulator_factory: EmulatorFactory, connect: ClientFactory
) -> None:
    emulator = emulator_factory()
    async with connect(emulator) as client:
        answer = message(
            await client.call_tool("show_file_in_obsidian", {"filename": OVERVIEW, "newLeaf": True})
        )
        active = texts(await client.call_tool("get_active_file", {"maxLength": 40}))[0]

    assert "new tab" in answer
    assert active.startswith("---\ntitle: Project overview")


async def test_commands_list_filter_and_execute(
    emulator_factory: EmulatorFactory, connect: ClientFactory
) -> None:
    emulator = emulator_factory()
    async with connect(emulator) as client:
        every = payload(await client.call_tool("list_commands", {}))
        some = payload(await client.call_tool("list_commands", {"filter": "BOLD"}))
        command = some["commands"][0]["id"]
        message(await client.call_tool("execute_command", {"commandId": command}))
        missing = error_text(await client.call_tool("execute_command", {"commandId": "no:such"}))

    ids = [c["id"] for c in every["commands"]]
    assert ids == sorted(ids)
    assert all("bold" in (c["id"] + c["name"]).lower() for c in some["commands"])
    assert emulator.state.executed_commands == [command]
    assert "list_commands" in missing


async def test_tags_are_sorted_by_count_and_filtered_by_prefix(client: Client) -> None:
    every = payload(await client.call_tool("list_tags", {"limit": 1000}))
    area = payload(await client.call_tool("list_tags", {"prefix": "#area"}))

    counts = [tag["count"] for tag in every["tags"]]
    assert counts == sorted(counts, reverse=True)
    assert area["tags"]
    assert all(tag["name"].startswith("area") for tag in area["tags"])


async def test_tags_need_plugin_3_5(
    emulator_factory: EmulatorFactory, connect: ClientFactory
) -> None:
    async with connect(emulator_factory(plugin_version="3.4.0")) as client:
        error = error_text(await client.call_tool("list_tags", {}))

    assert ">= 3.5.0" in error


@pytest.mark.parametrize("version", ["3.6.2", "4.1.7"])
async def test_periodic_notes_where_the_plugin_has_them(
    emulator_factory: EmulatorFactory, connect: ClientFactory, vault: Path, version: str
) -> None:
    async with connect(emulator_factory(plugin_version=version)) as client:
        message(
            await client.call_tool(
                "append_to_periodic_note",
                {"period": "daily", "content": "- from the agent\n", "date": "2026-11-21"},
            )
        )
        day = {"period": "daily", "date": "2026-11-21"}
        result = await client.call_tool("get_periodic_note", {**day, "maxLength": 100_000})
        later = await client.call_tool("get_periodic_note", {**day, "startIndex": 2})
        mapped = await client.call_tool("get_periodic_note", {**day, "format": "map"})

    note = read(vault, "Daily/2026-11-21.md")
    assert note.endswith("- from the agent\n")
    assert texts(result) == [note]  # whole: the text alone
    body, metadata = texts(later)  # from startIndex 2: the window and its metadata
    assert body == note[2:]
    assert json.loads(metadata)["startIndex"] == 2
    (outline,) = texts(mapped)
    assert "headings" in json.loads(outline)


async def test_periodic_notes_on_5x_name_the_version_that_removed_them(client: Client) -> None:
    error = error_text(await client.call_tool("get_periodic_note", {"period": "daily"}))

    assert "5.0.2" in error
    assert "you run 5.1.0" in error


async def test_a_bad_periodic_date_is_explained(client: Client) -> None:
    error = error_text(
        await client.call_tool("get_periodic_note", {"period": "daily", "date": "21/11/2026"})
    )

    assert "YYYY-MM-DD" in error


async def test_execute_template_renders_and_can_create_the_note(
    emulator_factory: EmulatorFactory, connect: ClientFactory, vault: Path
) -> None:
    async with connect(emulator_factory(extensions=True)) as client:
        result = await client.call_tool(
            "execute_template",
            {
                "name": "Templates/Meeting template.md",
                "arguments": {},
                "createFile": True,
                "targetPath": "Meetings/From template.md",
            },
        )

    summary = json.loads(texts(result)[0])
    assert summary["createdFile"] == "Meetings/From template.md"
    assert read(vault, "Meetings/From template.md") == texts(result)[1]


async def test_execute_template_without_the_companion_plugin(client: Client) -> None:
    error = error_text(
        await client.call_tool("execute_template", {"name": "Templates/Meeting template.md"})
    )

    assert "MCP Tools" in error


async def test_no_write_answer_echoes_a_whole_note(client: Client, vault: Path) -> None:
    long_note = "Resources/Long essay.md"
    answer = message(
        await client.call_tool(
            "patch_vault_file",
            {
                "filename": long_note,
                "patchOperation": "append",
                "targetType": "heading",
                "target": "Search versus structure",
                "content": "One more line.\n",
            },
        )
    )

    assert len(answer) < 2_500
    assert len(read(vault, long_note)) > 50_000


async def test_a_write_through_vaultgate_refreshes_cached_listings_and_searches(
    client: Client,
) -> None:
    listing = {"recursive": True, "limit": 1000, "layout": "flat"}
    before = payload(await client.call_tool("list_vault_files", listing))["files"]
    found = payload(await client.call_tool("search_vault_simple", {"query": "zeppelin"}))

    message(
        await client.call_tool(
            "create_vault_file", {"filename": "Inbox/zeppelin.md", "content": "zeppelin\n"}
        )
    )
    after = payload(await client.call_tool("list_vault_files", listing))["files"]
    found_after = payload(await client.call_tool("search_vault_simple", {"query": "zeppelin"}))

    assert "Inbox/zeppelin.md" not in before
    assert "Inbox/zeppelin.md" in after
    assert found["pagination"]["total"] == 0
    assert [r["filename"] for r in found_after["results"]] == ["Inbox/zeppelin.md"]


# --- issue 21, on every backend: the plugin at 3.6.2, 4.1.7 and 5.1.0, the folder, auto -------

NEW = "Inbox/new 日本 🚀.md"
OLD = "Notes/old 100% #1 🗂.md"
TRASHING = ("5.1.0", "folder", "auto")  # a delete that is not permanent goes to .trash/


def write(vault: Path, path: str, text: str) -> None:
    file = vault.joinpath(*path.split("/"))
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_move_with_overwrite_sends_the_replaced_note_to_the_trash(
    vault: Path, backend: str
) -> None:
    write(vault, NEW, "# New\n")
    write(vault, OLD, "# Old 日本\n")
    move = {"source": NEW, "destination": OLD, "overwrite": True}

    async with serve(vault, backend) as world:
        planned = message(await world.client.call_tool("move_vault_file", move | {"dryRun": True}))
        unchanged = (read(vault, NEW), read(vault, OLD), (vault / ".trash").exists())
        moved = message(await world.client.call_tool("move_vault_file", move))

    assert unchanged == ("# New\n", "# Old 日本\n", False)
    assert read(vault, OLD) == "# New\n"
    assert not (vault / NEW).exists()
    if backend in TRASHING:
        assert f"The note at {OLD!r} would go to Obsidian's trash." in planned
        assert moved.endswith(f"The note at {OLD!r} went to Obsidian's trash.")
        assert read(vault, f".trash/{OLD}") == "# Old 日本\n"
    else:
        fate = f"deleted permanently (Local REST API {backend} has no trash)."
        assert f"The note at {OLD!r} would be {fate}" in planned
        assert moved.endswith(f"The note at {OLD!r} was {fate}")


LONG_NAME = "日本語 🚀 #1 100%" * 12 + ".md"  # 267 bytes
PATCH_APPEND = {
    "patchOperation": "append",
    "targetType": "heading",
    "target": "Plan",
    "content": "x",
}


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_name_longer_than_a_disk_holds_is_refused_naming_the_limit(
    vault: Path, backend: str
) -> None:
    long = f"Notes/{LONG_NAME}"
    calls = [
        ("create_vault_file", {"filename": long, "content": "x"}),
        ("append_to_vault_file", {"filename": long, "content": "x"}),
        ("get_vault_file", {"filename": long}),
        ("patch_vault_file", {"filename": long, **PATCH_APPEND}),
        ("delete_vault_file", {"filename": long}),
        ("move_vault_file", {"source": "Welcome.md", "destination": long}),
        ("move_vault_file", {"source": long, "destination": "Archive/"}),
        ("list_vault_files", {"directory": f"Notes/{LONG_NAME}/"}),
    ]

    async with serve(vault, backend) as world:
        errors = [error_text(await world.client.call_tool(tool, args)) for tool, args in calls]

    for error in errors:
        assert "a name can hold at most 255 bytes (UTF-8); '日本語 🚀 #1 100%" in error
        assert "has 267: shorten it" in error
        assert LONG_NAME not in error
    assert not (vault / "Notes").exists()


NFD_NOTE = unicodedata.normalize("NFD", "Notes/Café ☕ #1.md")
NFD_FOLDER = unicodedata.normalize("NFD", "Réunions 2026")


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_new_name_that_exists_in_another_unicode_form_is_refused_naming_it(
    vault: Path, backend: str
) -> None:
    write(vault, NFD_NOTE, "# Café\n")
    write(vault, f"{NFD_FOLDER}/agenda.md", "# Agenda\n")
    note_twin = (
        f"A note named {NFD_NOTE!r} already exists (the same name in another Unicode form); "
        "write to that name instead."
    )
    folder_twin = f"A folder named {NFD_FOLDER + '/'!r} already exists"

    async with serve(vault, backend) as world:
        call = world.client.call_tool
        created = await call(
            "create_vault_file", {"filename": "Notes/Café ☕ #1.md", "content": "x"}
        )
        appended = await call(
            "append_to_vault_file", {"filename": "Notes/Café ☕ #1.md", "content": "x"}
        )
        moved = await call(
            "move_vault_file", {"source": "Welcome.md", "destination": "Notes/Café ☕ #1.md"}
        )
        in_folder = await call(
            "create_vault_file", {"filename": "Réunions 2026/plan.md", "content": "x"}
        )
        to_the_twin = await call(
            "append_to_vault_file", {"filename": NFD_NOTE, "content": "more\n"}
        )

    for refused in (created, appended, moved):
        assert error_text(refused) == note_twin
    assert error_text(in_folder).startswith(folder_twin)
    message(to_the_twin)
    assert sorted(p.name for p in (vault / "Notes").iterdir()) == [NFD_NOTE.removeprefix("Notes/")]
    assert sorted(p.name for p in vault.iterdir() if "union" in p.name) == [NFD_FOLDER]
    assert (vault / "Welcome.md").exists()
