"""A note in the vault patched in either of the plugin's formats, then written back.

1.x (``vaultgate.patching``): a :class:`~vaultgate.patching.Patch` built from the old
headers; 2.x (``instruction.py`` and ``patch_v2.py``): a JSON instruction, validated here.
Each reads the note's current text from disk, not from the cache, and writes the result
through :func:`vaultgate.engine.vaultfs.update_text`: atomically, and only if the note is
still what the patch was computed from; when an editor or a sync client changed it in
between, the patch is applied again to the current text (ChangedOnDisk if that keeps
happening). Failures keep their engines' own types (``PatchFailed``,
``UnparseableFrontmatter``, ``InvalidInstruction``, the ``patch_v2.PatchError`` tree), and
NotFound when ``path`` is not a note in the index (or vanishes before it is read).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vaultgate.engine import vaultfs
from vaultgate.engine.errors import NotFound
from vaultgate.engine.instruction import parse_instruction
from vaultgate.engine.patch_v2 import PatchResult, apply_instruction
from vaultgate.engine.vault import Vault
from vaultgate.patching import Patch, apply_patch


def patch_v1(vault: Vault, path: str, patch: Patch) -> str:
    """Apply a 1.x patch to the note ``path`` and write it; returns the new text."""
    if not vault.is_file(path):
        raise NotFound(path)

    def patched(text: str | None) -> tuple[str, str]:
        new = apply_patch(_existing(text, path), patch)
        return new, new

    return vaultfs.update_text(vault, path, patched)


def patch_v2(vault: Vault, path: str, candidate: Mapping[str, Any]) -> PatchResult:
    """Validate a 2.x instruction (before the note is looked up), apply it, write the note."""
    instruction = parse_instruction(candidate)
    if not vault.is_file(path):
        raise NotFound(path)

    def patched(text: str | None) -> tuple[str, PatchResult]:
        result = apply_instruction(_existing(text, path), instruction)
        return result.document, result

    return vaultfs.update_text(vault, path, patched)


def _existing(text: str | None, path: str) -> str:
    if text is None:  # deleted since the index was asked
        raise NotFound(path)
    return text
