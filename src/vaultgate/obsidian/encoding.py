"""What vaultgate sends to the plugin is made of whole characters (see ``vaultgate.unicode``).

Half a character is refused before any request, with its position, never replaced: a write
must store exactly what the model sent, or nothing.
"""

from __future__ import annotations

from vaultgate.errors import InvalidArgument
from vaultgate.unicode import lone_surrogate_at


def require_whole_characters(value: str, what: str) -> None:
    """InvalidArgument if ``value`` holds a lone surrogate (half of an emoji, say)."""
    position = lone_surrogate_at(value)
    if position is not None:
        raise InvalidArgument(
            f"{what} holds half of a character at position {position} (a lone UTF-16 "
            "surrogate, e.g. a cut emoji), which cannot be stored or sent. Send whole "
            "characters: drop it, or write the full emoji."
        )


def utf8(value: str, what: str) -> bytes:
    """``value`` as UTF-8; InvalidArgument naming ``what`` if it cannot be encoded."""
    require_whole_characters(value, what)
    return value.encode("utf-8")
