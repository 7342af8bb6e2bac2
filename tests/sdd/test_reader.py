"""The SDD folder read through the client, against the emulator."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultgate.emulator.runner import RunningEmulator
from vaultgate.errors import (
    APIKeyMissing,
    AuthenticationFailed,
    ObsidianError,
    ObsidianTimeout,
    ObsidianTLSError,
    ObsidianUnreachable,
)
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.sdd.reader import SddVault, unavailable_reason
from vaultgate.vault.listing import VaultLister

pytestmark = pytest.mark.anyio


async def test_the_sample_vault_has_one_change_with_a_proposal_and_a_spec(
    client: ObsidianClient, lister: VaultLister, vault: Path
) -> None:
    sdd = SddVault(client, lister, "sdd")

    inventory = await sdd.inventory()
    (change,) = await sdd.load(inventory.changes)

    assert inventory.projects == ("vaultgate",)
    assert change.name == "vaultgate/add-dispatchers"
    assert [a.stage for a in change.artifacts] == ["proposal", "spec"]
    spec = change.artifact("spec")
    assert spec is not None
    on_disk = (vault / spec.path).read_text(encoding="utf-8")
    assert spec.content == on_disk
    assert spec.size == len(on_disk)
    assert spec.title == "Delta for tools"
    assert change.missing == ("design", "tasks", "verify")


@pytest.mark.parametrize("setting", ["SDD", "Sdd/", "sDd"])
async def test_the_folder_setting_matches_the_vaults_folder_in_any_letter_case(
    client: ObsidianClient, lister: VaultLister, setting: str
) -> None:
    inventory = await SddVault(client, lister, setting).inventory()

    assert inventory.exists
    assert inventory.folder == "sdd/"  # as the vault spells it
    assert inventory.projects == ("vaultgate",)


async def test_a_missing_folder_is_an_empty_inventory_not_an_error(
    client: ObsidianClient, lister: VaultLister
) -> None:
    inventory = await SddVault(client, lister, "specs/").inventory()

    assert not inventory.exists
    assert inventory.folder == "specs/"
    assert inventory.changes == ()


async def test_a_stage_deleted_after_the_listing_counts_as_missing(
    client: ObsidianClient, lister: VaultLister, vault: Path
) -> None:
    sdd = SddVault(client, lister, "sdd/")
    inventory = await sdd.inventory()  # cached by the lister from here on
    (vault / "sdd/vaultgate/changes/add-dispatchers/spec.md").unlink()

    (change,) = await sdd.load(inventory.changes)

    assert [a.stage for a in change.artifacts] == ["proposal"]
    assert "spec" in change.missing


async def test_an_unreachable_obsidian_is_one_error_of_ours_not_a_group(
    client: ObsidianClient, lister: VaultLister, emulator: RunningEmulator
) -> None:
    emulator.stop()

    with pytest.raises(ObsidianUnreachable):
        await SddVault(client, lister, "sdd/").inventory()


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        pytest.param(
            ObsidianUnreachable("https://127.0.0.1:27124"),
            "Obsidian is not reachable at https://127.0.0.1:27124",
            id="unreachable",
        ),
        pytest.param(
            ObsidianTimeout("https://127.0.0.1:27124", 10.0),
            "Obsidian at https://127.0.0.1:27124 did not answer within 10 s",
            id="timeout",
        ),
        pytest.param(
            ObsidianTLSError("https://127.0.0.1:27124", "certificate verify failed"),
            "the TLS connection to https://127.0.0.1:27124 failed (certificate verify failed)",
            id="tls",
        ),
        pytest.param(
            AuthenticationFailed(), "Obsidian rejected the API key (OBSIDIAN_API_KEY)", id="key"
        ),
        pytest.param(
            APIKeyMissing(),
            "OBSIDIAN_API_KEY is not set (Obsidian → Settings → Local REST API shows it)",
            id="no-key",
        ),
    ],
)
def test_why_the_vault_part_is_missing_fits_on_one_line(error: ObsidianError, reason: str) -> None:
    assert unavailable_reason(error) == reason
    assert "\n" not in reason
