"""A note in the vault patched in any of the plugin's formats, then written back.

1.x (``vaultgate.patching``): a :class:`~vaultgate.patching.Patch` built from the old
headers; 2.x (``instruction.py`` and ``patch_v2.py``): a JSON instruction, validated here;
and 3.x's deprecated ``Heading`` PATCH (:func:`heading_patch`), older than both.
Each reads the note's current text from disk, not from the cache, and writes the result
through :func:`vaultgate.engine.vaultfs.update_text`: atomically, and only if the note is
still what the patch was computed from; when an editor or a sync client changed it in
between, the patch is applied again to the current text (ChangedOnDisk if that keeps
happening). ``checked`` False writes what was computed whatever happened meanwhile, as the
plugin's ``vault.read`` then ``adapter.write``/``vault.modify`` does: the emulator asks for
that window. Failures keep their engines' own types (``PatchFailed``,
``UnparseableFrontmatter``, ``InvalidInstruction``, the ``patch_v2.PatchError`` tree), and
NotFound when ``path`` is not a note in the index (or vanishes before it is read).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vaultgate import markdown
from vaultgate.engine import vaultfs
from vaultgate.engine.errors import NotFound
from vaultgate.engine.instruction import parse_instruction
from vaultgate.engine.patch_v2 import PatchResult, apply_instruction
from vaultgate.engine.vault import Vault
from vaultgate.patching import Patch, apply_patch


def patch_v1(vault: Vault, path: str, patch: Patch, *, checked: bool = True) -> str:
    """Apply a 1.x patch to the note ``path`` and write it; returns the new text."""
    if not vault.is_file(path):
        raise NotFound(path)

    def patched(text: str | None) -> tuple[str, str]:
        new = apply_patch(_existing(text, path), patch)
        return new, new

    return vaultfs.update_text(vault, path, patched, checked=checked)


def patch_v2(
    vault: Vault, path: str, candidate: Mapping[str, Any], *, checked: bool = True
) -> PatchResult:
    """Validate a 2.x instruction (before the note is looked up), apply it, write the note."""
    instruction = parse_instruction(candidate)
    if not vault.is_file(path):
        raise NotFound(path)

    def patched(text: str | None) -> tuple[str, PatchResult]:
        result = apply_instruction(_existing(text, path), instruction)
        return result.document, result

    return vaultfs.update_text(vault, path, patched, checked=checked)


def heading_patch(
    vault: Vault,
    path: str,
    heading: Sequence[str],
    content: str,
    *,
    beginning: bool,
    ignore_newline: bool,
    checked: bool = True,
) -> str:
    """3.x's deprecated ``Heading`` PATCH (the plugin's "2.x" format, 3.0-4.0.0): insert
    ``content`` under the heading ``heading`` names, write the note, return its new text.

    NotFound (with the heading as its target) when no heading matches.
    """
    if not vault.is_file(path):
        raise NotFound(path)

    def patched(text: str | None) -> tuple[str, str]:
        new = insert_under_heading(
            _existing(text, path),
            heading,
            content,
            beginning=beginning,
            ignore_newline=ignore_newline,
        )
        if new is None:
            raise NotFound(path, "::".join(heading))
        return new, new

    return vaultfs.update_text(vault, path, patched, checked=checked)


def insert_under_heading(
    text: str, heading: Sequence[str], content: str, *, beginning: bool, ignore_newline: bool
) -> str | None:
    """``text`` with ``content`` inserted as one more line under the first heading whose
    path ends with ``heading`` (``["Log"]`` matches ``Plan::Log``), as the plugin's
    ``findHeadingBoundary`` and ``getSplicePosition`` do (read at 3.6.2); None if none does.

    ``beginning``: on the line after the heading; else before the next heading of the same
    or a higher level (or at the end), and with ``ignore_newline`` above the blank lines
    that precede it. Lines are split on ``\n`` only, so CRLF lines keep their ``\r``.
    """
    found = markdown.parse_headings(text)
    wanted = list(reversed(heading))
    cursor: list[str | None] = []  # heading texts by level; None where JavaScript has a hole
    for index, candidate in enumerate(found):
        cursor.extend([None] * (candidate.level + 1 - len(cursor)))
        cursor[candidate.level] = candidate.text
        del cursor[candidate.level + 1 :]
        trail = cursor[::-1]
        if any(i >= len(trail) or trail[i] != name for i, name in enumerate(wanted)):
            continue
        end = next((h for h in found[index + 1 :] if h.level <= candidate.level), None)
        lines = text.split("\n")
        if beginning:
            position = text.count("\n", 0, candidate.start) + 1
        else:
            position = len(lines) if end is None else text.count("\n", 0, end.start)
            while ignore_newline and position > 0 and lines[position - 1] == "":
                position -= 1
        lines.insert(position, content)
        return "\n".join(lines)
    return None


def _existing(text: str | None, path: str) -> str:
    if text is None:  # deleted since the index was asked
        raise NotFound(path)
    return text
