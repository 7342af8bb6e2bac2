"""Prompts from notes over the real stdio pipe: listed, rendered, and a prompt note written
through vaultgate announced with notifications/prompts/list_changed, in both protocol eras."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import PromptListChangedNotification, TextContent

from vaultgate.demo import fixture_vault

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

WAIT = 30.0  # the server looks a second after a write; a slow machine gets more


def served_from(vault: Path) -> StdioServerParameters:
    env = {
        "VAULTGATE_VAULT": str(vault),
        "VAULTGATE_BACKEND": "folder",
        "VAULTGATE_MEMORY_DB": ":memory:",
        "VAULTGATE_TOOLS": "full",
    }
    if "PYTHONPATH" in os.environ:  # the code under test, where it is not the installed one
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return StdioServerParameters(command=sys.executable, args=["-m", "vaultgate"], env=env)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    copy = tmp_path / "vault"
    shutil.copytree(fixture_vault(), copy)
    (copy / "Prompts").mkdir()
    (copy / "Prompts" / "Summarize 📝.md").write_text(
        "---\ntags: [mcp-tools-prompt]\ndescription: Sum it up\n---\nSummarize {{topic}}.\n",
        encoding="utf-8",
    )
    return copy


NEW_PROMPT = {"filename": "Prompts/日本 100%.md", "content": "#mcp-tools-prompt\n{{q}}?"}


async def test_over_stdio_a_prompt_renders_and_a_new_one_is_announced_to_a_listener(
    vault: Path,
) -> None:
    async with Client(served_from(vault)) as client:
        listed = [p.name for p in (await client.list_prompts()).prompts]
        rendered = await client.get_prompt("Summarize", {"topic": "Q3 🚀"})
        async with client.listen(prompts_list_changed=True) as changes:
            created = await client.call_tool("create_vault_file", NEW_PROMPT)
            with anyio.fail_after(WAIT):
                async for _event in changes:
                    break
        relisted = [p.name for p in (await client.list_prompts(cache_mode="bypass")).prompts]

    assert listed == ["Summarize"]
    content = rendered.messages[0].content
    assert isinstance(content, TextContent)
    assert content.text == "Summarize Q3 🚀."
    assert not created.is_error
    assert relisted == ["Summarize", "日本-100"]


async def test_over_stdio_an_older_session_hears_of_a_new_prompt(vault: Path) -> None:
    notified = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, PromptListChangedNotification):
            notified.set()

    async with Client(served_from(vault), mode="legacy", message_handler=on_message) as client:
        await client.list_prompts()
        created = await client.call_tool("create_vault_file", NEW_PROMPT)
        with anyio.fail_after(WAIT):
            await notified.wait()
        relisted = [p.name for p in (await client.list_prompts()).prompts]

    assert not created.is_error
    assert relisted == ["Summarize", "日本-100"]
