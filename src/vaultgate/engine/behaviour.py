"""What the emulated plugin version does, in one place (NOTES.md §0 version table).

Named features that the client also cares about come from ``obsidian/features.py``; the
rest are details of how a version answers (sort order, error codes, ...), read by the engine
and by the emulator's HTTP face.
"""

from __future__ import annotations

from dataclasses import dataclass

from vaultgate.obsidian.features import FeatureSet, Version


def _v(text: str) -> Version:
    return Version.parse(text)


@dataclass(frozen=True, slots=True)
class Behaviour:
    version_text: str
    version: Version

    @classmethod
    def for_version(cls, text: str) -> Behaviour:
        return cls(text, Version.parse(text))

    @property
    def features(self) -> FeatureSet:
        return FeatureSet(self.version)

    def at_least(self, text: str) -> bool:
        return self.version >= _v(text)

    # --- identity ---------------------------------------------------------------------------

    @property
    def plugin_name(self) -> str:
        """The display name (and settings-tab title): renamed in 4.0.0 and again in 4.1.1."""
        if self.at_least("4.1.1"):
            return "Local REST API with MCP"
        if self.at_least("4.0.0"):
            return "Local REST API & MCP Server"
        return "Local REST API"

    @property
    def min_app_version(self) -> str:
        """``minAppVersion`` of the manifest.json shipped at each tag."""
        if self.at_least("5.1.0") or (self.at_least("5.0.0") and not self.at_least("5.0.2")):
            return "1.13.1"
        if self.at_least("5.0.2"):
            return "1.8.7"
        return "1.4.0" if self.at_least("4.0.1") else "0.12.0"

    @property
    def serves_openapi(self) -> bool:
        """3.2.0+: ``GET /openapi.yaml`` serves the plugin's spec, without the key."""
        return self.at_least("3.2.0")

    @property
    def openapi_version(self) -> str:
        """The OpenAPI version its spec declares: 3.0.2 on 3.x, 3.2.0 from 4.0."""
        return "3.2.0" if self.at_least("4.0.0") else "3.0.2"

    @property
    def mcp_manifest(self) -> bool:
        """4.0+ describes itself as an MCP server and names the author's new site."""
        return self.at_least("4.0.0")

    @property
    def cors_methods(self) -> str:
        """What a CORS preflight allows: cors()'s default list, plus MOVE (4.1.0) and COPY (5.0)."""
        methods = ["GET", "HEAD", "PUT", "PATCH", "POST", "DELETE"]
        methods += ["MOVE"] if self.move else []
        methods += ["COPY"] if self.copy else []
        return ",".join(methods)

    # --- paths and listing ------------------------------------------------------------------

    @property
    def segment_decoding(self) -> bool:
        """5.0+: each URL segment is decoded alone, so ``%2F`` is not a separator. 4.1.3-4.1.7
        decode the whole path at once (``dir%2Fa.md`` is ``dir/a.md``) and only then refuse
        a path outside the vault."""
        return self.at_least("5.0.0")

    @property
    def subdocument_paths(self) -> bool:
        """3.6.0+: ``/vault/dir`` lists, ``note.md/`` is the note, URL targets resolve."""
        return self.features.has("targeted_read")

    @property
    def url_targeted_patch(self) -> bool:
        """5.0+: a PATCH to ``note.md/heading/A`` patches that heading; before, the whole path
        is the file's (404, or a header check's 400 first on 4.x)."""
        return self.features.has("targeted_patch")

    @property
    def empty_root_lists(self) -> bool:
        """3.6.1+: an empty vault lists as ``{"files": []}`` instead of 404."""
        return self.at_least("3.6.1")

    # --- representations --------------------------------------------------------------------

    @property
    def document_map(self) -> bool:
        return self.features.has("document_map")

    @property
    def markdown_patch_2(self) -> bool:
        """5.0+: 2.x document map, relative heading levels, Markdown-Patch-Version header."""
        return self.features.has("patch_v2")

    @property
    def links(self) -> bool:
        return self.features.has("links")

    @property
    def unresolved_links(self) -> bool:
        return self.features.has("unresolved_links")

    @property
    def string_tags_only(self) -> bool:
        """4.0.1+: note JSON lists only the string items of a ``tags`` list (3.x: each truthy
        item as JavaScript prints it)."""
        return self.at_least("4.0.1")

    @property
    def waits_for_metadata_cache(self) -> bool:
        """3.4.3+: note JSON waits for Obsidian's metadata cache, which never describes a
        file that is not markdown: such a read answers after the 5 s timeout."""
        return self.at_least("3.4.3")

    @property
    def frontmatter_errors(self) -> bool:
        """4.1.5+: unparseable frontmatter is a 400 ``40005`` where a map is needed."""
        return self.at_least("4.1.5")

    # --- search -----------------------------------------------------------------------------

    @property
    def filename_search(self) -> bool:
        return self.features.has("filename_search")

    @property
    def search_descending(self) -> bool:
        """4.0+ sorts simple-search results best first; 3.x sorted ascending."""
        return self.at_least("4.0.0")

    @property
    def search_requires_query(self) -> bool:
        """3.3.0+: a simple search without exactly one ``query`` is 400 ``40090``."""
        return self.at_least("3.3.0")

    @property
    def context_length_default(self) -> bool:
        """3.4.3+: a missing contextLength means 100 (before, contexts came back empty)."""
        return self.at_least("3.4.3")

    @property
    def whole_character_contexts(self) -> bool:
        """Fixed after 5.1.0: contexts no longer start or end inside a surrogate pair."""
        return self.version > _v("5.1.0")

    @property
    def dataview(self) -> bool:
        return self.features.has("dataview_search")

    @property
    def distinct_content_type_errors(self) -> bool:
        """3.3.0+: a missing Content-Type is 40011, an unknown one 40012 (before: 40011 for
        both; 40012 did not exist)."""
        return self.at_least("3.3.0")

    @property
    def worded_for_5(self) -> bool:
        """5.0+ reworded 40054, 40059, 42200 and 40020 and adds where a bad target came
        from; before, those answers are the 4.x canned sentence alone."""
        return self.at_least("5.0.0")

    @property
    def lazy_content(self) -> bool:
        """4.0.3+: JsonLogic reads note content only if the query mentions "content"."""
        return self.at_least("4.0.3")

    @property
    def backlinks_index(self) -> bool:
        """4.0.3+ builds the backlinks index once per request; 4.0.0-4.0.2 scan every note's
        links for each note they describe."""
        return self.at_least("4.0.3")

    @property
    def tags(self) -> bool:
        return self.features.has("tags")

    # --- writes -----------------------------------------------------------------------------

    @property
    def move(self) -> bool:
        return self.features.has("move")

    @property
    def copy(self) -> bool:
        return self.features.has("copy")

    @property
    def trash_delete(self) -> bool:
        """5.0+: DELETE moves to the trash unless ``?permanent=true``."""
        return self.features.has("trash_delete")

    @property
    def caught_handler_errors(self) -> bool:
        """4.0+ answers 500 when a handler fails; 3.x's async handlers left it unanswered."""
        return self.at_least("4.0.0")

    @property
    def reject_if_preexists(self) -> bool:
        """4.0+: ``Reject-If-Content-Preexists`` (off by default) replaced 3.x's
        ``Apply-If-Content-Preexists`` (guard on by default); ``Target-Scope`` arrived too."""
        return self.at_least("4.0.0")

    @property
    def strict_patch_content_type(self) -> bool:
        """3.6.1+: a 1.x PATCH body must be exactly text/markdown or application/json."""
        return self.at_least("3.6.1")

    @property
    def heading_patch(self) -> bool:
        """Below 4.0.1: a PATCH with a ``Heading`` header and no ``Target-Type`` is the
        deprecated 2.x format (insert under that heading), not the header-driven one."""
        return not self.at_least("4.0.1")

    @property
    def heading_patch_deprecation(self) -> bool:
        """3.0.2+ answers that PATCH with ``Deprecation: true; sunset-version="4.0"``."""
        return self.at_least("3.0.2")

    @property
    def headers_before_file(self) -> bool:
        """4.0+ validates the 1.x PATCH headers before looking the file up (3.x: file first)."""
        return self.at_least("4.0.0")

    # --- periodic notes ---------------------------------------------------------------------

    @property
    def periodic(self) -> bool:
        """/periodic/ routes exist below 5.0.2."""
        return self.features.has("periodic_notes")

    @property
    def periodic_dates(self) -> bool:
        """3.1.0+: /periodic/{period}/{year}/{month}/{day}/."""
        return self.periodic and self.at_least("3.1.0")
