"""Strings with half a character: where they come from and the two ways vaultgate treats them.

JSON can carry half of a UTF-16 surrogate pair (``"\\ud83d"``), and Python keeps it as a lone
surrogate, which has no UTF-8 form. The plugin's own answers hold them (up to 5.1.0 it cuts
search contexts inside emoji): those are shown with U+FFFD in place. What a tool is asked to
store or send must be whole characters, so such an argument is refused, never altered.
"""

from __future__ import annotations

import re
import unicodedata

REPLACEMENT = "\ufffd"
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate_at(value: str) -> int | None:
    """The position of the first lone surrogate in ``value``, or None if there is none."""
    found = _LONE_SURROGATE.search(value)
    return None if found is None else found.start()


def half_character(value: str, what: str) -> str | None:
    """Why ``value`` (named ``what``) cannot be stored or sent, if it holds half a character;
    None if it is whole. Callers raise it as their own kind of error."""
    position = lone_surrogate_at(value)
    if position is None:
        return None
    return (
        f"{what} holds half of a character at position {position} (a lone UTF-16 "
        "surrogate, e.g. a cut emoji), which cannot be stored or sent. Send whole "
        "characters: drop it, or write the full emoji."
    )


def replace_lone_surrogates(value: str) -> str:
    """``value`` with every lone surrogate replaced by U+FFFD, for showing."""
    return _LONE_SURROGATE.sub(REPLACEMENT, value)


def canonical(name: str) -> str:
    """The form in which rules compare names: Unicode NFC, case-folded. ``Private``,
    ``private`` and ``PRIVATE`` are one folder to Obsidian on macOS and Windows, and 'é' is
    one letter whether a disk stores it composed (NFC) or not (NFD, as macOS may)."""
    if name.isascii():  # most paths: folding is lower-casing, and ASCII has no other form
        return name.lower()
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())
