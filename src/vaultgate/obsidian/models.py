"""The shapes of the Local REST API's JSON answers, validated where they enter.

Only the fields vaultgate reads are declared; unknown fields are ignored, because every plugin
release adds some (``apiExtensions`` grew ``routes``, 6.x adds ``state`` to ``GET /``).
"""

from __future__ import annotations

import re
from typing import (
    Any,
    NotRequired,  # pydantic needs this TypedDict on 3.11
)

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from typing_extensions import TypedDict

from vaultgate.markdown import DocumentMap


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class Versions(_Answer):
    obsidian: str = ""
    plugin: str = Field(alias="self")


class CertificateInfo(_Answer):
    validity_days: float | None = Field(default=None, alias="validityDays")


class RootAnswer(_Answer):
    """``GET /``: the keys past ``versions`` are sent only when the key was accepted."""

    service: str = ""
    authenticated: bool = False
    versions: Versions
    certificate_info: CertificateInfo | None = Field(default=None, alias="certificateInfo")
    api_extensions: list[Any] = Field(default_factory=list, alias="apiExtensions")

    def extension_names(self) -> list[str]:
        """Each extension's id (else its name): 3.x lists manifests, 5.x nests one."""
        names: list[str] = []
        for entry in self.api_extensions:
            if isinstance(entry, str):
                names.append(entry)
                continue
            if not isinstance(entry, dict):
                continue
            manifest = entry.get("manifest")
            for source in (entry, manifest if isinstance(manifest, dict) else {}):
                name = source.get("id") or source.get("name")
                if isinstance(name, str) and name:
                    names.append(name)
                    break
        return names


class DirectoryAnswer(_Answer):
    files: list[str]


class TagsAnswer(_Answer):
    tags: list[dict[str, Any]]


class SmartSearchAnswer(_Answer):
    results: list[dict[str, Any]]


class Command(_Answer):
    id: str
    name: str


class CommandsAnswer(_Answer):
    """``GET /commands/``: every command Obsidian has registered, core and plugins."""

    commands: list[Command]


class DocumentMapAnswer(_Answer):
    """1.x: ``headings`` is a list of ``A::B`` paths; 5.x: a nested tree of heading texts."""

    headings: list[str] | dict[str, Any] = Field(default_factory=list)
    blocks: list[str] = Field(default_factory=list)
    frontmatter_fields: list[str] = Field(default_factory=list, alias="frontmatterFields")
    version: str | None = None  # 5.x: the ifMatch token of the content mapped

    def normalised(self) -> DocumentMap:
        if isinstance(self.headings, list):
            headings = list(self.headings)
        else:
            # the 1.x map is keyed by path, so a repeated path is listed once there too
            headings = list(dict.fromkeys(_flatten(self.headings, None)))
        blocks = list(
            dict.fromkeys(strip_duplicate_marker(b).removeprefix("^") for b in self.blocks)
        )
        return DocumentMap(
            headings=headings,
            blocks=blocks,
            frontmatter_fields=list(self.frontmatter_fields),
            version=self.version,
        )


class SimpleSpan(TypedDict):
    start: int  # UTF-16 offsets, as Obsidian counts
    end: int
    source: NotRequired[str]  # "content" or "filename" (4.0+)


class SimpleMatch(TypedDict):
    match: SimpleSpan
    context: str


class SimpleHit(TypedDict):
    """One note of a simple search; the spec requires only what a match needs."""

    filename: str
    score: NotRequired[float]
    matches: NotRequired[list[SimpleMatch]]


class StructuredRow(TypedDict):
    """One note of a JsonLogic or Dataview search: what the query returned for it."""

    filename: str
    result: NotRequired[Any]


SIMPLE_RESULTS: TypeAdapter[list[SimpleHit]] = TypeAdapter(list[SimpleHit])
STRUCTURED_RESULTS: TypeAdapter[list[StructuredRow]] = TypeAdapter(list[StructuredRow])
NOTE_JSON: TypeAdapter[dict[str, Any]] = TypeAdapter(dict[str, Any])
JSON_OBJECT: TypeAdapter[dict[str, Any]] = NOTE_JSON  # any JSON object, e.g. a template result

# A repeated sibling heading (or block id) is keyed with an invisible suffix so each occurrence
# stays addressable. markdown-patch 2.0 appends U+FC750 and the repeat index in hex, one digit
# per code point U+F6440..U+F644F; vaultgate's emulator (markdown.heading_tree) appends U+2063
# once per repeat. Both are stripped, so paths read like the note's own heading text.
_DUPLICATE_SUFFIX = re.compile("(?:\U000fc750[\U000f6440-\U000f644f]+|\u2063+)$")


def strip_duplicate_marker(key: str) -> str:
    return _DUPLICATE_SUFFIX.sub("", key)


def _flatten(tree: dict[str, Any], parent: str | None) -> list[str]:
    """The nested heading tree as full ``::`` paths, in document order."""
    paths: list[str] = []
    for key, children in tree.items():
        text = strip_duplicate_marker(key)
        path = text if parent is None else f"{parent}::{text}"
        paths.append(path)
        if isinstance(children, dict):
            paths.extend(_flatten(children, path))
    return paths
