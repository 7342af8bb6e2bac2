"""Request bodies parsed the way the plugin's Express parsers do (NOTES.md §3).

The parsers run in order and the first whose type matches wins:

- the JSON types (``application/json``, note JSON, JsonLogic and, 5.x, the patch
  instruction): any JSON value (``strict: false``); an empty body is ``{}``; a body that is
  not JSON is 400 ``40015``;
- ``text/*`` (and 3.x's DQL type): a string;
- any other media type: the raw bytes.

A request without a Content-Type, with one that is not a media type, or without body
framing (no Content-Length, no Transfer-Encoding) is parsed by none of them, and Express
leaves ``req.body = {}``: an object, which handlers that expect text or bytes then treat as
data (a PUT stores ``{}``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import Headers
from starlette.requests import Request

from vaultgate.emulator.apierrors import ApiError, ErrorCode
from vaultgate.emulator.responses import MEDIA_TYPE
from vaultgate.engine.jsjson import js_value

JSON_TYPES = frozenset(
    {
        "application/json",
        "application/vnd.olrapi.note+json",
        "application/vnd.olrapi.jsonlogic+json",
    }
)
PATCH_INSTRUCTION = "application/vnd.olrapi.patch-instruction+json"
DATAVIEW_DQL = "application/vnd.olrapi.dataview.dql+txt"


@dataclass(frozen=True, slots=True)
class Body:
    content_type: str | None  # the header as sent
    media_type: str | None  # lower-cased, parameters dropped
    data: bytes
    text: str | None = None  # text/* bodies
    value: Any = None  # JSON bodies, numbers as JavaScript holds them
    is_json: bool = False
    parsed: Any = None  # what Express leaves in req.body: str, bytes, a JSON value or {}

    @property
    def is_text(self) -> bool:
        return self.text is not None

    @property
    def is_empty(self) -> bool:
        return not self.data


def has_body(headers: Headers) -> bool:
    """type-is's hasBody: Transfer-Encoding, or a Content-Length JavaScript reads as a number."""
    if "transfer-encoding" in headers:
        return True
    length = headers.get("content-length")
    return length is not None and (not length.strip() or length.strip().isdigit())


def _reject_constant(name: str) -> Any:
    raise ValueError(f"Unexpected token {name}")


async def read_body(
    request: Request, *, patch_instruction: bool = True, dataview: bool = False
) -> Body:
    """Parse as the plugin's parsers do; ``patch_instruction`` (5.x) and ``dataview`` (3.x)
    add the parsers those versions register."""
    raw = request.headers.get("content-type")
    data = await request.body()
    if raw is None:
        return Body(None, None, data, parsed={})
    media_type = raw.split(";", 1)[0].strip().lower()
    if not MEDIA_TYPE.fullmatch(media_type) or not has_body(request.headers):
        return Body(raw, media_type, data, parsed={})
    json_types = JSON_TYPES | {PATCH_INSTRUCTION} if patch_instruction else JSON_TYPES
    if media_type in json_types:
        if not data:
            return Body(raw, media_type, data, parsed={})
        try:
            value = json.loads(data.decode("utf-8"), parse_constant=_reject_constant)
        except (UnicodeDecodeError, ValueError):
            raise ApiError(ErrorCode.INVALID_CONTENT_FOR_CONTENT_TYPE) from None
        value = js_value(value)
        return Body(raw, media_type, data, value=value, is_json=True, parsed=value)
    if media_type.startswith("text/") or (dataview and media_type == DATAVIEW_DQL):
        text = data.decode("utf-8", "replace")
        return Body(raw, media_type, data, text=text, parsed=text)
    return Body(raw, media_type, data, parsed=data)


def stored_form(parsed: Any) -> bytes:
    """What the plugin writes for a PUT body: a string as UTF-8, bytes as they are, and any
    other value (``{}`` included) as compact ``JSON.stringify`` output."""
    if isinstance(parsed, str):
        return parsed.encode("utf-8", "surrogatepass")
    if isinstance(parsed, bytes):
        return parsed
    text = json.dumps(parsed, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8", "backslashreplace")
