"""What vaultgate sends to the plugin is made of whole characters.

JSON lets a client send half of a UTF-16 surrogate pair (``"\\ud800"``); such a string has no
UTF-8 form, so it can be neither a note's text nor part of a URL. It is refused before any
request with the position of the half character, never replaced: a write must store exactly
what the model sent, or nothing.
"""

from __future__ import annotations

from vaultgate.errors import InvalidArgument


def require_whole_characters(value: str, what: str) -> None:
    """InvalidArgument if ``value`` holds a lone surrogate (half of an emoji, say)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidArgument(
            f"{what} holds half of a character at position {exc.start} (a lone UTF-16 "
            "surrogate, e.g. a cut emoji), which cannot be stored or sent. Send whole "
            "characters: drop it, or write the full emoji."
        ) from None


def utf8(value: str, what: str) -> bytes:
    """``value`` as UTF-8; InvalidArgument naming ``what`` if it cannot be encoded."""
    require_whole_characters(value, what)
    return value.encode("utf-8")
