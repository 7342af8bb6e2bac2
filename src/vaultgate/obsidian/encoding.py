"""What vaultgate sends to the plugin is made of whole characters (see ``vaultgate.unicode``).

Half a character is refused before any request, with its position, never replaced: a write
must store exactly what the model sent, or nothing.
"""

from __future__ import annotations

from vaultgate.errors import InvalidArgument
from vaultgate.unicode import half_character


def require_whole_characters(value: str, what: str) -> None:
    """InvalidArgument if ``value`` holds a lone surrogate (half of an emoji, say)."""
    problem = half_character(value, what)
    if problem is not None:
        raise InvalidArgument(problem)


def utf8(value: str, what: str) -> bytes:
    """``value`` as UTF-8; InvalidArgument naming ``what`` if it cannot be encoded."""
    require_whole_characters(value, what)
    return value.encode("utf-8")
