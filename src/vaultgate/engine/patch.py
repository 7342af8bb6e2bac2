"""A note in the vault patched in either of the plugin's formats, then written back.

1.x (``vaultgate.patching``): a :class:`~vaultgate.patching.Patch` built from the old
headers; 2.x (``instruction.py`` and ``patch_v2.py``): a JSON instruction, validated here.
Each reads the note's current text from disk, not from the cache, and writes the result
through ``vaultfs.py``. Failures keep their engines' own types (``PatchFailed``,
``UnparseableFrontmatter``, ``InvalidInstruction``, the ``patch_v2.PatchError`` tree), and
NotFound when ``path`` is not a note in the index.
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
    patched = apply_patch(vaultfs.read_text(vault, path), patch)
    vaultfs.write_text(vault, path, patched)
    return patched


def patch_v2(vault: Vault, path: str, candidate: Mapping[str, Any]) -> PatchResult:
    """Validate a 2.x instruction (before the note is looked up), apply it, write the note."""
    instruction = parse_instruction(candidate)
    if not vault.is_file(path):
        raise NotFound(path)
    result = apply_instruction(vaultfs.read_text(vault, path), instruction)
    vaultfs.write_text(vault, path, result.document)
    return result
