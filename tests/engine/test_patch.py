"""A note patched in either format and written back, asked of the engine directly."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultgate.engine import patch as patch_module
from vaultgate.engine.errors import ChangedOnDisk, NotFound
from vaultgate.engine.instruction import Instruction, InvalidInstruction
from vaultgate.engine.patch import patch_v1, patch_v2
from vaultgate.engine.patch_v2 import PatchResult, apply_instruction
from vaultgate.engine.vault import Vault
from vaultgate.patching import Patch, PatchFailed, apply_patch

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


def test_a_patch_is_applied_to_the_text_an_editor_saved_meanwhile(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = vault / "Projects" / "plan.md"
    applied: list[str] = []

    def editor_saves_during_the_first(text: str, instruction: Instruction) -> PatchResult:
        applied.append(text)
        if len(applied) == 1:
            note.write_text(text.replace("Ship it.", "Ship it on Friday."), encoding="utf-8")
        return apply_instruction(text, instruction)

    monkeypatch.setattr(patch_module, "apply_instruction", editor_saves_during_the_first)
    result = patch_v2(Vault(vault), "Projects/plan.md", {**GOALS, "content": "Then more."})
    written = note.read_text(encoding="utf-8")
    assert written == result.document
    assert "Ship it on Friday. ^goal1" in written
    assert "Then more." in written
    assert len(applied) == 2


def test_a_1x_patch_never_lands_on_a_stale_copy_either(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = vault / "Projects" / "plan.md"
    calls = 0

    def sync_client_writes_every_time(text: str, patch: Patch) -> str:
        nonlocal calls
        calls += 1
        note.write_text(f"---\nstatus: active\n---\n# Plan\n\n## Goals\n\nSync {calls}.\n")
        return apply_patch(text, patch)

    monkeypatch.setattr(patch_module, "apply_patch", sync_client_writes_every_time)
    with pytest.raises(ChangedOnDisk):
        patch_v1(Vault(vault), "Projects/plan.md", Patch("append", "heading", ("Plan",), "x"))
    assert note.read_text(encoding="utf-8").endswith(f"Sync {calls}.\n")
