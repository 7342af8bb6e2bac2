"""Strings with half a character: where they come from and the two ways vaultgate treats them.

JSON can carry half of a UTF-16 surrogate pair (``"\\ud83d"``), and Python keeps it as a lone
surrogate, which has no UTF-8 form. The plugin's own answers hold them (up to 5.1.0 it cuts
search contexts inside emoji): those are shown with U+FFFD in place. What a tool is asked to
store or send must be whole characters, so such an argument is refused, never altered.
"""

from __future__ import annotations

import re

REPLACEMENT = "\ufffd"
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate_at(value: str) -> int | None:
    """The position of the first lone surrogate in ``value``, or None if there is none."""
    found = _LONE_SURROGATE.search(value)
    return None if found is None else found.start()


def replace_lone_surrogates(value: str) -> str:
    """``value`` with every lone surrogate replaced by U+FFFD, for showing."""
    return _LONE_SURROGATE.sub(REPLACEMENT, value)
