"""A template's targetPath is checked as the note that is written: with its '.md', and where
a hidden note already holds the name, without showing that it exists.

The MCP Tools companion writes exactly the path it is sent (``app.vault.create``), and a
taken path fails there. vaultgate adds the '.md' itself and checks that path: the allow/deny
rules, the tags of a note already there, and its twin in the other Unicode form. Templates
need Obsidian, so the folder backend refuses them and writes nothing.
"""

from __future__ import annotations

import json
import shutil
import unicodedata
from pathlib import Path

import pytest
from tests.tools.conftest import FIXTURE_VAULT, texts
from tests.tools.test_protection_tags import body, refused, serve

pytestmark = pytest.mark.anyio

BACKENDS = ["3.6.2", "4.1.7", "5.1.0", "folder", "auto"]

TEMPLATE = "Templates/Stand-up 🗓.md"
SECRET = "zebrahidden"
HIDDEN = "Secret/hid 🙈 #1.md"
HIDDEN_NFC = "Secret/Café 50%.md"  # hidden, stored in NFC
DENY = {"VAULTGATE_DENY": "Private/*.md"}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE_VAULT, vault)
    notes = {
        TEMPLATE: '# Stand-up <% tp.mcpTools.prompt("who") %>\n',
        HIDDEN: f"---\ntags: [MCP-Hidden]\n---\n{SECRET}\n",
        HIDDEN_NFC: f"---\ntag: mcp-hidden\n---\n{SECRET}\n",
        "Private/kept.md": "private\n",
    }
    for path, text in notes.items():
        file = vault / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text, encoding="utf-8")
    return vault


def files(vault: Path) -> dict[str, bytes]:
    return {
        path.relative_to(vault).as_posix(): path.read_bytes()
        for path in sorted(vault.rglob("*"))
        if path.is_file() and ".obsidian" not in path.parts
    }


def arguments(target: str) -> dict[str, object]:
    return {"name": TEMPLATE, "arguments": {"who": "Zoë"}, "createFile": True, "targetPath": target}


@pytest.mark.parametrize(
    "target",
    ["Private/planted", "PRIVATE/planted 🌱 #2", "private/Plan\u0301ted %41"],
    ids=["as-denied", "upper-case", "nfd-percent"],
)
@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_target_is_checked_with_the_md_the_note_gets(
    vault: Path, backend: str, target: str
) -> None:
    before = files(vault)
    async with serve(vault, backend, DENY) as world:
        result = await world.client.call_tool("execute_template", arguments(target))

    refused(result, f"{target}.md", "VAULTGATE_DENY")
    assert files(vault) == before


@pytest.mark.parametrize(
    ("target", "existing"),
    [
        pytest.param(HIDDEN.removesuffix(".md"), HIDDEN, id="name-without-md"),
        pytest.param(HIDDEN, HIDDEN, id="name-with-md"),
        pytest.param(
            unicodedata.normalize("NFD", HIDDEN_NFC.removesuffix(".md")), HIDDEN_NFC, id="nfd-twin"
        ),
    ],
)
@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_target_a_hidden_note_holds_is_refused_without_showing_it(
    vault: Path, backend: str, target: str, existing: str
) -> None:
    before = files(vault)
    async with serve(vault, backend) as world:
        result = await world.client.call_tool("execute_template", arguments(target))

    # the answer a write to a hidden note gets, which says neither that it exists nor what
    message = refused(result, "out of this server's reach")
    shown = message.replace(target, "")  # the model's own words may come back
    for leak in (SECRET, "mcp-hidden", "exist", existing, existing.rsplit("/", 1)[1]):
        assert leak not in shown, message
    assert files(vault) == before


@pytest.mark.parametrize("backend", ["3.6.2", "4.1.7", "5.1.0", "auto"])
async def test_a_free_target_becomes_the_note_with_its_md(vault: Path, backend: str) -> None:
    target = "Notes/new 🌱 #2 50%"
    async with serve(vault, backend) as world:
        result = await world.client.call_tool("execute_template", arguments(target))

    assert not result.is_error, body(result)
    assert json.loads(texts(result)[0])["createdFile"] == f"{target}.md"
    assert (vault / f"{target}.md").read_text(encoding="utf-8") == "# Stand-up Zoë\n"
    assert not (vault / target).exists()
