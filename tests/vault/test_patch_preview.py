"""The text a patch is expected to leave, for the check of a tag carried inline."""

from __future__ import annotations

from vaultgate.patch_request import PatchRequest
from vaultgate.protection import PROTECTED, inline_marks
from vaultgate.vault.patch_preview import patched_text

NOTE = "# Keep 🚀\n\nKept #mcp-protected\n\n## Other 日本\n\nmore\n"


def test_a_patch_elsewhere_keeps_the_inline_tag() -> None:
    after = patched_text(NOTE, PatchRequest("append", "heading", ("Keep 🚀", "Other 日本"), "x"))

    assert after is not None
    assert "x" in after
    assert inline_marks(after) == {PROTECTED}


def test_replacing_the_tags_line_or_fencing_it_in_takes_it_away() -> None:
    replaced = patched_text(NOTE, PatchRequest("replace", "heading", ("Keep 🚀",), "new"))
    fenced = patched_text(NOTE, PatchRequest("prepend", "heading", ("Keep 🚀",), "```\n"))

    assert replaced is not None
    assert inline_marks(replaced) == frozenset()
    assert fenced is not None
    assert inline_marks(fenced) == frozenset()


def test_a_patch_the_engine_cannot_apply_is_unknown() -> None:
    assert patched_text(NOTE, PatchRequest("append", "heading", ("Nowhere",), "x")) is None
    assert patched_text(NOTE, PatchRequest("append", "block", "nosuchid", "x")) is None
