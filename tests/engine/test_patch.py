"""A note patched in either format and written back, asked of the engine directly."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultgate.engine.errors import NotFound
from vaultgate.engine.instruction import InvalidInstruction
from vaultgate.engine.patch import patch_v1, patch_v2
from vaultgate.engine.vault import Vault
from vaultgate.patching import Patch, PatchFailed

GOALS = {"targetType": "heading", "target": ["Plan", "Goals"], "operation": "append"}


def test_a_2x_instruction_is_applied_and_written(vault: Path) -> None:
    result = patch_v2(Vault(vault), "Projects/plan.md", {**GOALS, "content": "Then more."})
    written = (vault / "Projects" / "plan.md").read_text(encoding="utf-8")
    assert written == result.document
    assert "Then more." in written


def test_a_2x_instruction_is_judged_before_the_note_is_looked_up(vault: Path) -> None:
    with pytest.raises(InvalidInstruction):
        patch_v2(Vault(vault), "Nope.md", {**GOALS, "operation": "shout"})
    with pytest.raises(NotFound):
        patch_v2(Vault(vault), "Nope.md", {**GOALS, "content": "x"})


def test_a_1x_patch_is_applied_and_written(vault: Path) -> None:
    patch = Patch("append", "heading", ("Plan", "Goals"), "Then more.")
    patched = patch_v1(Vault(vault), "Projects/plan.md", patch)
    assert (vault / "Projects" / "plan.md").read_text(encoding="utf-8") == patched
    assert "Then more." in patched


def test_a_1x_patch_that_cannot_apply_leaves_the_note_alone(vault: Path) -> None:
    before = (vault / "Projects" / "plan.md").read_bytes()
    with pytest.raises(PatchFailed):
        patch_v1(Vault(vault), "Projects/plan.md", Patch("append", "heading", ("Nope",), "x"))
    assert (vault / "Projects" / "plan.md").read_bytes() == before
