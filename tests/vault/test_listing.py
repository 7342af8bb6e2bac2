"""The two listing layouts (grouping by folder, budgeting a page for both alike), and recursive
listings of awkward vaults against the emulator of each plugin version."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.vault.emulated import plugin_client

from vaultgate.config import SafetySettings
from vaultgate.errors import NotFound
from vaultgate.paging import compact_json, page_fitting
from vaultgate.paths import is_hidden
from vaultgate.vault.guard import GuardedClient
from vaultgate.vault.listing import VaultLister, group_by_folder, listing_costs, split_folder
from vaultgate.vault.policy import AccessPolicy


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        pytest.param("Welcome.md", ("", "Welcome.md"), id="root-file"),
        pytest.param("Daily/", ("", "Daily/"), id="root-folder-entry"),
        pytest.param("Projects/Acme/a.md", ("Projects/Acme/", "a.md"), id="nested-file"),
        pytest.param("Projects/Acme/", ("Projects/", "Acme/"), id="folder-entry-in-parent"),
        pytest.param("日本/🚀 plan.md", ("日本/", "🚀 plan.md"), id="unicode"),
    ],
)
def test_a_path_splits_into_its_folder_and_its_name(path: str, expected: tuple[str, str]) -> None:
    assert split_folder(path) == expected


def test_files_group_under_their_folders_in_the_order_the_page_meets_them() -> None:
    page = ["Projects/0.md", "Projects/Acme/x.md", "Projects/b.md", "Welcome.md", "Daily/"]

    assert group_by_folder(page) == {
        "Projects/": ["0.md", "b.md"],
        "Projects/Acme/": ["x.md"],
        "": ["Welcome.md", "Daily/"],
    }


segments = st.sampled_from(["A", "Acme", "日本", "🚀 x", "a b", "Z"])
paths = st.lists(
    st.tuples(st.lists(segments, max_size=3), segments, st.booleans()).map(
        lambda parts: "/".join([*parts[0], parts[1]]) + ("/" if parts[2] else ".md")
    ),
    unique=True,
).map(sorted)


@given(paths=paths)
def test_a_tree_holds_every_path_of_the_page_once(paths: list[str]) -> None:
    tree = group_by_folder(paths)

    rebuilt = [folder + name for folder, names in tree.items() for name in names]
    assert sorted(rebuilt) == paths
    for path in paths:
        assert "".join(split_folder(path)) == path


@given(paths=paths, budget=st.integers(min_value=0, max_value=400))
@pytest.mark.parametrize("layout", ["flat", "tree"])
def test_a_budgeted_page_fits_in_its_layout(
    paths: list[str], budget: int, layout: Literal["flat", "tree"]
) -> None:
    costs = listing_costs(layout)
    page = page_fitting(paths, limit=1000, offset=0, budget=budget, render_page=costs)
    items = list(page.items)
    shown = items if layout == "flat" else group_by_folder(items)

    if len(items) > 1:  # a single item is kept even when it alone is over the budget
        # The brackets around the page are the only characters the costs do not count.
        assert len(compact_json(shown)) <= budget + 1
    if page.has_more:  # the cut is where the next item would overflow the layout
        assert sum(len(c) + 1 for c in costs(paths[: len(items) + 1])) > budget


def counted(page: list[str]) -> int:
    """What the tree budget counts for a page: each cost and its separator, and the braces."""
    return sum(len(cost) + 1 for cost in listing_costs("tree")(page)) + 1


def test_the_tree_costs_what_it_shows() -> None:
    lonely = ["Projects/Acme/a.md", "People/Ann/b.md"]
    crowded = ["Projects/Acme/a.md", "Projects/Acme/b.md", "Projects/Acme/c.md"]

    assert counted(lonely) == len(compact_json(group_by_folder(lonely)))
    assert counted(crowded) == len(compact_json(group_by_folder(crowded)))
    assert len(compact_json(group_by_folder(crowded))) < len(compact_json(crowded))


# --- recursive listings against the emulator (real HTTP on 127.0.0.1) ------------------------

AWKWARD_VAULT: dict[str, bytes] = {
    "Welcome.md": b"# Welcome\n",
    "Attachments/diagram.png": b"\x89PNG",  # a folder of attachments only
    "Attachments/Scans/2026/receipt.pdf": b"%PDF",  # nested, still no note
    "Boards/board.canvas": b"{}",
    "Projects/Acme/plan.md": b"# Plan\n![[pic.png]]\n",
    "Projects/Acme/pic.png": b"\x89PNG",  # an attachment beside notes
    "Projects/Acme/Drafts/v1.md": b"draft\n",
    "Odd/# hash 100% & more.md": b"odd\n",
    "Odd/space name.md": b"spaces\n",
    "Odd/🚀 launch [v2].md": b"emoji\n",
    "Odd/50%.txt": b"percent\n",
    "日本/メモ.md": b"CJK\n",
    "日本/写真 1.jpg": b"\xff\xd8",
    "Private/secret.md": b"secret\n",
    "Private/key.png": b"\x89PNG",
    "Private/Deeper/more.md": b"deeper\n",
    "Notes/.draft.md": b"a hidden file\n",
    "Notes/visible.md": b"visible\n",
    ".obsidian/app.json": b"{}",
    ".obsidian/snippets/look.md": b"a note in a hidden folder\n",
    ".trash/old.md": b"trashed\n",
    ".trash/old.png": b"\x89PNG",
}
EMPTY_FOLDERS = ("Empty", "Projects/Acme/Nothing yet")  # no file: Obsidian lists neither
VISIBLE = sorted(path for path in AWKWARD_VAULT if not is_hidden(path))
NOTES = [path for path in VISIBLE if path.endswith(".md")]
VERSIONS = ["3.6.2", "4.0.2", "4.1.7", "5.1.0"]


@dataclass
class Listed:
    lister: VaultLister
    requests: list[str]  # "METHOD /path" of every request sent, in order


@pytest.fixture
def awkward_vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    for path, data in AWKWARD_VAULT.items():
        file = vault.joinpath(*path.split("/"))
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(data)
    for folder in EMPTY_FOLDERS:
        vault.joinpath(*folder.split("/")).mkdir(parents=True)
    return vault


@asynccontextmanager
async def lister_for(vault: Path, version: str, **safety: object) -> AsyncIterator[Listed]:
    """A lister on the guarded client, talking plain HTTP to the emulator of ``version``."""
    async with plugin_client(vault, version) as (plugin, requests):
        policy = AccessPolicy(SafetySettings(**safety))  # type: ignore[arg-type]
        yield Listed(VaultLister(GuardedClient(plugin, policy)), requests)


@pytest.mark.anyio
@pytest.mark.parametrize("version", VERSIONS)
async def test_a_recursive_listing_holds_every_visible_file_once(
    awkward_vault: Path, version: str
) -> None:
    async with lister_for(awkward_vault, version) as listed:
        files = await listed.lister.list_recursive("")

    assert files == VISIBLE


@pytest.mark.anyio
@pytest.mark.parametrize("version", VERSIONS)
async def test_a_notes_only_listing_holds_every_visible_note_once(
    awkward_vault: Path, version: str
) -> None:
    async with lister_for(awkward_vault, version) as listed:
        notes = await listed.lister.list_recursive("", notes_only=True)
        files = await listed.lister.list_recursive("")

    assert notes == NOTES
    assert notes == [path for path in files if path.endswith(".md")]


@pytest.mark.anyio
@pytest.mark.parametrize("notes_only", [False, True], ids=["every-file", "notes-only"])
@pytest.mark.parametrize("version", VERSIONS)
async def test_a_denied_folder_is_left_out_of_recursive_listings(
    awkward_vault: Path, version: str, notes_only: bool
) -> None:
    async with lister_for(awkward_vault, version, deny=("Private",)) as listed:
        files = await listed.lister.list_recursive("", notes_only=notes_only)

    expected = NOTES if notes_only else VISIBLE
    assert files == [path for path in expected if not path.startswith("Private/")]


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("directory", "expected"),
    [
        pytest.param("Projects", ["Projects/Acme/Drafts/v1.md", "Projects/Acme/plan.md"], id="sub"),
        pytest.param("日本/", ["日本/メモ.md"], id="cjk"),
        pytest.param("Attachments", [], id="attachments-only"),
        pytest.param("Attachments/Scans", [], id="nested-attachments-only"),
    ],
)
@pytest.mark.parametrize("version", VERSIONS)
async def test_a_notes_only_listing_of_a_folder_holds_its_notes(
    awkward_vault: Path, version: str, directory: str, expected: list[str]
) -> None:
    async with lister_for(awkward_vault, version) as listed:
        notes = await listed.lister.list_recursive(directory, notes_only=True)

    assert notes == expected


@pytest.mark.anyio
@pytest.mark.parametrize("notes_only", [False, True], ids=["every-file", "notes-only"])
@pytest.mark.parametrize("directory", ["Nowhere", "Empty", "Private"])
async def test_a_missing_empty_or_denied_folder_is_not_found_alike(
    awkward_vault: Path, directory: str, notes_only: bool
) -> None:
    async with lister_for(awkward_vault, "5.1.0", deny=("Private",)) as listed:
        with pytest.raises(NotFound) as caught:
            await listed.lister.list_recursive(directory, notes_only=notes_only)

    assert caught.value.path == f"{directory}/"


@pytest.mark.anyio
@pytest.mark.parametrize("version", ["3.6.2", "4.1.7", "5.1.0"])
async def test_notes_come_from_one_search_where_the_search_is_linear(
    awkward_vault: Path, version: str
) -> None:
    async with lister_for(awkward_vault, version) as listed:
        await listed.lister.list_recursive("Projects", notes_only=True)
        await listed.lister.listed("Projects", notes_only=True, offset=1)  # a later page

    # one search for the notes, one for the notes with protection tags (guard.py), both kept
    # for the later page
    assert [r for r in listed.requests if r != "GET /"] == ["POST /search/", "POST /search/"]


@pytest.mark.anyio
async def test_notes_come_from_the_walk_where_the_search_scans_every_note_per_note(
    awkward_vault: Path,
) -> None:
    async with lister_for(awkward_vault, "4.0.2") as listed:
        notes = await listed.lister.list_recursive("Projects", notes_only=True)

    assert notes == ["Projects/Acme/Drafts/v1.md", "Projects/Acme/plan.md"]
    assert "POST /search/" not in listed.requests
    assert listed.requests.count("GET /vault/Projects/Acme/") == 1


@pytest.mark.anyio
async def test_a_notes_only_listing_reports_its_one_search_as_progress(
    awkward_vault: Path,
) -> None:
    updates: list[tuple[int, int | None, str]] = []

    async def on_progress(done: int, total: int | None, message: str) -> None:
        updates.append((done, total, message))

    async with lister_for(awkward_vault, "5.1.0") as listed:
        await listed.lister.list_recursive("", on_progress, notes_only=True)

    assert updates == [(1, 1, f"listed {len(NOTES)} notes in one search")]
