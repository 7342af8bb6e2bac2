"""PATCH, and PUT/POST aimed at a part of a note, in both of the plugin's formats.

1.x, header-driven (``patching.py``): the only format on 3.x-4.x; on 5.x only with
``Markdown-Patch-Version: 1``, and then every answer, errors included, carries
``Deprecation: true; sunset-version="6.0"``. ``Operation``, ``Target-Type``, ``Target``
(percent-decoded; a heading is the full ``::`` path), ``Target-Delimiter``,
``Trim-Target-Whitespace``, ``Create-Target-If-Missing``; the guard is 3.x's
``Apply-If-Content-Preexists`` or 4.0+'s ``Reject-If-Content-Preexists`` (with
``Target-Scope``); the body is ``text/markdown`` or ``application/json`` (exactly, 3.6.1+).
Success is 200 with the whole note, sent as Express sends a string (``text/html``); a
failed patch is 400 ``40080`` with the reason on the message's second line.

2.x (5.x default, ``vaultgate.engine.patch_v2``): a JSON instruction body
(``application/json`` or ``application/vnd.olrapi.patch-instruction+json``), or
raw-content mode (target in the URL, or in ``Target-Type``/``Target`` headers with an
explicit ``Markdown-Patch-Version: 2``; instruction fields in headers; the body is the
payload). 1.x headers without a version
header are 400 ``40084``. Success is 200 ``text/markdown`` with the whole note.

PUT (replace, creating the target) and POST (append) to ``.../heading/A/B`` (3.6.0+) go
through the same engines: 1.x below 5.0 (and for header targets under version 1), 2.x on
5.x.
"""

from __future__ import annotations

import json
import re
from typing import Any, NoReturn
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response

from vaultgate.emulator.apierrors import (
    PATCH_V2_ERRORS,
    ApiError,
    ErrorCode,
    Unanswered,
    engine_errors,
    from_patch_v2,
)
from vaultgate.emulator.bodies import Body, read_body
from vaultgate.emulator.context import EmulatorContext
from vaultgate.emulator.urlpath import decode_component
from vaultgate.engine.errors import NotFound
from vaultgate.engine.instruction import OPERATIONS, SCOPES
from vaultgate.engine.patch import heading_patch, patch_v1, patch_v2
from vaultgate.engine.targets import TARGET_TYPES, Target
from vaultgate.markdown import parse_headings
from vaultgate.patching import ContentGuard, Patch, PatchFailed, UnparseableFrontmatter

DEPRECATION = 'true; sunset-version="6.0"'
PATCH_INSTRUCTION = "application/vnd.olrapi.patch-instruction+json"
_V1_OPERATIONS = ("append", "prepend", "replace")
_V1_SCOPES = ("content", "marker", "markerAndContent")
_MARKDOWN_UTF8 = "text/markdown; charset=utf-8"
_EXPRESS_STRING = "text/html; charset=utf-8"  # what res.send(string) sets
_URI_COMPONENT_SAFE = "-_.!~*'()"  # encodeURIComponent leaves these unescaped
_NOT_AN_INSTRUCTION = (
    "A PATCH expects a JSON instruction object as the request body (send Content-Type: "
    "application/json or application/vnd.olrapi.patch-instruction+json). For raw-content "
    "mode, target via URL path elements or Target-Type/Target headers with "
    "'Markdown-Patch-Version: 2'. To use the deprecated 1.x header-driven format, set the "
    "'Markdown-Patch-Version: 1' header."
)
_DESTINATION_FORMAT = (
    "The 'Destination' header must be percent-encoded JSON, e.g. "
    "%7B%22parent%22%3A%5B%22Appendix%22%5D%2C%22place%22%3A%22last%22%7D."
)
_WITHIN = re.compile(r"-?[0-9]+")
_HEADING_PATCH_LINK = (
    "<https://github.com/coddingtonbear/obsidian-local-rest-api/wiki/"
    'Changes-to-PATCH-requests-between-versions-2.0-and-3.0>; rel="alternate"'
)
# what 3.x's heading PATCH throws for a file without metadata, or a note without headings
_NO_CACHE = "Error awaiting metadata cache for file in _vaultPatchV2: cache is null"
_NO_HEADINGS = "Cannot read properties of undefined (reading 'entries')"
_URL_TARGET_NEEDS_V2 = (
    "URL path-element targeting is a markdown-patch 2.0 feature; drop the "
    "'Markdown-Patch-Version: 1' header, or use the deprecated 1.x Target-Type/Target "
    "headers instead."
)


def patch_version(context: EmulatorContext, request: Request) -> int:
    """1 or 2: the markdown-patch format governing the request (only 5.x reads the header)."""
    if not context.behaviour.markdown_patch_2:
        return 1
    raw = request.headers.get("markdown-patch-version")
    if raw is None or raw == "2":
        return 2
    if raw == "1":
        return 1
    raise ApiError(ErrorCode.INVALID_PATCH_VERSION_HEADER)


def has_header_target(request: Request) -> bool:
    return bool(request.headers.get("target-type") or request.headers.get("target"))


def header_target(request: Request) -> Target | None:
    """The deprecated Target-Type/Target headers of a PUT/POST, validated; None if absent."""
    raw_type = request.headers.get("target-type")
    raw_target = request.headers.get("target")
    if not raw_type and not raw_target:
        return None
    if not raw_type:
        raise ApiError(ErrorCode.MISSING_TARGET_TYPE_HEADER)
    if raw_type not in TARGET_TYPES:
        raise ApiError(ErrorCode.INVALID_TARGET_TYPE_HEADER)
    decoded = _decoded_target(raw_target or "")
    if not decoded:
        raise ApiError(ErrorCode.MISSING_TARGET_HEADER)
    if raw_type == "heading":
        delimiter = request.headers.get("target-delimiter") or "::"
        return Target(raw_type, heading=tuple(decoded.split(delimiter)))
    return Target(raw_type, name=decoded)


def _decoded_target(raw: str) -> str:
    try:
        return decode_component(raw)
    except ApiError:
        raise ApiError(ErrorCode.INVALID_TARGET_HEADER) from None


# --- PATCH ----------------------------------------------------------------------------------


async def patch(
    context: EmulatorContext,
    request: Request,
    path: str,
    target: Target | None,
    *,
    redirected: bool = False,
) -> Response:
    """``redirected``: the request came through ``/active/`` or ``/periodic/``, whose
    handlers hand a 1.x PATCH on without waiting for it (4.x and 5.x: ``void``), so a failure
    it throws is never answered, where ``/vault/``'s is a 500 from 4.0."""
    if not path or path.endswith("/"):
        raise ApiError(ErrorCode.REQUEST_METHOD_VALID_ONLY_FOR_FILES)
    version = patch_version(context, request)
    body = await read_body(
        request,
        patch_instruction=context.behaviour.markdown_patch_2,
        dataview=context.behaviour.dataview,
    )
    headers_target = has_header_target(request)
    if target is not None and headers_target:
        raise ApiError(ErrorCode.CONFLICTING_TARGET_SPECIFICATION)
    if not context.behaviour.markdown_patch_2:
        if _is_heading_patch(context, request):
            return _heading_patch(context, request, path, body)
        return _patch_v1(context, request, path, target, body, redirected=redirected)
    if body.media_type == PATCH_INSTRUCTION and (target is not None or headers_target):
        raise ApiError(ErrorCode.CONFLICTING_TARGET_SPECIFICATION)
    if version == 1:
        if target is not None:
            raise ApiError(ErrorCode.INVALID_PATCH_VERSION_HEADER, detail=_URL_TARGET_NEEDS_V2)
        try:
            with engine_errors():
                response = _patch_v1(context, request, path, None, body, redirected=redirected)
        except ApiError as error:
            error.headers["Deprecation"] = DEPRECATION
            raise
        response.headers["Deprecation"] = DEPRECATION
        return response
    if target is not None:
        return _raw_mode(context, request, path, _url_target_value(target), target.kind, body)
    if headers_target:
        if request.headers.get("markdown-patch-version") != "2":
            raise ApiError(ErrorCode.PATCH_HEADER_TARGETING_REQUIRES_EXPLICIT_VERSION)
        kind, value = _raw_header_target(request)
        return _raw_mode(context, request, path, value, kind, body)
    # no Content-Type (or no body) leaves Express's {}: an object, so the schema judges it
    if not isinstance(body.parsed, dict):
        raise ApiError(ErrorCode.INVALID_PATCH_INSTRUCTION, detail=_NOT_AN_INSTRUCTION)
    return respond_v2(context, path, body.parsed)


def _patch_v1(
    context: EmulatorContext,
    request: Request,
    path: str,
    url_target: Target | None,
    body: Body,
    *,
    redirected: bool = False,
) -> Response:
    behaviour = context.behaviour
    headers = request.headers
    if url_target is None:
        # the handler decodes Target first thing, outside any try (3.6.2, 4.1.7, 5.1.0)
        raw_target = _v1_target_header(context, request, redirected=redirected)
    if not behaviour.headers_before_file and not context.state.is_file(path):
        raise ApiError(status=404)
    if url_target is not None:
        target_type: str | None = url_target.kind
        raw_target = (
            "::".join(url_target.heading) if url_target.kind == "heading" else url_target.name
        )
        delimiter = "::"
    else:
        target_type = headers.get("target-type")
        delimiter = headers.get("target-delimiter") or "::"
    operation = headers.get("operation")
    if not target_type:
        raise ApiError(ErrorCode.MISSING_TARGET_TYPE_HEADER)
    if target_type not in TARGET_TYPES:
        raise ApiError(ErrorCode.INVALID_TARGET_TYPE_HEADER)
    if not raw_target:
        raise ApiError(ErrorCode.MISSING_TARGET_HEADER)
    if not operation:
        raise ApiError(ErrorCode.MISSING_OPERATION)
    if operation not in _V1_OPERATIONS:
        raise ApiError(ErrorCode.INVALID_OPERATION)
    scope = headers.get("target-scope")
    if (
        behaviour.markdown_patch_2
        and target_type == "frontmatter"
        and scope in ("marker", "markerAndContent")
    ):
        raise ApiError(ErrorCode.INVALID_TARGET_SCOPE_HEADER)  # 5.x: a field has no marker
    return _apply_v1(context, request, path, target_type, raw_target, delimiter, operation, body)


def _v1_target_header(context: EmulatorContext, request: Request, *, redirected: bool) -> str:
    """The 1.x PATCH's ``Target``, percent-decoded. The handler decodes it with no try around
    it, so a broken escape (``%ZZ``) throws ``URIError: URI malformed``: 4.0+ answer that
    with the error handler's 500 when the PATCH came to ``/vault/``; before 4.0, and through
    ``/active/`` or ``/periodic/`` (whose handlers drop the promise), it is never answered."""
    raw = request.headers.get("target") or ""
    try:
        return decode_component(raw)
    except ApiError:
        if context.behaviour.caught_handler_errors and not redirected:
            raise ApiError(status=500, detail="URI malformed") from None
        raise Unanswered("URIError: URI malformed") from None


def _is_heading_patch(context: EmulatorContext, request: Request) -> bool:
    """Below 4.0.1, a ``Heading`` header without ``Target-Type`` picks the 2.x format."""
    headers = request.headers
    return (
        context.behaviour.heading_patch
        and bool(headers.get("heading"))
        and not headers.get("target-type")
    )


def _heading_patch(context: EmulatorContext, request: Request, path: str, body: Body) -> Response:
    """The deprecated ``Heading`` PATCH, in the order 3.6.2's ``_vaultPatchV2`` checks it.

    ``Heading`` (a path of heading names split on ``Heading-Boundary``, ``::`` by default;
    it matches the first heading whose path ends with it), ``Content-Insertion-Position``
    (``end``, the default, or ``beginning``), ``Content-Insertion-Ignore-Newline: true``
    (insert above the blank lines before the next heading); the body is text (a ``text/*``
    body, or a JSON string). 200 with the whole note, ``Deprecation`` and a ``Link`` to the
    plugin's page on the change; 400 ``40050`` for another position, ``40010`` for a body
    that is not text, ``40051`` for an empty heading path, 404 for a missing file, ``40052``
    for no matching heading. A file Obsidian keeps no metadata for (not markdown), or a note
    without headings, fails inside the handler: never answered (500 on 4.0.0).
    """
    headers = request.headers
    boundary = headers.get("heading-boundary") or "::"
    heading = [name for name in (headers.get("heading") or "").split(boundary) if name]
    position = headers.get("content-insertion-position")
    if position not in (None, "beginning", "end"):
        raise ApiError(ErrorCode.INVALID_CONTENT_INSERTION_POSITION_VALUE)
    if not isinstance(body.parsed, str):
        raise ApiError(ErrorCode.TEXT_CONTENT_ENCODING_REQUIRED)
    ignore_newline = (headers.get("content-insertion-ignore-newline") or "").lower() == "true"
    if not heading:
        raise ApiError(ErrorCode.MISSING_HEADING_HEADER)
    state = context.state
    if not state.is_file(path):
        raise ApiError(status=404)
    if not path.endswith(".md"):
        _handler_failed(context, _NO_CACHE)
    if not parse_headings(state.read_text(path)):
        _handler_failed(context, _NO_HEADINGS)
    try:
        patched = heading_patch(
            state,
            path,
            heading,
            body.parsed,
            beginning=position == "beginning",
            ignore_newline=ignore_newline,
            checked=False,  # the plugin's read-then-write window (docs/design.md)
        )
    except NotFound as missing:
        if missing.target is None:
            raise ApiError(status=404) from None
        raise ApiError(ErrorCode.INVALID_HEADING_HEADER) from None
    response = Response(patched.encode("utf-8", "surrogatepass"), media_type=_EXPRESS_STRING)
    if context.behaviour.heading_patch_deprecation:
        response.headers["Deprecation"] = 'true; sunset-version="4.0"'
        response.headers["Link"] = _HEADING_PATCH_LINK
    return response


def _handler_failed(context: EmulatorContext, reason: str) -> NoReturn:
    """What a handler's uncaught throw becomes: 4.0+'s 500, or no answer before."""
    if context.behaviour.caught_handler_errors:
        raise ApiError(status=500, detail=reason)
    raise Unanswered(reason)


def _apply_v1(
    context: EmulatorContext,
    request: Request,
    path: str,
    target_type: str,
    raw_target: str,
    delimiter: str,
    operation: str,
    body: Body,
    *,
    create: bool | None = None,
) -> Response:
    """Validate what is left of a 1.x request, run the 1.x engine, write, answer 200."""
    behaviour = context.behaviour
    headers = request.headers
    scope = "content"
    if behaviour.reject_if_preexists:
        scope = headers.get("target-scope") or "content"
        if scope not in _V1_SCOPES:
            # 4.x's canned sentence names the values itself (ApiError.body words it)
            detail = "Valid values are 'content', 'marker', and 'markerAndContent'."
            raise ApiError(ErrorCode.INVALID_TARGET_SCOPE_HEADER, detail=detail)
    content_type, content = _v1_content(context, body)
    instruction = Patch(
        operation=operation,  # type: ignore[arg-type]  # validated against _V1_OPERATIONS
        target_type=target_type,  # type: ignore[arg-type]  # validated against TARGET_TYPES
        target=tuple(raw_target.split(delimiter)) if target_type == "heading" else raw_target,
        content=content,
        content_type=content_type,
        create_target_if_missing=(
            create if create is not None else headers.get("create-target-if-missing") == "true"
        ),
        trim_target_whitespace=headers.get("trim-target-whitespace") == "true",
        guard=_guard(context, request),
        scope=scope,  # type: ignore[arg-type]  # validated against _V1_SCOPES
    )
    try:
        patched = patch_v1(context.state, path, instruction, checked=False)
    except PatchFailed as failed:
        raise ApiError(ErrorCode.PATCH_FAILED, detail=failed.reason) from None
    except UnparseableFrontmatter as broken:
        if behaviour.frontmatter_errors:
            raise ApiError(ErrorCode.INVALID_FRONTMATTER, detail=str(broken)) from None
        raise ApiError(status=500, detail=str(broken)) from None
    return Response(patched.encode("utf-8", "surrogatepass"), media_type=_EXPRESS_STRING)


def _guard(context: EmulatorContext, request: Request) -> ContentGuard:
    if context.behaviour.reject_if_preexists:
        reject = request.headers.get("reject-if-content-preexists") == "true"
        return ContentGuard.EXTENDING if reject else ContentGuard.OFF
    apply_anyway = request.headers.get("apply-if-content-preexists") == "true"
    return ContentGuard.OFF if apply_anyway else ContentGuard.ALL


def _v1_content(context: EmulatorContext, body: Body) -> tuple[Any, Any]:
    """("markdown", text) or ("json", value); 400 40012 for any other body type."""
    if context.behaviour.strict_patch_content_type:
        is_markdown = body.content_type == "text/markdown"
        is_json = body.content_type == "application/json"
    else:
        is_markdown = body.is_text
        is_json = body.media_type == "application/json"
    if is_markdown:
        return "markdown", body.text or ""
    if is_json:
        return "json", body.parsed
    raise ApiError(ErrorCode.INVALID_CONTENT_TYPE)


# --- 2.x ------------------------------------------------------------------------------------


def _url_target_value(target: Target) -> Any:
    return list(target.heading) if target.kind == "heading" else target.name


def _raw_header_target(request: Request) -> tuple[str, Any]:
    """Raw-content mode's Target-Type/Target: a heading Target is percent-encoded JSON."""
    raw_type = request.headers.get("target-type")
    raw_target = request.headers.get("target")
    if not raw_type:
        raise ApiError(ErrorCode.MISSING_TARGET_TYPE_HEADER)
    if raw_type not in TARGET_TYPES:
        raise ApiError(ErrorCode.INVALID_TARGET_TYPE_HEADER)
    if not raw_target:
        raise ApiError(ErrorCode.MISSING_TARGET_HEADER)
    try:
        decoded = decode_component(raw_target)
    except ApiError:
        raise ApiError(
            ErrorCode.INVALID_TARGET_HEADER,
            detail="The 'Target' header could not be percent-decoded.",
        ) from None
    if raw_type != "heading":
        if not decoded:
            raise ApiError(ErrorCode.MISSING_TARGET_HEADER)
        return raw_type, decoded
    try:
        parsed = json.loads(decoded)
        is_address = parsed is None or (
            isinstance(parsed, list) and all(isinstance(part, str) for part in parsed)
        )
    except ValueError:
        parsed, is_address = None, False
    if not is_address:
        raise ApiError(
            ErrorCode.INVALID_TARGET_HEADER,
            detail=(
                "A heading 'Target' header must be percent-encoded JSON: an array of heading "
                "texts (e.g. %5B%22A%22%2C%22B%22%5D) or null for the document root."
            ),
        )
    return raw_type, parsed


def _raw_mode(
    context: EmulatorContext, request: Request, path: str, target: Any, kind: str, body: Body
) -> Response:
    """Assemble an instruction from headers and the raw body, then run it as JSON mode does."""
    headers = request.headers
    if headers.get("target-delimiter") or headers.get("trim-target-whitespace"):
        raise ApiError(ErrorCode.PATCH_HEADER_TARGETING_REQUIRES_EXPLICIT_VERSION)
    operation = headers.get("operation")
    if not operation:
        raise ApiError(ErrorCode.MISSING_OPERATION)
    if operation not in OPERATIONS:
        raise ApiError(ErrorCode.INVALID_OPERATION)
    scope = headers.get("target-scope")
    if scope is not None and scope not in SCOPES:
        raise ApiError(
            ErrorCode.INVALID_TARGET_SCOPE_HEADER,
            detail="Valid values are 'content', 'marker', 'markerAndContent', and 'parent'.",
        )
    candidate: dict[str, Any] = {"targetType": kind, "target": target, "operation": operation}
    if scope is not None:
        candidate["scope"] = scope
    destination = headers.get("destination")
    if destination is not None:
        try:
            candidate["destination"] = json.loads(decode_component(destination))
        except (ApiError, ValueError):
            raise ApiError(
                ErrorCode.INVALID_DESTINATION_HEADER, detail=_DESTINATION_FORMAT
            ) from None
    within = headers.get("within")
    if within is not None:
        # strict: parseInt would take "1x" as 1 and land the edit on the wrong block
        if not _WITHIN.fullmatch(within.strip()):
            raise ApiError(ErrorCode.INVALID_WITHIN_HEADER)
        candidate["within"] = int(within.strip())
    if_match = headers.get("if-match")
    if if_match is not None:
        quoted = len(if_match) >= 2 and if_match.startswith('"') and if_match.endswith('"')
        candidate["ifMatch"] = if_match[1:-1] if quoted else if_match
    if headers.get("create-target-if-missing") == "true":
        candidate["createTargetIfMissing"] = True
    if headers.get("reject-if-content-preexists") == "true":
        candidate["rejectIfContentPreexists"] = True
    if not body.is_empty:
        if body.is_text:
            candidate["content"] = body.text
        elif body.media_type == "application/json":
            candidate["value"] = body.value
        else:
            raise ApiError(
                ErrorCode.INVALID_CONTENT_TYPE,
                detail=(
                    "A raw-content-mode PATCH accepts a text/* body (the `content` carrier), "
                    "an application/json body (the `value` carrier), or no body at all (a "
                    "delete, or a move via the Destination header)."
                ),
            )
    return respond_v2(context, path, candidate)


def respond_v2(context: EmulatorContext, path: str, candidate: dict[str, Any]) -> Response:
    """Validate a 2.x instruction, apply it to ``path``, write, answer 200 with the note."""
    try:
        result = patch_v2(context.state, path, candidate, checked=False)
    except PATCH_V2_ERRORS as error:
        raise from_patch_v2(error) from None
    headers: dict[str, str] = {}
    if result.warnings:
        warnings = json.dumps(result.warnings, separators=(",", ":"), ensure_ascii=False)
        headers["Markdown-Patch-Warnings"] = quote(warnings, safe=_URI_COMPONENT_SAFE)
    return Response(
        result.document.encode("utf-8", "surrogatepass"),
        media_type=_MARKDOWN_UTF8,
        headers=headers,
    )


# --- PUT / POST to a target -----------------------------------------------------------------


async def targeted_write(
    context: EmulatorContext,
    request: Request,
    path: str,
    target: Target,
    operation: str,
    *,
    from_headers: bool,
) -> Response:
    """PUT (``replace``, creating the target) or POST (``append``) to part of a note."""
    behaviour = context.behaviour
    version = patch_version(context, request)
    if from_headers and version != 1:
        raise ApiError(ErrorCode.HEADER_TARGETING_REQUIRES_VERSION1)
    body = await read_body(
        request,
        patch_instruction=context.behaviour.markdown_patch_2,
        dataview=context.behaviour.dataview,
    )
    if behaviour.strict_patch_content_type and body.content_type not in (
        "text/markdown",
        "application/json",
    ):
        raise ApiError(ErrorCode.INVALID_CONTENT_TYPE)
    create = operation == "replace" or request.headers.get("create-target-if-missing") == "true"
    if version == 1:
        raw = "::".join(target.heading) if target.kind == "heading" else target.name
        delimiter = (request.headers.get("target-delimiter") or "::") if from_headers else "::"
        if from_headers and target.kind == "heading":
            raw = delimiter.join(target.heading)
        try:
            if target.kind not in TARGET_TYPES:
                raise ApiError(ErrorCode.INVALID_TARGET_TYPE_HEADER)
            if not raw:
                raise ApiError(ErrorCode.MISSING_TARGET_HEADER)
            with engine_errors():
                response = _apply_v1(
                    context,
                    request,
                    path,
                    target.kind,
                    raw,
                    delimiter,
                    operation,
                    body,
                    create=create,
                )
        except ApiError as error:
            if behaviour.markdown_patch_2:
                error.headers["Deprecation"] = DEPRECATION
            raise
        if behaviour.markdown_patch_2:
            response.headers["Deprecation"] = DEPRECATION
        return response
    headers = request.headers
    if (
        headers.get("target-scope")
        or headers.get("target-delimiter")
        or headers.get("trim-target-whitespace")
    ):
        raise ApiError(ErrorCode.HEADER_TARGETING_REQUIRES_VERSION1)
    if target.kind not in TARGET_TYPES:
        raise ApiError(ErrorCode.INVALID_TARGET_TYPE_HEADER)
    if target.is_empty:
        raise ApiError(ErrorCode.MISSING_TARGET_HEADER)
    candidate: dict[str, Any] = {
        "targetType": target.kind,
        "target": _url_target_value(target),
        "operation": operation,
        "createTargetIfMissing": create,
        "rejectIfContentPreexists": headers.get("reject-if-content-preexists") == "true",
    }
    if target.kind == "frontmatter":
        candidate["value"] = body.parsed
    elif body.is_text:
        candidate["content"] = body.text
    else:
        candidate["value"] = body.parsed
    return respond_v2(context, path, candidate)
