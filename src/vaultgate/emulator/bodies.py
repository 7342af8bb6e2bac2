"""Request bodies parsed the way the plugin's Express parsers do (NOTES.md §3).

The JSON types (application/json and the plugin's own ``+json`` types) are parsed leniently
(any JSON value, not only objects); a body that is not JSON is 400 ``40015``. Any ``text/*``
body is a string. Anything else is raw bytes. Without a Content-Type nothing parses the
body at all (Express leaves an empty object), which every handler treats as "not text".
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from vaultgate.emulator.apierrors import ApiError, ErrorCode
from vaultgate.emulator.responses import js_value

JSON_TYPES = frozenset(
    {
        "application/json",
        "application/vnd.olrapi.note+json",
        "application/vnd.olrapi.jsonlogic+json",
        "application/vnd.olrapi.patch-instruction+json",
    }
)


@dataclass(frozen=True, slots=True)
class Body:
    content_type: str | None  # the header as sent
    media_type: str | None  # lower-cased, parameters dropped
    data: bytes
    text: str | None = None  # text/* bodies
    value: Any = None  # JSON bodies, numbers as JavaScript holds them
    is_json: bool = False

    @property
    def is_text(self) -> bool:
        return self.text is not None

    @property
    def is_empty(self) -> bool:
        return not self.data


async def read_body(request: Request) -> Body:
    raw = request.headers.get("content-type")
    data = await request.body()
    if raw is None:
        return Body(None, None, data)
    media_type = raw.split(";", 1)[0].strip().lower()
    if media_type in JSON_TYPES:
        try:
            value = json.loads(data.decode("utf-8")) if data else None
        except (UnicodeDecodeError, ValueError):
            raise ApiError(ErrorCode.INVALID_CONTENT_FOR_CONTENT_TYPE) from None
        return Body(raw, media_type, data, value=js_value(value), is_json=bool(data))
    if media_type.startswith("text/"):
        return Body(raw, media_type, data, text=data.decode("utf-8", "replace"))
    return Body(raw, media_type, data)
