"""The plugin's error answers: ``{"message", "errorCode"}`` with status ``errorCode // 100``.

Handlers raise ApiError; one exception handler in ``app.py`` turns it into the JSON body.
The engine's errors become ApiErrors here (:func:`from_engine`): by that handler, or sooner
(:func:`engine_errors`) where a handler adds headers to whatever error it meets.
The canned sentences are the plugin's own (constants.ts), so clients that show them to a
person see what the real server says.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import contextmanager
from enum import IntEnum
from http import HTTPStatus

from vaultgate.engine.errors import (
    CannotReplace,
    DestinationExists,
    DiskFailed,
    EngineError,
    InvalidFrontmatter,
    InvalidQuery,
    IsAFolder,
    NotAFile,
    NotFound,
    PathRefused,
)
from vaultgate.engine.instruction import InvalidInstruction
from vaultgate.engine.patch_v2 import (
    CannotApply,
    ContentPreexists,
    KeyCollision,
    PreconditionFailed,
    TargetNotFound,
)
from vaultgate.patching import UnparseableFrontmatter


class ErrorCode(IntEnum):
    INVALID_FRONTMATTER = 40005
    TEXT_CONTENT_ENCODING_REQUIRED = 40010
    CONTENT_TYPE_SPECIFICATION_REQUIRED = 40011
    INVALID_CONTENT_TYPE = 40012
    INVALID_CONTENT_FOR_CONTENT_TYPE = 40015
    MISSING_DESTINATION_HEADER = 40020
    PATH_TRAVERSAL_NOT_ALLOWED = 40021
    INVALID_DESTINATION_HEADER = 40022
    INVALID_WITHIN_HEADER = 40023
    INVALID_CONTENT_INSERTION_POSITION_VALUE = 40050  # 3.x's deprecated Heading PATCH
    MISSING_HEADING_HEADER = 40051
    INVALID_HEADING_HEADER = 40052
    MISSING_TARGET_TYPE_HEADER = 40053
    INVALID_TARGET_TYPE_HEADER = 40054
    MISSING_TARGET_HEADER = 40055
    MISSING_OPERATION = 40056
    INVALID_OPERATION = 40057
    INVALID_TARGET_HEADER = 40058
    INVALID_TARGET_SCOPE_HEADER = 40059
    INVALID_FILTER_QUERY = 40070
    PATCH_FAILED = 40080
    INVALID_PATCH_INSTRUCTION = 40081
    INVALID_PATCH_VERSION_HEADER = 40082
    HEADER_TARGETING_REQUIRES_VERSION1 = 40083
    PATCH_HEADER_TARGETING_REQUIRES_EXPLICIT_VERSION = 40084
    INVALID_SEARCH = 40090
    API_KEY_AUTHORIZATION_REQUIRED = 40101
    PERIOD_DOES_NOT_EXIST = 40460
    PERIODIC_NOTE_DOES_NOT_EXIST = 40461
    REQUEST_METHOD_VALID_ONLY_FOR_FILES = 40510
    DESTINATION_ALREADY_EXISTS = 40920
    CONFLICTING_TARGET_SPECIFICATION = 42200
    FILE_OPERATION_FAILED = 50020


_MESSAGES: dict[ErrorCode, str] = {
    ErrorCode.INVALID_FRONTMATTER: "Document frontmatter could not be parsed.",
    ErrorCode.TEXT_CONTENT_ENCODING_REQUIRED: (
        "Incoming content must be text data and have an appropriate text/* Content-type "
        "header set (e.g. text/markdown)."
    ),
    ErrorCode.CONTENT_TYPE_SPECIFICATION_REQUIRED: (
        "Content-Type header required; this API accepts data in multiple content-types and "
        "you must indicate the content-type of your request body via the Content-Type header."
    ),
    ErrorCode.INVALID_CONTENT_TYPE: (
        "Unknown or invalid Content-Type specified in Content-Type header."
    ),
    ErrorCode.INVALID_CONTENT_FOR_CONTENT_TYPE: (
        "Your request body could not be processed as the content-type specified in your "
        "Content-Type header."
    ),
    ErrorCode.MISSING_DESTINATION_HEADER: (
        "Destination header is required for MOVE and COPY operations."
    ),
    ErrorCode.PATH_TRAVERSAL_NOT_ALLOWED: (
        "Path traversal is not allowed. Paths must be relative and within the vault."
    ),
    ErrorCode.INVALID_DESTINATION_HEADER: (
        "The 'Destination' header you provided could not be parsed."
    ),
    ErrorCode.INVALID_WITHIN_HEADER: "The 'Within' header must be a single integer, e.g. 0 or -1.",
    ErrorCode.INVALID_CONTENT_INSERTION_POSITION_VALUE: (
        "Invalid 'Content-Insertion-Position' header value."
    ),
    ErrorCode.MISSING_HEADING_HEADER: (
        "'Heading' header is required for identifying where to insert content."
    ),
    ErrorCode.INVALID_HEADING_HEADER: (
        "No heading in specified file could be found matching the heading specified in "
        "'Heading' header."
    ),
    ErrorCode.MISSING_TARGET_TYPE_HEADER: "No 'Target-Type' header was provided.",
    ErrorCode.INVALID_TARGET_TYPE_HEADER: (
        "The target type you specified was invalid. Valid target types are 'heading', "
        "'block', and 'frontmatter'."
    ),
    ErrorCode.MISSING_TARGET_HEADER: "No 'Target' header was provided.",
    ErrorCode.MISSING_OPERATION: "No 'Operation' header was provided.",
    ErrorCode.INVALID_OPERATION: "The 'Operation' header you provided was invalid.",
    ErrorCode.INVALID_TARGET_HEADER: "The 'Target' header you provided was invalid.",
    ErrorCode.INVALID_TARGET_SCOPE_HEADER: "The target scope you specified was invalid.",
    ErrorCode.INVALID_FILTER_QUERY: "The query you provided could not be processed.",
    ErrorCode.PATCH_FAILED: "The patch you provided could not be applied to the target content.",
    ErrorCode.INVALID_PATCH_INSTRUCTION: (
        "The patch instruction you provided was malformed or outside the supported algebra."
    ),
    ErrorCode.INVALID_PATCH_VERSION_HEADER: (
        "The 'Markdown-Patch-Version' header you provided was invalid. Valid values are '1' "
        "(the deprecated header-driven format) and '2' (the default JSON-instruction format)."
    ),
    ErrorCode.HEADER_TARGETING_REQUIRES_VERSION1: (
        "Header-based targeting (Target-Type/Target and the related "
        "Target-Scope/Target-Delimiter/Trim-Target-Whitespace headers) is deprecated and only "
        "processed when you also send 'Markdown-Patch-Version: 1'. Without it, reach a sub-part "
        "of a document with path-element targeting instead (e.g. "
        "/vault/note.md/heading/My%20Heading)."
    ),
    ErrorCode.PATCH_HEADER_TARGETING_REQUIRES_EXPLICIT_VERSION: (
        "Header-based PATCH targeting is ambiguous between the two patch formats, so it "
        "requires an explicit 'Markdown-Patch-Version' header: send '1' for the deprecated 1.x "
        "header-driven format, or '2' for raw-content mode (instruction fields in headers — "
        "heading Targets as percent-encoded JSON arrays — with the raw payload as the request "
        "body). The 1.x-only Target-Delimiter and Trim-Target-Whitespace headers are never "
        "processed under version 2."
    ),
    ErrorCode.INVALID_SEARCH: "The search query you provided is not valid.",
    ErrorCode.PERIOD_DOES_NOT_EXIST: "Specified period does not exist.",
    ErrorCode.PERIODIC_NOTE_DOES_NOT_EXIST: (
        "Periodic note does not exist for the specified period."
    ),
    ErrorCode.REQUEST_METHOD_VALID_ONLY_FOR_FILES: (
        "Request method is valid only for file paths, not directories."
    ),
    ErrorCode.DESTINATION_ALREADY_EXISTS: "Destination file already exists.",
    ErrorCode.FILE_OPERATION_FAILED: (
        "File operation failed. Check the error message for details."
    ),
    ErrorCode.CONFLICTING_TARGET_SPECIFICATION: (
        "Conflicting target specifications: supply the target via URL path elements, via "
        "Target-Type/Target headers, or (for PATCH) as an "
        "'application/vnd.olrapi.patch-instruction+json' instruction body — never more than "
        "one of these."
    ),
}


# Before 5.0 these four were worded for headers alone and always sent without a detail line
# (constants.ts at 3.6.2 and 4.1.7; 3.x has no 40020 or 40059).
_BEFORE_5: dict[ErrorCode, str] = {
    ErrorCode.INVALID_TARGET_TYPE_HEADER: "The 'Target-Type' header you provided was invalid.",
    ErrorCode.INVALID_TARGET_SCOPE_HEADER: (
        "The 'Target-Scope' header you provided was invalid. Valid values are 'content', "
        "'marker', and 'markerAndContent'."
    ),
    ErrorCode.CONFLICTING_TARGET_SPECIFICATION: (
        "Target type/target specified in both URL path and request headers. Use one or the other."
    ),
    ErrorCode.MISSING_DESTINATION_HEADER: "Destination header is required for MOVE operations.",
}


def auth_message(plugin_name: str) -> str:
    """The 40101 sentence names the plugin as its settings tab is titled in that version."""
    return (
        f"Authorization required.  Find your API Key in the '{plugin_name}' section of your "
        "Obsidian settings."
    )


class Unanswered(Exception):
    """The plugin's handler fails where nothing catches the failure (an ``async`` handler
    before 4.0, a promise it drops with ``void``): the request is never answered, and the
    client waits until its own timeout. ``reason`` is what the handler threw."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class ApiError(Exception):
    """An error answer. Give ``error_code`` (status derived) or a bare ``status``.

    ``detail`` is appended on a new line after the canned sentence, as the plugin does.
    ``message`` replaces the canned sentence (only 40101 needs it: it names the plugin).
    ``headers`` go out with the answer (``Deprecation`` on 5.x 1.x-PATCH errors, ...).
    """

    def __init__(
        self,
        error_code: int | None = None,
        *,
        status: int | None = None,
        detail: str = "",
        message: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        if error_code is None and status is None:
            raise ValueError("ApiError needs an error_code or a status")
        self.status = status if status is not None else (error_code or 0) // 100
        self.error_code = error_code if error_code is not None else self.status * 100
        if message is None:
            message = _canned(error_code) if error_code is not None else None
        if message is None:
            message = _reason_phrase(self.status)
        self.message = f"{message}\n{detail}" if detail else message
        self.headers: dict[str, str] = dict(headers or {})
        super().__init__(self.message)

    def body(self, *, worded_for_5: bool = True) -> dict[str, object]:
        """The JSON body; ``worded_for_5=False`` gives 3.x/4.x's wording where it differs."""
        message = self.message
        if not worded_for_5:
            with contextlib.suppress(ValueError):
                message = _BEFORE_5.get(ErrorCode(self.error_code), message)
        return {"message": message, "errorCode": self.error_code}


def from_engine(error: EngineError) -> ApiError:
    """The plugin's answer to what the engine reports."""
    if isinstance(error, PathRefused):
        return ApiError(ErrorCode.PATH_TRAVERSAL_NOT_ALLOWED)
    if isinstance(error, NotFound):
        return ApiError(status=404)
    if isinstance(error, NotAFile):
        return ApiError(ErrorCode.REQUEST_METHOD_VALID_ONLY_FOR_FILES)
    if isinstance(error, IsAFolder):
        return ApiError(status=500)  # the adapter's remove fails on a folder
    if isinstance(error, DestinationExists):
        return ApiError(ErrorCode.DESTINATION_ALREADY_EXISTS)
    if isinstance(error, CannotReplace):
        return ApiError(
            ErrorCode.FILE_OPERATION_FAILED,
            detail=f"Failed to {error.operation} file: the destination cannot be replaced.",
        )
    if isinstance(error, InvalidFrontmatter):
        return ApiError(ErrorCode.INVALID_FRONTMATTER)
    if isinstance(error, InvalidQuery):
        return ApiError(ErrorCode.INVALID_FILTER_QUERY, detail=str(error))
    if isinstance(error, DiskFailed):
        return ApiError(status=500, detail=error.reason)
    return ApiError(status=500, detail=str(error))


# What a 2.x PATCH can fail with, before or while it is applied.
PATCH_V2_ERRORS = (
    InvalidInstruction,
    TargetNotFound,
    PreconditionFailed,
    ContentPreexists,
    KeyCollision,
    CannotApply,
    UnparseableFrontmatter,
)


def from_patch_v2(
    error: InvalidInstruction
    | TargetNotFound
    | PreconditionFailed
    | ContentPreexists
    | KeyCollision
    | CannotApply
    | UnparseableFrontmatter,
) -> ApiError:
    """The plugin's answer to a 2.x PATCH that failed (5.x's ``_patchV2``)."""
    if isinstance(error, InvalidInstruction):
        return ApiError(ErrorCode.INVALID_PATCH_INSTRUCTION, detail=str(error))
    if isinstance(error, TargetNotFound):
        return ApiError(status=404, detail=str(error))
    if isinstance(error, PreconditionFailed):
        return ApiError(status=412, detail=str(error))
    if isinstance(error, (ContentPreexists, KeyCollision)):
        return ApiError(status=409, detail=str(error))
    if isinstance(error, CannotApply):
        return ApiError(ErrorCode.PATCH_FAILED, detail=str(error))
    return ApiError(ErrorCode.INVALID_FRONTMATTER, detail=str(error))


@contextmanager
def engine_errors() -> Iterator[None]:
    """Engine errors raised inside leave as the ApiErrors they map to."""
    try:
        yield
    except EngineError as error:
        raise from_engine(error) from error


def _canned(error_code: int) -> str | None:
    try:
        return _MESSAGES.get(ErrorCode(error_code))
    except ValueError:
        return None


def _reason_phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown Error"
