"""The text a patch is expected to leave, told before it is sent: what the protection check
needs when a note's ``mcp-protected`` tag is inline, where any heading or block patch could
take it away (replacing its line, or opening a code fence above it).

It runs the engine the folder backend patches with (the 2.0 instruction, the way 5.x reads
it); the 1.x engine of older plugins differs only in whitespace at the joints, which no tag
depends on. Pure: no I/O.
"""

from __future__ import annotations

import json

from vaultgate.patch_request import PatchRequest


def patched_text(text: str, request: PatchRequest) -> str | None:
    """``text`` after ``request``, or None when the engine would not apply it (a missing
    target, a failed merge, an instruction it does not emulate)."""
    # Imported here: the engine brings YAML, which a server that never patches a protected
    # note should not load at start (tests/test_server.py).
    from vaultgate.engine.instruction import InvalidInstruction, parse_instruction
    from vaultgate.engine.patch_v2 import PatchError, apply_instruction
    from vaultgate.errors import VaultgateError
    from vaultgate.obsidian.features import Version
    from vaultgate.obsidian.patch import encode_patch
    from vaultgate.patching import PatchFailed, UnparseableFrontmatter

    cannot_tell = (
        InvalidInstruction,
        PatchError,
        PatchFailed,
        UnparseableFrontmatter,
        VaultgateError,
        ValueError,
    )
    engine = Version(5, 1, 1)  # the instruction the folder backend applies
    try:
        _headers, body = encode_patch(request, engine)
        return apply_instruction(text, parse_instruction(json.loads(body))).document
    except cannot_tell:
        return None
