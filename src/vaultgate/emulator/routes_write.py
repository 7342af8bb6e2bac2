"""Whole-file writes: PUT, POST, DELETE, MOVE (4.1.0+) and COPY (5.0.0+).

``/vault/<path>`` and ``/active/`` (and ``/periodic/``, through ``periodic.py``) share the
handlers below; an address with a URL target (or Target headers on PUT/POST, 3.6.0+) goes
to ``routes_patch.py`` instead.

- PUT: create or replace, folders made as needed, 204. ``text/*`` is written as text,
  anything else as the bytes sent. A folder path is 405 ``40510``.
- POST: append, starting a new line when the file does not end with one; creates the
  file; the body must be ``text/*`` (400 ``40010``); 204.
- DELETE: 204; 404 when missing. 5.0+ moves the file (or a folder named without its
  trailing slash) to ``.trash/`` unless ``?permanent=true``; older versions delete for
  good. A URL target is 405.
- MOVE/COPY: ``Destination`` (percent-decoded; backslashes become slashes; a trailing
  ``/`` keeps the file name), ``Allow-Overwrite: true`` to replace; 204 with
  ``Content-Location``; 404 missing source, 409 ``40920`` taken destination, 400
  ``40020`` no header, ``40022`` undecodable, ``40021`` absolute or escaping the vault;
  ``.`` and ``..`` inside the vault are resolved (``dir/../x.md`` lands at ``x.md``).
  MOVE rewrites the links to the moved file in every note, and the moved file's own, as the
  plugin's call to ``fileManager.renameFile`` makes Obsidian do (``engine/relink.py``); a
  link elsewhere that the move captures is left, as Obsidian leaves it. What was rewritten
  is no part of the answer, which stays the plugin's empty 204.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Awaitable
from dataclasses import replace

import anyio
from starlette.requests import Request
from starlette.responses import Response

from vaultgate.emulator import routes_patch
from vaultgate.emulator.addressing import Address, active_address, vault_address
from vaultgate.emulator.apierrors import ApiError, ErrorCode, engine_errors
from vaultgate.emulator.bodies import Body, read_body, stored_form
from vaultgate.emulator.context import EmulatorContext, context_of
from vaultgate.emulator.urlpath import decode_component, decode_segments, encode_uri, raw_path
from vaultgate.engine import writes
from vaultgate.engine.errors import IsAFolder

_TARGETED_DELETE = (
    "Deleting a targeted section via URL is not supported. Use PATCH with Operation: replace "
    "and an empty body instead."
)
_SYNTHETIC_ROOT = "/vault"


async def _targeted(
    context: EmulatorContext, request: Request, address: Address, operation: str
) -> Response | None:
    """A PUT/POST aimed at a section (by URL, or by headers on 3.6+), or None for the file."""
    if address.target is not None:
        if routes_patch.has_header_target(request):
            raise ApiError(ErrorCode.CONFLICTING_TARGET_SPECIFICATION)
        return await routes_patch.targeted_write(
            context, request, address.path, address.target, operation, from_headers=False
        )
    if context.behaviour.subdocument_paths:
        target = routes_patch.header_target(request)
        if target is not None:
            return await routes_patch.targeted_write(
                context, request, address.path, target, operation, from_headers=True
            )
    return None


async def put(context: EmulatorContext, request: Request, address: Address) -> Response:
    if (targeted := await _targeted(context, request, address, "replace")) is not None:
        return targeted
    writes.check_file_path(context.state, address.path)
    body = await read_body_for(context, request)
    # whatever the parsers left is written: no Content-Type stores "{}", JSON is re-serialised
    writes.write(context.state, address.path, stored_form(body.parsed))
    return Response(status_code=204)


async def post(context: EmulatorContext, request: Request, address: Address) -> Response:
    if (targeted := await _targeted(context, request, address, "append")) is not None:
        return targeted
    writes.check_file_path(context.state, address.path)
    body = await read_body_for(context, request)
    if not isinstance(body.parsed, str):
        raise ApiError(ErrorCode.TEXT_CONTENT_ENCODING_REQUIRED)
    # every version reads the note, then writes it whole (vault.read, then adapter.write or
    # vault.modify): what another program appends in between is lost, as with the plugin
    writes.append(context.state, address.path, body.parsed, checked=False)
    return Response(status_code=204)


async def read_body_for(context: EmulatorContext, request: Request) -> Body:
    """The body as the parsers of the emulated version leave it."""
    behaviour = context.behaviour
    return await read_body(
        request, patch_instruction=behaviour.markdown_patch_2, dataview=behaviour.dataview
    )


async def delete(context: EmulatorContext, request: Request, address: Address) -> Response:
    """Only a trailing slash marks a folder here; a folder path without one is deleted too.

    5.x trashes whatever the index holds at the path (a note, or a whole folder), so a
    hidden file is 404; ``?permanent=true``, and every older version, removes what the
    adapter finds on disk (hidden files included), and removing a folder that way fails:
    500 on 4.x and 5.x, no answer at all on 3.x (the error escapes an unwatched promise).
    """
    if address.target is not None:
        raise ApiError(status=405, detail=_TARGETED_DELETE)
    state = context.state
    permanent = request.query_params.get("permanent") == "true"
    try:
        deleted = writes.delete(
            state, address.path, to_trash=context.behaviour.trash_delete and not permanent
        )
    except IsAFolder:
        if not context.behaviour.caught_handler_errors:
            await anyio.sleep_forever()
        raise
    if deleted.kind == "folder":
        state.folder_deleted(address.path)
    else:
        state.note_deleted(address.path)
    return Response(status_code=204)


async def patch(context: EmulatorContext, request: Request, address: Address) -> Response:
    redirected = address.location is not None  # /active/ or /periodic/
    return await routes_patch.patch(
        context, request, address.path, address.target, redirected=redirected
    )


# --- routes ---------------------------------------------------------------------------------


async def vault_put(request: Request) -> Response:
    context = context_of(request)
    return await put(context, request, vault_address(context, request))


async def vault_post(request: Request) -> Response:
    context = context_of(request)
    return await post(context, request, vault_address(context, request))


async def vault_patch(request: Request) -> Response:
    context = context_of(request)
    url_targets = context.behaviour.url_targeted_patch
    return await patch(context, request, vault_address(context, request, url_targets=url_targets))


async def vault_delete(request: Request) -> Response:
    context = context_of(request)
    return await delete(context, request, vault_address(context, request))


async def active_write(request: Request) -> Response:
    """PUT, POST, PATCH or DELETE on the open note; answers name it in Content-Location."""
    context = context_of(request)
    address = active_address(context, request)
    if request.method == "PATCH" and not context.behaviour.url_targeted_patch:
        address = replace(address, target=None)  # before 5.0 the suffix is ignored
    handler = {"PUT": put, "POST": post, "PATCH": patch, "DELETE": delete}[request.method]
    return await answer_with_location(handler(context, request, address), address)


async def answer_with_location(pending: Awaitable[Response], address: Address) -> Response:
    """Await ``pending`` and add ``Content-Location`` to its answer, errors included."""
    location = {"Content-Location": address.location} if address.location else {}
    try:
        with engine_errors():
            response = await pending
    except ApiError as error:
        error.headers.update(location)
        raise
    response.headers.update(location)
    return response


# --- MOVE and COPY --------------------------------------------------------------------------


async def vault_move(request: Request) -> Response:
    return await _transfer(request, keep_source=False)


async def vault_copy(request: Request) -> Response:
    return await _transfer(request, keep_source=True)


def _whole_file_path(context: EmulatorContext, request: Request) -> str:
    encoded = raw_path(request.scope).removeprefix("/vault/")
    segments = decode_segments(encoded, per_segment=context.behaviour.segment_decoding)
    if any("/" in segment for segment in segments):  # a decoded %2F never names a file
        raise ApiError(status=404)
    return "/".join(segments)


def destination_path(request: Request, source: str) -> str:
    """The vault path the ``Destination`` header names for ``source``."""
    raw = request.headers.get("destination")
    if raw is None:
        raise ApiError(ErrorCode.MISSING_DESTINATION_HEADER)
    try:
        decoded = decode_component(raw.strip())
    except ApiError:
        raise ApiError(ErrorCode.INVALID_DESTINATION_HEADER) from None
    normalized = re.sub(r"/+", "/", decoded.replace("\\", "/"))
    if normalized.startswith("/"):
        raise ApiError(ErrorCode.PATH_TRAVERSAL_NOT_ALLOWED)
    resolved = posixpath.normpath(posixpath.join(_SYNTHETIC_ROOT, normalized))
    if resolved != _SYNTHETIC_ROOT and not resolved.startswith(_SYNTHETIC_ROOT + "/"):
        raise ApiError(ErrorCode.PATH_TRAVERSAL_NOT_ALLOWED)
    if not normalized or normalized.endswith("/"):
        return normalized + posixpath.basename(source)
    return normalized


async def _transfer(request: Request, *, keep_source: bool) -> Response:
    context = context_of(request)
    state = context.state
    source = _whole_file_path(context, request)
    if not source or source.endswith("/"):
        raise ApiError(ErrorCode.REQUEST_METHOD_VALID_ONLY_FOR_FILES)
    destination = destination_path(request, source)
    overwrite = request.headers.get("allow-overwrite") == "true"
    # the answer names the path as sent (the renamed TFile's path); the disk resolves it
    located = {"Content-Location": encode_uri(destination)}
    stored = resolved_destination(destination)
    if stored == source != destination and not overwrite:
        raise ApiError(ErrorCode.DESTINATION_ALREADY_EXISTS)  # the adapter finds the source
    if keep_source:
        writes.copy(state, source, stored, overwrite=overwrite)
    else:
        writes.move(state, source, stored, overwrite=overwrite, captures=False)
        state.note_moved(source, stored)
    return Response(status_code=204, headers=located)


def resolved_destination(destination: str) -> str:
    """Where a destination inside the vault lands: ``dir/../x.md`` is ``x.md``.

    The plugin's check only asks that the path resolve inside the vault, then hands the
    path as sent to Obsidian, whose file system resolves ``.`` and ``..`` (4.1.0-5.1.0;
    the real handler, run on a plain file system, put ``dir/../x.md`` at ``x.md``). A path
    that resolves to the vault itself stays as sent, and the engine refuses it.
    """
    if not any(part in (".", "..") for part in destination.split("/")):
        return destination
    resolved = posixpath.normpath(destination)
    return destination if resolved in (".", "") else resolved
