"""Reading one heading section, block or frontmatter field of a note (3.6.0+, NOTES §6b).

Two engines, as in the plugin: markdown-patch 1.x (3.6–4.x, and 5.x under
``Markdown-Patch-Version: 1``) returns the section text as it stands; 2.x (5.x default)
returns a heading body with its heading levels made relative to the target and honours
``Target-Scope``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vaultgate import markdown
from vaultgate.engine.errors import InvalidFrontmatter, NotFound
from vaultgate.engine.vault import Vault
from vaultgate.errors import SectionNotFound

TARGET_TYPES = ("heading", "block", "frontmatter")
SCOPES = ("content", "marker", "markerAndContent")


@dataclass(frozen=True, slots=True)
class Target:
    kind: str  # one of TARGET_TYPES once validated
    heading: tuple[str, ...] = ()
    name: str = ""  # block id or frontmatter key

    @classmethod
    def from_segments(cls, kind: str, rest: Sequence[str]) -> Target:
        if kind == "heading":
            parts = list(rest)
            if parts and parts[-1] == "":
                parts.pop()  # a trailing slash
            return cls(kind, heading=tuple(parts))
        return cls(kind, name=rest[0] if rest else "")

    @property
    def is_empty(self) -> bool:
        return not (self.heading if self.kind == "heading" else self.name)


@dataclass(frozen=True, slots=True)
class TargetRead:
    value: Any  # text for markdown answers, any JSON value for JSON answers
    is_json: bool


def split_url_target(vault: Vault, segments: Sequence[str]) -> tuple[str, Target] | None:
    """Walk back to the longest prefix of ``segments`` that is a file; the rest is a target."""
    for i in range(len(segments) - 1, 0, -1):
        head = segments[:i]
        if any("/" in segment for segment in head):
            continue
        candidate = "/".join(head)
        if vault.on_disk(candidate) == "file":  # the adapter, hidden files included
            return candidate, Target.from_segments(segments[i], segments[i + 1 :])
    return None


def read_target(
    text: str, target: Target, *, engine: int, scope: str = "content", strict_yaml: bool = False
) -> TargetRead:
    """The targeted part of ``text``; NotFound when the note has no such target."""
    if target.kind == "heading":
        return _read_heading(text, target.heading, engine=engine, scope=scope)
    if target.kind == "block":
        return _read_block(text, target.name, scope=scope if engine == 2 else "content")
    return _read_frontmatter(
        text, target.name, scope=scope if engine == 2 else "content", strict=strict_yaml
    )


def _not_found(target: str) -> NotFound:
    return NotFound(target=target)


# --- headings -------------------------------------------------------------------------------


def heading_addresses(headings: Sequence[markdown.Heading]) -> list[tuple[str, ...]]:
    """Each heading's 2.x address: later same-text siblings carry DUPLICATE_MARKER suffixes,
    exactly as ``markdown.heading_tree`` keys them."""
    addresses: list[tuple[str, ...]] = []
    stack: list[tuple[int, tuple[str, ...]]] = []  # (level, address) of open ancestors
    taken: dict[tuple[str, ...], set[str]] = {}  # parent address -> sibling keys in use
    for heading in headings:
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        parent = stack[-1][1] if stack else ()
        siblings = taken.setdefault(parent, set())
        key = heading.text
        while key in siblings:
            key += markdown.DUPLICATE_MARKER
        siblings.add(key)
        address = (*parent, key)
        addresses.append(address)
        stack.append((heading.level, address))
    return addresses


def _read_heading(text: str, wanted: tuple[str, ...], *, engine: int, scope: str) -> TargetRead:
    headings = markdown.parse_headings(text)
    if engine == 1:
        # markdown-patch 1.x keys its map by path: the last of identical paths wins
        found = next((h for h in reversed(headings) if h.path == wanted), None)
        if found is None:
            raise _not_found("::".join(wanted))
        return TargetRead(markdown.section_text(text, found), is_json=False)
    addresses = heading_addresses(headings)
    found = next((h for h, a in zip(headings, addresses, strict=True) if a == wanted), None)
    if found is None:
        raise _not_found("::".join(wanted))
    if scope == "marker":
        return TargetRead(found.text, is_json=False)
    inner = [h for h in headings if found.body_start <= h.start < found.end]
    if scope == "markerAndContent":
        body = _shift_levels(text, found.body_start, found.end, inner, found.level - 1)
        return TargetRead(f"# {found.text}\n{body}", is_json=False)
    body = _shift_levels(text, found.body_start, found.end, inner, found.level)
    return TargetRead(body, is_json=False)


def _shift_levels(
    text: str, start: int, end: int, inner: Sequence[markdown.Heading], by: int
) -> str:
    """``text[start:end]`` with every heading in ``inner`` raised ``by`` levels."""
    pieces: list[str] = []
    cursor = start
    for heading in inner:
        hashes = text.index("#", heading.start)
        pieces.append(text[cursor:hashes])
        pieces.append("#" * (heading.level - by))
        cursor = hashes + heading.level
    pieces.append(text[cursor:end])
    return "".join(pieces)


# --- blocks and frontmatter -----------------------------------------------------------------


def _read_block(text: str, block_id: str, *, scope: str) -> TargetRead:
    try:
        start, end = markdown.find_block(text, block_id)
    except SectionNotFound:
        raise _not_found(f"^{block_id}") from None
    if scope == "marker":
        return TargetRead(block_id, is_json=False)
    if scope == "markerAndContent":
        marker = text.find(f"^{block_id}", end)
        return TargetRead(text[start : marker + len(block_id) + 1], is_json=False)
    return TargetRead(text[start:end], is_json=False)


def _read_frontmatter(text: str, key: str, *, scope: str, strict: bool) -> TargetRead:
    frontmatter = markdown.parse_frontmatter(text)
    if strict and not frontmatter.valid:
        raise InvalidFrontmatter()
    if key not in frontmatter.data:
        raise _not_found(key)
    value = frontmatter.data[key]
    if scope == "marker":
        return TargetRead(key, is_json=False)
    if scope == "markerAndContent":
        return TargetRead({key: value}, is_json=True)
    return TargetRead(value, is_json=True)
