"""JSON the way Express sends it: ``JSON.stringify(value, null, 2)`` as UTF-8.

JavaScript has one number type, so an integral float prints without ``.0`` and NaN or
Infinity print as ``null``; a lone UTF-16 surrogate (a search context cut inside an emoji)
prints as a ``\\uXXXX`` escape. Everything else matches ``json.dumps(indent=2)``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from starlette.responses import Response

from vaultgate.emulator.apierrors import ApiError
from vaultgate.engine.jsjson import js_value

JSON_UTF8 = "application/json; charset=utf-8"
# what the content-type package (behind Express and its body parsers) accepts as a media type
MEDIA_TYPE = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+/[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_QUOTED_PAIR = re.compile(r"\\([\u000b\u0020-\u00ff])")


def json_bytes(value: Any) -> bytes:
    text = json.dumps(js_value(value), indent=2, ensure_ascii=False)
    # 'backslashreplace' turns a lone surrogate into the same \udXXX escape JSON.stringify uses
    return text.encode("utf-8", "backslashreplace")


def json_response(
    value: Any,
    *,
    status: int = 200,
    media_type: str = JSON_UTF8,
    headers: Mapping[str, str] | None = None,
) -> Response:
    return Response(json_bytes(value), status_code=status, media_type=media_type, headers=headers)


def error_response(
    error: ApiError, headers: Mapping[str, str] | None = None, *, worded_for_5: bool = True
) -> Response:
    return json_response(
        error.body(worded_for_5=worded_for_5),
        status=error.status,
        headers={**error.headers, **(headers or {})},
    )


def with_utf8_charset(content_type: str) -> str | None:
    """What ``res.send(string)`` makes of a Content-Type already set: ``charset=utf-8``
    added or replaced (parameters sorted by name); None where Express throws because the
    value is not a media type (the plugin's ``false`` for unknown extensions)."""
    kind, _, rest = content_type.partition(";")
    kind = kind.strip().lower()
    if not MEDIA_TYPE.fullmatch(kind):
        return None
    parameters: dict[str, str] = {}
    for item in rest.split(";"):
        name, equals, value = item.strip().partition("=")
        if equals:
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] == '"':
                value = _QUOTED_PAIR.sub(r"\1", value[1:-1])
            parameters[name.strip().lower()] = value
    parameters["charset"] = "utf-8"
    return "; ".join(
        [kind, *(f"{name}={_quoted(parameters[name])}" for name in sorted(parameters))]
    )


def _quoted(value: str) -> str:
    """content-type's format: a token as it is, anything else quoted."""
    if _TOKEN.fullmatch(value):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def express_error_page(headers: Mapping[str, str]) -> Response:
    """Express's own last-resort 500 (finalhandler), when the plugin's error answer threw.

    Obsidian runs without NODE_ENV, so the real page shows the stack trace; the emulator
    shows its first line only.
    """
    page = (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        "<title>Error</title>\n</head>\n<body>\n<pre>TypeError: invalid media type</pre>\n"
        "</body>\n</html>\n"
    )
    kept = {k: v for k, v in headers.items() if k.lower() != "content-type"}
    return Response(
        page.encode("utf-8"),
        status_code=500,
        headers={
            **kept,
            "Content-Security-Policy": "default-src 'none'",
            "X-Content-Type-Options": "nosniff",
            "Content-Type": "text/html; charset=utf-8",
        },
    )
