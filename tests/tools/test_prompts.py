"""MCP prompts from vault notes, end to end through a real Client: every plugin version and
the folder backend, the awkward names, the policy, errors, and list_changed in both eras."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.types import PromptListChangedNotification, TextContent
from tests.tools.conftest import EmulatorFactory, backend_settings, folder_settings

from vaultgate.config import Secret
from vaultgate.http_server import MCP_PATH, ServerThread, bind, build_http_app
from vaultgate.server import build_server
from vaultgate.tools.prompts import PromptTiming

pytestmark = pytest.mark.anyio

VERSIONS = ["3.6.2", "4.1.7", "5.1.0"]
BACKENDS = [*VERSIONS, "folder"]
SOON = PromptTiming(poll=0.2, settle=0.01)  # look for changes at once, not after a minute
WRITES_ONLY = PromptTiming(poll=3600, settle=0.01)  # only a write made through vaultgate
WAIT = 10.0  # seconds a change may take to be announced before the test fails

SUMMARIZE = (
    "---\ntags: [mcp-tools-prompt, work]\ndescription: Sum up a meeting 📝\n---\n"
    "Summarize {{topic}} for {{audience|the team}}.\n"
)
TRANSLATE = "#mcp-tools-prompt\n{{text}} を {{language|English}} に翻訳してください。\n"
NOTES = {
    "Prompts/Summarize meeting 📝.md": SUMMARIZE,
    "Prompts/日本語/翻訳.md": TRANSLATE,
    "Prompts/C# & .NET 100%.md": "---\ntags: mcp-tools-prompt\n---\nReview {{code}}\n",
    "Prompts/Untagged.md": "Not a prompt {{x}}\n",
    "Prompts/Private/Secret.md": "#mcp-tools-prompt\nsecret {{x}}\n",
}


NEW_NOTE = {"filename": "Prompts/New 100%.md", "content": "#mcp-tools-prompt\nHi {{who}}"}
TOKEN = "test-token-0123456789-abcdefghij"


def write_notes(vault: Path, notes: dict[str, str]) -> None:
    for path, text in notes.items():
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_text(text, encoding="utf-8")


Connect = Callable[..., Any]


@pytest.fixture
def open_server(vault: Path, emulator_factory: EmulatorFactory) -> Connect:
    """Open a Client on a server for ``backend`` (a plugin version, or "folder")."""

    @asynccontextmanager
    async def open_client(
        backend: str,
        mode: str = "auto",
        env: dict[str, str] | None = None,
        timing: PromptTiming = SOON,
        **client: Any,
    ) -> AsyncIterator[Client]:
        settings = backend_settings(vault, emulator_factory, backend, **(env or {}))
        server = build_server(settings, prompt_timing=timing)
        async with Client(server, mode=mode, **client) as connected:  # type: ignore[arg-type]
            yield connected

    return open_client


@pytest.mark.parametrize("backend", BACKENDS)
async def test_tagged_notes_below_the_prompts_folder_are_prompts(
    vault: Path, open_server: Connect, backend: str
) -> None:
    write_notes(vault, NOTES)

    async with open_server(backend) as client:
        listed = (await client.list_prompts()).prompts

    shown = {p.name: p for p in listed}
    assert sorted(shown) == ["C-.NET-100", "Secret", "Summarize-meeting", "翻訳"]
    summarize = shown["Summarize-meeting"]
    assert summarize.title == "Summarize meeting 📝"
    assert summarize.description == "Sum up a meeting 📝"
    assert [(a.name, a.required, a.description) for a in summarize.arguments or []] == [
        ("topic", True, None),
        ("audience", False, "Default: 'the team'"),
    ]
    assert [(a.name, a.required) for a in shown["翻訳"].arguments or []] == [
        ("text", True),
        ("language", False),
    ]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_prompt_renders_its_note_with_the_arguments(
    vault: Path, open_server: Connect, backend: str
) -> None:
    write_notes(vault, NOTES)

    async with open_server(backend) as client:
        summarize = await client.get_prompt("Summarize-meeting", {"topic": "Q3 🚀 #1 100%"})
        translate = await client.get_prompt("翻訳", {"text": "猫", "language": "français"})

    assert summarize.description == "Sum up a meeting 📝"
    (message,) = summarize.messages
    assert message.role == "user"
    assert isinstance(message.content, TextContent)
    assert message.content.text == "Summarize Q3 🚀 #1 100% for the team."
    text = translate.messages[0].content
    assert isinstance(text, TextContent)
    assert text.text == "猫 を français に翻訳してください。"


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        pytest.param(
            "Summarize-meeting",
            {},
            "needs the argument 'topic'",
            id="missing-required",
        ),
        pytest.param(
            "Summarize-meeting",
            {"topic": "x", "tone": "dry"},
            "takes no argument 'tone'; Its arguments: topic (required), audience (optional)",
            id="unknown-argument",
        ),
        pytest.param("Nope", {}, "No prompt named 'Nope'", id="unknown-prompt"),
        pytest.param(
            "Untagged", {}, "notes tagged mcp-tools-prompt in 'Prompts/'", id="untagged-note"
        ),
    ],
)
async def test_a_bad_prompt_request_is_a_clear_error(
    vault: Path, open_server: Connect, name: str, arguments: dict[str, str], expected: str
) -> None:
    write_notes(vault, NOTES)

    async with open_server("5.1.0") as client:
        with pytest.raises(MCPError) as caught:
            await client.get_prompt(name, arguments)

    assert expected in caught.value.message


async def test_a_note_whose_name_is_taken_says_so_when_asked_for(
    vault: Path, open_server: Connect
) -> None:
    write_notes(
        vault,
        {
            "Prompts/Plan it.md": "#mcp-tools-prompt\ntop\n",
            "Prompts/Team/Plan-it.md": "#mcp-tools-prompt\ndeeper\n",
            "Prompts/🚀.md": "#mcp-tools-prompt\nrocket\n",
        },
    )

    async with open_server("folder") as client:
        names = [p.name for p in (await client.list_prompts()).prompts]
        plan = await client.get_prompt("Plan-it")
        with pytest.raises(MCPError) as rocket:
            await client.get_prompt("🚀")

    assert names == ["Plan-it"]
    assert isinstance(plan.messages[0].content, TextContent)
    assert plan.messages[0].content.text == "top"
    assert "'Prompts/🚀.md' is not offered as a prompt" in rocket.value.message


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_note_with_thousands_of_placeholders_is_no_prompt_and_the_list_stays_small(
    vault: Path, open_server: Connect, backend: str
) -> None:
    many = "".join(f"{{{{arg_{n}|日本 #{n}}}}}\r\n" for n in range(20_000))
    write_notes(vault, NOTES | {"Prompts/Many 100% 🧪.md": "#mcp-tools-prompt\r\n" + many})

    async with open_server(backend) as client:
        listed = await client.list_prompts()
        with pytest.raises(MCPError) as caught:
            await client.get_prompt("Many-100")

    assert sorted(p.name for p in listed.prompts) == [
        "C-.NET-100",
        "Secret",
        "Summarize-meeting",
        "翻訳",
    ]
    assert len(listed.model_dump_json()) < 5_000
    assert "'Prompts/Many 100% 🧪.md' is not offered as a prompt" in caught.value.message
    assert "more than 20 different {{placeholders}}" in caught.value.message


@pytest.mark.parametrize("backend", ["4.1.7", "folder"])
async def test_denied_and_hidden_prompt_notes_are_not_prompts(
    vault: Path, open_server: Connect, backend: str
) -> None:
    write_notes(vault, NOTES | {"Prompts/.drafts/Hidden.md": "#mcp-tools-prompt\nhidden\n"})

    async with open_server(backend, env={"VAULTGATE_DENY": "Prompts/Private"}) as client:
        names = [p.name for p in (await client.list_prompts()).prompts]
        with pytest.raises(MCPError) as caught:
            await client.get_prompt("Secret", {"x": "1"})

    assert names == ["C-.NET-100", "Summarize-meeting", "翻訳"]
    assert "No prompt named 'Secret'" in caught.value.message


async def test_an_allow_list_without_the_prompts_folder_offers_no_prompts(
    vault: Path, open_server: Connect
) -> None:
    write_notes(vault, NOTES)

    async with open_server("folder", env={"VAULTGATE_ALLOW": "Projects"}) as client:
        assert (await client.list_prompts()).prompts == []


async def test_prompts_are_advertised_with_list_changed_even_before_a_prompts_folder_exists(
    vault: Path, open_server: Connect
) -> None:
    for mode in ("auto", "legacy"):
        async with open_server("folder", mode=mode) as client:
            assert client.server_capabilities is not None
            assert client.server_capabilities.prompts is not None
            assert client.server_capabilities.prompts.list_changed is True
            assert (await client.list_prompts()).prompts == []


async def test_another_prompts_folder(vault: Path, open_server: Connect) -> None:
    write_notes(vault, {"Assistant/Prompts 🚀/Ask.md": "#mcp-tools-prompt\nAsk {{q}}\n"} | NOTES)

    env = {"VAULTGATE_PROMPTS_FOLDER": "Assistant/Prompts 🚀"}
    async with open_server("3.6.2", env=env) as client:
        names = [p.name for p in (await client.list_prompts()).prompts]

    assert names == ["Ask"]


@pytest.mark.parametrize("backend", ["3.6.2", "folder"])
async def test_a_prompt_written_through_vaultgate_is_announced_on_the_listen_stream(
    vault: Path, open_server: Connect, backend: str
) -> None:
    write_notes(vault, NOTES)

    async with open_server(backend, timing=WRITES_ONLY) as client:
        before = [p.name for p in (await client.list_prompts()).prompts]
        async with client.listen(prompts_list_changed=True) as changes:
            created = await client.call_tool("create_vault_file", NEW_NOTE)
            assert not created.is_error
            with anyio.fail_after(WAIT):
                async for _event in changes:
                    break
        after = [p.name for p in (await client.list_prompts(cache_mode="bypass")).prompts]

    assert "New-100" not in before
    assert "New-100" in after


@pytest.mark.parametrize("backend", ["5.1.0", "folder"])
async def test_a_prompt_note_edited_elsewhere_is_announced_to_an_older_session(
    vault: Path, open_server: Connect, backend: str
) -> None:
    write_notes(vault, NOTES)
    notified = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, PromptListChangedNotification):
            notified.set()

    async with open_server(backend, mode="legacy", message_handler=on_message) as client:
        await client.list_prompts()
        edited = SUMMARIZE.replace("{{topic}}", "{{topic}} by {{deadline}}")
        (vault / "Prompts" / "Summarize meeting 📝.md").write_text(edited, encoding="utf-8")
        with anyio.fail_after(WAIT):
            await notified.wait()
        listed = {p.name: p for p in (await client.list_prompts()).prompts}

    arguments = listed["Summarize-meeting"].arguments or []
    assert [a.name for a in arguments] == ["topic", "deadline", "audience"]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_over_streamable_http_a_new_prompt_is_announced(vault: Path, mode: str) -> None:
    write_notes(vault, NOTES)
    server = build_server(folder_settings(vault), prompt_timing=WRITES_ONLY)
    sock = bind("127.0.0.1", 0)
    app = build_http_app(server, host="127.0.0.1", port=sock.getsockname()[1], token=Secret(TOKEN))
    notified = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, PromptListChangedNotification):
            notified.set()

    with ServerThread(app, sock) as running:
        http = httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {TOKEN}"}, timeout=httpx2.Timeout(30, read=300)
        )
        transport = streamable_http_client(f"{running.url}{MCP_PATH}", http_client=http)
        async with http, Client(transport, mode=mode, message_handler=on_message) as client:
            await client.list_prompts()
            if mode == "legacy":
                await client.call_tool("create_vault_file", NEW_NOTE)
                with anyio.fail_after(WAIT):
                    await notified.wait()
            else:
                async with client.listen(prompts_list_changed=True) as changes:
                    await client.call_tool("create_vault_file", NEW_NOTE)
                    with anyio.fail_after(WAIT):
                        async for _event in changes:
                            break
            names = [p.name for p in (await client.list_prompts(cache_mode="bypass")).prompts]

    assert "New-100" in names
