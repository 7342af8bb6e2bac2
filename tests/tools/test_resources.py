"""Vault files as MCP resources, end to end through a real Client: the template, reading
(small, 1 MB, CRLF, attachments, hidden and denied), paging of resources/list, completion,
and subscriptions in both protocol eras, on every plugin version and the folder backend."""

from __future__ import annotations

import json
import os
import time
import unicodedata
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import httpx2
import pytest
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.types import (
    PromptReference,
    ResourceListChangedNotification,
    ResourceTemplateReference,
    ResourceUpdatedNotification,
    TextResourceContents,
)
from tests.tools.conftest import EmulatorFactory, backend_settings, folder_settings

from vaultgate.config import Secret
from vaultgate.http_server import MCP_PATH, ServerThread, bind, build_http_app
from vaultgate.server import build_server
from vaultgate.tools.resources import ResourceTiming
from vaultgate.vault.note_uris import TEMPLATE, note_uri

pytestmark = [
    pytest.mark.anyio,
    # resources/subscribe is the older era's way; the test asks for it on purpose
    pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning"),
]

VERSIONS = ["3.6.2", "4.1.7", "5.1.0"]
BACKENDS = [*VERSIONS, "folder"]
SOON = ResourceTiming(folder=0.1, plugin=0.2, settle=0.01)
WAIT = 10.0  # seconds a change may take to be announced before the test fails
TOKEN = "test-token-0123456789-abcdefghij"

AWKWARD = "Projects/C# & 日本 100% 🚀/Plan #1 café.md"
AWKWARD_TEXT = "---\ntags: [plan]\n---\n# Plan 🚀\n\nCJK 日本語 and emoji 🧪, 100% sure.\n"
CRLF = "Inbox/Windows note.md"
CRLF_TEXT = "# Windows\r\n\r\nline one\r\nline two 日本\r\n"
SECRET = "Private/Diary.md"
HIDDEN_TAGGED = "Inbox/Not for the model.md"

Connect = Callable[..., Any]


def write(vault: Path, path: str, text: str, *, newline: str = "") -> None:
    target = vault / path
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", encoding="utf-8", newline=newline) as out:
        out.write(text)


def awkward_vault(vault: Path) -> None:
    write(vault, AWKWARD, AWKWARD_TEXT)
    write(vault, CRLF, CRLF_TEXT)
    write(vault, SECRET, "dear diary\n")
    write(vault, HIDDEN_TAGGED, "---\ntags: [mcp-hidden]\n---\nkept away\n")


@pytest.fixture
def open_server(vault: Path, emulator_factory: EmulatorFactory) -> Connect:
    """Open a Client on a server for ``backend`` (a plugin version, or "folder")."""

    @asynccontextmanager
    async def open_client(
        backend: str, mode: str = "auto", env: dict[str, str] | None = None, **client: Any
    ) -> AsyncIterator[Client]:
        settings = backend_settings(vault, emulator_factory, backend, **(env or {}))
        server = build_server(settings, resource_timing=SOON)
        async with Client(server, mode=mode, **client) as connected:  # type: ignore[arg-type]
            yield connected

    return open_client


def only_text(result: Any) -> TextResourceContents:
    (contents,) = result.contents
    assert isinstance(contents, TextResourceContents)
    return contents


# --- the template -------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_template_is_announced_with_resources_subscribe_and_completions(
    open_server: Connect, mode: str
) -> None:
    async with open_server("folder", mode=mode) as client:
        templates = (await client.list_resource_templates()).resource_templates
        capabilities = client.server_capabilities

    assert [(t.uri_template, t.name) for t in templates] == [("vault:///{path}", "vault-file")]
    assert capabilities.resources is not None
    assert capabilities.resources.subscribe is True
    assert capabilities.resources.list_changed is True
    assert capabilities.completions is not None


# --- reading ------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_note_with_an_awkward_name_reads_whole(
    vault: Path, open_server: Connect, backend: str
) -> None:
    awkward_vault(vault)

    async with open_server(backend) as client:
        read = await client.read_resource(note_uri(AWKWARD))

    contents = only_text(read)
    assert contents.text == AWKWARD_TEXT
    assert contents.mime_type == "text/markdown"
    assert contents.uri == note_uri(AWKWARD)


async def test_a_uri_as_a_host_expands_the_template_reads_the_same_note(
    vault: Path, open_server: Connect
) -> None:
    awkward_vault(vault)
    expanded = TEMPLATE.replace("{path}", quote(AWKWARD, safe=""))  # RFC 6570: '/' is %2F

    async with open_server("5.1.0") as client:
        read = await client.read_resource(expanded)

    assert only_text(read).text == AWKWARD_TEXT


@pytest.mark.parametrize("backend", ["3.6.2", "folder"])
async def test_a_crlf_note_keeps_its_line_ends(
    vault: Path, open_server: Connect, backend: str
) -> None:
    awkward_vault(vault)

    async with open_server(backend) as client:
        read = await client.read_resource(note_uri(CRLF))

    assert only_text(read).text == CRLF_TEXT


@pytest.mark.parametrize("backend", ["4.1.7", "folder"])
async def test_a_1_mb_note_comes_as_its_first_window_and_says_how_to_read_on(
    vault: Path, open_server: Connect, backend: str
) -> None:
    line = "Long 日本語 line with emoji 🧪 and 100% #tags\r\n"
    big = line * (1_000_000 // len(line) + 1)
    write(vault, "Resources/Big 📚.md", big)

    async with open_server(backend, env={"VAULTGATE_TOOLS": "compact"}) as client:
        read = await client.read_resource(note_uri("Resources/Big 📚.md"))

    window, metadata, notice = read.contents
    assert isinstance(window, TextResourceContents)
    assert isinstance(metadata, TextResourceContents)
    assert isinstance(notice, TextResourceContents)
    assert window.text == big[:10_000]  # the note's characters and nothing else
    assert window.mime_type == "text/markdown"
    assert metadata.mime_type == "application/json"
    assert json.loads(metadata.text) == {
        "truncated": True,
        "totalLength": len(big),
        "startIndex": 0,
        "endIndex": 10_000,
        "nextIndex": 10_000,
        "hasMore": True,
    }
    assert notice.mime_type == "text/plain"
    assert "Content truncated. Call with startIndex of 10000 to get more." in notice.text
    assert (
        'vault(operation="read", filename="Resources/Big 📚.md", startIndex=10000)' in notice.text
    )
    assert len(notice.text) + len(metadata.text) < 400


async def test_a_binary_attachment_is_announced_not_sent(vault: Path, open_server: Connect) -> None:
    size = (vault / "Attachments" / "diagram.png").stat().st_size
    for backend in ("5.1.0", "folder"):
        async with open_server(backend) as client:
            text = only_text(await client.read_resource(note_uri("Attachments/diagram.png")))

        assert text.mime_type == "text/plain"
        assert "binary file (image/png, " in text.text
        assert f"{size:,} bytes" in text.text
        assert len(text.text) < 500


@pytest.mark.parametrize("backend", ["3.6.2", "folder"])
async def test_a_canvas_and_a_text_file_are_read_as_text(
    vault: Path, open_server: Connect, backend: str
) -> None:
    write(vault, "Inbox/todo 📝.txt", "buy milk 🥛\n")
    canvas = (vault / "Projects/Work/Clients/Acme/Acme board.canvas").read_text(encoding="utf-8")

    async with open_server(backend) as client:
        txt = only_text(await client.read_resource(note_uri("Inbox/todo 📝.txt")))
        board = only_text(
            await client.read_resource(note_uri("Projects/Work/Clients/Acme/Acme board.canvas"))
        )

    assert (txt.text, txt.mime_type) == ("buy milk 🥛\n", "text/plain")
    assert (board.text, board.mime_type) == (canvas, "application/json")


@pytest.mark.parametrize("backend", ["4.1.7", "folder"])
@pytest.mark.parametrize(
    "uri",
    [
        pytest.param(note_uri(SECRET), id="denied"),
        pytest.param(note_uri(HIDDEN_TAGGED), id="mcp-hidden"),
        pytest.param(note_uri(".obsidian/app.json"), id="hidden-path"),
        pytest.param(note_uri("Inbox/Nothing here.md"), id="missing"),
    ],
)
async def test_a_file_kept_out_reads_as_an_error_naming_no_content(
    vault: Path, open_server: Connect, backend: str, uri: str
) -> None:
    awkward_vault(vault)

    async with open_server(backend, env={"VAULTGATE_DENY": "Private"}) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource(uri)

    assert "dear diary" not in caught.value.message
    assert "kept away" not in caught.value.message


async def test_an_mcp_hidden_note_answers_as_a_missing_one(
    vault: Path, open_server: Connect
) -> None:
    awkward_vault(vault)

    async with open_server("folder") as client:
        with pytest.raises(MCPError) as hidden:
            await client.read_resource(note_uri(HIDDEN_TAGGED))
        with pytest.raises(MCPError) as missing:
            await client.read_resource(note_uri("Inbox/Nothing here.md"))

    assert hidden.value.message == missing.value.message.replace(
        "Nothing here", "Not for the model"
    )


@pytest.mark.parametrize(
    ("uri", "expected"),
    [
        pytest.param("file:///etc/passwd", "is not a vaultgate resource", id="other-scheme"),
        pytest.param("vault:///Projects/", "names no file", id="folder"),
        pytest.param("vault:///%FF.md", "no UTF-8 text", id="bad-escape"),
        pytest.param("vault:///a/../../x.md", "'..' segments", id="escape-up"),
    ],
)
async def test_a_bad_uri_is_a_clear_error(open_server: Connect, uri: str, expected: str) -> None:
    async with open_server("folder") as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource(uri)

    assert expected in caught.value.message


# --- listing ------------------------------------------------------------------------------


def set_mtimes(vault: Path) -> None:
    """Every file an mtime of its own, in path order (ties would order by path anyway)."""
    start = time.time() - 100_000
    for n, path in enumerate(sorted(vault.rglob("*.md"))):
        os.utime(path, (start + n * 60, start + n * 60))


@pytest.mark.parametrize("backend", BACKENDS)
async def test_walking_the_pages_lists_every_reachable_note_once_most_recent_first(
    vault: Path, open_server: Connect, backend: str
) -> None:
    awkward_vault(vault)
    for n in range(60):
        write(vault, f"Bulk/Note {n:02} 日本 #{n} 100%.md", f"note {n}\n")
    set_mtimes(vault)
    expected = sorted(
        (
            p.relative_to(vault).as_posix()
            for p in vault.rglob("*.md")
            if not p.relative_to(vault).as_posix().startswith((".", "Private/"))
            and p.relative_to(vault).as_posix() != HIDDEN_TAGGED
        ),
        key=lambda p: -(vault / p).stat().st_mtime,
    )

    listed: list[str] = []
    pages = 0
    async with open_server(backend, env={"VAULTGATE_DENY": "Private"}) as client:
        cursor = None
        while True:
            page = await client.list_resources(cursor=cursor)
            pages += 1
            assert len(page.model_dump_json(by_alias=True, exclude_none=True)) <= 5_000
            listed += [r.name for r in page.resources]
            for resource in page.resources:
                assert resource.uri == note_uri(resource.name)
                assert resource.annotations is not None
                assert resource.annotations.last_modified
            cursor = page.next_cursor
            if cursor is None:
                break

    assert listed == expected
    assert pages > 1


async def test_a_bad_cursor_is_a_clear_error(open_server: Connect) -> None:
    async with open_server("folder") as client:
        with pytest.raises(MCPError) as caught:
            await client.list_resources(cursor="page-2")

    assert "Invalid cursor 'page-2'" in caught.value.message
    assert "nextCursor" in caught.value.message


# --- completion ---------------------------------------------------------------------------


def template_ref() -> ResourceTemplateReference:
    return ResourceTemplateReference(uri=TEMPLATE)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_path_prefix_with_emoji_and_spaces_completes_folders_first(
    vault: Path, open_server: Connect, backend: str
) -> None:
    awkward_vault(vault)

    async with open_server(backend, env={"VAULTGATE_DENY": "Private"}) as client:
        rocket = await client.complete(
            template_ref(), {"name": "path", "value": "projects/c# & 日本 100% 🚀"}
        )
        inside = await client.complete(template_ref(), {"name": "path", "value": "🚀 launch"})
        denied = await client.complete(template_ref(), {"name": "path", "value": "Private"})
        hidden = await client.complete(template_ref(), {"name": "path", "value": "not for the"})
        config = await client.complete(template_ref(), {"name": "path", "value": ".obsidian"})

    assert rocket.completion.values == ["Projects/C# & 日本 100% 🚀/", AWKWARD]
    assert inside.completion.values == ["Projects/Personal/🚀 Launch plan.md"]
    assert denied.completion.values == []
    assert hidden.completion.values == []
    assert config.completion.values == []


async def test_completion_offers_at_most_100_and_says_how_many_matched(
    vault: Path, open_server: Connect
) -> None:
    for n in range(150):
        write(vault, f"Bulk 📦/Sub {n % 3}/Note {n:03}.md", "x\n")

    async with open_server("folder") as client:
        answer = (
            await client.complete(template_ref(), {"name": "path", "value": "bulk"})
        ).completion

    assert len(answer.values) == 100
    assert answer.total == 154  # 150 notes, the folder and its 3 subfolders
    assert answer.has_more is True
    assert answer.values[:4] == ["Bulk 📦/", "Bulk 📦/Sub 0/", "Bulk 📦/Sub 1/", "Bulk 📦/Sub 2/"]


async def test_an_nfd_name_completes_from_what_was_typed_in_nfc(
    vault: Path, open_server: Connect
) -> None:
    nfd = unicodedata.normalize("NFD", "Areas/Café/Menu.md")
    write(vault, nfd, "menu\n")

    async with open_server("folder") as client:
        answer = await client.complete(template_ref(), {"name": "path", "value": "areas/café"})
        read = await client.read_resource(note_uri(answer.completion.values[-1]))

    assert answer.completion.values == [unicodedata.normalize("NFD", "Areas/Café/"), nfd]
    assert only_text(read).text == "menu\n"


@pytest.mark.parametrize("backend", ["5.1.0", "folder"])
async def test_prompt_arguments_that_name_a_note_or_folder_complete_paths(
    vault: Path, open_server: Connect, backend: str
) -> None:
    write(
        vault,
        "Prompts/Review 📝.md",
        "#mcp-tools-prompt\nReview {{note}} in {{target_folder}} for {{audience}}.\n",
    )

    async with open_server(backend) as client:
        ref = PromptReference(name="Review")
        note = await client.complete(ref, {"name": "note", "value": "kickoff"})
        folder = await client.complete(ref, {"name": "target_folder", "value": "acme"})
        other = await client.complete(ref, {"name": "audience", "value": "acme"})

    assert note.completion.values == [
        "Projects/Work/Clients/Acme/Meetings/2026-11-18 Kickoff meeting.md"
    ]
    assert folder.completion.values == [
        "Projects/Work/Clients/Acme/",
        "Projects/Work/Clients/Acme/Deliverables/",
        "Projects/Work/Clients/Acme/Meetings/",
    ]
    assert other.completion.values == []


# --- subscriptions ------------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["3.6.2", "5.1.0", "folder"])
async def test_a_subscribed_note_edited_elsewhere_is_announced_to_an_older_session(
    vault: Path, open_server: Connect, backend: str
) -> None:
    awkward_vault(vault)
    uri = note_uri(AWKWARD)
    updated: list[str] = []
    notified = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            updated.append(message.params.uri)
            notified.set()

    async with open_server(backend, mode="legacy", message_handler=on_message) as client:
        await client.subscribe_resource(uri)
        write(vault, AWKWARD, AWKWARD_TEXT + "\nA new line ✍️\n")
        with anyio.fail_after(WAIT):
            await notified.wait()
        read = await client.read_resource(uri)

    assert updated[0] == uri
    assert only_text(read).text.endswith("A new line ✍️\n")


@pytest.mark.parametrize("backend", ["4.1.7", "folder"])
async def test_a_listen_stream_hears_of_its_note_and_of_a_new_one(
    vault: Path, open_server: Connect, backend: str
) -> None:
    awkward_vault(vault)
    uri = note_uri(AWKWARD)

    async with open_server(backend) as client:
        await client.list_resources()
        async with client.listen(resource_subscriptions=[uri], resources_list_changed=True) as sub:
            write(vault, AWKWARD, "changed 🔁\n")
            events: list[Any] = []
            with anyio.fail_after(WAIT):
                async for event in sub:
                    events.append(event)
                    break
            created = await client.call_tool(
                "create_vault_file", {"filename": "Inbox/New 🆕.md", "content": "new"}
            )
            assert not created.is_error
            with anyio.fail_after(WAIT):
                async for event in sub:
                    events.append(event)
                    break

    assert getattr(events[0], "uri", None) == uri
    assert type(events[1]).__name__ == "ResourcesListChanged"


async def test_an_unsubscribed_note_is_no_longer_announced(
    vault: Path, open_server: Connect
) -> None:
    awkward_vault(vault)
    heard: list[str] = []
    listed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            heard.append(message.params.uri)
        if isinstance(message, ResourceListChangedNotification):
            listed.set()

    async with open_server("folder", mode="legacy", message_handler=on_message) as client:
        await client.list_resources()
        await client.subscribe_resource(note_uri(CRLF))
        await client.unsubscribe_resource(note_uri(CRLF))
        write(vault, CRLF, "edited\n")
        write(vault, "Inbox/Another.md", "another\n")  # a list change: the checks ran
        with anyio.fail_after(WAIT):
            await listed.wait()

    assert heard == []


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_over_streamable_http_a_note_is_read_and_its_change_announced(
    vault: Path, mode: str
) -> None:
    awkward_vault(vault)
    uri = note_uri(AWKWARD)
    server = build_server(folder_settings(vault), resource_timing=SOON)
    sock = bind("127.0.0.1", 0)
    app = build_http_app(server, host="127.0.0.1", port=sock.getsockname()[1], token=Secret(TOKEN))
    notified = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, ResourceUpdatedNotification) and message.params.uri == uri:
            notified.set()

    with ServerThread(app, sock) as running:
        http = httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {TOKEN}"}, timeout=httpx2.Timeout(30, read=300)
        )
        transport = streamable_http_client(f"{running.url}{MCP_PATH}", http_client=http)
        async with http, Client(transport, mode=mode, message_handler=on_message) as client:
            first = only_text(await client.read_resource(uri)).text
            if mode == "legacy":
                await client.subscribe_resource(uri)
                write(vault, AWKWARD, "over HTTP 🌐\n")
                with anyio.fail_after(WAIT):
                    await notified.wait()
            else:
                async with client.listen(resource_subscriptions=[uri]) as sub:
                    write(vault, AWKWARD, "over HTTP 🌐\n")
                    with anyio.fail_after(WAIT):
                        async for _event in sub:
                            break
            second = only_text(await client.read_resource(uri)).text

    assert first == AWKWARD_TEXT
    assert second == "over HTTP 🌐\n"
