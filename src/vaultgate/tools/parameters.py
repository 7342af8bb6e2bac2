"""A parameter a call does not take is refused, never ignored; a value that does not fit
is named, never dumped.

The SDK drops arguments its model of a tool does not know, so ``vault(operation="list",
path="Projects")`` would list the root: the model meant ``folder`` and would never learn
it. Every call is checked here first (server.py), and the refusal names what the call takes
and, when one is likely, the parameter the model meant.

A value its parameter's type refuses is told as "parameter: what was expected (got …)": not
pydantic's own text, which names a model the model never saw ("vaultArguments"), its error
codes, and a link to pydantic's website.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from vaultgate.errors import InvalidArgument

# Spellings models reach for, by folded name (see _fold), with what they usually mean, in
# order of preference: the first one the call takes, and not given already, is suggested.
ALIASES: Mapping[str, tuple[str, ...]] = {
    "path": ("filename", "directory", "source"),
    "file": ("filename",),
    "filepath": ("filename",),
    "note": ("filename",),
    "notepath": ("filename",),
    "name": ("key", "filename", "title"),  # key first: filename is usually given too
    "dir": ("directory",),
    "folders": ("directory",),
    "folderpath": ("directory",),
    "folder": ("directory",),
    "q": ("query",),
    "search": ("query",),
    "term": ("query",),
    "keywords": ("query",),
    "text": ("content", "replacement", "query"),
    "body": ("content",),
    "content": ("replacement",),
    "length": ("maxLength",),
    "maxchars": ("maxLength",),
    "start": ("startIndex",),
    "skip": ("offset",),
    "page": ("offset",),
    "count": ("limit",),
    "maxresults": ("limit",),
    "from": ("source",),
    "to": ("destination",),
    "dest": ("destination",),
    "id": ("observation_id", "filename"),
    "observationid": ("id",),
    "session": ("session_id",),
    "paths": ("filenames",),  # issue 13, reading
    "files": ("filenames",),
    "notes": ("filenames",),
    "detail": ("detail_level",),
    "level": ("detail_level",),
    "property": ("key",),
    "propertyname": ("key",),
    "field": ("key",),
    "target": ("key",),
    "replace": ("replacement",),
    "replacewith": ("replacement",),
    "with": ("replacement",),
    "newtext": ("replacement", "content"),
    "operation": ("patchOperation",),
    "op": ("patchOperation",),
    "patchop": ("patchOperation",),
    "mode": ("patchOperation",),
    "tags": ("tag",),
    "isregex": ("regex",),
    "useregex": ("regex",),
}


def refuse_unknown(call: str, given: Iterable[str], accepted: Sequence[str]) -> None:
    """Raise InvalidArgument when ``given`` holds a name ``call`` does not take."""
    given = list(given)
    unknown = [name for name in given if name not in accepted]
    if not unknown:
        return
    given_known = [name for name in given if name in accepted]
    problems = []
    for name in unknown:
        meant = likely_parameter(name, [a for a in accepted if a not in given_known])
        if meant is not None:
            problems.append(f"{name!r} (did you mean {meant!r}?)")
        else:
            problems.append(repr(name))
    takes = ", ".join(accepted) if accepted else "no parameters"
    raise InvalidArgument(
        f"{call} does not take {', '.join(problems)}; nothing was done. It takes: {takes}."
    )


def likely_parameter(name: str, accepted: Sequence[str]) -> str | None:
    """The accepted parameter ``name`` most likely stands for, if one is likely."""
    folded = {_fold(candidate): candidate for candidate in accepted}
    key = _fold(name)
    if key in folded:  # max_length, MaxLength, dry-run
        return folded[key]
    for meant in ALIASES.get(key, ()):
        if meant in accepted:
            return meant
    close = difflib.get_close_matches(key, list(folded), n=1, cutoff=0.75)
    return folded[close[0]] if close else None


def _fold(name: str) -> str:
    return name.replace("_", "").replace("-", "").lower()


_SHOWN_VALUE = 60  # characters of a refused value quoted back; a longer one is not repeated


def value_problems(error: ValidationError) -> str:
    """What ``error`` found wrong, as ``parameter: problem (got value)`` for each fault."""
    problems: list[str] = []
    for fault in error.errors(include_url=False):
        location = _location(fault["loc"])
        shown = "" if fault["type"] == "missing" else _shown(fault.get("input"))
        problem = f"{location}: {fault['msg']}{shown}"
        if problem not in problems:  # one per branch of a union may say the same
            problems.append(problem)
    return "; ".join(problems)


# How pydantic names the branch of a union it tried, besides the names with brackets
# ('list[str]', 'function-after[...]'): no parameter or key, so left out of a location.
_UNION_BRANCHES = frozenset({"str", "int", "float", "bool", "bytes", "none", "list", "dict"})


def _location(loc: tuple[int | str, ...]) -> str:
    """('folders', 2) → 'folders[2]'; ('arguments', 'a') → 'arguments.a'; ('query', 'str')
    → 'query'."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        elif not text:
            text = part
        elif "[" not in part and part not in _UNION_BRANCHES:
            text += f".{part}"
    return text or "arguments"


def _shown(value: Any) -> str:
    """`` (got <value as JSON>)``, or nothing for a long value or one the answer could not
    carry (a lone surrogate cannot be encoded as UTF-8, and the whole answer would fail)."""
    try:
        text = json.dumps(value, ensure_ascii=False)
        text.encode("utf-8")
    except (TypeError, ValueError):  # UnicodeEncodeError is a ValueError
        return ""
    return f" (got {text})" if len(text) <= _SHOWN_VALUE else ""
