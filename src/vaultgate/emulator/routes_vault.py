"""``GET /vault/...`` and ``GET /active/...``: listings, files, note JSON, maps, sections.

The order of checks follows the plugin's ``_vaultGet``: whole file, then directory, then a
URL target after the longest file prefix; then ``Accept`` (exact match) picks note JSON or
the document map before any target is read; anything else gets the raw bytes.

Files are found on disk, as the adapter's ``stat`` finds them, so a file under a hidden
folder (``.obsidian/app.json``) is served; listings come from the index, which leaves
hidden paths out, and so do note JSON and the document map (404 for a hidden file). A
listing passes over the whole index, as the plugin's does (``vaultgate.engine.listing``).
The file's Content-Type and Content-Disposition are set before anything else is
checked, so every later answer carries them, errors included: Express's ``res.json``
keeps the Content-Type already set (adding ``charset=utf-8``), and for a type it cannot
parse (``false``) it throws, which ends in Express's own HTML 500 page.
"""

from __future__ import annotations

import anyio
from starlette.requests import Request
from starlette.responses import Response

from vaultgate.emulator.apierrors import ApiError, ErrorCode, engine_errors
from vaultgate.emulator.context import EmulatorContext, context_of
from vaultgate.emulator.media import DOCUMENT_MAP, NOTE_JSON, file_headers
from vaultgate.emulator.responses import (
    JSON_UTF8,
    express_error_page,
    json_bytes,
    json_response,
    with_utf8_charset,
)
from vaultgate.emulator.urlpath import decode_component, decode_segments, encode_uri, raw_path
from vaultgate.engine.errors import InvalidFrontmatter
from vaultgate.engine.listing import list_folder
from vaultgate.engine.representations import document_map, note_json
from vaultgate.engine.targets import (
    SCOPES,
    TARGET_TYPES,
    Target,
    read_target,
    split_url_target,
)

_DEPRECATION = 'true; sunset-version="6.0"'
_PATCH_VERSION = "markdown-patch-version"


async def vault_get(request: Request) -> Response:
    context = context_of(request)
    encoded = raw_path(request.scope).removeprefix("/vault/")
    segments = decode_segments(encoded, per_segment=context.behaviour.segment_decoding)
    await metadata_cache_wait(context, request, "/".join(segments))
    return serve(context, request, segments)


async def metadata_cache_wait(context: EmulatorContext, request: Request, path: str) -> None:
    """What note JSON costs for a file Obsidian's metadata cache never describes (not
    markdown): 3.4.3+ wait for it until ``waitForFileCache`` times out (5 s by default)."""
    if (
        request.headers.get("accept") != NOTE_JSON
        or not context.behaviour.waits_for_metadata_cache
        or path.lower().endswith(".md")
        or not context.state.is_file(path)
    ):
        return
    context.state.metadata_waits.append(path)
    await anyio.sleep(context.config.metadata_cache_timeout)


async def active_get(request: Request) -> Response:
    context = context_of(request)
    active = context.state.active_file
    if not active or not context.state.is_file(active):
        raise ApiError(status=404)
    encoded = raw_path(request.scope).removeprefix("/active/")
    suffix = [s for s in encoded.split("/") if s]
    if suffix and not context.behaviour.subdocument_paths:
        raise ApiError(status=404)
    if context.behaviour.segment_decoding:
        decoded = [decode_component(s) for s in suffix]
    else:
        decoded = [s for s in decode_component("/".join(suffix)).split("/") if s]
    location = {"Content-Location": encode_uri(active)}
    if not decoded:
        await metadata_cache_wait(context, request, active)
    try:
        with engine_errors():
            response = serve(context, request, [*active.split("/"), *decoded])
    except ApiError as error:  # the plugin names the note before it looks at anything
        error.headers.update(location)
        raise
    response.headers.update(location)
    return response


def serve(context: EmulatorContext, request: Request, segments: list[str]) -> Response:
    """Answer for decoded path segments: a file, a folder listing, or a note's target."""
    if not context.behaviour.subdocument_paths:
        return _serve_legacy(context, request, "/".join(segments))
    state = context.state
    # a segment holding a decoded '/' can only be part of a target, never of a file name
    if not any("/" in segment for segment in segments):
        path = "/".join(segments).removesuffix("/")
        if path and state.on_disk(path) == "file":
            return _serve_file(context, request, path, None)
        entries = list_folder(state, context.behaviour, path)
        if entries is not None:
            return json_response({"files": entries})
    found = split_url_target(state, segments)
    if found is None:
        raise ApiError(status=404)
    note, target = found
    return _serve_file(context, request, note, target)


def _serve_legacy(context: EmulatorContext, request: Request, path: str) -> Response:
    """Before 3.6.0: only a trailing-slash path lists; anything else must be a file."""
    if path == "" or path.endswith("/"):
        entries = list_folder(context.state, context.behaviour, path.removesuffix("/"))
        if entries is None:
            raise ApiError(status=404)
        return json_response({"files": entries})
    if context.state.on_disk(path) != "file":
        raise ApiError(status=404)
    return _serve_file(context, request, path, None)


def _serve_file(
    context: EmulatorContext, request: Request, path: str, url_target: Target | None
) -> Response:
    headers = file_headers(path)
    try:
        with engine_errors():
            return _file_answer(context, request, path, url_target, headers)
    except FileNotFoundError:  # deleted behind the index's back
        return _error_after_file_headers(ApiError(status=404), headers, context)
    except ApiError as error:
        return _error_after_file_headers(error, headers, context)


def _file_answer(
    context: EmulatorContext,
    request: Request,
    path: str,
    url_target: Target | None,
    headers: dict[str, str],
) -> Response:
    """The answer for a file; ``headers`` holds what has been set so far (errors use it)."""
    behaviour = context.behaviour
    state = context.state
    accept = request.headers.get("accept")
    if accept == NOTE_JSON:
        if not state.is_file(path):  # hidden: not in the index
            raise ApiError(status=404)
        headers["Content-Type"] = f"{NOTE_JSON}; charset=utf-8"
        body = json_bytes(note_json(state, path, behaviour))
        return Response(body, headers=headers)
    if accept == DOCUMENT_MAP and behaviour.document_map:
        if not state.is_file(path):
            raise ApiError(status=404)
        return _document_map(context, request, path, headers)
    target, from_headers = _requested_target(context, request, url_target)
    if target is not None:
        return _section(context, request, path, target, headers, from_headers=from_headers)
    return Response(state.read_bytes(path), headers=headers)


def _error_after_file_headers(
    error: ApiError, headers: dict[str, str], context: EmulatorContext
) -> Response:
    """An error sent with ``res.json`` after the file's headers were set."""
    content_type = with_utf8_charset(headers["Content-Type"])
    if content_type is None:
        return express_error_page(headers)
    sent = {**headers, **error.headers, "Content-Type": content_type}
    body = error.body(worded_for_5=context.behaviour.worded_for_5)
    return json_response(body, status=error.status, headers=sent)


def _patch_engine(context: EmulatorContext, request: Request) -> int:
    """1 or 2: which markdown-patch format governs the request (5.x reads the header)."""
    if not context.behaviour.markdown_patch_2:
        return 1
    raw = request.headers.get(_PATCH_VERSION)
    if raw is None or raw == "2":
        return 2
    if raw == "1":
        return 1
    raise ApiError(ErrorCode.INVALID_PATCH_VERSION_HEADER)


def _document_map(
    context: EmulatorContext, request: Request, path: str, headers: dict[str, str]
) -> Response:
    version = _patch_engine(context, request)
    try:
        mapped = document_map(context.state, context.behaviour, path, version=version)
    except InvalidFrontmatter:
        headers["Content-Type"] = f"{DOCUMENT_MAP}; charset=utf-8"  # set before the check
        raise
    headers["Content-Type"] = f"{DOCUMENT_MAP}; charset=utf-8"
    if version == 1 and context.behaviour.markdown_patch_2:
        headers["Deprecation"] = _DEPRECATION
    return Response(json_bytes(mapped), headers=headers)


def _requested_target(
    context: EmulatorContext, request: Request, url_target: Target | None
) -> tuple[Target | None, bool]:
    """The URL target, or the deprecated Target-Type/Target headers; (target, from_headers)."""
    header_type = request.headers.get("target-type")
    header_target = request.headers.get("target")
    if url_target is not None:
        if header_type or header_target:
            raise ApiError(ErrorCode.CONFLICTING_TARGET_SPECIFICATION)
        return url_target, False
    if not header_type or not context.behaviour.subdocument_paths:
        return None, False
    try:
        decoded = decode_component(header_target or "")
    except ApiError:
        raise ApiError(ErrorCode.INVALID_TARGET_HEADER) from None
    delimiter = request.headers.get("target-delimiter") or "::"
    if header_type == "heading":
        return Target(header_type, heading=tuple(decoded.split(delimiter)) if decoded else ()), True
    return Target(header_type, name=decoded), True


def _section(
    context: EmulatorContext,
    request: Request,
    path: str,
    target: Target,
    headers: dict[str, str],
    *,
    from_headers: bool,
) -> Response:
    if target.kind not in TARGET_TYPES:
        where = (
            "It was supplied in the 'Target-Type' header."
            if from_headers
            else f"It was supplied as the URL path element '{target.kind}', immediately "
            "after the note."
        )
        raise ApiError(ErrorCode.INVALID_TARGET_TYPE_HEADER, detail=where)
    engine = _patch_engine(context, request)
    if from_headers and engine != 1:
        raise ApiError(ErrorCode.HEADER_TARGETING_REQUIRES_VERSION1)
    if target.is_empty:
        raise ApiError(ErrorCode.MISSING_TARGET_HEADER)
    scope = "content"
    if engine == 2:
        scope = request.headers.get("target-scope") or "content"
        if scope not in SCOPES:
            raise ApiError(
                ErrorCode.INVALID_TARGET_SCOPE_HEADER,
                detail="Valid values for a read are 'content', 'marker', and 'markerAndContent'.",
            )
    elif not from_headers and target.kind == "heading":
        # the 1.x engine got URL heading levels joined with '::' and split them again
        target = Target("heading", heading=tuple("::".join(target.heading).split("::")))
    text = context.state.read_text(path)
    if engine == 1 and context.behaviour.markdown_patch_2:
        headers["Deprecation"] = _DEPRECATION  # set before the target is looked up
    read = read_target(
        text, target, engine=engine, scope=scope, strict_yaml=context.behaviour.frontmatter_errors
    )
    if read.is_json:
        return json_response(read.value, headers={**headers, "Content-Type": JSON_UTF8})
    return Response(
        str(read.value).encode("utf-8", "surrogatepass"),
        headers={**headers, "Content-Type": "text/markdown; charset=utf-8"},
    )
