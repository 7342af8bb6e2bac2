"""Links as they would be if the notes the model may not reach did not exist.

A hidden (``mcp-hidden``) or denied note is left out of every answer, but other notes' derived
values still name it: a note's ``links`` and ``backlinks`` (the plugin's note JSON, from 4.0),
its ``unresolvedLinks`` (5.0), the broken links and orphans built from them. Taking the path
out of a list is not enough: a link to a missing note is an unresolved link, so a link that
vanishes from both lists says the note exists. Here each note that links to an unreachable
file has its links read again from its text (``markdown.extract_links``, links before embeds,
as the engine and Obsidian's ``resolvedLinks`` list them) and resolved against the reachable
files only, so a link to a hidden note is exactly a link to a missing one, and a link that
names it may resolve to another reachable file of that name, as it would in Obsidian once the
note were gone.

JsonLogic queries that read those lists are answered over such rebuilt note JSON
(:func:`reads_links` tells which queries do); a query that only reads ``tags``,
``frontmatter``, ``stat``, ``path`` or ``content`` sees nothing of another note and runs where
it always did. Dataview resolves links inside every field (frontmatter and inline fields too),
so :func:`dql_link_field` names the first field of a DQL query that may hold one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from vaultgate import markdown
from vaultgate.backend import NoteLinks
from vaultgate.engine.search import names_content

Resolve = Callable[[str, str], str | None]  # (link text, linking note) → vault path or None

# What a note's JSON holds that names only the note itself or its own text.
_OWN_FIELDS = frozenset({"tags", "frontmatter", "stat", "path", "content"})
# Operations whose second argument runs once per item of the first, with the item as data:
# nothing in it reads the note (reduce's third argument, the start value, does).
_PER_ITEM = frozenset({"map", "filter", "all", "none", "some", "reduce"})
LINK_FIELDS = ("links", "backlinks", "unresolvedLinks")


def reads_links(query: Any) -> bool:
    """Could ``query`` read a value naming another note (``links``, ``backlinks``,
    ``unresolvedLinks``, or the whole note JSON)? Decided from the query's text, as
    json-logic-js evaluates it: a ``var`` or ``missing`` whose field is computed, not written
    out, counts as reading anything."""
    return _reads_beyond(query, _own_field)


def reads_note_values(query: Any) -> bool:
    """Could ``query`` read more of a note than a listing shows of it (its ``path`` and its
    ``stat`` times and size): its text, frontmatter, tags or links? Decided as
    ``reads_links`` decides."""
    return _reads_beyond(query, _listed_field)


def _reads_beyond(query: Any, allowed: Callable[[Any], bool]) -> bool:
    """Could ``query`` read a field that ``allowed`` does not accept?"""
    if isinstance(query, list):
        return any(_reads_beyond(item, allowed) for item in query)
    if not isinstance(query, dict) or len(query) != 1:
        return False  # json-logic-js takes anything but a one-key object as data
    operation, arguments = next(iter(query.items()))
    args = arguments if isinstance(arguments, list) else [arguments]
    match operation:
        case "var":
            return not allowed(args[0] if args else None) or _reads_beyond(args[1:], allowed)
        case "missing":
            keys = args[0] if args and isinstance(args[0], list) else args
            return not all(allowed(key) for key in keys)
        case "missing_some":
            keys = args[1] if len(args) > 1 and isinstance(args[1], list) else [None]
            return _reads_beyond(args[:1], allowed) or not all(allowed(key) for key in keys)
        case _ if operation in _PER_ITEM:
            return _reads_beyond(args[:1], allowed) or _reads_beyond(args[2:], allowed)
        case _:
            return _reads_beyond(args, allowed)


def _listed_field(key: Any) -> bool:
    """Is ``key``, a ``var`` path written in the query, what a listing shows of a note?"""
    if isinstance(key, (bool, int, float)):
        return True  # data["1"] or data["true"]: no such field
    if not isinstance(key, str) or key == "":
        return False  # computed, or the whole note JSON
    return key.split(".", 1)[0] in ("path", "stat")


def _own_field(key: Any) -> bool:
    """Is ``key``, a ``var`` path written in the query, a field of the note itself?"""
    if isinstance(key, (bool, int, float)):
        return True  # data["1"] or data["true"]: no such field
    if not isinstance(key, str) or key == "":
        return False  # computed, or the whole note JSON
    return key.split(".", 1)[0] in _OWN_FIELDS


def whole_notes_query(query: Any) -> Any:
    """The query that returns every note's JSON as the plugin would hand it to ``query``:
    with the note's text exactly when ``query`` mentions "content" (the plugin reads the
    text only then, from 4.0.3), which the default of the ``var`` does here."""
    return {"var": ["", "content"]} if names_content(query) else {"var": ""}


def linking_unreachable(notes: Iterable[NoteLinks], reachable: Callable[[str], bool]) -> list[str]:
    """The reachable notes with a link to a file that is not: their links are read again."""
    return [
        note.path
        for note in notes
        if reachable(note.path) and not all(reachable(target) for target in note.links)
    ]


def as_if_missing(
    notes: Sequence[NoteLinks],
    reachable: Callable[[str], bool],
    texts: Mapping[str, str],
    resolve: Resolve,
) -> list[NoteLinks]:
    """``notes`` as the vault without the unreachable files would have them: those notes
    left out, and each note in ``texts`` (those :func:`linking_unreachable` named) with its
    links read from its text and resolved by ``resolve`` (over the reachable files only).
    Unresolved links stay None where the backend could not tell them."""
    kept: list[NoteLinks] = []
    for note in notes:
        if not reachable(note.path):
            continue
        text = texts.get(note.path)
        if text is None:  # links nothing unreachable, or its text could not be read
            links = tuple(target for target in note.links if reachable(target))
            kept.append(NoteLinks(note.path, links, note.unresolved))
            continue
        resolved: dict[str, None] = {}
        missing: dict[str, None] = {}
        for link in markdown.extract_links(text, embeds_last=True):
            target = resolve(link, note.path)
            if target is None:
                missing[link] = None
            else:
                resolved[target] = None
        unresolved = None if note.unresolved is None else tuple(missing)
        kept.append(NoteLinks(note.path, tuple(resolved), unresolved))
    return kept


def rebuilt_notes(
    rows: Sequence[Mapping[str, Any]], relinked: Sequence[NoteLinks]
) -> list[tuple[str, dict[str, Any]]]:
    """Each reachable note's JSON (``rows``: ``{"filename", "result": note JSON}``) with its
    link lists from ``relinked``, backlinks built from them in the vault's order, as the
    plugin builds its index; the fields a plugin version does not have stay absent."""
    by_path = {note.path: note for note in relinked}
    backlinks: dict[str, list[str]] = {}
    for note in relinked:
        for target in note.links:
            backlinks.setdefault(target, []).append(note.path)
    notes: list[tuple[str, dict[str, Any]]] = []
    for row in rows:
        path, data = row.get("filename"), row.get("result")
        if not isinstance(path, str) or not isinstance(data, dict) or path not in by_path:
            continue
        note = by_path[path]
        data = dict(data)
        if "links" in data:
            data["links"] = list(note.links)
        if "backlinks" in data:
            data["backlinks"] = list(backlinks.get(path, []))
        if "unresolvedLinks" in data and note.unresolved is not None:
            data["unresolvedLinks"] = list(note.unresolved)
        notes.append((path, data))
    return notes


def note_links_of(rows: Iterable[Mapping[str, Any]]) -> list[NoteLinks]:
    """The links of each note JSON in ``rows`` (``{"filename", "result": note JSON}``)."""
    notes: list[NoteLinks] = []
    for row in rows:
        path, data = row.get("filename"), row.get("result")
        if not isinstance(path, str) or not isinstance(data, dict):
            continue
        unresolved = data.get("unresolvedLinks")
        notes.append(
            NoteLinks(
                path,
                _strings(data.get("links")),
                _strings(unresolved) if "unresolvedLinks" in data else None,
            )
        )
    return notes


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(item for item in value if isinstance(item, str)) if isinstance(value, list) else ()


# --- Dataview --------------------------------------------------------------------------------

# Fields Dataview fills from the file alone: never a link. Every other field may hold one
# (Dataview resolves links in frontmatter, inline fields, lists and tasks to full paths).
_DQL_SAFE_FIELDS = frozenset(
    f"file.{name}"
    for name in (
        "name",
        "path",
        "folder",
        "ext",
        "size",
        "ctime",
        "cday",
        "mtime",
        "mday",
        "day",
        "tags",
        "etags",
        "aliases",
        "starred",
    )
)
_DQL_WORDS = frozenset(
    {
        "table",
        "from",
        "where",
        "sort",
        "limit",
        "as",
        "asc",
        "ascending",
        "desc",
        "descending",
        "and",
        "or",
        "true",
        "false",
        "null",
    }
)
# Functions whose answers come from their arguments alone (no link made or resolved).
_DQL_SAFE_CALLS = frozenset(
    {"contains", "icontains", "econtains", "length", "lower", "upper", "round", "date"}
)
_DQL_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_DQL_TAG = re.compile(r"#[^\s,()\"]+")
_DQL_WORD = re.compile(r"(?<![\w.])([A-Za-z_][\w.-]*)(\s*\()?")


def dql_link_field(query: str) -> str | None:
    """The first name in a DQL query that may read a link (``file.inlinks``, a frontmatter
    or inline field, a ``[[link]]``, ``outgoing(...)``), or None when it reads only what
    Dataview takes from the file itself."""
    words = query.split(maxsplit=1)
    if not words or words[0].upper() != "TABLE":
        return None  # the plugin takes TABLE queries only and refuses this one itself
    if "[[" in query:
        return "[[...]]"
    text = _DQL_TAG.sub(" ", _DQL_STRING.sub(" ", query))
    for match in _DQL_WORD.finditer(text):
        word, call = match.group(1), match.group(2)
        lowered = word.lower()
        if call:
            if lowered not in _DQL_SAFE_CALLS:
                return f"{word}(...)"
        elif lowered not in _DQL_WORDS and lowered not in _DQL_SAFE_FIELDS:
            return word
    return None
