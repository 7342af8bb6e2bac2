"""Values as JavaScript's JSON.stringify leaves them: the plugin's answers are JavaScript.

JavaScript has one number type, so an integral float prints without ``.0`` and NaN or
Infinity print as ``null``. The emulator sends what this gives; the folder backend hands it
to the tools directly, so both backends answer with the same values.
"""

from __future__ import annotations

import math
from typing import Any

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
