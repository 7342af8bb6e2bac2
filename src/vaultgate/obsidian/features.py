"""What each Local REST API version can do, from the plugin's own changelog (NOTES.md §0, §7).

The client reads ``versions.self`` from ``GET /`` once and asks this table before it uses a
feature, so a missing feature is a clear message instead of a puzzling 404.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vaultgate.errors import FeatureUnavailable


@dataclass(frozen=True, order=True, slots=True)
class Version:
    major: int
    minor: int
    patch: int

    @classmethod
    def parse(cls, text: str) -> Version:
        """'5.1.0' → Version(5, 1, 0); tolerant of suffixes such as '5.1.0-beta.2'."""
        match = re.match(r"\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?", text)
        if match is None:
            raise ValueError(f"not a version: {text!r}")
        major, minor, patch = (int(part or 0) for part in match.groups())
        return cls(major, minor, patch)

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"


@dataclass(frozen=True, slots=True)
class Feature:
    name: str
    description: str
    since: Version | None = None  # first version that has it
    until: Version | None = None  # first version that no longer has it
    instead: str = ""  # what to do on versions without it

    def available_in(self, version: Version) -> bool:
        if self.since is not None and version < self.since:
            return False
        return not (self.until is not None and version >= self.until)

    def requirement(self) -> str:
        parts = []
        if self.since is not None:
            parts.append(f">= {self.since}")
        if self.until is not None:
            parts.append(f"< {self.until}")
        return " and ".join(parts) or "any version"


def _v(text: str) -> Version:
    return Version.parse(text)


# The oldest plugin version vaultgate supports. Users run 3.x to 5.x; vaultgate adapts to each
# (this table, the PATCH format per version) and its emulator and tests cover them. 2.x and
# older predate that work: nothing there is tested, so `vaultgate doctor` fails on them.
MIN_PLUGIN_VERSION = Version(3, 0, 0)

FEATURES: tuple[Feature, ...] = (
    Feature(
        "dataview_search",
        "Dataview DQL in POST /search/",
        since=_v("1.4.0"),
        until=_v("4.0.0"),
        instead=(
            'Use queryType=jsonlogic, e.g. {"in": ["project", {"var": "tags"}]} or '
            '{"glob": ["Projects/**", {"var": "path"}]}.'
        ),
    ),
    Feature("filename_search", "simple search also matches file names", since=_v("3.3.0")),
    Feature(
        "document_map",
        "document map (headings, blocks, frontmatter keys)",
        since=_v("3.4.0"),
        instead="vaultgate builds the map from the note's markdown instead.",
    ),
    Feature("tags", "GET /tags/", since=_v("3.5.0")),
    Feature("targeted_read", "read a heading/block/frontmatter key by URL", since=_v("3.6.0")),
    # 3.6.x and 4.x take a PATCH's whole decoded path as the file's ('note.md/heading/A')
    Feature("targeted_patch", "PATCH a heading/block/frontmatter key by URL", since=_v("5.0.0")),
    Feature("links", "links and backlinks in note JSON", since=_v("4.0.0")),
    Feature("move", "MOVE a file (links updated)", since=_v("4.1.0")),
    Feature("copy", "COPY a file", since=_v("5.0.0")),
    Feature("trash_delete", "DELETE moves to Obsidian's trash unless permanent", since=_v("5.0.0")),
    Feature("patch_v2", "JSON-instruction PATCH is the default", since=_v("5.0.0")),
    Feature("unresolved_links", "unresolvedLinks in note JSON", since=_v("5.0.0")),
    Feature(
        "periodic_notes",
        "/periodic/ daily, weekly, monthly, quarterly, yearly notes",
        until=_v("5.0.2"),
        instead=(
            "The plugin removed its /periodic/ routes in 5.0.2; read or write the periodic "
            "note by its vault path instead."
        ),
    ),
    Feature(
        "periodic_dated",
        "/periodic/{period}/{year}/{month}/{day}/ for any date",
        since=_v("3.1.0"),
        until=_v("5.0.2"),
        instead="Leave the date out for the current period, or use the note's vault path.",
    ),
)

# Versions whose JsonLogic search scans every note's links for each note it describes: a
# search over N notes costs N^2 link checks there (150 s on 20,000 notes).
QUADRATIC_SEARCH = (Version(4, 0, 0), Version(4, 0, 3))


def quadratic_search(version: Version) -> bool:
    low, high = QUADRATIC_SEARCH
    return low <= version < high


FEATURES_BY_NAME = {feature.name: feature for feature in FEATURES}


@dataclass(frozen=True, slots=True)
class FeatureSet:
    """The features of one running plugin version."""

    version: Version

    def has(self, name: str) -> bool:
        return FEATURES_BY_NAME[name].available_in(self.version)

    def require(self, name: str, *, action: str) -> None:
        """Raise FeatureUnavailable naming the version range ``action`` needs."""
        feature = FEATURES_BY_NAME[name]
        if feature.available_in(self.version):
            return
        # Name the bound this version misses: "< 4.0.0" for a removed feature, ">= 3.5.0" for
        # one that came later.
        if feature.since is not None and self.version < feature.since:
            needed = f">= {feature.since}"
        else:
            needed = f"< {feature.until}"
        message = f"{action} needs Local REST API {needed}; you run {self.version}."
        if feature.instead:
            message += f" {feature.instead}"
        raise FeatureUnavailable(name, message)

    def table(self) -> dict[str, bool]:
        return {feature.name: feature.available_in(self.version) for feature in FEATURES}
