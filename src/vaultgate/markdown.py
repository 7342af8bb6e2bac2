r"""Pure markdown: frontmatter, headings and sections, block ids, tags, links, document maps.

Shared by the MCP tools (to resolve a leaf heading name to the full path the plugin needs) and
by the emulator (to serve note JSON, document maps and targeted reads). No I/O here.

Every offset is an index into the original ``str`` (CRLF kept), so ``text[a:b]`` is always
the exact slice. A scan finds the fenced code blocks once; then each question is a few
module-level regex passes over the prose between them, never a Python loop per line: a dense
1 MB note (8,000 sections, 8,000 code blocks) takes about 0.1 s per function.

Choices made where Obsidian and CommonMark leave room:

- Frontmatter is a leading ``---`` line closed by a ``---`` line (trailing blanks allowed).
  Values are read as Obsidian reads them: booleans follow YAML 1.2 (``true``/``false`` only),
  so ``answer: no`` stays the string ``"no"``, and dates stay the strings written
  (``2026-11-17 08:00``), never re-formatted. A block that parses to a non-mapping, nests
  absurdly deep or expands past ``_MAX_YAML_NODES`` through aliases is reported ``valid=False``.
- Fenced code (````` ``` ````` and ``~~~``, any indent, closed by a fence of the same character
  at least as long, or by the end of the note) hides headings, block ids, tags and links.
- A heading needs non-blank text: ``# `` alone is not one.
- Repeated sibling headings in :func:`heading_tree` get ``"\u2063"`` (INVISIBLE SEPARATOR)
  appended once per earlier repeat: the second ``Log`` is ``"Log\u2063"``, the third
  ``"Log\u2063\u2063"``. The keys look the same to a reader and stay distinct in JSON.
- Block ranges from :func:`find_block` leave out the ``^id`` marker, so replacing that range
  keeps the block addressable.
- Wikilinks in the frontmatter count as links (Obsidian indexes them); tags and markdown
  links are read from the body only. Markdown links with any URL scheme (``https:``,
  ``mailto:``, ``obsidian:``, ...) are external and skipped.
"""

from __future__ import annotations

import base64
import datetime as dt
import functools
import math
import re
from bisect import bisect_right
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple
from urllib.parse import unquote

from vaultgate.errors import AmbiguousSection, InvalidArgument, SectionNotFound

__all__ = [
    "DUPLICATE_MARKER",
    "DocumentMap",
    "Frontmatter",
    "Heading",
    "block_ids",
    "document_map",
    "extract_links",
    "extract_tags",
    "find_block",
    "frontmatter_span",
    "heading_tree",
    "inline_tags",
    "parse_frontmatter",
    "parse_headings",
    "resolve_heading",
    "section_text",
]

DUPLICATE_MARKER = "\u2063"
"""Appended to a repeated sibling heading's key in :func:`heading_tree`, once per repeat."""

_MAX_LISTED = 20  # heading paths / block ids named in a not-found message
_MAX_YAML_NODES = 100_000  # guards the JSON conversion against alias bombs

# All line patterns are MULTILINE and are run over whole regions of the text, so a scan costs a
# few regex passes rather than a Python loop per line. Region bounds are always line starts,
# where '^' matches; '\r?$' accepts CRLF.
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})([^\n]*)", re.MULTILINE)
_FM_CLOSE = re.compile(r"^---[ \t]*\r?$", re.MULTILINE)
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+([^\n]*?)\r?$", re.MULTILINE)
_CLOSING_HASHES = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_BLOCK_ID = re.compile(r"(?:^|[ \t])\^([A-Za-z0-9-]+)[ \t]*\r?$", re.MULTILINE)
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|\r?$)")
_BACKTICKS = re.compile(r"`+")
_TAG = re.compile(r"(?:(?<=\s)|^)#([\w/-]+)", re.MULTILINE)
_DIGITS = re.compile(r"\d+")
_TAG_SPLIT = re.compile(r"[,\s]+")
# a list item with a space inside is not a tag in Obsidian (its parseFrontMatterTags drops
# it); the ends are stripped first, so a padded item still counts
_INNER_SPACE = re.compile(r"\s")
_WIKILINK = re.compile(r"!?\[\[([^\[\]\n]+?)\]\]")
_LINK = re.compile(
    r"!?\[\[(?P<wiki>[^\[\]\n]+?)\]\]"
    # link text allows one level of [nested] brackets; stopping at '[' keeps the scan linear
    r"|!?\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]\(\s*(?:<(?P<angled>[^>\n]*)>|(?P<bare>[^)\s]+))"
    r"(?:\s+[\"'(][^\n]*?)?\s*\)"
)
_URL_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


# --- scanning -------------------------------------------------------------------------------


def _next_line(text: str, pos: int) -> int:
    """Offset of the line after the one holding ``pos``."""
    nl = text.find("\n", pos)
    return len(text) if nl == -1 else nl + 1


def _frontmatter_bounds(text: str) -> tuple[int, int, int] | None:
    """(yaml_start, yaml_end, end) of a leading frontmatter block, or None."""
    if text.startswith("---\n"):
        yaml_start = 4
    elif text.startswith("---\r\n"):
        yaml_start = 5
    else:
        return None
    close = _FM_CLOSE.search(text, yaml_start)
    if close is None:
        return None
    return yaml_start, close.start(), _next_line(text, close.end())


def frontmatter_span(text: str) -> tuple[int, int, int] | None:
    """(start of the YAML, end of the YAML, end of the closing ``---`` line), or None when
    the note has no frontmatter block: the exact slices an edit of the YAML text needs."""
    return _frontmatter_bounds(text)


class _Scan(NamedTuple):
    """Where the body starts, its fenced code blocks, and the prose regions between them."""

    body_start: int
    code: list[tuple[int, int]]  # (start of the opening fence line, start of the line after)
    prose: list[tuple[int, int]]

    def in_code(self, pos: int) -> bool:
        i = bisect_right(self.code, pos, key=lambda block: block[0]) - 1
        return i >= 0 and self.code[i][0] <= pos < self.code[i][1]


def _scan(text: str) -> _Scan:
    bounds = _frontmatter_bounds(text)
    body_start = bounds[2] if bounds else 0
    n = len(text)
    code: list[tuple[int, int]] = []
    pos = body_start
    while (m := _FENCE.search(text, pos)) is not None:
        fence, info = m.group(1), m.group(2)
        if fence[0] == "`" and "`" in info:  # an inline code span, not a fence
            pos = m.end()
            continue
        end = n  # an unclosed fence runs to the end of the note
        for c in _FENCE.finditer(text, _next_line(text, m.end())):
            closer = c.group(1)
            if closer[0] == fence[0] and len(closer) >= len(fence) and not c.group(2).strip():
                end = _next_line(text, c.end())
                break
        code.append((m.start(), end))
        pos = end
    prose: list[tuple[int, int]] = []
    at = body_start
    for start, end in code:
        if start > at:
            prose.append((at, start))
        at = end
    if at < n:
        prose.append((at, n))
    return _Scan(body_start, code, prose)


def _strip_code_spans(chunk: str) -> str:
    """The chunk with inline code spans blanked out (tags and links inside them don't count).

    A run of n backticks opens a span closed by the next run of exactly n backticks on the
    same line. Done with one pass over the runs: a regex with a lazy body re-scans the line
    for every unmatched opener, which is quadratic on lines full of backticks. NULs rather
    than spaces fill the span, so a '#' right after it does not look like a tag start.
    """
    if "`" not in chunk:
        return chunk
    runs: list[tuple[int, int, int]] = []  # (start, end, line number)
    later: dict[int, deque[int]] = {}  # run length -> indexes of the runs of that length
    line, counted = 0, 0
    for m in _BACKTICKS.finditer(chunk):
        line += chunk.count("\n", counted, m.start())
        counted = m.start()
        later.setdefault(m.end() - m.start(), deque()).append(len(runs))
        runs.append((m.start(), m.end(), line))
    pieces: list[str] = []
    copied = 0
    i = 0
    while i < len(runs):
        start, end, opener_line = runs[i]
        same = later[end - start]
        while same and same[0] <= i:
            same.popleft()
        if same and runs[same[0]][2] == opener_line:
            close = same.popleft()
            close_end = runs[close][1]
            pieces += (chunk[copied:start], "\0" * (close_end - start))
            copied = close_end
            i = close + 1
        else:
            i += 1
    pieces.append(chunk[copied:])
    return "".join(pieces)


# --- frontmatter ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Frontmatter:
    """The YAML block at the top of a note, made JSON-safe."""

    data: dict[str, Any]
    end: int
    valid: bool


@functools.cache
def _yaml_loader() -> type[Any]:
    """The loader for frontmatter, built (and PyYAML imported) by the first note parsed, so that
    a server start does not wait for PyYAML. It is libyaml's parser when PyYAML was built with
    it: parsing every note's frontmatter (search, tags) is several times faster; the safe
    constructor and our resolvers are the same either way."""
    import yaml

    base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class _YamlLoader(base):  # type: ignore[valid-type,misc]
        """A safe loader that reads values as Obsidian does.

        YAML 1.2 booleans (only true/false, never yes/no/on/off), and no implicit timestamps: a
        date or time stays the string written (``2026-11-17 08:00``), as Obsidian shows it. An
        explicit ``!!timestamp`` tag still makes a date, rendered in ISO form.
        """

    not_implicit = {"tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp"}
    _YamlLoader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag not in not_implicit]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    _YamlLoader.add_implicit_resolver(
        "tag:yaml.org,2002:bool",
        re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
        list("tTfF"),
    )
    return _YamlLoader


class _Unconvertible(Exception):
    """The YAML value is too large (alias expansion) to turn into JSON."""


def _json_key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool):
        return "null" if key is None else ("true" if key else "false")
    scalar = _json_value(key, [0])
    return scalar if isinstance(scalar, str) else str(scalar)


def _json_value(value: Any, budget: list[int]) -> Any:
    budget[0] += 1
    if budget[0] > _MAX_YAML_NODES:
        raise _Unconvertible
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, (dt.date, dt.datetime)):  # datetime is a date subclass
        return value.isoformat()
    if isinstance(value, dict):
        return {_json_key(k): _json_value(v, budget) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_value(v, budget) for v in value]
    if isinstance(value, (set, frozenset)):  # YAML !!set; sorted so output is stable
        return sorted((_json_value(v, budget) for v in value), key=str)
    if isinstance(value, bytes):  # YAML !!binary
        return base64.b64encode(value).decode("ascii")
    return str(value)


def parse_frontmatter(text: str) -> Frontmatter:
    """Parse the leading ``---`` YAML block; ``Frontmatter({}, 0, True)`` when there is none."""
    bounds = _frontmatter_bounds(text)
    if bounds is None:
        return Frontmatter({}, 0, True)
    yaml_start, yaml_end, end = bounds
    loader = _yaml_loader()
    import yaml  # loaded by _yaml_loader(); named here for load() and YAMLError

    try:
        # a SafeLoader: no arbitrary Python objects
        loaded = yaml.load(text[yaml_start:yaml_end], Loader=loader)
        if loaded is None:
            return Frontmatter({}, end, True)
        if not isinstance(loaded, dict):
            return Frontmatter({}, end, False)
        data = _json_value(loaded, [0])
    except (yaml.YAMLError, RecursionError, _Unconvertible):
        return Frontmatter({}, end, False)
    return Frontmatter(data, end, True)


# --- headings and sections ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Heading:
    """An ATX heading and the bounds of its section (sub-sections included)."""

    level: int
    text: str
    path: tuple[str, ...]
    start: int
    body_start: int
    end: int

    @property
    def full_path(self) -> str:
        return "::".join(self.path)


def _headings(text: str, scan: _Scan) -> Iterator[tuple[int, str, int, int]]:
    """(level, text, line start, next line start) of every heading outside code."""
    for start, end in scan.prose:
        for m in _HEADING.finditer(text, start, end):
            title = m.group(2)
            if "#" in title:
                title = _CLOSING_HASHES.sub("", title)
            title = title.strip()
            if title:
                yield len(m.group(1)), title, m.start(), _next_line(text, m.end())


def parse_headings(text: str) -> list[Heading]:
    """Every ATX heading in document order, with its ancestor path and section bounds."""
    return _parse_headings(text, _scan(text))


def _parse_headings(text: str, scan: _Scan) -> list[Heading]:
    found: list[tuple[int, str, tuple[str, ...], int, int]] = []
    ends: list[int] = []
    stack: list[int] = []  # indexes into ``found`` of the open ancestors
    for level, title, start, body_start in _headings(text, scan):
        while stack and found[stack[-1]][0] >= level:
            ends[stack.pop()] = start
        parent = found[stack[-1]][2] if stack else ()
        stack.append(len(found))
        found.append((level, title, (*parent, title), start, body_start))
        ends.append(len(text))
    return [
        Heading(level, title, path, start, body_start, end)
        for (level, title, path, start, body_start), end in zip(found, ends, strict=True)
    ]


def _listing(items: Sequence[str], kind: str) -> str:
    if not items:
        return f"The note has no {kind}."
    shown = ", ".join(repr(item) for item in items[:_MAX_LISTED])
    more = f" (and {len(items) - _MAX_LISTED} more)" if len(items) > _MAX_LISTED else ""
    return f"Existing {kind}: {shown}{more}."


def resolve_heading(headings: Sequence[Heading], target: str, delimiter: str = "::") -> Heading:
    """The heading ``target`` names: an exact full path, else a unique path tail (leaf name).

    Several headings with the very same full path resolve to the last: the plugin's patch
    engine keys its document map by path, so a later repeat overwrites an earlier one.
    Raises SectionNotFound (listing what exists) or AmbiguousSection (listing candidates).
    """
    return headings[resolve_heading_path([h.path for h in headings], target, delimiter)]


def resolve_heading_path(
    paths: Sequence[tuple[str, ...]], target: str, delimiter: str = "::"
) -> int:
    """The index in ``paths`` (heading paths in document order) of the one ``target`` names.

    The rules of :func:`resolve_heading`, for callers that only have paths (a document map).
    """
    if not delimiter:
        raise InvalidArgument("The heading delimiter must not be empty; use '::'.")
    wanted = tuple(part.strip() for part in target.split(delimiter))
    exact = [index for index, path in enumerate(paths) if path == wanted]
    if exact:
        return exact[-1]
    n = len(wanted)
    matches = [i for i, path in enumerate(paths) if len(path) >= n and path[-n:] == wanted]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        existing = [delimiter.join(path) for path in paths]
        raise SectionNotFound(
            f"Heading {target!r} was not found. {_listing(existing, 'headings')} "
            f"Use the full 'Parent{delimiter}Child' path of one of them.",
            target,
        )
    candidates = list(dict.fromkeys(delimiter.join(paths[i]) for i in matches))
    if len(candidates) == 1:  # repeats of one full path: the last, like the exact match
        return matches[-1]
    listed = ", ".join(repr(c) for c in candidates)
    raise AmbiguousSection(
        f"Heading {target!r} is ambiguous; it matches {listed}. "
        "Pass one of these full paths as the target.",
        target,
        candidates=candidates,
    )


def section_text(text: str, heading: Heading) -> str:
    """The section below the heading line, down to the next same-or-higher heading."""
    return text[heading.body_start : heading.end]


def heading_tree(text: str) -> dict[str, Any]:
    """Nested dict of heading texts, as the 5.x document map shows it.

    A repeated sibling text gets ``DUPLICATE_MARKER`` appended once per earlier repeat.
    """
    root: dict[str, Any] = {}
    stack: list[tuple[int, dict[str, Any]]] = []
    seen: dict[tuple[int, str], int] = {}  # (id of the siblings dict, text) -> repeats so far
    for level, title, _start, _next in _headings(text, _scan(text)):
        while stack and stack[-1][0] >= level:
            stack.pop()
        siblings = stack[-1][1] if stack else root
        repeats = seen.get((id(siblings), title), 0)
        key = title + DUPLICATE_MARKER * repeats
        while key in siblings:  # a heading text that itself ends in the marker
            repeats += 1
            key += DUPLICATE_MARKER
        seen[id(siblings), title] = repeats + 1
        node: dict[str, Any] = {}
        siblings[key] = node
        stack.append((level, node))
    return root


# --- block references -----------------------------------------------------------------------


def _block_markers(text: str, scan: _Scan) -> Iterator[tuple[str, int, int]]:
    """(id, line start, marker start) of every ``^id`` outside code.

    The marker starts at the blank before the caret, or at the caret when it opens the line.
    """
    for start, end in scan.prose:
        if text.find("^", start, end) == -1:
            continue
        for m in _BLOCK_ID.finditer(text, start, end):
            yield m.group(1), text.rfind("\n", 0, m.start()) + 1, m.start()


def block_ids(text: str) -> list[str]:
    """Bare block ids (no '^') in document order, de-duplicated."""
    return _block_ids(text, _scan(text))


def _block_ids(text: str, scan: _Scan) -> list[str]:
    return list(dict.fromkeys(block_id for block_id, _line, _at in _block_markers(text, scan)))


def find_block(text: str, block_id: str) -> tuple[int, int]:
    """(start, end) of the paragraph, list item, list or table ``^block_id`` labels.

    An id at the end of a line labels that paragraph or list item; an id alone on its line
    labels the block just above it (blank lines between are allowed). The range excludes the
    marker and the blanks before it. Raises SectionNotFound when the note has no such id.
    """
    wanted = block_id.removeprefix("^")
    scan = _scan(text)
    for found_id, line_start, marker_at in _block_markers(text, scan):
        if found_id != wanted:
            continue
        if not text[line_start:marker_at].strip():
            return _block_above(text, scan, line_start)
        end = marker_at
        while text[end - 1] in " \t":
            end -= 1
        return _block_start(text, scan, line_start), end
    raise SectionNotFound(
        f"Block '^{wanted}' was not found. {_listing(_block_ids(text, scan), 'block ids')}",
        wanted,
    )


def _previous_line(text: str, start: int) -> tuple[int, int]:
    """(start, end without line break) of the line before the one starting at ``start``."""
    end = start - 1  # the '\n' ending the previous line
    if end > 0 and text[end - 1] == "\r":
        end -= 1
    return text.rfind("\n", 0, end) + 1, end


def _is_blank(text: str, scan: _Scan, start: int, end: int) -> bool:
    return not text[start:end].strip() and not scan.in_code(start)


def _is_heading(text: str, scan: _Scan, start: int, end: int) -> bool:
    return _HEADING.fullmatch(text, start, end) is not None and not scan.in_code(start)


def _block_start(text: str, scan: _Scan, start: int) -> int:
    """Start of the paragraph or list item whose line starts at ``start``."""
    while start > scan.body_start and not _LIST_ITEM.match(text, start, _next_line(text, start)):
        above, above_end = _previous_line(text, start)
        if (
            scan.in_code(above)
            or _is_blank(text, scan, above, above_end)
            or _is_heading(text, scan, above, above_end)
        ):
            break
        start = above
    return start


def _block_above(text: str, scan: _Scan, id_line: int) -> tuple[int, int]:
    """The run of non-blank lines above the standalone id line starting at ``id_line``."""
    start = id_line
    while start > scan.body_start:
        above, above_end = _previous_line(text, start)
        if not _is_blank(text, scan, above, above_end):
            break
        start = above
    if start <= scan.body_start:
        return id_line, id_line  # nothing above to label: an empty block at the id
    last_start, last_end = _previous_line(text, start)
    if _is_heading(text, scan, last_start, last_end):
        return id_line, id_line
    first = last_start
    while first > scan.body_start:
        above, above_end = _previous_line(text, first)
        if _is_blank(text, scan, above, above_end) or _is_heading(text, scan, above, above_end):
            break
        first = above
    return first, last_end


# --- document map ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DocumentMap:
    """What a note offers as PATCH targets (the plugin's 1.x document-map shape)."""

    headings: list[str]
    blocks: list[str]
    frontmatter_fields: list[str]
    version: str | None = None  # 5.x: the content's token for a PATCH's ifMatch


def document_map(text: str) -> DocumentMap:
    """Heading full paths, block ids and frontmatter keys, each in document order."""
    scan = _scan(text)
    return DocumentMap(
        headings=[h.full_path for h in _parse_headings(text, scan)],
        blocks=_block_ids(text, scan),
        frontmatter_fields=list(parse_frontmatter(text).data),
    )


# --- tags and links -------------------------------------------------------------------------


def _frontmatter_tags(data: dict[str, Any]) -> Iterator[str]:
    for key in ("tags", "tag"):
        value = data.get(key)
        if isinstance(value, str):
            items: list[Any] = _TAG_SPLIT.split(value)
        elif isinstance(value, list):
            items = value
        else:
            continue
        for item in items:
            if isinstance(item, (str, int, float)) and not isinstance(item, bool):
                tag = str(item).strip().lstrip("#")
                if tag and not _INNER_SPACE.search(tag):
                    yield tag


# Obsidian matches the key with a case-insensitive JavaScript regex, which folds ASCII only
# ('tagſ' is no tag key there, so it is none here)
_TAG_KEY = re.compile(r"tags?", re.IGNORECASE | re.ASCII)


def is_tag_key(key: str) -> bool:
    """Does Obsidian read tags under this frontmatter key (``tags``, ``tag``, ``TaGs``)?"""
    return _TAG_KEY.fullmatch(key) is not None


def frontmatter_tags(frontmatter: Mapping[str, Any]) -> list[str]:
    """Every tag of a parsed frontmatter as written (without '#'), in order, repeats kept:
    what Obsidian's ``getAllTags`` takes from it (any ``tags``/``tag`` key in any ASCII case,
    a list or a string of tags)."""
    tags: list[str] = []
    for key, value in frontmatter.items():
        if not is_tag_key(str(key)):
            continue
        if isinstance(value, str):
            items: Iterable[Any] = _TAG_SPLIT.split(value)
        elif isinstance(value, list):
            items = value
        else:
            continue
        for item in items:
            if isinstance(item, bool) or not isinstance(item, str | int | float):
                continue
            tag = str(item).strip().lstrip("#").strip()
            if tag and not _INNER_SPACE.search(tag):  # 'two words' is no tag in Obsidian
                tags.append(tag)
    return tags


def extract_tags(text: str) -> list[str]:
    """Tags without '#': frontmatter ``tags``/``tag`` first, then inline ``#tags``, de-duplicated.

    Inline tags need a blank or the line start before '#', at least one non-digit, and must not
    sit in fenced code or an inline code span.
    """
    tags = list(_frontmatter_tags(parse_frontmatter(text).data))
    for start, end in _scan(text).prose:
        chunk = text[start:end]
        if "#" not in chunk:
            continue
        for m in _TAG.finditer(_strip_code_spans(chunk)):
            tag = m.group(1)
            if not _DIGITS.fullmatch(tag):
                tags.append(tag)
    return list(dict.fromkeys(tags))


def inline_tags(text: str) -> list[tuple[int, int, str]]:
    """Each inline ``#tag`` as (start of '#', end, tag without '#'), in order: the ones
    :func:`extract_tags` reads (outside fenced code and code spans, not all digits)."""
    found: list[tuple[int, int, str]] = []
    for start, end in _scan(text).prose:
        chunk = text[start:end]
        if "#" not in chunk:
            continue
        for m in _TAG.finditer(_strip_code_spans(chunk)):
            if not _DIGITS.fullmatch(m.group(1)):
                found.append((start + m.start(), start + m.end(), m.group(1)))
    return found


def _wikilink_target(inner: str) -> str:
    # '\|' is how a wikilink alias is escaped inside a table cell
    return inner.split("|", 1)[0].split("#", 1)[0].rstrip("\\").strip()


def extract_links(text: str, *, embeds_last: bool = False) -> list[str]:
    """Internal link targets in order, de-duplicated: wikilinks, embeds and relative md links.

    Targets drop '#heading', '^block' and '|alias' parts; markdown link targets are
    percent-decoded. External URLs and anything inside code are skipped.
    ``embeds_last``: the order of Obsidian's ``resolvedLinks``, which walks the note's
    links before its embeds (``![[...]]``, ``![](...)``); a target both linked and
    embedded is where its first link puts it. Otherwise, document order.
    """
    links: list[str] = []
    embeds: list[str] = []
    bounds = _frontmatter_bounds(text)
    if bounds is not None:
        for m in _WIKILINK.finditer(text, bounds[0], bounds[1]):
            links.append(_wikilink_target(m.group(1)))
    for start, end in _scan(text).prose:
        chunk = text[start:end]
        if "[" not in chunk:
            continue
        for m in _LINK.finditer(_strip_code_spans(chunk)):
            found = embeds if embeds_last and m.group(0).startswith("!") else links
            if m.group("wiki") is not None:
                found.append(_wikilink_target(m.group("wiki")))
                continue
            url = m.group("angled") if m.group("angled") is not None else m.group("bare")
            if _URL_SCHEME.match(url):
                continue
            found.append(unquote(url.split("#", 1)[0]).strip())
    return [link for link in dict.fromkeys([*links, *embeds]) if link]
