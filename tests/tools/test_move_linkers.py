"""A move never writes a note vaultgate may not write, whoever rewrites the links.

Moving a note rewrites the links to it: vaultgate does it on the folder backend (and auto),
Obsidian's rename does it behind the plugin's MOVE (4.1+). Either way, a move whose link
updates would change a note tagged ``mcp-readonly`` or ``mcp-protected``, or a note out of
reach (tagged ``mcp-hidden``, denied by VAULTGATE_DENY), is refused before anything changes,
in its dry run too. The refusal names the tagged notes and only counts the others. 3.6.2 has
no MOVE: vaultgate copies and deletes, which rewrites no link, so nothing is refused there
and every other note stays as it was.
"""

from __future__ import annotations

import shutil
import unicodedata
from pathlib import Path

import pytest
from tests.tools.conftest import FIXTURE_VAULT
from tests.tools.test_protection_tags import body, refused, serve

pytestmark = pytest.mark.anyio

BACKENDS = ["3.6.2", "4.1.7", "5.1.0", "folder", "auto"]
RELINKING = ("4.1.7", "5.1.0", "folder", "auto")  # 3.6.2 has no MOVE: copy, verify, delete

MOVED = "Public/to move 🚚 50%.md"
DESTINATION = "Archive/moved 🚚 ✦ 2.md"
READONLY = unicodedata.normalize("NFD", "Locked/Résumé ro 日本.md")  # as macOS stores it
PROTECTED = "Locked/🔒 keep #1.md"
HIDDEN = "Secret/hidden 🙈.md"
DENIED = "Private/secret 🗝.md"
FREE = "Notes/free link.md"
SECRET = "zebrasecret"
DENY = {"VAULTGATE_DENY": "PRIVATE"}  # the folder in another letter case

NOTES = {
    MOVED: "# To move\n",
    READONLY: "---\nTAGS: [Project, MCP-ReadOnly]\n---\nSee [[Public/to move 🚚 50%]].\n",
    PROTECTED: '---\ntags: "#mcp-protected, x"\n---\n[m](../Public/to%20move%20🚚%2050%25.md)\n',
    HIDDEN: f"---\ntags: [mcp-hidden]\n---\n{SECRET} [[Public/to move 🚚 50%|x]]\n",
    DENIED: f"{SECRET} ![[Public/to move 🚚 50%]]\r\n",
    FREE: "[[Public/to move 🚚 50%]]\n",
}
# never in an answer: what only the unshown notes hold, and their names
LEAKS = (SECRET, "mcp-hidden", "hidden 🙈", "secret 🗝", "Secret/", "Private/")


def build(tmp_path: Path, notes: dict[str, str]) -> Path:
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE_VAULT, vault)
    for path, text in notes.items():
        file = vault / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(text.encode())
    return vault


def files(vault: Path) -> dict[str, bytes]:
    return {
        path.relative_to(vault).as_posix(): path.read_bytes()
        for path in sorted(vault.rglob("*"))
        if path.is_file() and ".obsidian" not in path.parts
    }


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def no_leak(message: str) -> None:
    for word in LEAKS:
        assert word not in message, f"{word!r} leaked: {message!r}"


async def move(vault: Path, backend: str, *, dry_run: bool, source: str = MOVED) -> str:
    async with serve(vault, backend, DENY) as world:
        result = await world.client.call_tool(
            "move_vault_file",
            {"source": source, "destination": DESTINATION, "dryRun": dry_run},
        )
    if backend in RELINKING:
        return refused(result)
    assert not result.is_error, body(result)
    return body(result)


@pytest.mark.parametrize("dry_run", [True, False], ids=["dry-run", "move"])
@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_move_whose_links_would_change_kept_notes_is_refused_naming_only_the_tagged(
    tmp_path: Path, backend: str, dry_run: bool
) -> None:
    vault = build(tmp_path, NOTES)
    before = files(vault)

    message = await move(vault, backend, dry_run=dry_run)

    no_leak(message)
    after = files(vault)
    if backend not in RELINKING:  # copied and deleted: no other note is written
        moved = {MOVED} if not dry_run else set()
        assert {p: b for p, b in after.items() if p != DESTINATION} == {
            p: b for p, b in before.items() if p not in moved
        }
        return
    assert after == before  # nothing moved, nothing rewritten
    assert nfc(READONLY) in nfc(message)
    assert PROTECTED in message
    assert "mcp-readonly" in message
    assert "mcp-protected" in message
    assert "2 notes vaultgate may not show" in message
    assert "Nothing was moved" in message
    assert FREE not in message  # a note vaultgate may write is no reason to refuse


@pytest.mark.parametrize(
    "unshown",
    [
        pytest.param({HIDDEN: NOTES[HIDDEN]}, id="hidden"),
        pytest.param({DENIED: NOTES[DENIED]}, id="denied"),
    ],
)
@pytest.mark.parametrize("backend", RELINKING)
async def test_a_note_out_of_reach_that_links_to_it_refuses_the_move_without_a_name(
    tmp_path: Path, backend: str, unshown: dict[str, str]
) -> None:
    vault = build(tmp_path, {MOVED: NOTES[MOVED], FREE: NOTES[FREE], **unshown})
    before = files(vault)

    for dry_run in (True, False):
        message = await move(vault, backend, dry_run=dry_run)
        no_leak(message)
        assert "1 note vaultgate may not show" in message

    assert files(vault) == before


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_move_that_rewrites_only_notes_vaultgate_may_write_goes_ahead(
    tmp_path: Path, backend: str
) -> None:
    """A kept note that does not link to the moved one is no reason to refuse."""
    vault = build(tmp_path, {**NOTES, READONLY: "---\ntags: [mcp-readonly]\n---\nno link\n"})
    for path in (PROTECTED, HIDDEN, DENIED):
        (vault / path).write_text(NOTES[path].split("[")[0] + "\n", encoding="utf-8")
    kept = {path: (vault / path).read_bytes() for path in (READONLY, PROTECTED, HIDDEN, DENIED)}

    async with serve(vault, backend, DENY) as world:
        result = await world.client.call_tool(
            "move_vault_file", {"source": MOVED, "destination": DESTINATION}
        )

    assert not result.is_error, body(result)
    assert (vault / DESTINATION).is_file()
    assert {path: (vault / path).read_bytes() for path in kept} == kept
    if backend in RELINKING:
        assert (vault / FREE).read_text(encoding="utf-8") == "[[Archive/moved 🚚 ✦ 2]]\n"
