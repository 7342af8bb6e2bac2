"""What a call's arguments mean before its tool sees them: real hosts send imperfect calls.

- ``null`` means absent, for every parameter of every tool (mcp-use and many models send every
  optional field as ``null``).
- A key a host adds for itself is no argument (``HOST_KEYS``).
- A name an earlier release documented, or a seed spells differently, answers as the one
  canonical name (``FORMER_NAMES``), quietly and without a schema entry.
- An empty value (``""``, ``[]``, ``{}``) of a parameter the call does not take is ignored:
  OpenAI's strict mode makes every property required and fills the unused ones. With a real
  value, the name is still refused (tools/parameters.py): that is a model's mistake worth
  telling.
- An empty string means absent for an optional parameter where empty has no meaning
  (``section=""`` reads the whole note, ``pattern=""`` filters nothing, ``content=""`` of an
  update keeps the memory's text); where ``""`` is a value (a required ``content``,
  ``replacement``, ``value``, the vault root ``directory``), it
  stays. So for ``[]`` and ``{}`` of an optional list or object (``ids=[]``, a template's
  ``arguments={}``): strict mode's fill, nothing given.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

# Keys hosts add to every tool's schema for their own use, with the host each comes from.
HOST_KEYS: Mapping[str, str] = {
    "wait_for_previous": "Gemini CLI (asks the model whether to wait for the previous call)",
}

# name a call may use → the names it stands for, in order of preference: the first one the call
# takes (and was not given too) receives it. Both ways for the seeds' two spellings of one idea
# (seed 002's timeline says sessionId/projectId, the Go seeds session_id/project).
FORMER_NAMES: Mapping[str, tuple[str, ...]] = {
    "folder": ("directory",),  # before issue 34 the folder parameter was `folder`
    "folders": ("directory",),
    "operation": ("patchOperation",),  # patch_vault_file and patch_active_file before issue 24
    "content": ("replacement",),  # replace_in_notes before issue 24
    "target": ("key",),  # set_note_property and delete_note_property before issue 24
    "sessionId": ("session_id",),
    "projectId": ("project",),
    "session_id": ("sessionId",),
    "project": ("projectId",),
}

# Optional parameters whose empty string is a value, not "absent": a note's text, a
# replacement or property value, a topic_key to remove, the vault root. (An empty summary of a
# session or of compacted memories says nothing: strict mode's fill, so absent.)
# (A required one always keeps it: create's `content=""` is an empty note. An optional
# `content` is mem_update's, where a strict host's "" would empty the memory.)
EMPTY_IS_A_VALUE = frozenset({"replacement", "value", "directory", "text"})

# search_vault_smart's seed-004 filter: the top-level names it had before, moved into it.
SMART_TOOL = "search_vault_smart"
SMART_FILTER_KEYS: Mapping[str, str] = {
    "folder": "folders",
    "folders": "folders",
    "directory": "folders",
    "excludeFolders": "excludeFolders",
}


def is_empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def normalized(
    arguments: Mapping[str, Any],
    accepted: Collection[str],
    *,
    required: Collection[str] = (),
    tool: str | None = None,
) -> dict[str, Any]:
    """``arguments`` as the call means them, for a call that takes ``accepted`` (``required``
    among them) and runs the single tool ``tool``. Names the call does not take and that
    carry a real value are kept, for the caller to refuse."""
    given = {
        name: value
        for name, value in arguments.items()
        if value is not None and name not in HOST_KEYS
    }
    if tool == SMART_TOOL:
        given = _into_smart_filter(given, accepted)
    for name in list(given):
        if name in accepted:
            continue
        for canonical in FORMER_NAMES.get(name, ()):
            if canonical in accepted and canonical not in given:
                given[canonical] = given.pop(name)
                break
    return {
        name: value
        for name, value in given.items()
        if not _means_absent(name, value, accepted, required)
    }


def _means_absent(
    name: str, value: Any, accepted: Collection[str], required: Collection[str]
) -> bool:
    if name not in accepted:
        return is_empty(value)
    # [] and {} as strict mode fills an optional list or object the call takes (mem_get's ids,
    # a template's arguments, a smart search's filter): nothing given, so absent.
    return is_empty(value) and name not in required and name not in EMPTY_IS_A_VALUE


def _into_smart_filter(given: dict[str, Any], accepted: Collection[str]) -> dict[str, Any]:
    """The folders given at the top level of a smart search, moved into its ``filter``."""
    moved = {
        key: given[name]
        for name, key in SMART_FILTER_KEYS.items()
        if name not in accepted and not is_empty(given.get(name))
    }
    if not moved or "filter" not in accepted:
        return given
    kept = {name: value for name, value in given.items() if name not in SMART_FILTER_KEYS}
    chosen = dict(kept.get("filter") or {}) if isinstance(kept.get("filter"), Mapping) else {}
    for key, value in moved.items():
        chosen.setdefault(key, [value] if isinstance(value, str) else value)
    return {**kept, "filter": chosen}
