"""Which file (and which part of it) a write request addresses.

``/vault/<path>`` names a file, or (3.6.0+) a file followed by a target
(``.../heading/A/B``, ``.../block/id``, ``.../frontmatter/key``): the longest prefix that is
an existing file is the note, as in the plugin's ``resolvePathAndTarget``. A path that
matches no file is a new file, unless one of its segments is a target word (then 404) or
holds a decoded ``%2F`` (5.0+: never a file name, 404). PATCH resolves URL targets from 5.0
only: 3.6.x and 4.x take its whole path as the file's. ``/active/<suffix>`` and
``/periodic/.../<suffix>`` do the same after the note they stand for; their answers carry
``Content-Location``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from starlette.requests import Request

from vaultgate.emulator.apierrors import ApiError
from vaultgate.emulator.context import EmulatorContext
from vaultgate.emulator.urlpath import decode_component, decode_segments, encode_uri, raw_path
from vaultgate.engine.targets import TARGET_TYPES, Target, split_url_target


@dataclass(frozen=True, slots=True)
class Address:
    path: str  # vault path; '' or a trailing '/' means a folder (405 40510 for writes)
    target: Target | None = None  # a URL target inside the note (3.6.0+)
    location: str | None = None  # Content-Location for /active/ and /periodic/ answers


def vault_address(
    context: EmulatorContext, request: Request, prefix: str = "/vault/", *, url_targets: bool = True
) -> Address:
    """The file (and URL target) a ``/vault/`` request names; ``url_targets=False`` takes the
    whole decoded path as the file's, as PATCH before 5.0 does."""
    encoded = raw_path(request.scope).removeprefix(prefix)
    segments = decode_segments(encoded, per_segment=context.behaviour.segment_decoding)
    if not context.behaviour.subdocument_paths or not url_targets:
        return Address("/".join(segments))
    whole = "/".join(segments)
    if not any("/" in segment for segment in segments) and context.state.on_disk(whole) == "file":
        return Address(whole)
    found = split_url_target(context.state, segments)
    if found is not None and found[1].kind:  # not just a trailing slash after a file
        return Address(found[0], found[1])
    if any(segment in TARGET_TYPES for segment in segments) or any(
        "/" in segment for segment in segments
    ):
        raise ApiError(status=404)
    return Address(whole)


def suffix_segments(context: EmulatorContext, request: Request, prefix: str) -> list[str]:
    """Decoded, non-empty segments after ``prefix`` (as /active/ reads them)."""
    encoded = raw_path(request.scope).removeprefix(prefix)
    suffix = [segment for segment in encoded.split("/") if segment]
    if context.behaviour.segment_decoding:
        return [decode_component(segment) for segment in suffix]
    return [segment for segment in decode_component("/".join(suffix)).split("/") if segment]


def note_address(context: EmulatorContext, note: str, suffix: Sequence[str]) -> Address:
    """The address of ``note`` (the active or a periodic note) plus an optional URL target."""
    location = encode_uri(note)
    if not suffix:
        return Address(note, location=location)
    if not context.behaviour.subdocument_paths:
        raise ApiError(status=404)
    found = split_url_target(context.state, [*note.split("/"), *suffix])
    if found is None or found[0] != note:
        return Address(note, location=location)
    return Address(note, found[1], location)


def active_address(context: EmulatorContext, request: Request) -> Address:
    active = context.state.active_file
    if not active or not context.state.is_file(active):
        raise ApiError(status=404)
    return note_address(context, active, suffix_segments(context, request, "/active/"))
