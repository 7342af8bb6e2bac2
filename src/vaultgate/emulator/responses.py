"""JSON the way Express sends it: ``JSON.stringify(value, null, 2)`` as UTF-8.

JavaScript has one number type, so an integral float prints without ``.0`` and NaN or
Infinity print as ``null``; a lone UTF-16 surrogate (a search context cut inside an emoji)
prints as a ``\\uXXXX`` escape. Everything else matches ``json.dumps(indent=2)``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from starlette.responses import Response

from vaultgate.emulator.apierrors import ApiError

JSON_UTF8 = "application/json; charset=utf-8"
_MAX_SAFE_INTEGER = 2**53


def js_value(value: Any) -> Any:
    """``value`` with floats normalised the way JSON.stringify would print them."""
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        if value.is_integer() and abs(value) < _MAX_SAFE_INTEGER:
            return int(value)
        return value
    if isinstance(value, dict):
        return {key: js_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [js_value(item) for item in value]
    return value


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


def error_response(error: ApiError, headers: Mapping[str, str] | None = None) -> Response:
    return json_response(
        error.body(), status=error.status, headers={**error.headers, **(headers or {})}
    )
