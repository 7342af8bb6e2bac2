"""The two SDD answers without MCP: the vault part from the emulator, memory from a real store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from vaultgate.memory.gateway import MemoryGateway
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.sdd.context import MAX_SCANNED, ContextRequest, context_check, get_context
from vaultgate.sdd.reader import SddVault
from vaultgate.vault.listing import VaultLister

from .conftest import write

pytestmark = pytest.mark.anyio


@pytest.fixture
async def memory() -> AsyncIterator[MemoryGateway]:
    gateway = MemoryGateway(":memory:")
    yield gateway
    await gateway.aclose()


@pytest.fixture
def sdd(client: ObsidianClient, lister: VaultLister) -> SddVault:
    return SddVault(client, lister, "sdd/")


@pytest.fixture
def many_changes(vault: Path) -> int:
    """MAX_SCANNED + 5 changes titled 'telemetry' and one whose slug says it.

    Tests request it before ``sdd``: pytest sets up fixtures in the order requested, so the
    notes exist when the emulator starts and indexes the vault.
    """
    for n in range(MAX_SCANNED + 5):
        write(vault, f"sdd/big/changes/c{n:03}/proposal.md", "# Proposal: telemetry\n")
    write(vault, "sdd/big/changes/zz-telemetry/spec.md", "# Spec\n")
    return MAX_SCANNED + 6


async def test_beyond_the_scanned_changes_slugs_alone_are_matched_and_it_says_so(
    many_changes: int, sdd: SddVault, memory: MemoryGateway
) -> None:
    answer = await context_check(sdd, memory, "telemetry export", "big", "summary")

    assert f"Titles were read for the first {MAX_SCANNED} of {many_changes} changes" in answer
    assert f"Matching changes: {MAX_SCANNED + 1} of {many_changes}, best first:" in answer
    # The slug match ranks first: it shares its word through the slug.
    first = next(line for line in answer.splitlines() if line.startswith("- "))
    assert first.startswith("- big/zz-telemetry [shares: telemetry]: spec 7")


async def test_a_description_of_common_words_only_lists_the_changes_instead(
    sdd: SddVault, memory: MemoryGateway
) -> None:
    answer = await context_check(sdd, memory, "add a new change to it", None, "standard")

    assert "has no distinctive words" in answer
    assert "vaultgate/add-dispatchers" in answer


async def test_an_unknown_project_is_said_not_raised_so_memory_still_answers(
    sdd: SddVault, memory: MemoryGateway
) -> None:
    await memory.run(lambda store: store.save("Nova launch", "Nova ships in May.", project="nova"))

    answer = await context_check(sdd, memory, "nova launch", "nova", "summary")

    assert "No SDD project 'nova' in sdd/ (projects there: vaultgate)" in answer
    assert "- #1 [manual] Nova launch" in answer


async def test_a_broken_memory_database_leaves_the_vault_part_whole(
    sdd: SddVault, tmp_path: Path
) -> None:
    broken = MemoryGateway(str(tmp_path))  # a folder, not a database file

    blocks = await get_context(sdd, broken, ContextRequest(detail_level="summary"))

    assert "vaultgate/add-dispatchers: proposal" in blocks[-1]
    assert "Memory part unavailable: The memory database" in blocks[-1]


async def test_project_names_are_matched_ignoring_case(
    sdd: SddVault, memory: MemoryGateway
) -> None:
    blocks = await get_context(sdd, memory, ContextRequest(project="VaultGate"))

    assert blocks[-1].startswith("SDD changes of project vaultgate in sdd/vaultgate/changes/")


@pytest.fixture
def empty_sdd_folder(vault: Path) -> None:
    """An SDD folder holding a README but no change yet (requested before ``client``)."""
    write(vault, "specs/README.md", "# How we write specs\n")


async def test_a_folder_without_changes_says_where_they_would_live(
    empty_sdd_folder: None, client: ObsidianClient, lister: VaultLister, memory: MemoryGateway
) -> None:
    sdd = SddVault(client, lister, "specs")

    blocks = await get_context(sdd, memory, ContextRequest())
    checked = await context_check(sdd, memory, "search cache", None, "summary")

    expected = (
        "No SDD changes in specs/ yet. They would live in "
        "specs/<project>/changes/<slug>/{proposal,spec,design,tasks,verify}.md"
    )
    assert blocks[-1].startswith(expected)
    assert expected in checked
