"""Reading several notes in one call: one budget shared fairly, each note a lossless window,
failures per note, against the emulator of each plugin version."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.vault.test_links import linked

from vaultgate.errors import InvalidArgument
from vaultgate.paging import window_text
from vaultgate.vault.batch import MAX_NOTES, read_many

VERSIONS = ["3.6.2", "4.1.7", "5.1.0"]
SHORT = "# Short 🚀\n\nfits whole\n"
LONG_A = "".join(f"A line {n} of 日本語 text, with emoji 🚀.\n" for n in range(400))
LONG_B = "".join(f"B line {n}: [[Short 🚀]] and 100% more.\n" for n in range(300))
NOTES = {
    "Short 🚀.md": SHORT,
    "Projects/C# & .NET #1.md": LONG_A,
    "Daily/100% done.md": LONG_B,
    "Empty.md": "",
    "Private/Secret.md": "secret\n",
    "Folder/inside.md": "x\n",
}


@pytest.fixture
def batch_vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    for path, text in NOTES.items():
        file = vault.joinpath(*path.split("/"))
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text, encoding="utf-8")
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "app.json").write_text('{"secret": 1}', encoding="utf-8")
    return vault


@pytest.mark.anyio
@pytest.mark.parametrize("version", VERSIONS)
async def test_notes_share_the_budget_fairly_and_each_says_where_to_continue(
    batch_vault: Path, version: str
) -> None:
    paths = ["Short 🚀.md", "Projects/C# & .NET #1.md", "Daily/100% done.md", "Empty.md"]
    async with linked(batch_vault, version) as vault:
        notes = await read_many(vault.client, paths, 4_000)

    short, long_a, long_b, empty = notes.entries
    assert short == {"filename": "Short 🚀.md", "content": SHORT}  # whole: no metadata
    assert empty == {"filename": "Empty.md", "content": ""}
    # the short note's unused share went to the two long ones, equally
    assert len(long_a["content"]) == len(long_b["content"]) == (4_000 - len(SHORT)) // 2
    for entry, text in ((long_a, LONG_A), (long_b, LONG_B)):
        assert text.startswith(entry["content"])
        assert entry["truncated"] is True
        assert entry["hasMore"] is True
        assert entry["totalLength"] == len(text)
        assert entry["startIndex"] == 0
        assert entry["nextIndex"] == entry["endIndex"] == len(entry["content"])
        # continuing from nextIndex with the single read's window loses nothing
        rest = window_text(text, start_index=entry["nextIndex"], max_length=100_000)
        assert entry["content"] + rest.text == text
    assert notes.cut


@pytest.mark.anyio
@pytest.mark.parametrize("version", VERSIONS)
async def test_a_note_that_cannot_be_read_is_an_entry_with_its_error(
    batch_vault: Path, version: str
) -> None:
    paths = [
        "Short 🚀.md",
        "Missing 100%.md",
        ".obsidian/app.json",
        "Private/Secret.md",
        "Folder",
        "../escape.md",
        "Short 🚀.md",  # a duplicate is read once
    ]
    async with linked(batch_vault, version, deny=("Private",)) as vault:
        notes = await read_many(vault.client, paths, 12_000)

    assert [entry["filename"] for entry in notes.entries] == paths[:-1]
    assert notes.entries[0]["content"] == SHORT
    errors = {entry["filename"]: entry["error"] for entry in notes.entries[1:]}
    assert "not found" in errors["Missing 100%.md"]
    assert "hidden" in errors[".obsidian/app.json"]
    assert (
        "VAULTGATE_DENY" in errors["Private/Secret.md"] or "denied" in errors["Private/Secret.md"]
    )
    assert "folder" in errors["Folder"]
    assert "'..'" in errors["../escape.md"]
    assert "secret" not in str(notes.entries)
    assert not notes.cut


@pytest.mark.anyio
async def test_no_notes_or_more_than_twenty_are_refused(batch_vault: Path) -> None:
    async with linked(batch_vault, "5.1.0") as vault:
        with pytest.raises(InvalidArgument, match="filenames is empty"):
            await read_many(vault.client, [], 12_000)
        with pytest.raises(InvalidArgument, match=f"at most {MAX_NOTES}"):
            await read_many(vault.client, [f"n{i}.md" for i in range(MAX_NOTES + 1)], 12_000)
