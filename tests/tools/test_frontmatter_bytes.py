"""Property and tag tools change only the lines of the key they name, on every backend: the
emulator at each plugin version, the vault folder, and auto (issue 27, item 4). Comments,
quoting, list style, dates, CRLF and the fences stay byte for byte."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from tests.tools.conftest import error_text, folder_settings, settings_for, texts

from vaultgate.config import Settings
from vaultgate.emulator.runner import RunningEmulator, start_emulator
from vaultgate.server import build_server

pytestmark = pytest.mark.anyio

BACKENDS = ["3.6.2", "4.1.7", "5.1.0", "folder", "auto"]

ISSUE = "Inbox/Issue #27 100% 🚀.md"
ISSUE_NOTE = (
    "---\n"
    "# written by me\n"
    'title: "Quoted title"\n'
    "status: draft\n"
    "completed: 2026-11-15\n"
    "aliases: [one, two]\n"
    "rating: 4.50\n"
    "tags: [alpha, beta/gamma]\n"
    "---\n"
    "# Body\n"
)
CRLF = "Inbox/日本語 CRLF.md"
CRLF_NOTE = (
    "---\r\n"
    "名前: 日本語メモ 🚀\r\n"
    "tags:\r\n"
    "  - 日本\r\n"
    "  - area/研究   # kept\r\n"
    "\r\n"
    "summary: |\r\n"
    "  line one\r\n"
    "  line two ✨\r\n"
    "done: false\r\n"
    "---\r\n"
    "Body\r\n"
)
FLOW = "Inbox/flow.md"
FLOW_NOTE = "---\n{status: draft, tags: [a]}\n---\nBody\n"
# NFD: 'é' as e + combining accent, as macOS writes it
NFD = "Inbox/Cafe\u0301.md"
NFD_NOTE = "---\nlieu: Cafe\u0301\n# note\nstatus: open\n---\n"


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def notes(vault: Path) -> Path:
    for path, text in [(ISSUE, ISSUE_NOTE), (CRLF, CRLF_NOTE), (FLOW, FLOW_NOTE), (NFD, NFD_NOTE)]:
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_bytes(text.encode("utf-8"))
    return vault


@pytest.fixture
def emulators() -> Iterator[list[RunningEmulator]]:
    started: list[RunningEmulator] = []
    yield started
    for emulator in started:
        emulator.stop()


@pytest.fixture
async def client(
    backend: str, notes: Path, emulators: list[RunningEmulator]
) -> AsyncIterator[Client]:
    if backend == "folder":
        settings = folder_settings(notes, OBSIDIAN_PORT="9")
    else:
        version = "5.1.0" if backend == "auto" else backend
        emulator = start_emulator(notes, plugin_version=version)
        emulators.append(emulator)
        settings = settings_for(emulator)
        if backend == "auto":
            assert emulator.https_url is not None
            settings = Settings.from_env(
                {
                    "OBSIDIAN_API_KEY": emulator.api_key,
                    "OBSIDIAN_PORT": emulator.https_url.rsplit(":", 1)[1],
                    "OBSIDIAN_CERT": str(emulator.certificate_path),
                    "VAULTGATE_TOOLS": "full",
                    "VAULTGATE_VAULT": str(notes),
                    "VAULTGATE_BACKEND": "auto",
                }
            )
    async with Client(build_server(settings)) as connected:
        yield connected


def read(vault: Path, path: str) -> str:
    return (vault / path).read_bytes().decode("utf-8")


async def call(client: Client, tool: str, **arguments: Any) -> str:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, texts(result)
    return texts(result)[0]


async def test_deleting_an_unrelated_key_removes_only_its_line(client: Client, notes: Path) -> None:
    await call(client, "delete_note_property", filename=ISSUE, key="status")

    assert read(notes, ISSUE) == ISSUE_NOTE.replace("status: draft\n", "")


async def test_adding_a_tag_keeps_an_inline_list_inline(client: Client, notes: Path) -> None:
    await call(client, "add_note_tag", filename=ISSUE, tag="#new/項目")

    assert read(notes, ISSUE) == ISSUE_NOTE.replace(
        "[alpha, beta/gamma]", "[alpha, beta/gamma, new/項目]"
    )


async def test_removing_a_tag_takes_only_that_item(client: Client, notes: Path) -> None:
    await call(client, "remove_note_tag", filename=ISSUE, tag="ALPHA")

    assert read(notes, ISSUE) == ISSUE_NOTE.replace("[alpha, beta/gamma]", "[beta/gamma]")


async def test_a_new_date_property_is_appended_unquoted(client: Client, notes: Path) -> None:
    await call(client, "set_note_property", filename=ISSUE, key="updated", value="2026-11-19")

    assert read(notes, ISSUE) == ISSUE_NOTE.replace("]\n---\n", "]\nupdated: 2026-11-19\n---\n")


async def test_setting_a_key_rewrites_its_line_only(client: Client, notes: Path) -> None:
    await call(client, "set_note_property", filename=ISSUE, key="rating", value=5)

    assert read(notes, ISSUE) == ISSUE_NOTE.replace("rating: 4.50", "rating: 5")


async def test_crlf_block_lists_and_block_scalars_keep_every_other_byte(
    client: Client, notes: Path
) -> None:
    await call(client, "add_note_tag", filename=CRLF, tag="新しい")
    expected = CRLF_NOTE.replace("# kept\r\n", "# kept\r\n  - 新しい\r\n")
    assert read(notes, CRLF) == expected

    await call(client, "delete_note_property", filename=CRLF, key="summary")
    expected = expected.replace("summary: |\r\n  line one\r\n  line two ✨\r\n", "")
    assert read(notes, CRLF) == expected

    await call(client, "remove_note_tag", filename=CRLF, tag="日本")
    expected = expected.replace("  - 日本\r\n", "")
    assert read(notes, CRLF) == expected

    await call(client, "set_note_property", filename=CRLF, key="名前", value="名前 🌸")
    assert read(notes, CRLF) == expected.replace("日本語メモ 🚀", "名前 🌸")


async def test_an_nfd_value_and_a_comment_survive_an_edit_beside_them(
    client: Client, notes: Path
) -> None:
    await call(client, "set_note_property", filename=NFD, key="status", value="closed")

    assert read(notes, NFD) == NFD_NOTE.replace("open", "closed")


async def test_a_flow_style_block_is_refused_and_left_as_it_was(
    client: Client, notes: Path
) -> None:
    result = await client.call_tool(
        "set_note_property", {"filename": FLOW, "key": "status", "value": "done"}
    )

    assert result.is_error
    assert "flow-style mapping" in error_text(result)
    assert "one 'key: value' per line" in error_text(result)
    assert read(notes, FLOW) == FLOW_NOTE


# --- through the plugin: vaultgate's own edit, never the plugin's frontmatter PATCH ---------
# The plugin's engine re-serialises the whole YAML block on every frontmatter PATCH (the
# comment goes, quotes drop, [one, two] becomes a block list, 4.50 becomes 4.5). The emulator
# does not, on purpose, so the bytes alone cannot tell: no PATCH may reach the plugin at all.

ISSUE_CRLF = "Inbox/Issue #27 CRLF 100% 🚀.md"
ISSUE_CRLF_NOTE = ISSUE_NOTE.replace("\n", "\r\n")


@pytest.mark.parametrize("backend", ["3.6.2", "4.1.7", "5.1.0", "auto"])
async def test_through_the_plugin_each_edit_keeps_every_other_byte_and_sends_no_patch(
    client: Client, notes: Path, emulators: list[RunningEmulator]
) -> None:
    (notes / ISSUE_CRLF).write_bytes(ISSUE_CRLF_NOTE.encode("utf-8"))
    expected = ISSUE_CRLF_NOTE
    edits: list[tuple[str, dict[str, Any], str, str]] = [
        ("delete_note_property", {"key": "status"}, "status: draft\r\n", ""),
        ("add_note_tag", {"tag": "#新/タグ"}, "gamma]", "gamma, 新/タグ]"),
        ("remove_note_tag", {"tag": "ALPHA"}, "[alpha, ", "["),
        ("set_note_property", {"key": "rating", "value": 5}, "rating: 4.50", "rating: 5"),
        ("set_note_property", {"key": "done", "value": True}, "]\r\n---", "]\r\ndone: true\r\n---"),
    ]

    for tool, arguments, old, new in edits:
        await call(client, tool, filename=ISSUE_CRLF, **arguments)
        expected = expected.replace(old, new, 1)
        assert read(notes, ISSUE_CRLF) == expected, tool

    assert "# written by me\r\n" in expected
    assert [method for method, _ in emulators[0].state.requests if method == "PATCH"] == []


@pytest.mark.parametrize("backend", ["3.6.2", "4.1.7", "5.1.0"])
async def test_a_value_the_note_already_has_writes_nothing(
    client: Client, notes: Path, emulators: list[RunningEmulator]
) -> None:
    answer = await call(client, "set_note_property", filename=ISSUE, key="rating", value=4.5)

    assert "already 4.5; nothing changed" in answer
    assert read(notes, ISSUE) == ISSUE_NOTE  # 4.50 is not rewritten as 4.5
    assert [m for m, _ in emulators[0].state.requests if m in ("PUT", "PATCH")] == []
